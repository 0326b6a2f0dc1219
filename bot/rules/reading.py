"""Readings of a hand: every way its tiles can be counted, for the scorer to take the best.

A winning hand may divide in several ways, and its winning tile may have completed different
sets; the texts score each set by how it was completed ("a set completed by a claimed discard
counts as exposed", Pung Chow p.22). A *reading* is one such choice. The scorer of each rule
set values every reading and keeps the highest, as a player laying out his hand would.
A losing hand has one reading: its declared melds, its concealed three-of-a-kinds, and the
pairs left in hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import NamedTuple

from bot.rules.analysis import (
    CHOW,
    KONG,
    PAIR,
    PUNG,
    Arrangement,
    SetInfo,
    is_thirteen_heads,
    keep_pattern,
    part_arrangements,
    part_completions,
    part_pairs,
    ready_waits,
    set_info,
)
from bot.rules.hand import DEALT, DISCARD, Hand, Win
from bot.rules.melds import Kind, Meld
from bot.rules.tiles import N_KINDS, counts_of, format_tiles, is_dragon, is_honour


class Reading(NamedTuple):
    """One way of counting a hand. ``win_role`` says what the winning tile completed:
    ``pair``, ``pung``, ``chow-middle``, ``chow-edge`` (the only open end: 1-2 waiting on 3,
    8-9 on 7), ``chow-open`` (a sequence open at both ends), or None (a dealt hand, a loser)."""

    sets: tuple[SetInfo, ...]
    pairs: tuple[int, ...]
    win_role: str | None = None
    special: str | None = None


# What a hand is made of, as bits: a suit used (1 << suit), honours, middle numbers (2-8 of a
# suit), terminals (1 and 9 of a suit). A hand's bits are those of its concealed parts (kept
# with each part's readings) or'd with its declared melds'; _FLAG_FACTS turns them into the
# Facts' flags in one look-up.
_HONOURS, _SIMPLES, _TERMINALS = 8, 16, 32


def _tile_bits(tile: int) -> int:
    if tile >= 27:
        return _HONOURS
    return 1 << (tile // 9) | (_TERMINALS if tile % 9 in (0, 8) else _SIMPLES)


def _pattern_bits(pattern: Sequence[int], start: int) -> int:
    bits = 0
    for index, count in enumerate(pattern):
        if count:
            bits |= _tile_bits(start + index)
    return bits


_ZERO7 = (0,) * 7
_ZERO9 = (0,) * 9


def _counts_bits(b: tuple[int, ...]) -> int:
    """The bits of a whole hand's 34 counts, by slices (a losing hand's, or one whose parts
    do not all divide)."""
    return (
        (b[0:9] != _ZERO9)
        | (b[9:18] != _ZERO9) << 1
        | (b[18:27] != _ZERO9) << 2
        | (b[27:34] != _ZERO7) << 3
        | (b[1:8] != _ZERO7 or b[10:17] != _ZERO7 or b[19:26] != _ZERO7) << 4
        | bool(b[0] or b[8] or b[9] or b[17] or b[18] or b[26]) << 5
    )


_TILE_BITS = tuple(_tile_bits(tile) for tile in range(N_KINDS))
# A chow's three tiles (indexed by its lowest tile, as far as a chow's tiles are tiles at all).
_CHOW_BITS = tuple(
    _tile_bits(tile) | _tile_bits(tile + 1) | _tile_bits(tile + 2) for tile in range(N_KINDS - 2)
)


def _flag_facts(
    bits: int,
) -> tuple[tuple[bool, bool, bool], bool, bool, bool, bool, bool, bool, bool]:
    """suits, has_honours, all_honours, one_suit, one_suit_with_honours, no_simples,
    terminals_only, all_simples, as Facts holds them."""
    suits = (bool(bits & 1), bool(bits & 2), bool(bits & 4))
    n_suits = sum(suits)
    honours = bool(bits & _HONOURS)
    no_simples = not bits & _SIMPLES
    return (
        suits,
        honours,
        honours and not n_suits,
        n_suits == 1 and not honours,
        n_suits == 1 and honours,
        no_simples,
        no_simples and not honours,
        not honours and not bits & _TERMINALS and n_suits > 0,
    )


_FLAG_FACTS = tuple(_flag_facts(bits) for bits in range(64))
# Tiles a declared meld counts for in a hand's size: a kong counts as three (Pung Chow p.24).
_COUNTED = {Kind.CHOW: 3, Kind.PUNG: 3, Kind.KONG: 3, Kind.PAIR: 2}
_CHOW, _PUNG, _PAIR = Kind.CHOW, Kind.PUNG, Kind.PAIR


class Facts:
    """What every reading of one hand shares, computed once: the counts of the concealed tiles
    and of all the player's tiles, the hand's size as the texts count it (``tile_count``),
    whether a flower or season was given among the concealed tiles (``stray``), whether any
    kind is held more than four times (``too_many``), what the tiles are made of (one suit,
    honours, middle numbers), and, for a winning hand, its concealed parts' readings
    (``parts``: three suits and the honours, None when one of them does not divide)."""

    __slots__ = (
        "_unique_wait",
        "all_honours",
        "all_simples",
        "concealed",
        "counts",
        "flowers",
        "has_honours",
        "no_simples",
        "one_suit",
        "one_suit_with_honours",
        "parts",
        "stray",
        "suits",
        "terminals_only",
        "tile_count",
        "too_many",
        "win",
    )

    def __init__(self, hand: Hand, win: Win | None = None) -> None:
        # counts_of and Meld.tiles, written out: this runs once per hand scored. A flower or
        # season held in hand (a stray, refused by check_hand) is the rare case: counted apart.
        tiles = hand.concealed
        concealed = [0] * N_KINDS
        stray = False
        try:
            for tile in tiles:
                concealed[tile] += 1
        except IndexError:
            concealed = [0] * N_KINDS
            for tile in tiles:
                if tile < N_KINDS:
                    concealed[tile] += 1
                else:
                    stray = True
        self.concealed = concealed
        self.stray = stray
        self.win = win
        self.flowers = hand.flowers
        parts = None
        t = tuple(concealed)
        if win is not None:
            # The part look-ups the readings need, made once here: a part that divides also
            # holds its tile bits, and no kind in it is held more than four times.
            c0, c1, c2, c3 = _PART_READINGS
            r0 = c0.get(t[0:9]) or _part_readings(t[0:9], 0)
            r1 = c1.get(t[9:18]) or _part_readings(t[9:18], 1)
            r2 = c2.get(t[18:27]) or _part_readings(t[18:27], 2)
            r3 = c3.get(t[27:34]) or _part_readings(t[27:34], 3)
            if r0 is not None and r1 is not None and r2 is not None and r3 is not None:
                parts = (r0, r1, r2, r3)
                bits = r0.bits | r1.bits | r2.bits | r3.bits
                too_many = False
        self.parts = parts
        if parts is None:
            bits = _counts_bits(t)
            too_many = max(t) > 4
        melds = hand.melds
        size = len(tiles)
        if melds:
            # Counts only grow here, so a kind over four is seen as its last meld is added.
            counts = concealed.copy()
            for meld in melds:
                tile, kind = meld.tile, meld.kind
                if kind is _CHOW:
                    size += 3
                    counts[tile] += 1
                    counts[tile + 1] += 1
                    counts[tile + 2] += 1
                    if counts[tile] > 4 or counts[tile + 1] > 4 or counts[tile + 2] > 4:
                        too_many = True
                    bits |= _CHOW_BITS[tile]
                else:
                    size += _COUNTED[kind]
                    counts[tile] += 2 if kind is _PAIR else 3 if kind is _PUNG else 4
                    if counts[tile] > 4:
                        too_many = True
                    bits |= _TILE_BITS[tile]
        else:
            counts = concealed
        self.tile_count = size
        self.counts = counts
        self.too_many = too_many
        (
            self.suits,
            self.has_honours,
            self.all_honours,
            self.one_suit,
            self.one_suit_with_honours,
            self.no_simples,
            self.terminals_only,
            self.all_simples,
        ) = _FLAG_FACTS[bits]
        self._unique_wait: bool | None = None

    def unique_wait(self, hand: Hand, reading: Reading | None = None) -> bool:
        """Whether the winning tile was the only kind that could complete the hand, computed
        once per hand (see :func:`has_unique_wait`).

        A reading often shows a second winning tile at once: a sequence open at both ends
        (23 waiting on 1 or 4) or two pairs waiting to become a set (the other pair would have
        made the set instead); then the full search is not needed. ``reading`` is one of the
        hand's readings."""
        unique = self._unique_wait
        if unique is not None:
            return unique
        win = self.win
        if win is None or (reading is not None and self._second_wait_in(reading)):
            unique = False
        else:
            # A reading of sets and a pair says the hand is complete, which the shortcut
            # through the winning tile's part needs.
            # The waits of the winning tile's part when taking the tile away breaks it (the
            # other parts dividing as they are, the hand waited on that part alone: what
            # ready_waits finds then), kept by the part's pattern; else the full search.
            found = None
            won, parts = win.tile, self.parts
            if (
                parts is not None
                and reading is not None
                and reading.special is None
                and won is not None
                and win.by != DEALT
                and 0 <= won < N_KINDS
                and self.concealed[won]
            ):
                part = won // 9
                info, index = parts[part], won - 9 * part
                found = info._lacking.get(index, _UNREAD)
                if found is _UNREAD:
                    found = info.waits_lacking(index, part)
            if found is None:
                unique = has_unique_wait(hand, win, self.concealed, self.counts)
            else:
                # A kind the player already holds four of cannot come to him.
                held = self.counts
                unique = True
                for tile in found:
                    if tile != won and held[tile] < 4:
                        unique = False
                        break
        self._unique_wait = unique
        return unique

    def _second_wait_in(self, reading: Reading) -> bool:
        role = reading.win_role
        win = self.win
        if win is None or win.tile is None:
            return False
        if role == "pung":
            pair = reading.pairs[0]
            return pair != win.tile and self.counts[pair] < 4
        if role == "chow-open":
            for s in reading.sets:
                if s[3]:  # the set the winning tile completed
                    start = s[1]
                    other = start + 3 if win.tile == start else start - 1
                    return self.counts[other] < 4
        return False


