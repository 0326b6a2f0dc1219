"""An independent review of the scoring and settling against the rule texts: each test cites
the line of the text it holds the engine to (pung-chow-1922.txt by the book's pages,
filipino-16-tile.txt and singapore-simplified.txt by their headings)."""

from __future__ import annotations

from bot.rules.hand import Situation
from bot.rules.notation import parse_hand
from bot.rules.rulesets.pung_chow_limit import discarder_is_liable

# -- Pung Chow Part II, penalty 2 (p.67-68) ------------------------------------------------------

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
