"""Seating, the first East, the wind box and the rounds (Pung Chow p.13, p.57-59, p.61;
filipino-16 "Formalities of Opening the Game")."""

from __future__ import annotations

import itertools

import pytest

from bot.players import decide
from bot.rules.game import (
    GAME_OVER,
    HAND_OVER,
    HandResult,
    NextHand,
    apply,
    legal_actions,
    new_game,
    pending_seats,
    view,
)
from bot.rules.game.rounds import Box, advance, is_over
from bot.rules.game.seating import seat_players
from bot.rules.game.state import TableConfig
from bot.rules.rulesets import get_ruleset

OCCUPIED = (True, True, True, True)


def result(kind: str, winner: int | None, dealer: int) -> HandResult:
    return HandResult(
        number=1, kind=kind, dealer=dealer, round_wind=0, winds=(0, 1, 2, 3), winner=winner
    )


def test_the_highest_throw_is_east_and_ties_throw_again() -> None:
    """p.13: "the one throwing the highest number becoming first East Wind. In the event of a
    tie, players tieing throw again"."""
    tied = None
    for seed in range(200):
        record = seat_players(4, seed)
        if len(record.throws) > 4:
            tied = record
            break
    assert tied is not None
    first = {p: sum(d) for p, d in tied.throws[:4]}
    best = max(first.values())
    rethrown = [p for p, _ in tied.throws[4:]]
    assert set(rethrown) <= {p for p, total in first.items() if total == best}
    east = tied.seats[0]
    assert east in rethrown
    # The others keep their chairs: the player on East's right is South, and so on.
    assert tied.seats == tuple((east + i) % 4 for i in range(4))


def test_three_and_two_players_have_dummies() -> None:
    """p.76: the fourth side is the dummy; two players each build two sides."""
    three = seat_players(3, 4)
    assert sorted(p for p in three.seats if p is not None) == [0, 1, 2]
    assert three.seats[0] is not None and three.seats.count(None) == 1
    two = seat_players(2, 4)
    empty = [s for s, p in enumerate(two.seats) if p is None]
    assert len(empty) == 2 and (empty[1] - empty[0]) == 2  # the players sit opposite


def test_the_wind_box_procedure_for_the_limit_game() -> None:
    """p.57-58: the indicators are drawn; "the one drawing the East Wind indicator becomes East
    Wind ... The remaining three players seat themselves ... according to their draw"."""
    record = seat_players(4, 9, wind_box=True)
    assert record.method == "wind-box"
    assert sorted(record.seats) == [0, 1, 2, 3]
    assert sorted(record.indicators) == [0, 1, 2, 3]
    for wind, player in zip(record.indicators, record.takers, strict=True):
        assert record.seats[wind] == player
    assert record.box_at is not None and 0 <= record.box_at < 4
    state = new_game("pung-chow-limit", seed=9)
    assert state.seating.method == "wind-box"


def test_east_keeps_the_deal_after_a_win_or_a_draw_and_passes_it_after_a_loss() -> None:
    """p.13: "if the player representing East Wind wins, or if the game is a draw, he remains
    East Wind. If he loses, the player to his right becomes East Wind"."""
    box = Box(0, 0, 0, 0, 0)
    assert advance(box, result("mahjong", 0, 0), OCCUPIED).dealer == 0
    assert advance(box, result("draw", None, 0), OCCUPIED).dealer == 0
    assert advance(box, result("washing", None, 0), OCCUPIED).dealer == 0  # p.61
    assert advance(box, result("mahjong", 2, 0), OCCUPIED).dealer == 1
    # With a dummy in seat 1 the box skips it.
    assert advance(box, result("mahjong", 2, 0), (True, False, True, True)).dealer == 2


def test_the_wind_box_across_a_whole_set() -> None:
    """p.58-59: four games make a round, four rounds a set, each round commencing from the
    original East."""
    box = Box(0, 0, 0, 0, 0)
    seen = []
    for hand in range(16):
        seen.append((box.dealer, box.round_wind))
        box = advance(box, result("mahjong", (box.dealer + 1) % 4, box.dealer), OCCUPIED)
        box = Box(box.dealer, box.round_wind, box.sets_done, hand + 1, box.renchon)
    assert seen == [(d, r) for r in range(4) for d in range(4)]
    assert (box.dealer, box.round_wind, box.sets_done) == (0, 0, 1)
    config = TableConfig("pung-chow", get_ruleset("pung-chow").options(), sets=1)
    assert is_over(box, config)


def test_renchon_counts_easts_consecutive_wins() -> None:
    box = Box(0, 0, 0, 0, 0)
    box = advance(box, result("mahjong", 0, 0), OCCUPIED)
    box = advance(box, result("mahjong", 0, 0), OCCUPIED)
    assert box.renchon == 2
    assert advance(box, result("draw", None, 0), OCCUPIED).renchon == 2
    assert advance(box, result("mahjong", 3, 0), OCCUPIED).renchon == 0


@pytest.mark.parametrize("rules", ["pung-chow-limit", "singapore"])
def test_a_whole_set_played_by_computer_players(rules: str) -> None:
    """The deal and the round wind follow the wind box through one set, and the game ends."""
    state = new_game(rules, seed=21, sets=1)
    ruleset = get_ruleset(rules)
    for _ in range(20000):
        if state.phase == GAME_OVER:
            break
        if state.phase == HAND_OVER:
            state = apply(state, NextHand())
            continue
        seat = min(pending_seats(state))
        state = apply(state, decide(view(state, seat), legal_actions(state, seat), ruleset))
    assert state.phase == GAME_OVER and state.sets_done == 1
    results = state.results
    assert results[0].dealer == 0 and results[0].round_wind == 0
    for before, after in itertools.pairwise(results):
        if before.winner is None or before.winner == before.dealer:
            assert (after.dealer, after.round_wind) == (before.dealer, before.round_wind)
        else:
            assert after.dealer == (before.dealer + 1) % 4
            wraps = after.dealer == 0
            assert after.round_wind == (before.round_wind + wraps) % 4
    last = results[-1]
    assert last.dealer == 3 and last.round_wind == 3 and last.winner not in (None, 3)
    assert sum(1 for r in results if r.kind != "washing") == state.hands_played