_SETS, _SEVERAL = 16, 4096  # a part's shape: pairs (at most 4 in a hand) + 16 x sets + ...
_UNREAD = object()  # a part's waits not worked out yet (None is an answer)
_new_reading = tuple.__new__


def _chow_role(start: int, tile: int) -> str:
    position = tile - start
    if position == 1:
        return "chow-middle"
    if (position == 2 and start % 9 == 0) or (position == 0 and start % 9 == 6):
        return "chow-edge"
    return "chow-open"


_Ways = tuple[tuple[Arrangement, str], ...]
# One division of a part as the readings combine it: its sets, the tile of its pair (None when
# the pair lies in another part), and, for the part holding the winning tile, the ways that
# tile can have completed it (None for the other parts).
_Choice = tuple[Arrangement, int | None, _Ways | None]


class _PartReadings:
    """What the readings of one part (a suit or the honours) of a complete hand take from it,
    built once per part pattern: its pairs (0 or 1), the sets it makes, and its divisions
    (:attr:`choices`; :meth:`win_choices` for the part holding the winning tile, each
    division with every distinct set holding that tile tried as the one it completed)."""

    __slots__ = (
        "_lacking",
        "_win_choices",
        "bits",
        "choices",
        "empty",
        "pair",
        "pairs",
        "pattern",
        "set_count",
        "sets",
        "shape",
        "single",
    )

    def __init__(self, pattern: tuple[int, ...], part: int, pairs: int) -> None:
        self.pattern = pattern
        self.pairs = pairs
        self.bits = _pattern_bits(pattern, 9 * part)  # what the part is made of (see Facts)
        self._lacking: dict[int, tuple[int, ...] | None] = {}
        self.empty = not any(pattern)
        choices = []
        for sets in part_arrangements(pattern, part):
            pair = None
            for item in sets:
                if item.kind == PAIR:
                    pair = item.tile
            choices.append((sets, pair, None))
        self.choices: tuple[_Choice, ...] = tuple(choices)
        # The common case, one division: its sets and pair at hand.
        self.single = len(choices) == 1
        self.sets, self.pair, _ = choices[0]
        self.set_count = sum(pattern) // 3  # sets in every division (a pair is two tiles)
        # Its pairs, sets and whether it divides more than one way in one number, so that
        # the readings check a hand's four parts with one sum (see _standard_readings).
        self.shape = pairs + _SETS * self.set_count + (0 if self.single else _SEVERAL)
        self._win_choices: dict[int, tuple[_Choice, ...]] = {}

    def waits_lacking(self, index: int, part: int) -> tuple[int, ...] | None:
        """The tiles completing this part's pattern with one tile at ``index`` taken away,
        when that pattern no longer divides (then, the other parts of a complete hand
        dividing, they are all the hand waited on); None when it still divides (the tile
        could then have gone to another part: ask :func:`has_unique_wait`)."""
        found = self._lacking.get(index, _UNREAD)
        if found is not _UNREAD:
            return found  # type: ignore[return-value]
        pattern = self.pattern
        lacking = (*pattern[:index], pattern[index] - 1, *pattern[index + 1 :])
        found = (
            None if part_pairs(lacking, part) is not None else part_completions(lacking, part)[0]
        )
        self._lacking[index] = found
        return found

    def win_choices(self, win_tile: int, by_discard: bool) -> tuple[_Choice, ...]:
        """Each division with the ways the winning tile can have completed it: the sets with
        the completed set marked (exposed when claimed by discard), and the tile's role."""
        key = 2 * win_tile + by_discard
        found = self._win_choices.get(key)
        if found is not None:
            return found
        out = []
        for sets, pair, _ in self.choices:
            tried: list[SetInfo] = []
            ways: list[tuple[Arrangement, str]] = []
            for index, item in enumerate(sets):
                kind, tile = item.kind, item.tile
                if kind == CHOW:
                    if not tile <= win_tile <= tile + 2:
                        continue
                    role = _chow_role(tile, win_tile)
                elif tile != win_tile:
                    continue
                else:
                    role = "pair" if kind == PAIR else "pung"
                if item in tried:
                    continue
                tried.append(item)
                completed = set_info(kind, tile, not by_discard, True)
                ways.append(((*sets[:index], completed, *sets[index + 1 :]), role))
            out.append((sets, pair, tuple(ways)))
        found = tuple(out)
        self._win_choices[key] = found
        return found


