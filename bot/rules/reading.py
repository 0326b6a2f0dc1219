"""Readings of a hand: every way its tiles can be counted, for the scorer to take the best.

A winning hand may divide in several ways, and its winning tile may have completed different
sets; the texts score each set by how it was completed ("a set completed by a claimed discard
counts as exposed", Pung Chow p.22). A *reading* is one such choice. The scorer of each rule
set values every reading and keeps the highest, as a player laying out his hand would.
A losing hand has one reading: its declared melds, its concealed three-of-a-kinds, and the
pairs left in hand.
"""

from __future__ import annotations

from typing import NamedTuple

from bot.rules.analysis import (
    CHOW,
    KONG,
    PAIR,
    PUNG,
    arrangements,
    is_seven_pairs,
    is_thirteen_heads,
    waits,
)
from bot.rules.hand import DEALT, DISCARD, Hand, Win
from bot.rules.tiles import N_KINDS, counts_of, format_tiles, is_dragon, is_honour, is_simple


class SetInfo(NamedTuple):
    kind: int
    tile: int
    concealed: bool
    winning: bool = False


class Reading(NamedTuple):
    """One way of counting a hand. ``win_role`` says what the winning tile completed:
    ``pair``, ``pung``, ``chow-middle``, ``chow-edge`` (the only open end: 1-2 waiting on 3,
    8-9 on 7), ``chow-open`` (a sequence open at both ends), or None (a dealt hand, a loser)."""

    sets: tuple[SetInfo, ...]
    pairs: tuple[int, ...]
    win_role: str | None = None
    special: str | None = None


