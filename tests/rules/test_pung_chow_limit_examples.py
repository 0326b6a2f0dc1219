"""Pung Chow (1922) Part II, playing with a limit: Examples 1-10 (p.70-75), the limit hands
(p.62-64), bonus scores (p.62), penalties (p.67-69) and washing the tiles (p.61), with the
ERRATA page applied."""

from __future__ import annotations

import pytest

from bot.rules.hand import DISCARD, Hand, Situation, Win
from bot.rules.notation import parse_hand
from bot.rules.rulesets import get_ruleset
from bot.rules.rulesets.pung_chow_limit import (
    different_heads,
    discarder_is_liable,
    washing_payments,
)
from bot.rules.tiles import parse_tiles
from tests.rules.helpers import as_table, score, settle

R = "pung-chow-limit"


def test_example_1_east_in_south_round_p70() -> None:
    result = score(R, "888m 333s 111p 1m [555m] win 1m self-draw", seat="E", round_wind="S")
    assert sorted(line.points for line in result.lines if line.points) == [2, 6, 6, 6, 10, 10]
    assert result.lines[-1].doubles == 1
    assert result.total == 80
    assert set(settle(R, {"E": 80, "S": 0, "W": 0, "N": 0}, "E").values()) == {160}


def test_example_2_north_in_north_round_p71() -> None:
    result = score(R, "999m 444z 555s 22p [777z] win 5s self-draw", seat="N", round_wind="N")
    assert result.points == 40
    assert sorted(line.doubles for line in result.lines if line.doubles) == [1, 1, 2]
    assert result.total == 640
    # "Player would collect 1280 from East Wind and 640 from other two winds."
    unlimited = settle(R, {"N": 640, "E": 0, "S": 0, "W": 0}, "N", options={"limit": 100000})
    assert unlimited == {("E", "N"): 1280, ("S", "N"): 640, ("W", "N"): 640}
    # "If his score 640 were over the limit he would collect double the limit from East and
    # only the limit from South and West respectively."
    capped = settle(R, {"N": 640, "E": 0, "S": 0, "W": 0}, "N")
    assert capped == {("E", "N"): 600, ("S", "N"): 300, ("W", "N"): 300}


def test_example_3_with_errata_p72() -> None:
    # ERRATA p.72: "26" and "52" should read "16" and "32".
    result = score(R, "234p 56s 99m [777z] [777m] win 4s from W", seat="N")
    assert result.points == 16
    assert result.total == 32
    assert settle(R, {"N": 32, "E": 0, "S": 0, "W": 0}, "N") == {
        ("E", "N"): 64,
        ("S", "N"): 32,
        ("W", "N"): 32,
    }


def test_example_4_with_errata_east_p72() -> None:
    # ERRATA: "Example 4. Player is East Wind instead of North Wind." The printed sets (nine
    # bamboo, three of bamboo, dragons, East pair) make a hand of one suit with honours, which
    # doubling honour 6 (p.67) doubles once more than the printed 384: see docs/rules.md.
    result = score(R, "666z 999s 555s 1z [777z] win 1z self-draw", seat="E", round_wind="E")
    assert sorted(line.points for line in result.lines if line.points) == [4, 6, 8, 10, 10, 10]
    assert result.points == 48
    named = {line.name for line in result.lines if line.doubles}
    assert {
        "No sequences (Tei Tei Woo)",
        "Set of red dragons",
        "Set of green dragons",
    } <= named
    assert result.total == 768
    assert set(settle(R, {"E": 768, "S": 0, "W": 0, "N": 0}, "E").values()) == {600}


@pytest.mark.parametrize(
    ("hand", "name", "page"),
    [
        ("19m19p19s1234567z 1m", "Single heads", "p.73 Example 5"),
        ("111m 999p 111z 555z 99s win 9s self-draw", "Sets of heads only", "p.73 Example 6"),
        ("555z 666z 777z 234m 88p win 8p from S", "Three sets of dragons", "p.74 Example 7"),
        ("111z 222z 333z 444z 5m win 5m self-draw", "Four sets of winds", "p.63 limit hand 3"),
        ("111z 222z 333z 456m 44z win 4z from S", "Three sets of winds", "p.63 limit hand 4"),
        (
            "{2222m} [3333p] [4444s] [8888m] 55s win 5s self-draw",
            "Four sets of four of a kind",
            "p.64 limit hand 5",
        ),
    ],
)
def test_limit_hands_p62_p64(hand: str, name: str, page: str) -> None:
    if "win" not in hand:
        hand = hand.replace(" 1m", "") + " win 1m self-draw"
    result = score(R, hand, seat="W")
    assert result.limit_hand is not None and result.limit_hand.startswith(name), page
    assert result.total == 300
    # "winner collecting double the limit from East and only the limit from the other two"
    assert settle(R, {"W": 300, "E": 0, "S": 0, "N": 0}, "W") == {
        ("E", "W"): 600,
        ("S", "W"): 300,
        ("N", "W"): 300,
    }