# Per part, by pattern: only patterns that divide are kept (the part tables of
# bot.rules.analysis), every entry built from immutable inputs alone, and a part's dict is
# emptied when it reaches PATTERNS_KEPT (see keep_pattern).
_PART_READINGS: tuple[dict[tuple[int, ...], _PartReadings], ...] = ({}, {}, {}, {})


def _part_readings(pattern: tuple[int, ...], part: int) -> _PartReadings | None:
    pairs = part_pairs(pattern, part)
    if pairs is None:
        return None
    found = _PartReadings(pattern, part, pairs)
    keep_pattern(_PART_READINGS[part], pattern, found)
    return found


def _part_infos(concealed: Sequence[int]) -> tuple[_PartReadings, ...] | None:
    """The readings of each part of the concealed tiles (three suits, the honours), or None
    when one of them does not divide into sets and at most a pair."""
    t = tuple(concealed)
    c0, c1, c2, c3 = _PART_READINGS
    r0 = c0.get(t[0:9]) or _part_readings(t[0:9], 0)
    r1 = c1.get(t[9:18]) or _part_readings(t[9:18], 1)
    r2 = c2.get(t[18:27]) or _part_readings(t[18:27], 2)
    r3 = c3.get(t[27:34]) or _part_readings(t[27:34], 3)
    if r0 is None or r1 is None or r2 is None or r3 is None:
        return None
    return r0, r1, r2, r3


