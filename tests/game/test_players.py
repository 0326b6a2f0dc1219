"""Shanten, tile acceptance and the computer player's choices."""

from __future__ import annotations

import random
import time

import pytest

from bot.players import decide
from bot.rules.analysis import is_complete, ready_waits
from bot.rules.game import (
    GAME_OVER,
    HAND_OVER,
    Discard,
    MahJongg,
    NextHand,
    Pass,
    TableView,
    apply,
    legal_actions,
    new_game,
    pending_seats,
    view,
)
from bot.rules.game.shanten import acceptance, seven_pairs_shanten, shanten, standard_shanten
from bot.rules.game.view import SeatView
from bot.rules.melds import Kind, Meld
from bot.rules.rulesets import RULESETS, get_ruleset
from bot.rules.tiles import counts_of, parse_tiles
from tests.game.helpers import table

ALL_TILES = [t for t in range(34) for _ in range(4)]


def counts(text: str) -> list[int]:
    return counts_of(parse_tiles(text))


def test_shanten_of_known_hands() -> None:
    assert standard_shanten(counts("123m456m789m111p55p"), 4) == -1
    assert standard_shanten(counts("123m456m789m111p5p"), 4) == 0
    assert standard_shanten(counts("123m456m789m11p59s"), 4) == 1
    assert standard_shanten(counts("19m19p19s1234567z"), 4) == 8
    assert shanten(counts("19m19p19s1234567z"), 4, ("thirteen-heads",)) == 0
    assert seven_pairs_shanten(counts("1122m3344p5566s7z")) == 0
    assert standard_shanten(counts("123m456m789m123p456p55s"), 5) == -1  # filipino-16
    assert standard_shanten(counts("123m5p"), 1) == 0  # three sets declared


def test_shanten_agrees_with_win_and_ready_detection() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        hand = counts_of(rng.sample(ALL_TILES, 13))
        assert (standard_shanten(hand, 4) == 0) == bool(ready_waits(hand))
        tile = rng.randrange(34)
        if hand[tile] < 4:
            hand[tile] += 1
            assert (standard_shanten(hand, 4) == -1) == is_complete(hand)


def test_shanten_agrees_with_the_mahjong_library() -> None:
    """An independent implementation (the `mahjong` package of the bench extra) as oracle."""
    oracle = pytest.importorskip("mahjong.shanten").Shanten()
    rng = random.Random(8)
    for size in (13, 14, 10, 7, 4):
        for _ in range(600):
            hand = counts_of(rng.sample(ALL_TILES, size))
            assert standard_shanten(hand, size // 3) == oracle.calculate_shanten_for_regular_hand(
                hand
            )


