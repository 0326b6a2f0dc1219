"""Seeded random complete hands, for property tests and benchmarks.

A hand is built set by set from a pool of the 136 tiles, so no kind exceeds four; some sets
are declared (exposed, or concealed kongs), the rest stay in hand; the winning tile is one of
the concealed tiles and the way it came is drawn at random.
"""

from __future__ import annotations

import random

from bot.rules.analysis import CHOW, KONG, PUNG
from bot.rules.hand import DISCARD, LOOSE_TILE, SELF_DRAW, Hand, Win
from bot.rules.melds import Kind, Meld


def _take(pool: list[int], tiles: list[int]) -> bool:
    for i, tile in enumerate(tiles):
        if pool[tile] == 0:
            for t in tiles[:i]:
                pool[t] += 1
            return False
        pool[tile] -= 1
    return True


def random_complete_hand(
    rng: random.Random, sets: int = 4, *, declared_max: int = 2
) -> tuple[Hand, Win]:
    """A complete hand of ``sets`` sets and a pair with up to ``declared_max`` declared melds."""
    while True:
        pool = [4] * 34
        concealed: list[int] = []
        melds: list[Meld] = []
        declared = rng.randint(0, declared_max)
        ok = True
        for index in range(sets):
            for _ in range(20):
                roll = rng.random()
                if roll < 0.55:
                    start = rng.randrange(27)
                    if start % 9 > 6:
                        continue
                    kind, tiles = CHOW, [start, start + 1, start + 2]
                elif roll < 0.92:
                    tile = rng.randrange(34)
                    kind, tiles = PUNG, [tile] * 3
                else:
                    tile = rng.randrange(34)
                    kind, tiles = KONG, [tile] * 4
                if not _take(pool, tiles):
                    continue
                if kind == KONG or index < declared:
                    concealed_kong = kind == KONG and rng.random() < 0.4
                    melds.append(Meld(Kind(kind), tiles[0], concealed=concealed_kong))
                else:
                    concealed.extend(tiles)
                break
            else:
                ok = False
        pair = rng.randrange(34)
        if not ok or not _take(pool, [pair, pair]):
            continue
        concealed.extend([pair, pair])
        rng.shuffle(concealed)
        win_tile = rng.choice(concealed)
        roll = rng.random()
        by = DISCARD if roll < 0.6 else SELF_DRAW if roll < 0.95 else LOOSE_TILE
        if by == LOOSE_TILE and not any(m.kind is Kind.KONG for m in melds):
            by = SELF_DRAW
        from_seat = rng.randrange(4) if by == DISCARD else None
        return Hand(tuple(sorted(concealed)), tuple(melds)), Win(win_tile, by, from_seat)


def random_hand_tiles(rng: random.Random, size: int) -> list[int]:
    """``size`` tiles drawn at random from a full set (mostly not complete)."""
    wall = [t for t in range(34) for _ in range(4)]
    rng.shuffle(wall)
    return sorted(wall[:size])
