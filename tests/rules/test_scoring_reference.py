"""The scorer's fast paths against a plain reference, on random hands.

``RuleSet.score`` reads a hand through cached per-part tables (bot/rules/reading.py) and counts
its tiles once (``Facts``). The reference here does the same job the slow, obvious way: it
walks the whole count array for every division into sets and a pair, tries every set holding
the winning tile, scores each reading with the rule set's own reading scorer and keeps the
first highest. Both must agree exactly: the same total, the same lines, the same reading (the
order of readings decides between equal totals, and the reading is what players are shown).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.analysis import CHOW, PAIR, PUNG, SetInfo, is_complete
from bot.rules.hand import DEALT, DISCARD, Hand, Situation, Win
from bot.rules.melds import Kind, Meld
from bot.rules.reading import Facts, Reading, has_unique_wait, winning_readings
from bot.rules.rulesets import RULESETS, HandError, RuleSet
from bot.rules.sampling import random_complete_hand
from bot.rules.score import Score
from tests.rules.plain_scorers import PLAIN

seeds = st.integers(min_value=0, max_value=2**32 - 1)
FLAGS = ["original-hand", "last-tile", "last-discard", "first-discard", "robbing-kong", "riichi"]
OPTIONS = {
    "pung-chow": [{}, {"mahjong_bonus": 10, "limit": 500}, {"flowers": True}],
    "pung-chow-limit": [{}, {"first_discard_bonus": "half-limit-hand", "flowers": True}],
    "filipino-16": [{}, {"mahjong_bonus": 10, "flowers": True, "loose_tile_bonus": "any"}],
    "singapore": [
        {},
        {"four_chows_eyes": "any", "three_pungs_drawn": "hidden"},
        {"three_chows": "any", "maximum": 1000},
    ],
}
THIRTEEN_HEADS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def reference_arrangements(counts: list[int]) -> list[tuple[SetInfo, ...]]:
    """Every division of the whole count array into sets and one pair: at the lowest tile
    left, a pair, a pung or a chow starting there (in that order)."""
    found: list[tuple[SetInfo, ...]] = []

    def walk(acc: list[SetInfo], pair_left: bool) -> None:
        tile = next((t for t in range(34) if counts[t]), None)
        if tile is None:
            if not pair_left:
                found.append(tuple(acc))
            return
        if pair_left and counts[tile] >= 2:
            counts[tile] -= 2
            walk([*acc, SetInfo(PAIR, tile, True)], False)
            counts[tile] += 2
        if counts[tile] >= 3:
            counts[tile] -= 3
            walk([*acc, SetInfo(PUNG, tile, True)], pair_left)
            counts[tile] += 3
        if tile < 27 and tile % 9 <= 6 and counts[tile + 1] and counts[tile + 2]:
            for t in (tile, tile + 1, tile + 2):
                counts[t] -= 1
            walk([*acc, SetInfo(CHOW, tile, True)], pair_left)
            for t in (tile, tile + 1, tile + 2):
                counts[t] += 1

    walk([], True)
    return found


def reference_role(item: SetInfo, tile: int) -> str:
    if item.kind == PAIR:
        return "pair"
    if item.kind != CHOW:
        return "pung"
    position = tile - item.tile
    rank = item.tile % 9
    if position == 1:
        return "chow-middle"
    if (position == 2 and rank == 0) or (position == 0 and rank == 6):
        return "chow-edge"
    return "chow-open"


def reference_readings(rules: RuleSet, hand: Hand, win: Win) -> list[Reading]:
    counts = [hand.concealed.count(t) for t in range(34)]
    declared = tuple(SetInfo(m.kind, m.tile, m.concealed) for m in hand.melds)
    win_tile = None if win.by == DEALT else win.tile
    readings: list[Reading] = []
    for arrangement in reference_arrangements(counts):
        if len(arrangement) - 1 + len(declared) != rules.sets_needed:
            continue
        pair = next(s.tile for s in arrangement if s.kind == PAIR)
        if win_tile is None:
            readings.append(Reading(declared + arrangement, (pair,)))
            continue
        tried: list[SetInfo] = []
        for index, item in enumerate(arrangement):
            span = 3 if item.kind == CHOW else 1
            if not item.tile <= win_tile < item.tile + span or item in tried:
                continue
            tried.append(item)
            completed = SetInfo(item.kind, item.tile, win.by != DISCARD, True)
            sets = declared + arrangement[:index] + (completed,) + arrangement[index + 1 :]
            readings.append(Reading(sets, (pair,), reference_role(item, win_tile)))
    if not hand.melds and len(hand.concealed) == 14:
        pairs = tuple(t for t in range(34) if counts[t] == 2)
        heads = [counts[t] for t in THIRTEEN_HEADS]
        if "thirteen-heads" in rules.specials and sum(heads) == 14 and min(heads) >= 1:
            readings.append(Reading((), pairs, None, "thirteen-heads"))
        if "seven-pairs" in rules.specials and len(pairs) == 7:
            role = None if win_tile is None else "pair"
            readings.append(Reading((), pairs, role, "seven-pairs"))
    return readings


def reference_score(rules: RuleSet, hand: Hand, situation: Situation, win: Win, given) -> Score:
    options = rules.options(given)
    rules.check_hand(hand, win, options)  # counts the tiles itself
    facts = Facts(hand, win)
    best = None
    for reading in reference_readings(rules, hand, win):
        result = rules.score_reading(reading, facts, hand, situation, win, options)
        if best is None or result.total > best.total:
            best = result
    if best is None:
        raise HandError("not a winning hand")
    return best


def random_case(rng: random.Random, name: str) -> tuple[Hand, Situation, Win, dict]:
    rules = RULESETS[name]
    given = rng.choice(OPTIONS[name])
    if rng.random() < 0.1 and rules.sets_needed == 4:
        # The special hands, won every way.
        extra = rng.choice(THIRTEEN_HEADS)
        hand = Hand(tuple(sorted((*THIRTEEN_HEADS, extra))))
        if rng.random() < 0.5:
            pairs = rng.sample(range(34), 7)
            hand = Hand(tuple(sorted(t for t in pairs for _ in (0, 1))))
        win = Win(rng.choice(hand.concealed), rng.choice([DISCARD, "self-draw", DEALT]))
    else:
        hand, win = random_complete_hand(rng, rules.sets_needed, declared_max=rng.choice([0, 2]))
    flags = frozenset(rng.sample(FLAGS, rng.randrange(3))) if rng.random() < 0.3 else frozenset()
    win = Win(win.tile, DEALT if rng.random() < 0.05 else win.by, win.from_seat, flags)
    if rules.options(given).get("flowers") and rng.random() < 0.5:
        flowers = tuple(sorted(rng.sample(range(34, 42), rng.randrange(5))))
        hand = Hand(hand.concealed, hand.melds, flowers)
    extras = {"renchon": rng.randrange(10)} if rng.random() < 0.1 else {}
    return hand, Situation(rng.randrange(4), rng.randrange(4), extras), win, given


@settings(max_examples=400, deadline=None)
@given(seeds, st.sampled_from(sorted(RULESETS)))
def test_the_best_itemised_score_is_the_reference_s(seed, name) -> None:
    rules = RULESETS[name]
    hand, situation, win, given = random_case(random.Random(seed), name)
    try:
        expected = reference_score(rules, hand, situation, win, given)
    except HandError:
        # A special hand this rule set does not know: no reading, and the scorer says so.
        with pytest.raises(HandError, match="not a winning hand"):
            rules.score(hand, situation, win, given)
        return
    assert rules.score(hand, situation, win, given) == expected
    assert rules.score(hand, situation, win, rules.options(given)) == expected


@settings(max_examples=500, deadline=None)
@given(seeds, st.sampled_from(sorted(PLAIN)))
def test_the_one_pass_reading_scorers_score_as_the_plain_ones(seed, name) -> None:
    """Singapore's and Pung Chow Part II's reading scorers (one pass over the sets, the
    maximum or limit hands and bonuses on local counts) against their plain form
    (tests/rules/plain_scorers.py), on every reading of random hands: the same lines in the
    same order, the same total, the same limit hand."""
    rules, plain = RULESETS[name], PLAIN[name]
    hand, situation, win, given = random_case(random.Random(seed), name)
    options = rules.options(given)
    for reading in reference_readings(rules, hand, win):
        fast = rules.score_reading(reading, Facts(hand, win), hand, situation, win, options)
        assert fast == plain.score_reading(reading, Facts(hand, win), hand, situation, win, options)


@settings(max_examples=200, deadline=None)
@given(seeds, st.sampled_from([4, 5]))
def test_facts_count_the_hand_as_the_hand_does(seed, sets) -> None:
    """Facts against counting the hand's tiles plainly, for winning hands (whose parts it
    reads) and losing ones, with fifth copies in declared sets."""
    rng = random.Random(seed)
    hand, win = random_complete_hand(rng, sets)
    if rng.random() < 0.3:
        hand = Hand((*hand.concealed, rng.randrange(34, 42)), hand.melds)  # a stray flower
    if rng.random() < 0.3:
        # A declared set of a kind held in hand: often a fifth copy or more.
        tile = rng.choice([t for t in hand.concealed if t < 34])
        kind = rng.choice([Kind.PUNG, Kind.KONG] + [Kind.CHOW] * (tile < 27 and tile % 9 < 7))
        hand = Hand(hand.concealed, (*hand.melds, Meld(kind, tile)), hand.flowers)
    facts = Facts(hand, win if rng.random() < 0.8 else None)
    counts = hand.counts()
    assert facts.counts == counts
    assert facts.too_many == (max(counts) > 4)
    assert facts.concealed == [hand.concealed.count(t) for t in range(34)]
    assert facts.tile_count == hand.tile_count()
    assert facts.stray == any(t >= 34 for t in hand.concealed)
    suits = tuple(any(counts[9 * s : 9 * s + 9]) for s in range(3))
    honours = any(counts[27:])
    simples = any(counts[t] for t in range(27) if t % 9 not in (0, 8))
    terminals = any(counts[t] for t in range(27) if t % 9 in (0, 8))
    assert facts.suits == suits
    assert facts.has_honours == honours
    assert facts.all_honours == (honours and not any(suits))
    assert facts.one_suit == (sum(suits) == 1 and not honours)
    assert facts.one_suit_with_honours == (sum(suits) == 1 and honours)
    assert facts.no_simples == (not simples)
    assert facts.terminals_only == (not simples and not honours)
    assert facts.all_simples == (not honours and not terminals and any(suits))


@settings(max_examples=300, deadline=None)
@given(seeds, st.sampled_from([4, 5]), st.sampled_from([DISCARD, "self-draw"]))
def test_the_only_place_to_win_is_found_as_by_trying_every_tile(seed, sets, by) -> None:
    """Facts.unique_wait (a shortcut through the winning tile's part, or the search of
    has_unique_wait) against trying every other tile the player could still get in its place."""
    rng = random.Random(seed)
    hand, win = random_complete_hand(rng, sets, declared_max=rng.choice([0, 2]))
    win = Win(win.tile, by)
    held = hand.counts()
    before = [hand.concealed.count(t) for t in range(34)]
    before[win.tile] -= 1
    others = []
    for tile in range(34):
        if tile != win.tile and held[tile] < 4:
            before[tile] += 1
            if is_complete(before):
                others.append(tile)
            before[tile] -= 1
    expected = not others
    assert has_unique_wait(hand, win) == expected
    for reading in winning_readings(hand, win, sets):
        assert Facts(hand, win).unique_wait(hand, reading) == expected


def test_the_reference_finds_every_reading_of_a_hand_with_several() -> None:
    """The reference is itself checked on a hand worked by hand: 111222333m 456p 77s, won
    on a 2m by discard, reads as three pungs (the 2m completing the pung of twos) or as three
    equal chows (the 2m in the middle of one: tried once, not three times)."""
    hand = Hand((0, 0, 0, 1, 1, 1, 2, 2, 2, 12, 13, 14, 24, 24))
    readings = reference_readings(RULESETS["pung-chow"], hand, Win(1, DISCARD))
    assert [(r.win_role, [s.kind for s in r.sets if s.winning]) for r in readings] == [
        ("pung", [Kind.PUNG]),
        ("chow-middle", [Kind.CHOW]),
    ]
