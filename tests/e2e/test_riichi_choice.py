"""Riichi with several possible discards (singapore): one "Riichi…" button in the DM; its
press turns the controls into the tiles that may be discarded with Riichi and "Cancel", in the
interaction's callback (no request outside it, nothing stored); a tile declares Riichi with
it. A hand can have a dozen Riichi discards: as buttons of their own beside the discards they
did not fit Discord's five rows, and the last ones were cut (CI run 12 of issue 16)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.rules.game import Riichi
from bot.rules.game.engine import legal_actions
from bot.service.tables import lobby
from tests.e2e.checks import check_privacy, events_of, recording_images
from tests.e2e.harness import open_table, recording_states, start_bot, wait_until
from tests.e2e.players import move_buttons

# A wall (found by search) whose first deal gives alice (East) two tiles to discard with Riichi.
SEED = "riichi-3852"
UPDATE_MESSAGE = 7  # the callback type that edits the clicked message in place


def controls(message: Any) -> dict[tuple[str, int | None], str]:
    return {(verb, tile): cid for cid, verb, tile, _ in move_buttons(message)}


def buttons_of(message: Any) -> list[dict[str, Any]]:
    out = []
    stack = list(message.components)
    while stack:
        c = stack.pop(0)
        if c.get("type") == 2:
            out.append(c)
        stack[:0] = c.get("components", [])
    return out


@pytest.mark.slow
async def test_riichi_with_several_discards_is_one_button_then_a_choice(
    fake_discord, discord_world, run_bot, tmp_path, monkeypatch
) -> None:
    w = discord_world
    monkeypatch.setattr(lobby.secrets, "token_hex", lambda n=16: SEED)
    with recording_states() as states, recording_images() as images:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, w.alice, computer_players=3, rules="singapore", hands=1)
        tables = bot.services.tables
        table = tables.get(opened.table_id)
        assert table.seat_of_user(w.alice.id) == 0, "the seed's riichi is East's"
        riichi = sorted(a.tile for a in legal_actions(table.state, 0) if isinstance(a, Riichi))
        assert len(riichi) == 2, riichi

        def dm_with(key: tuple[str, int | None]) -> Any:
            dms = [m for m in w.alice.dm_messages() if not m.deleted]
            return dms[-1] if dms and key in controls(dms[-1]) else None

        await wait_until(lambda: dm_with(("riichi", None)), 30, "alice's turn with Riichi…")
        dm = dm_with(("riichi", None))
        shown = controls(dm)
        assert not [k for k in shown if k[0] == "riichi" and k[1] is not None], shown
        assert len(buttons_of(dm)) <= 25
        (label,) = [b["label"] for b in buttons_of(dm) if b["custom_id"].endswith(":riichi")]
        assert label == "Riichi…"
        assert "declare Riichi" in dm.content
        edits = len(dm.history)
        before = len(fake_discord.requests)
        db = tmp_path / "db.sqlite3"
        stored = len(events_of(db, opened.table_id))

        # Riichi…: the same message now asks which tile, offering exactly the Riichi discards.
        handle = await w.alice.click(dm, shown[("riichi", None)])
        assert await handle.ack() == UPDATE_MESSAGE
        choice = controls(dm)
        assert set(choice) == {("riichi", t) for t in riichi} | {("back", None)}, choice
        assert "which tile do you discard?" in dm.content
        assert dm.attachments, "the picture of the hand stays"
        assert len(dm.history) == edits + 1
        # Nothing outside the interaction's callback, nothing stored.
        assert len(fake_discord.requests) == before + 1, fake_discord.requests[before:]
        assert len(events_of(db, opened.table_id)) == stored

        # Cancel: the usual controls again.
        handle = await w.alice.click(dm, choice[("back", None)])
        assert await handle.ack() == UPDATE_MESSAGE
        assert controls(dm) == shown
        assert "which tile" not in dm.content
        assert len(events_of(db, opened.table_id)) == stored

        # Riichi… again, and a tile: Riichi is declared with that discard.
        await (await w.alice.click(dm, shown[("riichi", None)])).ack()
        tile = riichi[-1]
        handle = await w.alice.click(dm, controls(dm)[("riichi", tile)])
        assert await handle.ack() in (6, UPDATE_MESSAGE)

        def declared() -> list[dict[str, Any]]:
            events = events_of(db, opened.table_id)
            return [p for k, p in events if k == "action" and p.get("type") == "Riichi"]

        await wait_until(declared, 30, "alice's Riichi stored")
        assert declared() == [{"type": "Riichi", "seat": 0, "tile": tile}], declared()

        # The click is answered in the same message: the choice gives way to the next move.
        await wait_until(lambda: ("back", None) not in controls(dm), 30, "the choice replaced")
        assert "which tile" not in dm.content
        await tables.notifier.drain()

    (snapshots,) = states.games.values()
    checked = check_privacy(
        fake_discord,
        [w.alice],
        [w.channel, opened.place],
        opened.table_id,
        snapshots,
        {w.alice.id: 0},
        images,
    )
    assert checked["controls"] >= 3, checked
