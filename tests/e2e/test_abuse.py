"""Abuse: people pressing what is not theirs, stale and doubled clicks, a second table in a
channel, /settle nobody confirms, /mahjong config without Manage Server. Each is refused with
a short message only the presser sees, and changes nothing: the events, the ledger and the
settings are compared before and after."""

from __future__ import annotations

import asyncio
import sqlite3
from functools import partial
from pathlib import Path
from typing import Any

from fakediscord.client import InteractionHandle

from bot.rules.game import pending_seats
from bot.rules.tiles import tile_name
from tests.e2e.checks import database, events_of, replay
from tests.e2e.harness import lobby_id, open_table, start_bot, wait_until
from tests.e2e.players import move_buttons


def snapshot(db: Path) -> dict[str, Any]:
    """Everything a refusal must leave as it was."""
    with database(db) as conn:

        def rows(sql: str) -> list[tuple[Any, ...]]:
            try:
                return [tuple(r) for r in conn.execute(sql)]
            except sqlite3.OperationalError:
                return []

        return {
            "tables": rows(
                "SELECT id, status, COALESCE(summary_message_id, message_id) FROM tables "
                "ORDER BY id"
            ),
            "events": rows("SELECT table_id, seq, kind, payload FROM events ORDER BY id"),
            "ledger": rows("SELECT * FROM ledger ORDER BY id"),
            "settlements": rows("SELECT id, status, posted_at FROM settlements ORDER BY id"),
            "parties": rows("SELECT * FROM settlement_parties ORDER BY settlement_id, user_id"),
            "accounts": rows("SELECT * FROM accounts ORDER BY guild_id, user_id"),
            "results": rows("SELECT * FROM player_results ORDER BY id"),
            "names": rows("SELECT guild_id, user_id, display_name FROM player_names ORDER BY 1, 2"),
            "settings": rows("SELECT * FROM guild_settings ORDER BY guild_id"),
        }


async def refused(handle: InteractionHandle, user: Any, *words: str) -> str:
    """The answer was a new message only ``user`` sees, saying ``words``."""
    assert await handle.ack() == 4, f"expected a refusal, got callback {handle.callback_type}"
    reply = await handle.reply()
    assert reply.ephemeral and reply.visible_to == user.id, reply
    for word in words:
        assert word.lower() in reply.content.lower(), reply.content
    return reply.content


