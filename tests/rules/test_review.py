"""An independent review of the scoring and settling against the rule texts: each test cites
the line of the text it holds the engine to (pung-chow-1922.txt by the book's pages,
filipino-16-tile.txt and singapore-simplified.txt by their headings)."""

from __future__ import annotations

import pytest

from bot.rules.hand import Situation
from bot.rules.notation import parse_hand
from bot.rules.rulesets import HandError
from bot.rules.rulesets.pung_chow_limit import discarder_is_liable
from bot.rules.table_score import request_from_json, score_table
from tests.rules.helpers import as_table, score

S = "singapore"

# -- Pung Chow Part II, penalty 2 (p.67-68) ----------

ALL_DOTS = "23p 99p [222p] [555p] [777p]"  # nine dots exposed, an all-dot hand (p.68 Example 1)


def _liable(discarder: str, seat: int, round_wind: int = 0) -> bool:
    winner = parse_hand(f"{ALL_DOTS} win 1p from W")
    assert winner.win is not None
    other = parse_hand(discarder).hand
    return discarder_is_liable(winner.hand, winner.win, other, Situation(seat, round_wind))


def test_mandarins_are_not_doubling_honours_for_the_penalty_p67_p29() -> None:
    # p.67-68: "unless the discarder himself had two complete doubling honors and was waiting":
    # the doubling honours are those of p.67 (own wind, dragons, one suit, no sequences). A
    # player's own mandarins double his score (p.29) but are no doubling honour; and a table
    # playing with them must not fail here.
    plain_with_own_mandarins = "123m 456m 789s 234s 8s 2f 6f"  # South's flower and season
    assert _liable(plain_with_own_mandarins, seat=1)


def test_waiting_for_a_limit_hand_with_three_doubling_honours_p68() -> None:
    # "... or was waiting for the winning tile which would give him more than two doubling
    # honors" (p.68): four kongs (a limit hand, p.64) of bamboo and white dragons waiting on
    # 9 bamboo would hold the white dragons, no sequences and one suit with honours (p.67).
    assert not _liable("[1111s] [2222s] [3333s] [5555z] 9s", seat=2)
    # The same wait without the dragons holds one suit (x3) and no sequences: also exempt.
    assert not _liable("[1111s] [2222s] [3333s] [4444s] 9s", seat=2)
    # A plain ready hand is penalised.
    assert _liable("123m 456m 789s 234s 8s", seat=2)


# -- singapore maximum hands ----------


def test_nine_gates_needs_the_drawn_tile_to_make_the_eyes() -> None:
    # "Player holds a Pung of 1's, Pung of 9's, and 2-3-4-5-6-7-8 regardless of suit, then
    # draws a tile making Eyes with one of the middle numbers."
    held_all_nine = score(S, "1112345678999m win 5m from W", seat="S")
    assert held_all_nine.limit_hand is not None
    # Won on the 3: before it the hand lacked the 3, so it never held 1-1-1-2-...-8-9-9-9.
    lacked_the_three = score(S, "11123455678999m win 3m from W", seat="S")
    assert lacked_the_three.limit_hand is None
    assert lacked_the_three.total < 2000


def test_seven_eyes_of_honours_is_the_all_honours_maximum() -> None:
    # "The following bonuses automatically give a player a maximum score ... All honor tiles".
    result = score(S, "11223344556677z win 7z self-draw", seat="W")
    assert result.limit_hand == "All honour tiles"
    assert result.total == 2000
    # Seven eyes that are not all honours stay at 100 ("7 Eyes ... total score for the hand=100").
    assert score(S, "11m 33m 55p 77p 99s 22z 66z win 6z self-draw", seat="W").total == 100


# -- singapore Renchon through /score and mahjong-score (table_score) ----------


def _renchon_doc(concealed: str, melds: list, tile: str, renchon: int) -> dict:
    return {
        "ruleset": "singapore",
        "players": [{"seat": "E", "concealed": concealed, "melds": melds}],
        "win": {"seat": "E", "tile": tile, "by": "discard", "from": "S"},
        "renchon": renchon,
    }


def test_ninth_renchon_game_is_a_maximum_hand_when_scored_from_tiles() -> None:
    # "If East wins the ninth Renchon game, he receives the Maximum Points."
    doc = _renchon_doc("123m456p789s234m55p", [], "5p", 9)
    result = score_table(request_from_json(doc))
    assert result.scores[0].limit_hand == "East wins the ninth Renchon game"
    payments = as_table(result.payments)
    assert payments[("N", "E")] == 3000 + 900


def test_renchon_game_needs_a_bonus_when_scored_from_tiles() -> None:
    # "However, after the first game, East must have at least one bonus to win."
    no_bonus = _renchon_doc("123m456p789s11p", [{"tiles": "555s"}], "1p", 2)
    with pytest.raises(HandError, match="bonus"):
        score_table(request_from_json(no_bonus))
    no_bonus["renchon"] = 0
    assert score_table(request_from_json(no_bonus)).scores[0].total > 0


# -- filipino-16 special bonus scores ----------

F = "filipino-16"


def test_loose_tile_bonus_is_for_the_loose_tile_after_a_kong() -> None:
    # Score sheet: "Winning piece on special draw of a 'loose tile' after 4 of a kind....10
    # points"; a season also brings a loose tile ("draws a loose tile for each Season"), but
    # that draw is not the one the bonus names. The winning piece is still drawn (2 points).
    after_season = score(F, "123m 456m 789m 234p 567p 5s win 5s loose-tile 2f", flowers=True)
    names = [line.name for line in after_season.lines]
    assert "Winning on a draw from the loose tiles" not in names
    assert "Drawing the winning piece" in names
    after_kong = score(F, "123m 456m 789m 234p [7777p] 5s win 5s loose-tile")
    assert "Winning on a draw from the loose tiles" in [line.name for line in after_kong.lines]
    # Pung Chow p.31 gives it for "any of his loose tile draws", a mandarin's too.
    mandarin = score("pung-chow", "123m 456m 789m 234p 5s win 5s loose-tile 2f", flowers=True)
    assert "Winning on a draw from the loose tiles" in [line.name for line in mandarin.lines]
