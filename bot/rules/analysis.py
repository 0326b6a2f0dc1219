"""Hand analysis: is a hand complete, every arrangement of it, the waits of a ready hand.

Hands are count arrays over the 34 playing kinds. A hand splits into four independent parts
(three suits and the honours); each part's counts, as a tuple, is looked up in tables built
once of every part that divides into sets (three of a kind or, in a suit, three in sequence)
with or without one pair. A part with a number of tiles of the form 3k divides into sets only;
3k+2, into sets and the pair; 3k+1 never. Building the tables takes a fraction of a second and
makes win detection a handful of dictionary look-ups, which is what the game loop and the
computer players call most.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from bot.rules.tiles import N_KINDS

CHOW, PUNG, KONG, PAIR = 0, 1, 2, 3


class SetInfo(NamedTuple):
    """A set in a reading: kind (matching bot.rules.melds.Kind), lowest tile, whether it counts
    as concealed, and whether the winning tile completed it."""

    kind: int
    tile: int
    concealed: bool
    winning: bool = False


Arrangement = tuple[SetInfo, ...]

# The sets the part caches keep are few (kind x lowest tile x concealed x winning): each is
# kept once and shared. Built anew for every pattern they were the commonest object in the
# caches' growth over a 1-hour soak (7-8 a pattern).
_SET_INFOS: dict[tuple[int, int, bool, bool], SetInfo] = {}


def set_info(kind: int, tile: int, concealed: bool, winning: bool = False) -> SetInfo:
    """The shared :class:`SetInfo` of these fields (for what a long-lived cache keeps)."""
    key = (kind, tile, concealed, winning)
    found = _SET_INFOS.get(key)
    if found is None:
        found = _SET_INFOS[key] = SetInfo(kind, tile, concealed, winning)
    return found


_MAX_SETS = 5  # filipino-16: five sets and a pair (seventeen tiles)
_HEAD_TILES = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def _build_part_table(ranks: int, allow_chow: bool) -> dict[tuple[int, ...], int]:
    """Every count pattern of one part that divides into sets, mapped to its pair count (0/1)."""
    deltas: list[tuple[int, ...]] = []
    for i in range(ranks):
        deltas.append(tuple(3 if j == i else 0 for j in range(ranks)))
    if allow_chow:
        for i in range(ranks - 2):
            deltas.append(tuple(1 if i <= j <= i + 2 else 0 for j in range(ranks)))
    empty = (0,) * ranks
    sets_only = {empty}
    level = {empty}
    for _ in range(_MAX_SETS):
        following: set[tuple[int, ...]] = set()
        for pattern in level:
            for delta in deltas:
                new = tuple(a + b for a, b in zip(pattern, delta, strict=True))
                if max(new) <= 4:
                    following.add(new)
        sets_only |= following
        level = following
    table = dict.fromkeys(sets_only, 0)
    for pattern in sets_only:
        for i in range(ranks):
            if pattern[i] <= 2:
                table[(*pattern[:i], pattern[i] + 2, *pattern[i + 1 :])] = 1
    return table


PATTERNS_KEPT = 2048  # per part, in each cache of part patterns (see keep_pattern)
_SUIT_TABLE = _build_part_table(9, allow_chow=True)
_ZERO7 = (0,) * 7
_HONOUR_TABLE = _build_part_table(7, allow_chow=False)


def is_complete(
    counts: Sequence[int],
    _get: Any = _SUIT_TABLE.get,
    _honours: Any = _HONOUR_TABLE.get,
    _tuple: Any = tuple,
) -> bool:
    """True when the concealed tiles divide into sets and exactly one pair.

    ``counts`` covers only the tiles in hand; declared melds are already sets, so any number of
    them may lie beside (Pung Chow p.24: "four sets and a pair"). The honours are looked at
    first: a lone wind or dragon ends most hands' chances at once. (The look-ups are bound as
    defaults because this is the engine's hottest function; the parts are tuples because
    ``tuple(list)`` costs a third of ``bytes(list)``, which has no fast call path.)
    """
    b = _tuple(counts)
    e = _honours(b[27:34])
    if e is None:
        return False
    a = _get(b[0:9])
    if a is None:
        return False
    c = _get(b[9:18])
    if c is None:
        return False
    d = _get(b[18:27])
    if d is None:
        return False
    return a + c + d + e == 1


def _build_shape_table(
    part: dict[tuple[int, ...], int], ranks: int, heads: tuple[int, ...]
) -> dict[tuple[int, ...], int]:
    """The part table of :func:`_build_part_table` (a pattern that divides into sets and at
    most one pair, mapped to its pair count), plus every pattern that can only belong to a
    special shape (different pairs; exactly the part's terminal and honour heads), mapped to
    :data:`_SPECIAL`. A pattern in neither belongs to no winning shape."""
    table = dict(part)
    for pattern in itertools.product((0, 2), repeat=ranks):
        table.setdefault(pattern, _SPECIAL)
    for chosen in itertools.product((1, 2), repeat=len(heads)):
        pattern = [0] * ranks
        for i, n in zip(heads, chosen, strict=True):
            pattern[i] = n
        table.setdefault(tuple(pattern), _SPECIAL)
    return table


_SPECIAL = 100  # in a winning shape, never sets and one pair: four such never sum to 1
_SHAPE_SUIT_TABLE = _build_shape_table(_SUIT_TABLE, 9, (0, 8))
_SHAPE_HONOUR_TABLE = _build_shape_table(_HONOUR_TABLE, 7, tuple(range(7)))


def is_winning_shape(
    counts: Sequence[int],
    _get: Any = _SHAPE_SUIT_TABLE.get,
    _honours: Any = _SHAPE_HONOUR_TABLE.get,
    _tuple: Any = tuple,
) -> bool:
    """Sets and a pair, seven different pairs, or the thirteen single heads with a pair: every
    winning shape any of our rule sets knows (what ``mahjong``'s ``is_agari`` also checks).

    One look-up per part, as :func:`is_complete`: a part in no winning shape ends the check,
    so the special shapes cost the usual hand nothing."""
    b = _tuple(counts)
    e = _honours(b[27:34])
    if e is None:
        return False
    a = _get(b[0:9])
    if a is None:
        return False
    c = _get(b[9:18])
    if c is None:
        return False
    d = _get(b[18:27])
    if d is None:
        return False
    # Sets and one pair; else seven pairs may still hide in parts that divide into sets too
    # (223344 is two chows), so the rare hand that got this far is looked at whole.
    return a + c + d + e == 1 or _is_special_shape(b)


def _is_special_shape(b: tuple[int, ...]) -> bool:
    """Seven different pairs, or the thirteen terminal and honour heads with one paired."""
    absent = b.count(0)
    if absent == 27:
        return b.count(2) == 7
    if absent == 21 and b[1:8] == _ZERO7 and b[10:17] == _ZERO7 and b[19:26] == _ZERO7:
        heads = b[0:1] + b[8:10] + b[17:19] + b[26:34]
        return heads.count(1) == 12 and heads.count(2) == 1
    return False


def is_sets_only(counts: Sequence[int]) -> bool:
    """True when the tiles divide into sets with no pair left over."""
    b = tuple(counts)
    get = _SUIT_TABLE.get
    return (
        get(b[0:9]) == 0
        and get(b[9:18]) == 0
        and get(b[18:27]) == 0
        and _HONOUR_TABLE.get(b[27:34]) == 0
    )


def _part_arrangements(
    pattern: tuple[int, ...], offset: int, allow_chow: bool
) -> tuple[Arrangement, ...]:
    """Every division of one part into sets (and the pair, if its size is 3k+2).

    The lowest tile left must belong to exactly one set starting at it, so trying a pair,
    a pung and a chow there lists each division once.
    """
    counts = list(pattern)
    found: list[Arrangement] = []
    want_pair = sum(counts) % 3 == 2
    if sum(counts) % 3 == 1:
        return ()

    def walk(start: int, pair_left: bool, acc: list[SetInfo]) -> None:
        i = start
        while i < len(counts) and counts[i] == 0:
            i += 1
        if i == len(counts):
            if not pair_left:
                found.append(tuple(acc))
            return
        if pair_left and counts[i] >= 2:
            counts[i] -= 2
            acc.append(set_info(PAIR, offset + i, True))
            walk(i, False, acc)
            acc.pop()
            counts[i] += 2
        if counts[i] >= 3:
            counts[i] -= 3
            acc.append(set_info(PUNG, offset + i, True))
            walk(i, pair_left, acc)
            acc.pop()
            counts[i] += 3
        if allow_chow and i + 2 < len(counts) and counts[i + 1] and counts[i + 2]:
            counts[i] -= 1
            counts[i + 1] -= 1
            counts[i + 2] -= 1
            acc.append(set_info(CHOW, offset + i, True))
            walk(i, pair_left, acc)
            acc.pop()
            counts[i] += 1
            counts[i + 1] += 1
            counts[i + 2] += 1

    walk(0, want_pair, [])
    return tuple(found)


# Per-part caches of the patterns that divide: their pair count (0/1) and arrangements. A dict
# per part is a cheaper look-up than lru_cache, one look-up per part (a tuple does not keep its
# hash, so a second look-up would hash it again). The domain is finite but large (53,055 suit
# patterns divide), and a bot that runs for days keeps meeting new ones (about 500 in 1,200
# hands), so a part's dict is emptied when it reaches PATTERNS_KEPT: memory stays bounded, and
# the next hands fill it again with the patterns they use (a part's arrangements are kept
# here only). The lru cache of part completions holds as many. 2,048 a part is the least that
# keeps benchmarks/engine.py's itemised scores of random hands at full speed (1,024 cost
# Singapore 16 %, 512 cost 40-55 %); full, these caches and bot.rules.reading's hold about
# 17 MB (3 KB a pattern).
_Divided = tuple[int, tuple[Arrangement, ...]]
_ARRANGEMENT_CACHES: tuple[dict[tuple[int, ...], _Divided], ...] = ({}, {}, {}, {})


def keep_pattern(cache: dict[tuple[int, ...], Any], pattern: tuple[int, ...], found: Any) -> None:
    """Keep ``found`` for ``pattern`` in a per-part cache, emptied first when full."""
    if len(cache) >= PATTERNS_KEPT:
        cache.clear()
    cache[pattern] = found


def _divided(pattern: tuple[int, ...], part: int) -> _Divided | None:
    """Pair count and arrangements of a part's pattern (built and kept the first time), or
    None when the pattern does not divide."""
    pairs = (_HONOUR_TABLE if part == 3 else _SUIT_TABLE).get(pattern)
    if pairs is None:
        return None
    found = (pairs, _part_arrangements(pattern, 9 * part, part != 3))
    keep_pattern(_ARRANGEMENT_CACHES[part], pattern, found)
    return found


def part_arrangements(pattern: tuple[int, ...], part: int) -> tuple[Arrangement, ...]:
    """Every division of one part (0-2 the suits, 3 the honours) of a complete hand into sets
    (and the pair, if the part has 3k+2 tiles); empty when it does not divide."""
    found = _ARRANGEMENT_CACHES[part].get(pattern) or _divided(pattern, part)
    return () if found is None else found[1]


def arrangements(counts: Sequence[int]) -> list[Arrangement]:
    """Every arrangement of the concealed tiles into sets and one pair (empty if none)."""
    b = tuple(counts)
    p0, p1, p2, p3 = b[0:9], b[9:18], b[18:27], b[27:34]
    c0, c1, c2, c3 = _ARRANGEMENT_CACHES
    d3 = c3.get(p3) or _divided(p3, 3)
    if d3 is None:
        return []
    d0 = c0.get(p0) or _divided(p0, 0)
    d1 = c1.get(p1) or _divided(p1, 1)
    d2 = c2.get(p2) or _divided(p2, 2)
    if d0 is None or d1 is None or d2 is None or d0[0] + d1[0] + d2[0] + d3[0] != 1:
        return []
    result: list[Arrangement] = [()]
    for options in (d0[1], d1[1], d2[1], d3[1]):
        if len(options) == 1:
            only = options[0]
            if only:
                result = [r + only for r in result] if len(result) > 1 else [result[0] + only]
        else:
            result = [r + option for r in result for option in options]
    return result


EMPTY_PARTS = ((0,) * 9, (0,) * 9, (0,) * 9, (0,) * 7)


def part_pairs(pattern: tuple[int, ...], part: int) -> int | None:
    """The pairs (0 or 1) of one part (0-2 the suits, 3 the honours) that divides into sets
    and at most one pair; None when it does not divide."""
    return (_HONOUR_TABLE if part == 3 else _SUIT_TABLE).get(pattern)


def complete_parts(
    counts: Sequence[int], _get: Any = _SUIT_TABLE.get, _honours: Any = _HONOUR_TABLE.get
) -> tuple[tuple[int, ...], ...] | None:
    """The four parts (three suits, then the honours) of concealed tiles that divide into sets
    and one pair, as count patterns for :func:`part_arrangements`; None when they do not."""
    b = tuple(counts)
    p0, p1, p2, p3 = b[0:9], b[9:18], b[18:27], b[27:34]
    s3 = _honours(p3)
    if s3 is None:
        return None
    s0, s1, s2 = _get(p0), _get(p1), _get(p2)
    if s0 is None or s1 is None or s2 is None or s0 + s1 + s2 + s3 != 1:
        return None
    return p0, p1, p2, p3


def is_thirteen_heads(counts: Sequence[int]) -> bool:
    """One of each of the thirteen heads and a second of one of them (Pung Chow p.62,
    limit hand 1, "single heads"; the Singapore text's "7 different honor tiles, plus 1 and
    9 of each suit")."""
    b = tuple(counts)
    if b[1:8] != _ZERO7 or b[10:17] != _ZERO7 or b[19:26] != _ZERO7:
        return False
    heads = b[0:1] + b[8:10] + b[17:19] + b[26:34]
    return heads.count(1) == 12 and heads.count(2) == 1


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """Seven different pairs (the Singapore text's "7 Eyes")."""
    b = tuple(counts)
    return b.count(2) == 7 and b.count(0) == 27


@lru_cache(maxsize=PATTERNS_KEPT)
def part_completions(pattern: tuple[int, ...], part: int) -> tuple[tuple[int, ...], bool]:
    """The tiles that, added to one part, make it divide, and whether it then holds the pair."""
    honours = part == 3
    table = _HONOUR_TABLE if honours else _SUIT_TABLE
    offset = 9 * part
    found = []
    for i in range(len(pattern)):
        if pattern[i] < 4:
            trial = (*pattern[:i], pattern[i] + 1, *pattern[i + 1 :])
            if trial in table:
                found.append(offset + i)
    return tuple(found), (sum(pattern) + 1) % 3 == 2


def ready_waits(
    counts: Sequence[int],
    _get: Any = _SUIT_TABLE.get,
    _honours: Any = _HONOUR_TABLE.get,
    _completions: Any = part_completions,
) -> list[int]:
    """The kinds completing a hand of 3k+1 concealed tiles into sets and a pair, part by part.

    Adding a tile changes one part only, so the other parts must already divide: all of them
    into sets (the changed part then takes the pair), or all but one, which holds the pair.
    Each part's completions are cached by its pattern. (Written out part by part, with the
    look-ups bound as defaults: the scorer asks this of every hand whose only winning tile
    matters, and the computer players of every hand they hold.)
    """
    b = tuple(counts)
    p0, p1, p2, p3 = b[0:9], b[9:18], b[18:27], b[27:34]
    s0, s1, s2, s3 = _get(p0), _get(p1), _get(p2), _honours(p3)
    if s0 is None or s1 is None or s2 is None or s3 is None:
        # The part that does not divide takes the tile; the others hold at most the pair.
        if s0 is None:
            if s1 is None or s2 is None or s3 is None:
                return []
            broken, part, others = p0, 0, s1 + s2 + s3
        elif s1 is None:
            if s2 is None or s3 is None:
                return []
            broken, part, others = p1, 1, s0 + s2 + s3
        elif s2 is None:
            if s3 is None:
                return []
            broken, part, others = p2, 2, s0 + s1 + s3
        else:
            broken, part, others = p3, 3, s0 + s1 + s2
        if others > 1:
            return []
        tiles, takes_pair = _completions(broken, part)
        return list(tiles) if takes_pair == (others == 0) else []
    pairs = s0 + s1 + s2 + s3
    out: list[int] = []
    for part, pattern, status in ((0, p0, s0), (1, p1, s1), (2, p2, s2), (3, p3, s3)):
        # With this part changed, the others must hold at most the one pair of the hand.
        others = pairs - status
        if others > 1:
            continue
        tiles, takes_pair = _completions(pattern, part)
        if takes_pair == (others == 0):
            out.extend(tiles)
    return out


def discards_keeping_ready(tiles: Sequence[int]) -> frozenset[int]:
    """The kinds whose discard from a hand of 3k+2 tiles leaves it ready (waiting to win):
    marked on a player's hand image."""
    if len(tiles) % 3 != 2:
        return frozenset()
    counts = [0] * N_KINDS
    for tile in tiles:
        if tile < N_KINDS:
            counts[tile] += 1
    marks = set()
    for tile in set(tiles):
        if tile >= N_KINDS:
            continue
        counts[tile] -= 1
        if ready_waits(counts):
            marks.add(tile)
        counts[tile] += 1
    return frozenset(marks)


def candidate_waits(counts: Sequence[int]) -> list[int]:
    """Kinds worth trying as the winning tile: neighbours of held suit tiles, held honours."""
    seen = bytearray(N_KINDS)
    for tile in range(N_KINDS):
        if counts[tile]:
            if tile >= 27:
                seen[tile] = 1
            else:
                base = tile - tile % 9
                for t in range(max(base, tile - 2), min(base + 8, tile + 2) + 1):
                    seen[t] = 1
    return [tile for tile in range(N_KINDS) if seen[tile]]


def waits(
    counts: Sequence[int],
    *,
    held: Sequence[int] | None = None,
    specials: bool = False,
) -> list[int]:
    """The kinds that would complete a ready hand of 3k+1 concealed tiles.

    ``held`` counts every tile the player owns (concealed and declared); a kind he already
    holds four of cannot come to him. ``specials`` adds the special shapes a rule set allows
    (thirteen single heads; seven pairs) for a hand with no declared melds.
    """
    owned = held if held is not None else counts
    found = set(ready_waits(counts))
    if specials and sum(counts) == 13:
        work = list(counts)
        for tile in range(N_KINDS):
            work[tile] += 1
            if is_thirteen_heads(work) or is_seven_pairs(work):
                found.add(tile)
            work[tile] -= 1
    return [tile for tile in sorted(found) if owned[tile] < 4]
