"""Tiles as small ints, their properties and the compact notation.

A tile is an int: 0-8 characters 1-9 (``m``), 9-17 dots (``p``), 18-26 bamboo (``s``),
27-30 winds East South West North, 31-33 dragons White Green Red (``1z``-``7z``),
34-37 flowers 1-4 and 38-41 seasons 1-4 (``1f``-``8f``). The order of the honours follows
the compact interchange notation of ``docs/architecture.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

CHARACTERS, DOTS, BAMBOO, HONOURS, BONUS = 0, 1, 2, 3, 4
SUIT_LETTERS = "mpszf"
SUIT_NAMES = ("characters", "dots", "bamboo", "honours", "bonus")

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
WHITE, GREEN, RED = 31, 32, 33
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
FLOWERS = (34, 35, 36, 37)
SEASONS = (38, 39, 40, 41)

N_KINDS = 34
N_TILES = 42

# Seat winds are named by their index 0..3 (East, South, West, North) throughout the engine.
WIND_LETTERS = "ESWN"
WIND_NAMES = ("East", "South", "West", "North")
DRAGON_NAMES = ("White", "Green", "Red")


def suit(tile: int) -> int:
    """The suit index (CHARACTERS, DOTS, BAMBOO, HONOURS or BONUS) of a tile."""
    if tile >= 34:
        return BONUS
    return tile // 9


def rank(tile: int) -> int:
    """1-9 for suit tiles, 1-7 for honours (compact ``z`` number), 1-8 for bonus tiles."""
    if tile >= 34:
        return tile - 33
    if tile >= 27:
        return tile - 26
    return tile % 9 + 1


def make(suit_index: int, number: int) -> int:
    """The tile of a suit and number, the inverse of :func:`suit` and :func:`rank`."""
    if suit_index == BONUS:
        return 33 + number
    return suit_index * 9 + number - 1


def is_suited(tile: int) -> bool:
    return tile < 27


def is_honour(tile: int) -> bool:
    """Winds and dragons (Pung Chow p.11: the honour suit without the mandarins)."""
    return 27 <= tile < 34


def is_wind(tile: int) -> bool:
    return 27 <= tile <= 30


def is_dragon(tile: int) -> bool:
    return 31 <= tile <= 33


def is_bonus(tile: int) -> bool:
    """Flowers and seasons (the book's mandarins)."""
    return tile >= 34


def is_terminal(tile: int) -> bool:
    return tile < 27 and tile % 9 in (0, 8)


def is_head(tile: int) -> bool:
    """A "head": a one, nine, wind or dragon (Pung Chow p.61)."""
    return (tile >= 27 and tile < 34) or (tile < 27 and tile % 9 in (0, 8))


def is_simple(tile: int) -> bool:
    """A suit tile from two to eight (the texts' "middle numbers")."""
    return tile < 27 and tile % 9 not in (0, 8)


def wind_tile(seat_wind: int) -> int:
    """The wind tile of a seat wind index 0..3."""
    return EAST + seat_wind


def bonus_wind(tile: int) -> int:
    """The seat wind (0..3) a flower or season belongs to: ``n`` mod 4, 1 East ... 0 North."""
    return (tile - 34) % 4


def is_flower(tile: int) -> bool:
    return 34 <= tile <= 37


def is_season(tile: int) -> bool:
    return 38 <= tile <= 41


def tile_name(tile: int) -> str:
    """A person's name for a tile: ``5 Dots``, ``East Wind``, ``Red Dragon``, ``Flower 2``."""
    s = suit(tile)
    if s < HONOURS:
        return f"{rank(tile)} {SUIT_NAMES[s].capitalize()}"
    if is_wind(tile):
        return f"{WIND_NAMES[tile - EAST]} Wind"
    if is_dragon(tile):
        return f"{DRAGON_NAMES[tile - WHITE]} Dragon"
    if is_flower(tile):
        return f"Flower {tile - 33}"
    return f"Season {tile - 37}"


def short_name(tile: int) -> str:
    """A two-to-three character label: ``5d``, ``9c``, ``1b``, ``E``, ``Wh``, ``F2``, ``S3``.

    Used on buttons and in the Western index drawn on tiles (the 1920s American sets).
    """
    s = suit(tile)
    if s < HONOURS:
        return f"{rank(tile)}{'cdb'[s]}"
    if is_wind(tile):
        return WIND_LETTERS[tile - EAST]
    if is_dragon(tile):
        return ("Wh", "G", "R")[tile - WHITE]
    return f"F{tile - 33}" if is_flower(tile) else f"S{tile - 37}"


class NotationError(ValueError):
    """A hand string that cannot be read; the message names the bad token and what was expected."""


_COMPACT_GROUP = re.compile(r"([0-9]+)([mpszf])")  # ASCII digits only (not ５m)


def parse_tiles(text: str) -> list[int]:
    """Parse the compact form ``123m456p789s1234567z1f`` into tiles, in written order.

    Digits are followed by their suit letter; ``0`` is not a tile. Spaces are ignored.
    """
    compact = "".join(text.split())
    tiles: list[int] = []
    pos = 0
    while pos < len(compact):
        match = _COMPACT_GROUP.match(compact, pos)
        if match is None:
            rest = compact[pos:]
            bad = re.match(r"[0-9]+[^0-9]?|.", rest, re.DOTALL)
            token = bad.group(0) if bad else rest
            if token.isascii() and token[:-1].isdigit() and not token[-1].isdigit():
                raise NotationError(
                    f"'{token}': '{token[-1]}' is not a suit letter: expected "
                    "m (characters), p (dots), s (bamboo), z (honours) or f (flowers/seasons)"
                )
            if token.isascii() and token.isdigit():
                raise NotationError(
                    f"'{token}' has no suit letter: expected digits followed by one of "
                    "m (characters), p (dots), s (bamboo), z (honours), f (flowers/seasons)"
                )
            raise NotationError(
                f"unexpected '{token}' at position {pos + 1}: expected digits followed by "
                "m, p, s, z or f (for example 123m 55z 1f)"
            )
        digits, letter = match.groups()
        suit_index = SUIT_LETTERS.index(letter)
        limit = {"z": 7, "f": 8}.get(letter, 9)
        for ch in digits:
            number = int(ch)
            if not 1 <= number <= limit:
                raise NotationError(
                    f"'{digits}{letter}': {number}{letter} is not a tile "
                    f"(expected 1-{limit} before '{letter}')"
                )
            tiles.append(make(suit_index, number))
        pos = match.end()
    return tiles


def format_tiles(tiles: Iterable[int], *, sort: bool = True) -> str:
    """Print tiles in the compact form, grouped by suit (``123m55z``)."""
    ordered = sorted(tiles) if sort else list(tiles)
    out: list[str] = []
    run_suit = -1
    run: list[str] = []
    for tile in ordered:
        s = suit(tile)
        if s != run_suit and run:
            out.append("".join(run) + SUIT_LETTERS[run_suit])
            run = []
        run_suit = s
        run.append(str(rank(tile)))
    if run:
        out.append("".join(run) + SUIT_LETTERS[run_suit])
    return "".join(out)


def tile_from_compact(text: str) -> int:
    """One tile in compact form (``5p``); raises NotationError otherwise."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(f"'{text}': expected exactly one tile such as 5p or 7z")
    return tiles[0]


def counts_of(tiles: Iterable[int]) -> list[int]:
    """A count array of the 34 playing kinds (bonus tiles are not counted)."""
    counts = [0] * N_KINDS
    for tile in tiles:
        if tile < N_KINDS:
            counts[tile] += 1
    return counts


def tiles_of(counts: Sequence[int]) -> list[int]:
    """The sorted tiles of a count array."""
    return [tile for tile, n in enumerate(counts) for _ in range(n)]


def full_set(with_bonus: bool) -> list[int]:
    """Every tile of a set: 136 tiles, or 144 with the eight flowers and seasons."""
    tiles = [tile for tile in range(N_KINDS) for _ in range(4)]
    if with_bonus:
        tiles.extend(range(34, 42))
    return tiles
