"""filipino-16: the score sheet's worked doubling example and seasons; singapore: the "=40
total" line, maximum hands, payments and penalties."""

from __future__ import annotations

import pytest

from tests.rules.helpers import score, settle

F = "filipino-16"
S = "singapore"


def test_filipino_score_sheet_example_doubles_40_three_times() -> None:
    # "if a hand scores 40 and has, for example 3 Red Dragons, 4 of your own wind, and all
    # other pieces of the same suit, you double 40 three times, making your score 320."
    result = score(F, "123m 456m 78m 55m [777z] [2222z] win 9m from E", seat="S")
    assert result.points == 40
    assert result.doubles == 3
    assert result.total == 320


def test_filipino_all_honours_doubles_three_times() -> None:
    # "Hand entirely of winds and dragons Double total score 3 times (i.e., score is 32,
    # doubling three times makes it 256)": a losing hand of 32 points, all honours.
    loser = score(F, "[1111z] [333z] [555z] [666z] 77z 2z 4z", seat="N")
    assert loser.points == 16 + 4 + 4 + 4 + 2
    assert loser.doubles == 3 + 1 + 1  # all honours x8, white and green dragons
    assert loser.total == 30 << 5


def test_filipino_seasons_score_and_double() -> None:
    base = "111m 456m 789m 234p 56s 99p win 4s from E"
    plain = score(F, base, seat="S", flowers=True)
    own = score(F, base + " 2f 6f", seat="S", flowers=True)
    assert own.points == plain.points + 8
    assert own.doubles == plain.doubles + 2  # both own seasons: double twice
    colour = score(F, base + " 1f 2f 3f 4f", seat="S", flowers=True)
    assert colour.doubles == plain.doubles + 1 + 3


def test_filipino_seventeen_tiles_and_limit() -> None:
    result = score(F, "111m 222p 333s 444m 555p 66s win 6s self-draw", seat="W")
    assert result.lines[0].points == 20
    assert settle(F, {"W": 500, "E": 0, "S": 0, "N": 0}, "W") == {
        ("E", "W"): 600,
        ("S", "W"): 300,
        ("N", "W"): 300,
    }
    with pytest.raises(ValueError, match="17 tiles"):
        score(F, "123m 456m 789m 234p 55p win 5p self-draw")


def test_filipino_losers_and_east_double() -> None:
    table = settle(F, {"S": 30, "E": 10, "W": 50, "N": 20}, "S")
    assert table[("E", "S")] == 60
    assert table[("E", "W")] == 80  # East pays double the difference
    assert table[("E", "N")] == 20  # East pays double the difference
    assert table[("N", "W")] == 30


def test_filipino_dead_hand_pays_everyone_and_collects_nothing() -> None:
    table = settle(F, {"S": 30, "E": 10, "W": 50, "N": 40}, "S", dead=frozenset({3}))
    assert table[("N", "W")] == 50
    assert table[("N", "E")] == 20
    assert ("E", "N") not in table and ("W", "N") not in table


def test_singapore_equals_40_total() -> None:
    # "Chows & Eyes only, number tiles only, win by drawing discard: 2 (=40 total)"
    result = score(S, "123m 456p 789s 23s 55m win 4s from E", seat="S")
    assert [(line.points, line.doubles) for line in result.lines] == [
        (20, 0),
        (2, 0),
        (-2, 0),
        (0, 1),
    ]
    assert result.total == 40


def test_singapore_multipliers_and_rounding() -> None:
    result = score(S, "111p 555s 999m 77z 345m win 3m self-draw", seat="W", flowers=False)
    # 20 + hidden pungs 8 + 4 + 8 + dragon eyes 2 + chow 2 + self-draw 2 = 46 -> 50
    assert result.points == 50
    names = [line.name for line in result.lines if line.doubles]
    assert "Concealed hand, won by drawing from the wall" in names
    assert "3 pungs, won by drawing from the wall" in names


@pytest.mark.parametrize(
    "hand",
    [
        "555z 666z 777z 234m 88p win 8p from S",
        "111z 222z 333z 444z 5m win 5m self-draw",
        "111z 222z 333z 456m 44z win 4z from S",
        "111m 999p 111s 999s 11p win 1p self-draw",
        "11z 22z 555z 666z 777z win 1z from N",
        "1112345678999m 5m",
        "19m19p19s1234567z 7z",
    ],
)
def test_singapore_maximum_hands(hand: str) -> None:
    if "win" not in hand:
        tile = hand.split()[-1]
        hand = hand.rsplit(" ", 1)[0] + f" win {tile} self-draw"
    result = score(S, hand, seat="W")
    assert result.limit_hand is not None
    assert result.total == 2000
    assert settle(S, {"W": 2000, "E": 0, "S": 0, "N": 0}, "W") == {
        ("E", "W"): 3000,
        ("S", "W"): 2000,
        ("N", "W"): 2000,
    }


def test_singapore_seven_eyes_is_100() -> None:
    assert score(S, "11m 33m 55p 77p 99s 22z 6z win 6z self-draw").total == 100


def test_singapore_discarder_pays_the_others_share() -> None:
    table = settle(S, {"S": 80, "E": 0, "W": 0, "N": 0}, "S", discarder=2)
    assert table == {("W", "S"): 160 + 80 + 80}


def test_singapore_losers_do_not_settle() -> None:
    table = settle(S, {"S": 80, "E": 40, "W": 20, "N": 0}, "S")
    assert table == {("E", "S"): 160, ("W", "S"): 80, ("N", "S"): 80}


def test_singapore_renchon_antes_and_discarder_pays_double_ante() -> None:
    table = settle(S, {"E": 50, "S": 0, "W": 0, "N": 0}, "E", discarder=1, renchon=2)
    assert table == {("S", "E"): 100 + 400, ("W", "E"): 100 + 200, ("N", "E"): 100 + 200}


def test_singapore_penalties() -> None:
    from bot.rules.rulesets import get_ruleset
    from bot.rules.rulesets.base import Outcome

    rules = get_ruleset(S)
    false = rules.settle(Outcome(scores={0: 0, 1: 0, 2: 0, 3: 0}, false_mahjong=2))
    assert {(p.payer, p.payee): p.amount for p in false} == {(2, 0): 500, (2, 1): 250, (2, 3): 250}
    riichi = settle(S, {"S": 40, "E": 0, "W": 0, "N": 0}, "S", riichi=frozenset({3}))
    assert riichi[("N", "S")] == 40 + 100