def test_shanten_caches_stay_bounded_and_right_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each part cache keeps at most PART_CACHE patterns, the oldest going first, and a pattern
    that went out is found again alike (the answers are checked against the library)."""
    from bot.rules.game import shanten as module

    oracle = pytest.importorskip("mahjong.shanten").Shanten()
    caches = (module._SUIT_PARTS, module._HONOUR_PARTS)
    monkeypatch.setattr(module, "PART_CACHE", 64)
    saved = [dict(cache) for cache in caches]
    try:
        for cache in caches:
            cache.clear()
        rng = random.Random(12)
        hands = [counts_of(rng.sample(ALL_TILES, 13)) for _ in range(150)]
        for _ in range(2):  # the second time, the first hands' patterns have gone out
            for hand in hands:
                assert standard_shanten(hand, 4) == oracle.calculate_shanten_for_regular_hand(hand)
                assert all(len(cache) <= 64 for cache in caches)
        assert 64 - 64 // 8 <= len(module._SUIT_PARTS) <= 64
    finally:
        for cache, before in zip(caches, saved, strict=True):
            cache.clear()
            cache.update(before)


def test_acceptance_counts_unseen_tiles() -> None:
    hand = counts("123m456m789m11p46s")
    unseen = [4] * 34
    total, useful = acceptance(hand, 4, unseen)
    assert useful == parse_tiles("5s") and total == 4
    unseen[parse_tiles("5s")[0]] = 1
    assert acceptance(hand, 4, unseen)[0] == 1


def seat(n: int, **kw) -> SeatView:
    fields = {"seat": n, "wind": n, "concealed": None, "concealed_count": 13}
    fields.update(kw)
    return SeatView(**fields)


def my_view(concealed: str, drawn: str, others: dict[int, dict] | None = None, **kw) -> TableView:
    tiles = parse_tiles(concealed)
    seats = [seat(0, concealed=tuple(sorted(tiles)), drawn=parse_tiles(drawn)[0])]
    for n in (1, 2, 3):
        seats.append(seat(n, **(others or {}).get(n, {})))
    base = {
        "viewer": 0,
        "ruleset": "pung-chow",
        "seats": tuple(seats),
        "round_wind": 0,
        "hand_number": 1,
        "dealer": 0,
        "turn": 0,
        "wall_remaining": 60,
        "dead_wall": 0,
        "drawable": 60,
    }
    base.update(kw)
    return TableView(**base)


def discards_for(text: str) -> list[Discard]:
    return [Discard(0, t) for t in sorted(set(parse_tiles(text)))]


def test_a_win_is_always_taken() -> None:
    legal = [MahJongg(0), *discards_for("123m456m789m111p55p")]
    view_ = my_view("123m456m789m111p5p", "5p")
    assert decide(view_, legal, "pung-chow") == MahJongg(0)


def test_a_lone_honour_of_no_value_goes_before_a_dragon() -> None:
    hand = "123m456m789m11p27z"
    legal = discards_for(hand + "5p")
    assert decide(my_view(hand, "5p"), legal, "pung-chow") == Discard(0, parse_tiles("2z")[0])


def test_the_defensive_mode_keeps_the_third_dragon() -> None:
    """Pung Chow p.27-28 and p.67-68: with two dragon sets exposed against him and a poor hand,
    the player holds the third dragon and discards a tile the dangerous player let go."""
    hand = "149m258p369s1357z"  # eight tiles from ready
    danger = {
        2: {
            "melds": (Meld(Kind.PUNG, 31), Meld(Kind.PUNG, 32)),
            "discards": tuple(parse_tiles("9m")),
            "concealed_count": 7,
        }
    }
    legal = discards_for(hand + "2z")
    choice = decide(my_view(hand, "2z", danger), legal, "pung-chow")
    assert choice == Discard(0, parse_tiles("9m")[0])


def test_claims_only_when_they_help() -> None:
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "46m258p258s1234z9s", "355m369p369s1234z", "147m147p147s4567z"],
    )
    state = apply(state, Discard(0, parse_tiles("5m")[0]))
    rules = get_ruleset("pung-chow")
    for seat_ in pending_seats(state):
        action = decide(view(state, seat_), legal_actions(state, seat_), rules)
        assert action in legal_actions(state, seat_)
    # West's pair of 5s in a poor hand: a pung brings it nearer.
    west = decide(view(state, 2), legal_actions(state, 2), rules)
    assert not isinstance(west, Pass)


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_decisions_are_legal_and_quick(rules: str) -> None:
    """At most 5 ms per decision is the goal (measured by benchmarks/simulate.py); here the
    mean must stay well under it even on a busy machine."""
    state = new_game(rules, seed=17, sets=None, hands=3)
    ruleset = get_ruleset(rules)
    times = []
    while state.phase != GAME_OVER:
        if state.phase == HAND_OVER:
            state = apply(state, NextHand())
            continue
        seat_ = min(pending_seats(state))
        legal = legal_actions(state, seat_)
        seen = view(state, seat_)
        start = time.perf_counter()
        action = decide(seen, legal, ruleset, state.config.options)
        times.append(time.perf_counter() - start)
        assert action in legal
        state = apply(state, action)
    assert sum(times) / len(times) < 0.005