# The declared melds' sets as readings hold them, by kind, tile and concealed: built once.
_DECLARED = tuple(
    tuple(
        tuple(SetInfo(kind, tile, concealed, False) for concealed in (False, True))
        for tile in range(N_KINDS)
    )
    for kind in Kind
)


def _standard_readings(
    parts: tuple[_PartReadings, ...],
    melds: tuple[Meld, ...],
    sets_needed: int,
    win_tile: int | None,
    by_discard: bool,
) -> list[Reading]:
    """The readings of sets and a pair, arrangement by arrangement in the order of
    :func:`~bot.rules.analysis.arrangements` (each part's divisions in turn, suits then
    honours), then set by set; empty when the concealed tiles' parts (``parts``, from
    :func:`_part_infos`) do not make one pair and, with the declared melds, ``sets_needed``
    sets."""
    r0, r1, r2, r3 = parts
    # One pair and the sets the declared melds leave, in one sum of the parts' shapes.
    shape = r0.shape + r1.shape + r2.shape + r3.shape
    if shape % _SEVERAL != 1 + _SETS * (sets_needed - len(melds)):
        return []
    win_part = -1
    if win_tile is not None:
        if not 0 <= win_tile < N_KINDS:
            return []  # a winning tile that is no playing tile completes nothing
        win_part = win_tile // 9
    declared: tuple[SetInfo, ...] = ()
    for m in melds:
        declared += (_DECLARED[m.kind][m.tile][m.concealed],)
    if shape < _SEVERAL:
        # One arrangement: its sets in part order, the winning part's ways in place.
        pair = (r0 if r0.pairs else r1 if r1.pairs else r2 if r2.pairs else r3).pair
        if win_part == -1:
            sets = declared + r0.sets + r1.sets + r2.sets + r3.sets
            return [_new_reading(Reading, (sets, (pair,), None, None))]
        if win_part == 0:
            head, tail = declared, r1.sets + r2.sets + r3.sets
        elif win_part == 1:
            head, tail = declared + r0.sets, r2.sets + r3.sets
        elif win_part == 2:
            head, tail = declared + r0.sets + r1.sets, r3.sets
        else:
            head, tail = declared + r0.sets + r1.sets + r2.sets, ()
        info = parts[win_part]
        found = info._win_choices.get(2 * win_tile + by_discard)  # type: ignore[operator]
        if found is None:
            found = info.win_choices(win_tile, by_discard)  # type: ignore[arg-type]
        ways = found[0][2]
        if len(ways) == 1:
            ((sets, role),) = ways
            return [_new_reading(Reading, (head + sets + tail, (pair,), role, None))]
        return [
            _new_reading(Reading, (head + sets + tail, (pair,), role, None)) for sets, role in ways
        ]
    readings: list[Reading] = []
    choices = []
    for part, info in enumerate((r0, r1, r2, r3)):
        if part == win_part:
            choices.append(info.win_choices(win_tile, by_discard))  # type: ignore[arg-type]
        elif not info.empty:
            choices.append(info.choices)
    for combo in product(*choices):
        head = declared
        tail = ()
        ways = None
        pair = None
        for sets, part_pair, part_ways in combo:
            if part_pair is not None:
                pair = part_pair
            if part_ways is not None:
                ways = part_ways
            elif ways is None:
                head += sets
            else:
                tail += sets
        if win_tile is None:
            readings.append(_new_reading(Reading, (head, (pair,), None, None)))
        else:
            for sets, role in ways:  # type: ignore[union-attr]
                readings.append(_new_reading(Reading, (head + sets + tail, (pair,), role, None)))
    return readings


