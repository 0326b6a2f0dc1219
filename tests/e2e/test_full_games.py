"""Whole games of every rule set: four members, from ``/mahjong new`` to the final standings,
played only through what their Discord clients show. Every hand settles in the ledger, the
ledger balances, ``/chips`` and ``/leaderboard`` agree with it, and no member ever saw another
member's concealed tiles before the reveal."""

from __future__ import annotations

import pytest

from tests.e2e.checks import (
    check_chips_commands,
    check_ledger,
    check_privacy,
    recording_images,
    replay,
    standings_of,
)
from tests.e2e.harness import STANDINGS, open_table, recording_states, standings_posted, start_bot
from tests.e2e.players import SimPlayer, play_all

RULESETS = ["pung-chow", "pung-chow-limit", "filipino-16", "singapore"]


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULESETS)
async def test_four_members_play_a_whole_game(
    fake_discord, discord_world, run_bot, tmp_path, rules
) -> None:
    w = discord_world
    with recording_states() as states, recording_images() as images:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, w.alice, [w.bob, w.carol, w.dave], rules=rules, hands=2)
        place = opened.place
        players = [SimPlayer(u, place) for u in w.players]
        await play_all(players, lambda: standings_posted(w.alice, place), timeout=240)
        await bot.services.tables.notifier.drain()

    db = tmp_path / "db.sqlite3"
    table = replay(db, opened.table_id)
    assert table.status == "finished"
    # Two hands were asked for; a washed hand (pung-chow-limit, the members wash when they
    # may) is not a hand played (Pung Chow p.61, bot/rules/game/rounds.py), but is recorded.
    played = [r for r in table.state.results if r.kind != "washing"]
    assert len(played) == 2, "two hands were asked for"
    facts = check_ledger(db, w.guild.id, opened.table_id)
    assert facts.hands == len(table.state.results)

    # The standings say what the ledger moved at this table.
    (final,) = [
        m for m in w.alice.messages(place) if any(e.get("title") == STANDINGS for e in m.embeds)
    ]
    shown = standings_of(final)
    assert shown == {u.name: facts.table_net.get(u.id, 0) for u in w.players}
    await check_chips_commands(w, facts, w.players)
    # The standings end with each member's first rating (docs/ratings.md): more chips at the
    # table, a bigger gain (all four started equal).
    (rated,) = [f for e in final.embeds for f in e.get("fields", []) if f["name"] == "Ratings"]
    delta = {}
    for line in rated["value"].splitlines():
        name, _, rest = line.partition(": ")
        delta[name] = int(rest.split("(")[1].split(")")[0])
    assert set(delta) == set(shown)
    for a in shown:
        for b in shown:
            if shown[a] > shown[b]:
                assert delta[a] > delta[b], (shown, delta)

    (snapshots,) = states.games.values()
    seats = {u.id: table.seat_of(u.id) for u in w.players}
    checked = check_privacy(
        fake_discord, w.players, [w.channel, place], opened.table_id, snapshots, seats, images
    )
    assert checked["images"] > 20 and checked["controls"] > 20, checked
    for p in players:
        assert p.accepted, f"{p.user} never played"
        assert not p.refusals, f"{p.user} pressed the newest buttons and was refused: {p.refusals}"
