"""Tables that are not four members: two members with two computer players, and the
three-player Pung Chow table with the dummy hand (three members, no computer)."""

from __future__ import annotations

import pytest

from tests.e2e.checks import (
    check_chips_commands,
    check_ledger,
    check_privacy,
    recording_images,
    replay,
)
from tests.e2e.harness import open_table, recording_states, standings_posted, start_bot
from tests.e2e.players import SimPlayer, play_all


async def _play(w, fake_discord, run_bot, tmp_path, members, **options):
    with recording_states() as states, recording_images() as images:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, members[0], members[1:], **options)
        place = opened.place
        players = [SimPlayer(u, place) for u in members]
        await play_all(players, lambda: standings_posted(w.alice, place), timeout=180)
        await bot.services.tables.notifier.drain()
    db = tmp_path / "db.sqlite3"
    table = replay(db, opened.table_id)
    assert table.status == "finished"
    facts = check_ledger(db, w.guild.id, opened.table_id)
    await check_chips_commands(w, facts, members)
    (snapshots,) = states.games.values()
    seats = {u.id: table.seat_of(u.id) for u in members}
    places = [w.channel, place]
    check_privacy(fake_discord, members, places, opened.table_id, snapshots, seats, images)
    for p in players:
        assert p.accepted, f"{p.user} never played"
        assert not p.refusals, f"{p.user} pressed the newest buttons and was refused: {p.refusals}"
    return table, facts


@pytest.mark.slow
async def test_two_members_and_two_computer_players(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    table, facts = await _play(
        w, fake_discord, run_bot, tmp_path, [w.alice, w.bob], computer_players=2, hands=2
    )
    assert [p["user_id"] is None for p in table.players] == [False, True, True, False]
    assert len(table.state.results) == 2
    # Computer players are ledger parties too (ids -1..-4 by seat), so every hand balances.
    computers = {
        -(s + 1) for s in range(4) if table.players[table.state.seating.seats[s]]["user_id"] is None
    }
    assert set(facts.table_net) <= computers | {w.alice.id, w.bob.id}


@pytest.mark.slow
async def test_three_members_with_the_dummy_hand(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    members = [w.alice, w.bob, w.carol]
    table, facts = await _play(
        w, fake_discord, run_bot, tmp_path, members, rules="pung-chow", hands=2
    )
    assert len(table.players) == 3 and all(p["user_id"] for p in table.players)
    assert table.state.occupied.count(False) == 1, "three players sit with one empty seat"
    dummy = table.state.occupied.index(False)
    assert table.ledger_id(dummy) is None
    assert set(facts.table_net) <= {u.id for u in members}