def test_east_limit_hand_collects_double_from_all_p74() -> None:
    result = score(R, "555z 666z 777z 234m 88p win 8p from S", seat="E")
    assert result.total == 300
    assert set(settle(R, {"E": 300, "S": 0, "W": 0, "N": 0}, "E").values()) == {600}


def test_east_wins_on_original_draw_is_a_limit_hand_p64() -> None:
    result = score(R, "123m 456m 789p 234s 99s dealt", seat="E")
    assert result.limit_hand == "East wins on his original draw"
    not_east = score(R, "123m 456m 789p 234s 99s dealt", seat="S")
    assert not_east.limit_hand is None


def test_example_8_south_in_south_round_p74() -> None:
    result = score(R, "555z 68p 22z [444p] [999p] win 7p self-draw", seat="S", round_wind="S")
    assert sorted(line.points for line in result.lines if line.points) == [2, 4, 4, 4, 10, 10]
    assert result.total == 136
    assert settle(R, {"S": 136, "E": 0, "W": 0, "N": 0}, "S") == {
        ("E", "S"): 272,
        ("N", "S"): 136,
        ("W", "S"): 136,
    }


def test_example_9_east_all_one_suit_p75() -> None:
    result = score(R, "123s 789s 9s [444s] [666s] win 9s self-draw", seat="E", round_wind="S")
    assert [line.points for line in result.lines if line.points] == [10, 2, 2, 6]
    assert result.total == 160
    assert set(settle(R, {"E": 160, "S": 0, "W": 0, "N": 0}, "E").values()) == {320}


def test_example_10_west_only_open_end_p75() -> None:
    result = score(R, "12p 567s 55s [7777z] [444m] win 3p self-draw", seat="W")
    assert [line.points for line in result.lines if line.points] == [10, 16, 2, 4]
    assert result.total == 64
    assert settle(R, {"W": 64, "E": 0, "S": 0, "N": 0}, "W") == {
        ("E", "W"): 128,
        ("S", "W"): 64,
        ("N", "W"): 64,
    }


def test_sequence_completion_values_p66() -> None:
    by_chow_middle = score(R, "13p 567s 55s [7777z] [444m] win 2p from N", seat="W")
    assert "Filling a sequence in the middle by chow to complete hand" in [
        line.name for line in by_chow_middle.lines
    ]
    open_by_chow = score(R, "23p 567s 55s [7777z] [444m] win 4p from N", seat="W")
    assert not any("sequence" in line.name for line in open_by_chow.lines)
    open_by_draw = score(R, "23p 567s 55s [7777z] [444m] win 4p self-draw", seat="W")
    assert any(line.points == 4 and "sequence" in line.name for line in open_by_draw.lines)


def test_bonus_doubles_p62() -> None:
    base = score(R, "23p 567s 55s [777m] [444m] win 4p self-draw", seat="W")
    last = score(R, "23p 567s 55s [777m] [444m] win 4p self-draw last-tile", seat="W")
    loose = score(R, "23p 567s 55s [777m] [4444m] win 4p loose-tile", seat="W")
    fourth = score(R, "23p 567s 55s [777m] [444p] win 4p self-draw", seat="W")
    assert last.total == base.total * 2
    assert loose.doubles == 1
    assert fourth.doubles == 1 and fourth.lines[-1].name.startswith("Completing the hand")
    first = score(R, "23p 567s 55s [777m] [444m] win 4p from S first-discard", seat="W")
    assert first.lines[-1].points == 150
    assert first.total == score(R, "23p 567s 55s [777m] [444m] win 4p from S", seat="W").total + 150


def test_losers_settle_differences_up_to_the_limit_p60() -> None:
    table = settle(R, {"S": 40, "E": 900, "W": 20, "N": 0}, "S")
    assert table[("W", "E")] == 600  # double the limit where East is one of them
    assert table[("N", "E")] == 600
    assert table[("N", "W")] == 20


def test_false_mahjong_pays_half_the_limit_p67() -> None:
    south = as_table(get_ruleset(R).false_mahjong_payments(_outcome(false_mahjong=1), _opts()))
    assert south == {("S", "E"): 300, ("S", "W"): 150, ("S", "N"): 150}
    east = as_table(get_ruleset(R).false_mahjong_payments(_outcome(false_mahjong=0), _opts()))
    assert set(east.values()) == {300}