class Facts:
    """What every reading of one hand shares, computed once."""

    __slots__ = (
        "all_honours",
        "all_simples",
        "counts",
        "flowers",
        "has_honours",
        "no_simples",
        "one_suit",
        "one_suit_with_honours",
        "suits",
        "terminals_only",
        "tile_total",
    )

    def __init__(self, hand: Hand) -> None:
        counts = hand.counts()
        self.counts = counts
        self.flowers = hand.flowers
        suits = {t // 9 for t in range(27) if counts[t]}
        self.suits = suits
        honours = any(counts[27:34])
        self.has_honours = honours
        self.all_honours = honours and not suits
        self.one_suit = len(suits) == 1 and not honours
        self.one_suit_with_honours = len(suits) == 1 and honours
        self.all_simples = not honours and all(is_simple(t) for t in range(27) if counts[t])
        self.no_simples = not any(counts[t] for t in range(27) if is_simple(t))
        self.terminals_only = self.no_simples and not honours
        self.tile_total = sum(counts)


def _chow_role(start: int, tile: int) -> str:
    position = tile - start
    if position == 1:
        return "chow-middle"
    if (position == 2 and start % 9 == 0) or (position == 0 and start % 9 == 6):
        return "chow-edge"
    return "chow-open"


def winning_readings(
    hand: Hand, win: Win, sets_needed: int, *, specials: tuple[str, ...] = ()
) -> list[Reading]:
    """Every reading of a complete hand with ``sets_needed`` sets and a pair.

    For each arrangement of the concealed tiles, each distinct set holding the winning tile
    is tried as the one it completed; claimed by discard, that set counts as exposed.
    """
    concealed = counts_of(hand.concealed)
    declared = tuple(SetInfo(m.kind, m.tile, m.concealed) for m in hand.melds)
    readings: list[Reading] = []
    win_tile = win.tile if win.by != DEALT else None
    by_discard = win.by == DISCARD
    for arrangement in arrangements(concealed):
        if len(arrangement) - 1 + len(declared) != sets_needed:
            continue
        pair = next(tile for kind, tile in arrangement if kind == PAIR)
        if win_tile is None:
            sets = declared + tuple(SetInfo(k, t, True) for k, t in arrangement)
            readings.append(Reading(sets, (pair,)))
            continue
        tried: set[tuple[int, int]] = set()
        for index, (kind, tile) in enumerate(arrangement):
            if (kind, tile) in tried:
                continue
            if kind == CHOW:
                if not tile <= win_tile <= tile + 2:
                    continue
                role = _chow_role(tile, win_tile)
            elif tile != win_tile:
                continue
            else:
                role = "pair" if kind == PAIR else "pung"
            tried.add((kind, tile))
            arranged = tuple(
                SetInfo(k, t, not (by_discard and i == index), i == index)
                for i, (k, t) in enumerate(arrangement)
            )
            readings.append(Reading(declared + arranged, (pair,), role))
    if not hand.melds and len(hand.concealed) == 14:
        if "thirteen-heads" in specials and is_thirteen_heads(concealed):
            pair = next(t for t in range(N_KINDS) if concealed[t] == 2)
            readings.append(Reading((), (pair,), None, "thirteen-heads"))
        if "seven-pairs" in specials and is_seven_pairs(concealed):
            pairs = tuple(t for t in range(N_KINDS) if concealed[t] == 2)
            role = None if win_tile is None else "pair"
            readings.append(Reading((), pairs, role, "seven-pairs"))
    return readings


def losing_reading(hand: Hand) -> Reading:
    """A losing hand as it lies: declared melds, three (or four) of a kind held in hand count
    as a concealed set of three (filipino-16: "the 4 of a kind left in the hand counts only as
    3 of a kind"), and the pairs left in hand."""
    concealed = counts_of(hand.concealed)
    sets = [SetInfo(m.kind, m.tile, m.concealed) for m in hand.melds]
    pairs: list[int] = []
    for tile in range(N_KINDS):
        n = concealed[tile]
        if n >= 3:
            sets.append(SetInfo(PUNG, tile, True))
        elif n == 2:
            pairs.append(tile)
    return Reading(tuple(sets), tuple(pairs))


def has_unique_wait(hand: Hand, win: Win, *, specials: bool = False) -> bool:
    """Whether the winning tile was the only kind that could complete the hand.

    This is how docs/rules.md reads "filling the only place to win" (Pung Chow p.31; Example 9
    p.38: "the player did not even fill the only place to win as a 6 character would have won
    also").
    """
    if win.tile is None or win.by == DEALT:
        return False
    before = counts_of(hand.concealed)
    before[win.tile] -= 1
    held = hand.counts()
    held[win.tile] -= 1
    found = waits(before, held=held, specials=specials)
    return found == [win.tile]


def is_kong_or_pung(kind: int) -> bool:
    return kind in (PUNG, KONG)


def dragon_sets(reading: Reading) -> list[int]:
    """The dragons of which the reading holds three or four."""
    return [s.tile for s in reading.sets if s.kind in (PUNG, KONG) and is_dragon(s.tile)]


def has_sequence(reading: Reading) -> bool:
    return any(s.kind == CHOW for s in reading.sets)


def honour_pairs(reading: Reading) -> list[int]:
    return [t for t in reading.pairs if is_honour(t)]


_KIND_WORDS = {CHOW: "chow", PUNG: "pung", KONG: "kong", PAIR: "pair"}


def describe_reading(reading: Reading) -> tuple[str, ...]:
    """The sets of a reading in compact form: ``pung 555p (exposed, winning)``."""
    if reading.special:
        return (reading.special,)
    out = []
    for s in reading.sets:
        size = 3 if s.kind in (CHOW, PUNG) else 4 if s.kind == KONG else 2
        tiles = [s.tile + i for i in range(3)] if s.kind == CHOW else [s.tile] * size
        notes = ["concealed" if s.concealed else "exposed"]
        if s.winning:
            notes.append("winning")
        out.append(f"{_KIND_WORDS[s.kind]} {format_tiles(tiles)} ({', '.join(notes)})")
    arranged_pairs = {s.tile for s in reading.sets if s.kind == PAIR}
    out.extend(f"pair {format_tiles([t, t])}" for t in reading.pairs if t not in arranged_pairs)
    return tuple(out)
