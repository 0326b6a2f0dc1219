"""Property tests of the rules engine: complete hands are recognised in every arrangement,
waits are exactly the completing tiles, notation round-trips, payments sum to zero."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import analysis
from bot.rules.analysis import (
    PAIR,
    PUNG,
    SetInfo,
    arrangements,
    is_complete,
    is_seven_pairs,
    is_thirteen_heads,
    is_winning_shape,
    waits,
)
from bot.rules.hand import Situation
from bot.rules.notation import format_hand, parse_hand
from bot.rules.rulesets import RULESETS, HandError, Outcome
from bot.rules.sampling import random_complete_hand, random_hand_tiles
from bot.rules.score import net_of
from bot.rules.tiles import counts_of, format_tiles, parse_tiles

seeds = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=300, deadline=None)
@given(seeds, st.sampled_from([4, 5]))
def test_every_generated_complete_hand_is_recognised_in_its_arrangement(seed, sets) -> None:
    rng = random.Random(seed)
    hand, _ = random_complete_hand(rng, sets, declared_max=0)
    counts = counts_of(hand.concealed)
    assert is_complete(counts)
    found = arrangements(counts)
    assert found
    for arrangement in found:
        # Each arrangement uses exactly the hand's tiles: sets and one pair.
        rebuilt = [0] * 34
        for s in arrangement:
            if s.kind == 0:
                for t in (s.tile, s.tile + 1, s.tile + 2):
                    rebuilt[t] += 1
            else:
                rebuilt[s.tile] += 2 if s.kind == PAIR else 3
        assert rebuilt == counts
        assert sum(1 for s in arrangement if s.kind == PAIR) == 1
    assert len(set(found)) == len(found)


@settings(max_examples=300, deadline=None)
@given(seeds, st.sampled_from([4, 5]), st.booleans())
def test_ready_hand_waits_are_exactly_the_completing_tiles(seed, sets, from_complete) -> None:
    rng = random.Random(seed)
    if from_complete:
        hand, _ = random_complete_hand(rng, sets, declared_max=0)
        tiles = list(hand.concealed)
        removed = tiles.pop(rng.randrange(len(tiles)))
    else:
        tiles = random_hand_tiles(rng, 3 * sets + 1)
        removed = None
    counts = counts_of(tiles)
    brute = []
    for tile in range(34):
        if counts[tile] < 4:
            counts[tile] += 1
            if is_complete(counts):
                brute.append(tile)
            counts[tile] -= 1
    assert waits(counts) == brute
    if removed is not None:
        assert removed in brute


@settings(max_examples=150, deadline=None)
@given(seeds)
def test_winning_shape_is_any_of_the_three(seed) -> None:
    rng = random.Random(seed)
    for size in (14, 14, 14):
        counts = counts_of(random_hand_tiles(rng, size))
        expected = is_complete(counts) or is_seven_pairs(counts) or is_thirteen_heads(counts)
        assert is_winning_shape(counts) == expected
    hand, _ = random_complete_hand(rng, 4, declared_max=0)
    assert is_winning_shape(counts_of(hand.concealed))
    assert is_winning_shape(counts_of(parse_tiles("19m19p19s1234567z5z")))
    assert is_winning_shape(counts_of(parse_tiles("1133m5577p99s1122z")))
    assert not is_winning_shape(counts_of(parse_tiles("1111m5577p99s1122z")))


HEADS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


@settings(max_examples=300, deadline=None)
@given(seeds, st.integers(0, 3))
def test_winning_shape_near_the_special_shapes(seed, changes) -> None:
    """Seven pairs and thirteen heads, and both with a few tiles swapped: the one-look-up
    reading of the three shapes agrees with each shape checked on its own."""
    rng = random.Random(seed)
    if rng.random() < 0.5:
        tiles = [t for t in rng.sample(range(34), 7) for _ in range(2)]
    else:
        tiles = [*HEADS, rng.choice(HEADS)]
    for _ in range(changes):
        tiles[rng.randrange(14)] = rng.randrange(34)
    counts = counts_of(tiles)
    if max(counts) > 4:
        return
    expected = is_complete(counts) or is_seven_pairs(counts) or is_thirteen_heads(counts)
    assert is_winning_shape(counts) == expected
    assert changes or expected


@settings(max_examples=150, deadline=None)
@given(seeds)
def test_special_waits_include_thirteen_heads_and_seven_pairs(seed) -> None:
    rng = random.Random(seed)
    heads = parse_tiles("19m19p19s1234567z")
    missing = rng.choice(heads)
    hand = [t for t in heads if t != missing] + [rng.choice([t for t in heads if t != missing])]
    counts = counts_of(hand)
    assert missing in waits(counts, specials=True)
    counts[missing] += 1
    assert is_thirteen_heads(counts)
    pairs = rng.sample(range(34), 7)
    seven = counts_of([t for t in pairs for _ in (0, 1)])
    assert is_seven_pairs(seven)
    seven[pairs[0]] -= 1
    assert pairs[0] in waits(seven, specials=True)


@settings(max_examples=200, deadline=None)
@given(seeds, st.sampled_from([4, 5]))
def test_notation_round_trips(seed, sets) -> None:
    rng = random.Random(seed)
    hand, win = random_complete_hand(rng, sets)
    text = format_hand(hand, win)
    parsed = parse_hand(text)
    assert sorted(parsed.hand.concealed) == sorted(hand.concealed)
    assert [(m.kind, m.tile, m.concealed) for m in parsed.hand.melds] == [
        (m.kind, m.tile, m.concealed) for m in hand.melds
    ]
    assert parsed.win is not None and parsed.win.tile == win.tile and parsed.win.by == win.by
    assert parse_tiles(format_tiles(hand.concealed)) == sorted(hand.concealed)


@settings(max_examples=200, deadline=None)
@given(seeds, st.sampled_from(sorted(RULESETS)))
def test_every_complete_hand_scores_and_never_below_zero(seed, name) -> None:
    rules = RULESETS[name]
    rng = random.Random(seed)
    hand, win = random_complete_hand(rng, rules.sets_needed)
    situation = Situation(rng.randrange(4), rng.randrange(4))
    result = rules.score(hand, situation, win, {})
    assert result.total >= 20 if name != "pung-chow-limit" else result.total >= 10
    assert result.lines
    if result.limit_hand is not None:
        assert result.total == rules.limit_of(rules.options())
    else:
        assert result.total == (result.points << result.doubles) + sum(
            line.points for line in result.lines[_first_double(result) :]
        )


def _first_double(result) -> int:
    for i, line in enumerate(result.lines):
        if line.doubles:
            return i
    return len(result.lines)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(RULESETS)),
    st.lists(st.integers(0, 5000), min_size=4, max_size=4),
    st.one_of(st.none(), st.integers(0, 3)),
    st.frozensets(st.integers(0, 3), max_size=1),
    st.one_of(st.none(), st.integers(0, 3)),
    st.integers(0, 3),
    st.sampled_from([None, 300, 1000]),
    st.integers(0, 4),
)
def test_payments_always_sum_to_zero(
    name, scores, winner, dead, discarder, seats_out, limit, renchon
) -> None:
    rules = RULESETS[name]
    seats = [0, 1, 2, 3] if seats_out == 0 else [s for s in range(4) if s != seats_out]
    if winner is not None and winner not in seats:
        winner = seats[0]
    if discarder is not None and (discarder not in seats or discarder == winner):
        discarder = None
    options = {"limit": limit} if name != "singapore" else {}
    if name == "pung-chow-limit" and limit is None:
        options = {}  # the limit game always has a limit: its default
    outcome = Outcome(
        scores={s: scores[s] for s in seats},
        winner=winner,
        discarder=discarder,
        dead=frozenset(d for d in dead if d in seats and d != winner),
        renchon=renchon,
    )
    payments = rules.settle(outcome, options)
    assert sum(net_of(payments)) == 0
    assert all(p.amount > 0 and p.payer != p.payee for p in payments)
    if winner is None:
        assert payments == []


def test_a_fifth_copy_and_wrong_counts_are_rejected_with_the_reason() -> None:
    rules = RULESETS["pung-chow"]
    fifth = parse_hand("11111m 234p 567s 99s 12p win 3p")
    try:
        rules.score(fifth.hand, Situation(0), fifth.win)
    except HandError as exc:
        assert "5 copies of 1 Characters" in str(exc)
    else:
        raise AssertionError("a fifth copy was accepted")


@settings(max_examples=100, deadline=None)
@given(seeds, st.sampled_from(sorted(RULESETS)))
def test_a_full_pattern_cache_is_emptied_and_scores_stay_the_same(seed, name) -> None:
    """The per-part caches of patterns are bounded (a bot running for days keeps meeting new
    patterns): one emptied when full gives the same score as one that kept everything."""
    from unittest import mock

    import bot.rules.analysis as analysis
    import bot.rules.reading as reading

    rules = RULESETS[name]
    rng = random.Random(seed)
    hands = [random_complete_hand(rng, rules.sets_needed) for _ in range(6)]
    situation = Situation(rng.randrange(4), rng.randrange(4))
    kept = [rules.score(hand, situation, win, {}) for hand, win in hands]
    caches = (*analysis._ARRANGEMENT_CACHES, *reading._PART_READINGS)
    with mock.patch.object(analysis, "PATTERNS_KEPT", 2):
        for cache in caches:
            cache.clear()
        bounded = []
        for hand, win in hands:
            bounded.append(rules.score(hand, situation, win, {}))
            assert all(len(cache) <= 2 for cache in caches)
    assert bounded == kept


def test_the_sets_the_part_caches_keep_are_shared_not_copied() -> None:
    """Every pattern's arrangements (and the winning tile's ways) hold the one shared
    SetInfo of their fields: a long-running bot's caches do not grow a copy per pattern."""
    pung = analysis.set_info(PUNG, 0, True)
    assert pung is analysis.set_info(PUNG, 0, True) == SetInfo(PUNG, 0, True)
    held = [
        s
        for pattern in ((3, 0, 0, 0, 0, 0, 0, 0, 0), (3, 1, 1, 1, 0, 0, 0, 0, 0))
        for sets in analysis.part_arrangements(pattern, 0)
        for s in sets
        if s == pung
    ]
    assert len(held) == 2 and all(s is pung for s in held)