def _outcome(**kw):
    from bot.rules.rulesets.base import Outcome

    return Outcome(scores={0: 0, 1: 0, 2: 0, 3: 0}, **kw)


def _opts():
    return get_ruleset(R).options()


def _liable(
    winner: str, win: str, discarder: str | None, seat: int = 1, round_wind: int = 0
) -> bool:
    parsed = parse_hand(f"{winner} win {win} from S")
    assert parsed.win is not None
    other = None if discarder is None else parse_hand(discarder).hand
    return discarder_is_liable(
        parsed.hand, parsed.win, other, None if other is None else Situation(seat, round_wind)
    )


PENALTY_1 = "23p 99p [222p] [555p] [777p]"  # nine dots exposed, all-dot hand (Ex. 1 p.68)
PENALTY_3 = "55z 11p 345s [666z] [777z]"  # two dragon sets exposed (Ex. 3 p.69)
PENALTY_4 = "11z 33s 789m [222z] [333z] [444z]"  # three wind sets exposed (Ex. 4 p.69)


def test_penalty_example_1_one_suit_p68() -> None:
    assert _liable(PENALTY_1, "1p", "123m 456m 789s 11z 2z 3z 4z")
    assert _liable(PENALTY_1, "4p", "123m 456m 789s 11z 2z 3z 4z")


def test_penalty_example_2_third_dragon_p68() -> None:
    assert _liable("77z 11p 345s [555z] [666z]", "7z", "123m 456m 789s 11z 2z 3z 4z")


def test_penalty_example_3_other_pair_is_not_penalised_p69() -> None:
    assert _liable(PENALTY_3, "5z", "123m 456m 789s 11z 2z 3z 4z")
    assert not _liable(PENALTY_3, "1p", "123m 456m 789s 11z 2z 3z 4z")


def test_penalty_example_4_fourth_wind_p69() -> None:
    assert _liable(PENALTY_4, "1z", "123m 456m 789s 55z 6z 7z 9p")
    assert not _liable(PENALTY_4, "3s", "123m 456m 789s 55z 6z 7z 9p")


def test_penalty_exceptions_p68_p69() -> None:
    # Himself ready with two complete doubling honours (own wind in own round): not penalised.
    assert not _liable(PENALTY_3, "5z", "222z 123m 456m 789p 9s", seat=1, round_wind=1)
    # Ready, and his own win would give more than two doubling honours: not penalised.
    assert not _liable(PENALTY_3, "5z", "111s 999s 234s 567s 8s", seat=2)
    # Ready but with a plain hand: penalised.
    assert _liable(PENALTY_3, "5z", "123m 456m 789p 234s 8s", seat=2)
    # Note (a): nothing but dangerous tiles to discard: not penalised.
    assert not _liable(PENALTY_1, "1p", "1p 2p 3p 4p 5p 6p 7p 8p 9p 1p 2p 3p 4p")
    # Unknown discarder hand: liable.
    assert _liable(PENALTY_1, "1p", None)


def test_liable_discarder_pays_for_all_and_cancels_other_scores_p69() -> None:
    table = settle(R, {"W": 100, "E": 50, "S": 40, "N": 0}, "W", discarder=3, liable=3)
    assert table == {("N", "W"): 100 + 200 + 100}


def test_washing_the_tiles_p61() -> None:
    dealt = parse_tiles("19m19p19s1234z 234m")  # nine different heads
    assert different_heads(dealt) == 10
    assert different_heads(parse_tiles("19m19p19s123z 2345m")) == 9
    payments = as_table(washing_payments(2, 9, [0, 1, 2, 3]))
    assert payments == {("E", "W"): 50, ("S", "W"): 50, ("N", "W"): 50}
    amounts = [washing_payments(0, n, [0, 1, 2, 3])[0].amount for n in (9, 10, 11, 12, 13)]
    assert amounts == [50, 70, 100, 150, 200]  # East washes without collecting double


def test_limit_follows_the_mahjong_bonus_p60() -> None:
    rules = get_ruleset(R)
    assert rules.limit_of(rules.options()) == 300
    with pytest.raises(ValueError, match="needs a value"):
        rules.options({"limit": "none"})
    resolved = rules.options()
    assert rules.options(dict(resolved)) == resolved  # resolving again changes nothing
    assert rules.limit_of(rules.options({"mahjong_bonus": 20})) == 400
    assert rules.limit_of(rules.options({"limit": 600})) == 600


def test_winner_not_complete_is_rejected() -> None:
    rules = get_ruleset(R)
    hand = Hand(tuple(parse_tiles("123m456m789p234s19s")))
    with pytest.raises(ValueError, match="not a winning hand"):
        rules.score(hand, Situation(1, 0), Win(parse_tiles("9s")[0], DISCARD, 0))