async def test_abuse_is_refused_and_changes_nothing(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    server = fake_discord
    db = tmp_path / "db.sqlite3"
    erin = server.create_user("erin")
    server.add_member(w.guild, erin)
    server.close_dms(w.carol)
    bot = await start_bot(run_bot, tmp_path)
    opened = await open_table(
        w, w.alice, [w.bob], start=False, turn_seconds=0, claim_seconds=120, hands=1
    )
    lobby = opened.lobby
    await wait_until(lambda: snapshot(db)["tables"][0][2], 5, "the lobby's message id stored")

    async def unchanged(action: Any, *words: str, user: Any) -> None:
        # What was already on its way (the table brought back below a closed-DM notice, with
        # its new message id) lands first: only the refusal's own effect is compared.
        await bot.services.tables.notifier.drain()
        before = snapshot(db)
        await refused(await action(), user, *words)
        await asyncio.sleep(0.05)
        assert snapshot(db) == before, "a refused action changed the database"

    # In the lobby: Start and Cancel by someone who is not the host.
    await unchanged(lambda: erin.click(lobby, lobby_id(lobby, "start")), "host", user=erin)
    await unchanged(lambda: erin.click(lobby, lobby_id(lobby, "cancel")), "host", user=erin)
    # A second table in the table's own thread (the channel takes one table per thread).
    place = opened.place
    await unchanged(lambda: w.carol.slash(place, "mahjong new"), "already", user=w.carol)
    # Join pressed twice at the same moment: one seat.
    before = len(events_of(db, opened.table_id))
    first, second = await asyncio.gather(
        w.carol.click(lobby, lobby_id(lobby, "join")), w.carol.click(lobby, lobby_id(lobby, "join"))
    )
    acks = sorted([await first.ack(), await second.ack()])
    assert acks == [4, 6], acks
    joins = events_of(db, opened.table_id)[before:]
    assert joins == [("join", {"user_id": w.carol.id, "name": "carol"})]
    await (await w.alice.click(lobby, lobby_id(lobby, "cpu"))).ack()
    assert await (await w.alice.click(lobby, lobby_id(lobby, "start"))).ack() == 6

    # Playing (the table waits for a member, so nothing else moves): joining late, a move
    # forged by someone not seated.
    members = [w.alice, w.bob, w.carol]
    table = replay(db, opened.table_id)
    seat_of = {u: table.seat_of(u.id) for u in members}

    async def hand_message(user: Any) -> Any | None:
        """The member's newest controls: their DM, or for carol (DMs closed) /mahjong hand."""
        if user is w.carol:
            return await (await user.slash(place, "mahjong hand")).reply()
        dms = [m for m in user.dm_messages() if m.interaction_id is None]
        return dms[-1] if dms else None

    async def pass_until_a_member_discards() -> tuple[Any, Any, list[Any]]:
        """Members pass every claim until one of them must discard; the table then waits
        for that member (no turn timer), so nothing moves by itself."""
        for _ in range(400):
            state = replay(db, opened.table_id).state
            for user in members:
                if seat_of[user] not in pending_seats(state):
                    continue
                message = await hand_message(user)
                buttons = move_buttons(message) if message is not None else []
                if not buttons or buttons[0][3] not in (state.move, state.move - 1):
                    continue
                if state.phase == "play" and seat_of[user] == state.turn:
                    # The table waits for this member now; let the DM settle first (a clicked
                    # message that showed the turn gives way to a new turn prompt).
                    await bot.services.tables.notifier.drain()
                    message = await hand_message(user)
                    buttons = move_buttons(message) if message is not None else []
                    discards = [b for b in buttons if b[1] == "discard"]
                    if discards and buttons[0][3] == state.move:
                        return user, message, discards
                passes = [b for b in buttons if b[1] == "pass"]
                if passes:
                    await (await user.click(message, passes[0][0])).ack()
            await asyncio.sleep(0.05)
        raise AssertionError("no member got to discard")

    user, dm, buttons = await pass_until_a_member_discards()
    cid = buttons[0][0]
    # Carol's DMs are closed: the channel tells her, with a "Show my hand" button. Someone
    # not seated pressing it is refused; another member pressing it sees their own hand.
    notice = await wait_until(
        lambda: next((m for m in w.alice.messages(place) if w.carol.mention in m.content), 0),
        5,
        "the closed-DM notice",
    )
    show = next(c for c in notice.custom_ids() if c.endswith(":seat:hand"))
    await unchanged(lambda: erin.click(notice, show), "not playing", user=erin)
    before = snapshot(db)
    mine = await (await w.bob.click(notice, show)).reply()
    assert mine.ephemeral and mine.visible_to == w.bob.id
    hand = replay(db, opened.table_id).state.seats[seat_of[w.bob]]
    tiles = sorted([*hand.concealed, *([hand.drawn] if hand.drawn is not None else [])])
    assert mine.attachment("seat.png").description == "Your hand: " + ", ".join(
        tile_name(t) for t in tiles
    )
    assert snapshot(db) == before

    # The same button pressed twice at the same moment: exactly one discard.
    before = len(events_of(db, opened.table_id))
    first, second = await asyncio.gather(user.click(dm, cid), user.click(dm, cid))
    acks = sorted([await first.ack(), await second.ack()])
    assert acks == [4, 6], acks
    await wait_until(lambda: len(events_of(db, opened.table_id)) > before, 5, "the discard")
    await asyncio.sleep(0.2)
    mine = [
        p
        for kind, p in events_of(db, opened.table_id)[before:]
        if kind == "action" and p.get("seat") == seat_of[user]
    ]
    assert mine == [{"type": "Discard", "seat": seat_of[user], "tile": buttons[0][2]}], mine

    # A stale button on a private hand (/mahjong hand), pressed after the move was made.
    user, dm, buttons = await pass_until_a_member_discards()
    private = await (await user.slash(place, "mahjong hand")).reply()
    assert private.ephemeral and private.visible_to == user.id
    assert {b[0] for b in move_buttons(private)} == {b[0] for b in buttons}
    assert await (await user.click(dm, buttons[-1][0])).ack() == 6
    before = len(events_of(db, opened.table_id))
    await refused(await user.click(private, buttons[-1][0]), user, "earlier move")
    await asyncio.sleep(0.1)
    assert not [
        p
        for kind, p in events_of(db, opened.table_id)[before:]
        if kind == "action" and p.get("seat") == seat_of[user]
    ], "a stale press moved the table"

    # Ending the table is the host's (or a manager's).
    await pass_until_a_member_discards()
    await unchanged(lambda: w.bob.slash(w.channel, "mahjong end"), "host", user=w.bob)

    # /settle that the other players have not confirmed counts nowhere, whatever the scores
    # (none at all included: issue 11's "5 wins, 100% win rate" from five of these); presses
    # by anyone but those players are refused.
    for scores in ({"east_score": "480", "south_score": "64"}, {}):
        before = snapshot(db)
        handle = await w.bob.slash(
            w.channel, "settle", winner=w.bob, east=w.bob, south=w.carol, **scores
        )
        proposal = await handle.reply()
        [ping] = await handle.followups(1)
        assert w.carol.mention in ping.content and w.bob.mention not in ping.content
        after = snapshot(db)
        for counted in ("ledger", "accounts", "results", "names"):
            assert after[counted] == before[counted], counted
        assert [s[1] for s in after["settlements"] if s not in before["settlements"]] == ["pending"]
        confirm = next(c for c in proposal.custom_ids() if c.endswith(":confirm"))
        cancel = next(c for c in proposal.custom_ids() if c.endswith(":cancel"))
        for who, verb, words in (
            (erin, confirm, "only the players"),
            (w.bob, confirm, "you proposed"),
            (w.dave, cancel, "only the players"),
        ):
            await unchanged(partial(who.click, proposal, verb), words, user=who)
        chips = await (await w.carol.slash(w.channel, "chips")).reply()
        assert chips.embeds[0]["title"] == "carol: 1,000 chips"
        stats = await (await w.bob.slash(w.channel, "stats")).reply()
        hands = next(f["value"] for f in stats.embeds[0]["fields"] if f["name"] == "Hands")
        assert hands == "0"
        board = await (
            await w.bob.slash(w.channel, "leaderboard", metric="wins", period="week")
        ).reply()
        assert "Nobody is ranked yet" in board.embeds[0]["description"]
        history = await (await w.carol.slash(w.channel, "history")).reply()
        assert "No hands yet" in history.embeds[0]["description"]

    # /mahjong config changes need Manage Server; looking is allowed.
    await unchanged(
        lambda: w.bob.slash(w.channel, "mahjong config", starting_chips=5), "manage", user=w.bob
    )
    await unchanged(
        lambda: w.bob.slash(w.channel, "mahjong config", allow_channel=w.channel),
        "manage",
        user=w.bob,
    )
    before = snapshot(db)
    shown = await (await w.bob.slash(w.channel, "mahjong config")).reply()
    assert shown.ephemeral and shown.embeds[0]["title"].startswith("Mahjong settings")
    assert snapshot(db) == before
    done = await (await w.alice.slash(w.channel, "mahjong config", claim_seconds=20)).reply()
    assert "20 s" in str(done.embeds[0])

    # The host ends the table: closed, and the ledger is whole.
    await (await w.alice.slash(w.channel, "mahjong end")).reply()
    assert replay(db, opened.table_id).status == "finished"
    await bot.services.tables.notifier.drain()
