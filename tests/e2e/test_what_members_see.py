"""What members see of a live table, from their own clients: the table stays at the bottom of
its thread at every deal however much is posted below it, the channel holds one table
message, every DM of a finished hand is left in a finished state that closes the loop, and a
member whose DMs are closed plays a whole game from the table's "My hand" button alone."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from tests.e2e.checks import check_privacy, recording_images, replay
from tests.e2e.harness import open_table, recording_states, standings_posted, start_bot
from tests.e2e.players import SimPlayer, move_buttons, play_all, seat_button

HAND_TITLE = re.compile(r"hand (\d+)$")
REVEAL_TITLE = re.compile(r"^Hand (\d+):")


def is_table(message: Any) -> bool:
    return any(a.filename == "table.png" for a in message.attachments)


def table_messages(user: Any, channel: Any) -> list[Any]:
    return [m for m in user.messages(channel) if is_table(m)]


def hand_shown(embeds: list[dict[str, Any]]) -> int | None:
    for e in embeds:
        match = HAND_TITLE.search(e.get("title") or "")
        if match:
            return int(match.group(1))
    return None


def first_showing(messages: list[Any]) -> dict[int, Any]:
    """For each deal, the table message that first showed it."""
    firsts: dict[int, tuple[str, Any]] = {}
    for m in messages:
        for version in [*m.history, m]:
            deal = hand_shown(version.embeds)
            when = version.edited_at or m.created_at
            if deal is not None and (deal not in firsts or when < firsts[deal][0]):
                firsts[deal] = (when, m)
    return {deal: m for deal, (_, m) in firsts.items()}


@pytest.mark.slow
async def test_the_table_stays_at_the_bottom_and_finished_hands_close_the_loop(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    members = [w.alice, w.bob]
    hands = 16  # a whole set of sixteen hands, with chat in between (issue 11)
    with recording_states() as states, recording_images() as images:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, w.alice, [w.bob], computer_players=2, hands=hands)
        place = opened.place  # the table's thread
        players = [SimPlayer(u, place) for u in members]
        chatted: set[int] = set()

        async def carol_chats() -> None:
            """Carol, not seated, says something once per deal she sees on the table."""
            while not standings_posted(w.carol, place):
                for m in table_messages(w.carol, place):
                    deal = hand_shown(m.embeds)
                    if deal is not None and deal not in chatted and not m.deleted:
                        chatted.add(deal)
                        await w.carol.say(place, f"nice hand {deal}, everyone")
                await asyncio.sleep(0.05)

        chat = asyncio.ensure_future(carol_chats())
        await play_all(players, lambda: standings_posted(w.alice, place), timeout=400)
        await chat
        await bot.services.tables.notifier.drain()

    table = replay(tmp_path / "db.sqlite3", opened.table_id)
    assert table.status == "finished" and len(table.state.results) == hands
    seen = w.carol.messages(place)
    reveals = {
        int(REVEAL_TITLE.match(e["title"]).group(1)): m
        for m in seen
        for e in m.embeds
        if REVEAL_TITLE.match(e.get("title") or "")
    }
    assert sorted(reveals) == list(range(1, hands + 1))
    # At every deal the table comes back below the reveal of the hand before (and the chat).
    # (Every table message carol saw, those deleted since included.)
    everything = fake_discord.channel(place).messages
    firsts = first_showing([m for m in everything if m.visible_to is None and is_table(m)])
    assert sorted(firsts) == list(range(1, hands + 1))
    for deal in range(2, hands + 1):
        assert firsts[deal].id > reveals[deal - 1].id, (
            f"hand {deal} was first shown above the reveal of hand {deal - 1}"
        )
    assert len(chatted) >= 2, "carol never chatted"
    # At most one new table message per deal (chat or not), besides the reveals.
    bot_id = fake_discord.state.bot_user.id
    ours = [m for m in everything if m.author.id == bot_id and m.visible_to is None]
    tables_posted = [m for m in ours if is_table(m)]
    assert len(tables_posted) <= hands + 1, len(tables_posted)
    others = [m for m in ours if not is_table(m) and m.id != opened.lobby.id]
    assert len(others) == hands + 1, [m.content or m.embeds[0].get("title") for m in others]
    # One table message in the channel at the end (each repost deleted the one before).
    assert len([m for m in table_messages(w.carol, place) if not m.deleted]) == 1
    # Every DM of a finished hand says so: who won, what you paid or collected, your total;
    # no old hand is left waiting, and no finished hand keeps buttons.
    for user in members:
        dms = [m for m in user.dm_messages() if not m.deleted and m.interaction_id is None]
        finished = [m for m in dms if "is over" in m.content]
        everything_dm = user.server.state.dm_channel(user.record, create=False).messages
        assert len(finished) == hands, [
            (m.id, m.deleted, [v.content.splitlines()[:2] for v in [*m.history, m]])
            for m in everything_dm
        ]
        for m in dms:
            assert "Waiting" not in m.content, m.content
            assert not m.custom_ids(), f"a finished hand's DM keeps buttons: {m.content!r}"
            assert "Your total" in m.content, m.content
        assert "The game is over" in dms[-1].content and "you finished" in dms[-1].content
    # What alice's client showed, counted (printed with -s; the privacy check below fails on
    # any edit that changes nothing visible).
    dm_all = w.alice.server.state.dm_channel(w.alice.record, create=False).messages
    print(
        f"{hands} hands: {len(ours) - 1} channel messages, "
        f"{sum(len(m.history) for m in ours)} channel edits, "
        f"{sum(1 for m in dm_all if m.interaction_id is None)} DM messages, "
        f"{sum(len(m.history) for m in dm_all)} DM edits "
        f"({sum(1 for m in dm_all for v in m.history if v.replaced_by_interaction_id)} "
        "of them answers to clicks), 0 edits that change nothing visible"
    )
    # And nothing seen broke privacy, or was an edit to the same thing.
    (snapshots,) = states.games.values()
    seats = {u.id: table.seat_of(u.id) for u in members}
    check_privacy(
        fake_discord, members, [w.channel, place], opened.table_id, snapshots, seats, images
    )


class MyHandPlayer(SimPlayer):
    """A member who plays only from the private hand the table's "My hand" button opens:
    one press, then the buttons of that live message (and "Go on" if it asks for it)."""

    private: Any = None

    def table_message(self) -> Any | None:
        for m in reversed(self.user.messages(self.channel)):
            if not m.deleted and seat_button(m, "hand") and m.attachments:
                return m
        return None

    async def step(self) -> bool:
        if self.private is None or seat_button(self.private, "hand"):
            where = self.private if self.private is not None else self.table_message()
            if where is None:
                return False
            handle = await self.user.click(where, seat_button(where, "hand"))
            self.asked += 1
            message = await handle.reply()
            assert message.ephemeral and message.visible_to == self.user.id, message
            self.private = message
        return await self._act_on(self.private)


@pytest.mark.slow
async def test_a_member_with_closed_dms_plays_a_whole_game_from_my_hand(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    fake_discord.close_dms(w.bob)
    with recording_states() as states, recording_images() as images:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, w.alice, [w.bob], computer_players=2, hands=2)
        place = opened.place  # the table's thread
        bob = MyHandPlayer(w.bob, place)
        alice = SimPlayer(w.alice, place)
        await play_all([alice, bob], lambda: standings_posted(w.alice, place), timeout=120)
        await bot.services.tables.notifier.drain()

    table = replay(tmp_path / "db.sqlite3", opened.table_id)
    assert table.status == "finished" and len(table.state.results) == 2
    assert not w.bob.dm_messages()
    assert bob.asked == 1, "one press of My hand was enough for the whole game"
    assert len(bob.accepted) > 5 and not bob.refusals, bob.refusals
    # Bob typed no command: every interaction of his was a button.
    assert all(c.custom_id.startswith("mj:") for c in bob.clicks)
    # His private hand ended in the finished state of the last hand.
    assert "The game is over" in bob.private.content
    assert not move_buttons(bob.private)
    (snapshots,) = states.games.values()
    seats = {u.id: table.seat_of(u.id) for u in (w.alice, w.bob)}
    check_privacy(
        fake_discord,
        [w.alice, w.bob],
        [w.channel, place],
        opened.table_id,
        snapshots,
        seats,
        images,
    )