def winning_readings(
    hand: Hand,
    win: Win,
    sets_needed: int,
    *,
    specials: tuple[str, ...] = (),
    concealed: list[int] | None = None,
    facts: Facts | None = None,
) -> list[Reading]:
    """Every reading of a complete hand with ``sets_needed`` sets and a pair.

    For each arrangement of the concealed tiles, each distinct set holding the winning tile
    is tried as the one it completed; claimed by discard, that set counts as exposed. The work
    is done per part (three suits, the honours) and kept by the part's pattern: the winning
    tile lies in one part, and the other parts' divisions do not depend on it. ``facts`` (of
    this hand and win) brings the concealed counts and the parts already looked up.
    """
    if facts is not None:
        concealed = facts.concealed
        parts = facts.parts
    else:
        if concealed is None:
            concealed = counts_of(hand.concealed)
        parts = _part_infos(concealed)
    melds = hand.melds
    win_tile = win.tile if win.by != DEALT else None
    if parts is None:
        readings = []
    else:
        readings = _standard_readings(parts, melds, sets_needed, win_tile, win.by == DISCARD)
    if specials and not melds and len(hand.concealed) == 14:
        if "thirteen-heads" in specials and is_thirteen_heads(concealed):
            pair = next(t for t in range(N_KINDS) if concealed[t] == 2)
            readings.append(Reading((), (pair,), None, "thirteen-heads"))
        # (is_seven_pairs, on the counts list itself: no tuple of it.)
        if "seven-pairs" in specials and concealed.count(2) == 7 and concealed.count(0) == 27:
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


def has_unique_wait(
    hand: Hand,
    win: Win,
    concealed: list[int] | None = None,
    held: list[int] | None = None,
) -> bool:
    """Whether the winning tile was the only kind that could complete the hand.

    This is how docs/rules.md reads "filling the only place to win" (Pung Chow p.31; Example 9
    p.38: "the player did not even fill the only place to win as a 6 character would have won
    also"). A kind the player already holds four of cannot come to him.
    """
    won = win.tile
    if won is None or win.by == DEALT:
        return False
    before = list(concealed) if concealed is not None else counts_of(hand.concealed)
    before[won] -= 1
    if held is None:
        held = hand.counts()
    found = ready_waits(before)
    if len(found) == 1:  # most often the winning tile alone
        return found[0] == won or held[found[0]] >= 4
    return all(tile == won or held[tile] >= 4 for tile in found)


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
