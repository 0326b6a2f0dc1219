"""Shanten (how many tiles from ready) and tile acceptance, fast enough for a game loop.

A hand needs ``n`` more sets and a pair. Any division of its tiles into complete sets
(``m``), partial sets (``t``: a pair, two in sequence, or two with a gap) and one pair kept as
the final pair (``h``) gives the distance ``2n - min(2m + t, n + m) - h``; the shanten is the
least distance over all divisions (-1 for a complete hand, 0 for a ready one).

The hand splits into four parts (three suits, honours). For each part the divisions are
summarised by their Pareto frontier in ``(m, m + t)`` for ``h`` = 0 and 1 (a division is never
better than one with at least as many sets and at least as many sets-or-partials). Frontiers
are interned as small ints, and combining two frontiers is cached, so a shanten is four table
look-ups of the parts, three cached combinations and one cached evaluation. The caches are
bounded: a few hundred distinct frontiers exist, but the part patterns seen keep growing for
thousands of hands (32,000 after 1,200), so each part cache keeps at most the 16,384
patterns it met last (``PART_CACHE``; the oldest eighth goes when it is full). They are plain
dicts keyed by the part's bytes, about 100 bytes a pattern, and the suits' whole patterns
and the rests met while dividing them share one: as two ``lru_cache``s (a key tuple and a
list node an entry, about 480 bytes, and a frozenset kept for each rest beside the id kept
for each whole pattern) they took 16 MB full.

Special hands (thirteen single heads, seven pairs) are counted for rule sets that allow them,
on hands with no declared sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import islice
from operator import itemgetter

from bot.rules.tiles import N_KINDS

_CAP = 5  # no rule set needs more than five sets (filipino-16)
_HEADS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_heads_of = itemgetter(*_HEADS)

Point = tuple[int, int, int]  # (m, s = m + t, h)

PART_CACHE = 1 << 14

_frontiers: list[frozenset[Point]] = []
_frontier_ids: dict[frozenset[Point], int] = {}


def _intern(points: set[Point]) -> int:
    """Prune to the Pareto frontier per h and return its id."""
    pruned = frozenset(
        (m, s, h)
        for (m, s, h) in points
        if not any(
            h2 == h and m2 >= m and s2 >= s and (m2, s2) != (m, s) for (m2, s2, h2) in points
        )
    )
    found = _frontier_ids.get(pruned)
    if found is None:
        found = len(_frontiers)
        _frontiers.append(pruned)
        _frontier_ids[pruned] = found
    return found


_NO_TILES = _intern({(0, 0, 0)})  # the frontier of an empty suit


# A suit's pattern (whole, or what is left of it while dividing) -> its frontier's id: one
# cache for both, as a suit's whole pattern is one of the patterns its division looks up.
_SUIT_PARTS: dict[bytes, int] = {}
_HONOUR_PARTS: dict[bytes, int] = {}


def _keep(cache: dict[bytes, int], pattern: bytes, found: int) -> int:
    """Keep ``found`` for ``pattern``; once the cache is full, its oldest eighth goes first.
    (One at a time, each eviction scanned past every slot freed before it: 15 µs a pattern,
    against 0.6 µs this way.)"""
    if len(cache) >= PART_CACHE:
        for oldest in list(islice(cache, PART_CACHE // 8)):
            del cache[oldest]
    cache[pattern] = found
    return found


def _suit_part(pattern: bytes) -> int:
    """The id of the frontier of every (m, s, h) reachable by dividing a suit's pattern,
    pruned at each step."""
    found_before = _SUIT_PARTS.get(pattern)
    if found_before is not None:
        return found_before
    i = 0
    n = len(pattern)
    while i < n and pattern[i] == 0:
        i += 1
    if i == n:
        return _NO_TILES
    counts = bytearray(pattern)
    found: set[Point] = set()

    def rest(changes: Sequence[tuple[int, int]]) -> frozenset[Point]:
        for index, delta in changes:
            counts[index] -= delta
        result = _frontiers[_suit_part(bytes(counts))]
        for index, delta in changes:
            counts[index] += delta
        return result

    def add(sub: frozenset[Point], dm: int, dt: int, dh: int) -> None:
        for m, s, h in sub:
            if h + dh > 1:
                continue
            found.add((min(m + dm, _CAP), min(s + dm + dt, _CAP), h + dh))

    c = counts[i]
    add(rest([(i, 1)]), 0, 0, 0)  # the tile left on its own
    if c >= 3:
        add(rest([(i, 3)]), 1, 0, 0)
    if c >= 2:
        pair_rest = rest([(i, 2)])
        add(pair_rest, 0, 0, 1)  # the final pair
        add(pair_rest, 0, 1, 0)  # a pair waiting for a third
    if i + 2 < n and counts[i + 1] and counts[i + 2]:
        add(rest([(i, 1), (i + 1, 1), (i + 2, 1)]), 1, 0, 0)
    if i + 1 < n and counts[i + 1]:
        add(rest([(i, 1), (i + 1, 1)]), 0, 1, 0)
    if i + 2 < n and counts[i + 2]:
        add(rest([(i, 1), (i + 2, 1)]), 0, 1, 0)
    return _keep(_SUIT_PARTS, pattern, _intern(found))


def _honour_part(pattern: bytes) -> int:
    """Honours divide tile by tile."""
    points: set[Point] = {(0, 0, 0)}
    for c in pattern:
        if not c:
            continue
        options: list[Point] = [(0, 0, 0)]
        if c >= 3:
            options.append((1, 1, 0))
        if c >= 2:
            options.extend(((0, 1, 0), (0, 0, 1)))
        points = {
            (min(m + dm, _CAP), min(s + ds, _CAP), h + dh)
            for (m, s, h) in points
            for (dm, ds, dh) in options
            if h + dh <= 1
        }
    return _keep(_HONOUR_PARTS, pattern, _intern(points))


_combined: dict[tuple[int, int], int] = {}


def _combine(a: int, b: int) -> int:
    key = (a, b) if a <= b else (b, a)
    found = _combined.get(key)
    if found is None:
        points = {
            (min(m1 + m2, _CAP), min(s1 + s2, _CAP), h1 + h2)
            for (m1, s1, h1) in _frontiers[a]
            for (m2, s2, h2) in _frontiers[b]
            if h1 + h2 <= 1
        }
        found = _intern(points)
        _combined[key] = found
    return found


@lru_cache(maxsize=1 << 14)
def _distance(frontier: int, needed: int) -> int:
    best = max(min(m + s, needed + m) + h for (m, s, h) in _frontiers[frontier])
    return 2 * needed - best


def _parts(b: bytes) -> tuple[int, int, int, int]:
    # Written out part by part, as bot.rules.reading's _part_infos: a computer's decision asks
    # for dozens of shantens (acceptance tries every tile), and a helper per part is a call
    # each. A frontier's id may be 0, so no ``get(...) or``.
    suits = _SUIT_PARTS
    p0 = suits.get(s0 := b[0:9])
    if p0 is None:
        p0 = _suit_part(s0)
    p1 = suits.get(s1 := b[9:18])
    if p1 is None:
        p1 = _suit_part(s1)
    p2 = suits.get(s2 := b[18:27])
    if p2 is None:
        p2 = _suit_part(s2)
    p3 = _HONOUR_PARTS.get(s3 := b[27:34])
    if p3 is None:
        p3 = _honour_part(s3)
    return p0, p1, p2, p3


def standard_shanten(counts: Sequence[int], needed: int) -> int:
    """Shanten towards ``needed`` sets and a pair (ignoring special hands)."""
    b = bytes(counts)
    p0, p1, p2, p3 = _parts(b)
    return _distance(_combine(_combine(p0, p1), _combine(p2, p3)), needed)


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    b = bytes(counts)
    kinds = N_KINDS - b.count(0)
    pairs = kinds - b.count(1)
    return 6 - pairs + max(0, 7 - kinds)


def thirteen_heads_shanten(counts: Sequence[int]) -> int:
    heads = _heads_of(counts)
    kinds = 13 - heads.count(0)
    return 13 - kinds - (1 if max(heads) >= 2 else 0)


def shanten(counts: Sequence[int], needed: int, specials: Sequence[str] = ()) -> int:
    """Shanten of the concealed tiles ``counts`` (34 kinds) needing ``needed`` more sets and a
    pair; ``specials`` are the special hands allowed (only with no declared sets)."""
    best = standard_shanten(counts, needed)
    if specials and best > 0:
        if "seven-pairs" in specials:
            best = min(best, seven_pairs_shanten(counts))
        if "thirteen-heads" in specials:
            best = min(best, thirteen_heads_shanten(counts))
    return best


def neighbours(counts: Sequence[int]) -> list[int]:
    """Kinds that can change the shanten when drawn: held honours, suit tiles within two of a
    held one (and every head, for thirteen heads)."""
    seen = bytearray(N_KINDS)
    for tile in range(N_KINDS):
        if counts[tile]:
            if tile >= 27:
                seen[tile] = 1
            else:
                base = tile - tile % 9
                lo = max(base, tile - 2)
                hi = min(base + 8, tile + 2)
                for t in range(lo, hi + 1):
                    seen[t] = 1
    return [t for t in range(N_KINDS) if seen[t]]


def acceptance(
    counts: list[int],
    needed: int,
    unseen: Sequence[int],
    specials: Sequence[str] = (),
    current: int | None = None,
) -> tuple[int, list[int]]:
    """Tile acceptance (ukeire) of a hand waiting to draw: how many unseen tiles would lower its
    shanten, and which kinds. ``counts`` is restored before returning."""
    if current is None:
        current = shanten(counts, needed, specials)
    kinds = neighbours(counts)
    if specials and "thirteen-heads" in specials:
        kinds = sorted(set(kinds) | set(_HEADS))
    total = 0
    useful: list[int] = []
    for tile in kinds:
        if not unseen[tile] or counts[tile] >= 4:
            continue
        counts[tile] += 1
        if shanten(counts, needed, specials) < current:
            total += unseen[tile]
            useful.append(tile)
        counts[tile] -= 1
    return total, useful
