"""``pung-chow-limit``: *Pung Chow* (1922), Part II, playing with a limit.

Scoring values p.65-66 (a winning-hand table and an other-hands table), bonus scores p.62,
limit hands p.62-64, doubling honours p.67, penalties p.67-69, washing the tiles p.61.
Losers settle their differences up to the limit, double the limit where East is one of them
(p.60).
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from bot.rules.analysis import CHOW, KONG, PUNG, SetInfo, waits
from bot.rules.hand import DEALT, DISCARD, LOOSE_TILE, SELF_DRAW, Hand, Situation, Win
from bot.rules.options import Options, OptionSpec
from bot.rules.reading import Facts, Reading, losing_reading, winning_readings
from bot.rules.rulesets.base import Lines
from bot.rules.rulesets.pung_chow import PungChow, set_label
from bot.rules.score import Payment, Score, ScoreLine, line_doubles, line_points, new_score
from bot.rules.tiles import (
    DRAGON_NAMES,
    DRAGONS,
    EAST,
    WHITE,
    WINDS,
    counts_of,
    is_dragon,
    is_head,
    is_wind,
    suit,
    tile_name,
    wind_tile,
)

VALUES = "Pung Chow p.65"
EXPLAIN = "Pung Chow p.66"
DOUBLING = "Pung Chow p.67"
BONUS = "Pung Chow p.62"
LIMITS = "Pung Chow p.62-64"

# Winning hand (p.65): (on table, in hand). The winner's concealed pung is worth three times
# the exposed one, unlike the other hands' table.
WIN_PUNG = {False: (2, 6), True: (4, 10)}
OTHER_PUNG = {False: (2, 4), True: (4, 8)}
KONG_VALUES = {False: (8, 16), True: (16, 32)}

# Washing the tiles (p.61): different heads in the dealt hand -> paid by each player.
WASHING = {9: 50, 10: 70, 11: 100, 12: 150, 13: 200}

LIMIT_HAND_NAMES = {
    "single-heads": "Single heads (one of each head and a pair of heads)",
    "heads-only": "Sets of heads only, with a pair of heads",
    "four-winds": "Four sets of winds (the four happinesses)",
    "three-winds-and-pair": "Three sets of winds with a pair of the fourth",
    "all-kongs": "Four sets of four of a kind",
    "east-original": "East wins on his original draw",
    "three-dragons": "Three sets of dragons (the three Doctors of Literature)",
}


_SEQUENCE_BY_DRAW = ScoreLine("Filling a sequence by draw to complete hand", 4, 0, EXPLAIN)
_SEQUENCE_MIDDLE = ScoreLine(
    "Filling a sequence in the middle by chow to complete hand", 2, 0, EXPLAIN
)
_SEQUENCE_EDGE = ScoreLine(
    "Filling a sequence on the only open end by chow to complete hand", 2, 0, EXPLAIN
)
_NO_OTHER_SCORE = ScoreLine("No other score in hand or on table than Mah-Jongg", 10, 0, VALUES)
_NO_SEQUENCES = ScoreLine("No sequences (Tei Tei Woo)", 0, 1, DOUBLING)
_OWN_WIND = ScoreLine("Set of own wind", 0, 1, DOUBLING)
_OWN_WIND_IN_OWN_ROUND = ScoreLine("Set of own wind in own wind round", 0, 2, DOUBLING)
_DRAGON_SET = {
    tile: ScoreLine(f"Set of {DRAGON_NAMES[tile - WHITE].lower()} dragons", 0, 1, DOUBLING)
    for tile in DRAGONS
}


_ONE_SUIT = ScoreLine("All one suit", 0, 3, DOUBLING)
_ONE_SUIT_WITH_HONOURS = ScoreLine("All one suit except winds or dragons", 0, 1, DOUBLING)
_LAST_TILE = ScoreLine("Winning tile drawn from the last tile of the wall", 0, 1, BONUS)
_LOOSE_TILE = ScoreLine("Winning on a draw from a loose tile", 0, 1, BONUS)
_FOURTH_TILE = ScoreLine("Completing the hand with the fourth tile of an exposed set", 0, 1, BONUS)


@cache
def first_discard_line(points: int) -> ScoreLine:
    """Half the limit, added after the doubling (p.62)."""
    return ScoreLine("Winning on the first discard: half the limit", points, 0, BONUS)


@cache
def mahjong_line(points: int) -> ScoreLine:
    return ScoreLine("Mah-Jongg", points, 0, BONUS)


@cache
def other_pair_line(tile: int, points: int) -> ScoreLine:
    return ScoreLine(f"Pair of {tile_name(tile).lower()}s", points, 0, VALUES)


@cache
def pair_completion_line(tile: int, seat_wind: int, round_wind: int, drawn: bool) -> ScoreLine:
    """The winning tile matched the final pair (p.65-66, items 1-6)."""
    name, points = PungChowLimit.completing_pair_points(
        tile, Situation(seat_wind, round_wind), drawn
    )
    return ScoreLine(name, points, 0, EXPLAIN)


@cache
def value_line(kind: int, tile: int, concealed: bool, winning_hand: bool) -> ScoreLine:
    """A set's line from the winning-hand or the other-hands table (p.65), built once."""
    table = KONG_VALUES if kind == KONG else WIN_PUNG if winning_hand else OTHER_PUNG
    points = table[is_head(tile)][1 if concealed else 0]
    return ScoreLine(set_label(kind, tile, concealed), points, 0, VALUES)


# The winning hand's set lines (p.65), keyed by the set as a reading holds it (kind, tile,
# concealed, winning): one look-up per set, None for a chow or a pair.
_WINNING_VALUE_LINES = {
    SetInfo(kind, tile, concealed, winning): value_line(kind, tile, concealed, True)
    for kind in (PUNG, KONG)
    for tile in range(34)
    for concealed in (False, True)
    for winning in (False, True)
}


class PungChowLimit(PungChow):
    name: ClassVar[str] = "pung-chow-limit"
    title: ClassVar[str] = "Pung Chow (1922), Part II: playing with a limit"
    text: ClassVar[str] = "pung-chow-1922.txt, Part II"
    dead_wall: ClassVar[int] = 14
    specials: ClassVar[tuple[str, ...]] = ("thirteen-heads",)
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "limit",
            None,  # none given: 300 or 400 by the Mah-Jongg bonus (limit_of)
            "the limit (p.60): by default 300 with a Mah-Jongg bonus of 10, 400 with 20; "
            "the limit game always has one",
            minimum=10,
        ),
        OptionSpec(
            "mahjong_bonus", 10, "points for Mah-Jongg (p.62: generally 10)", choices=(10, 20)
        ),
        OptionSpec("flowers", False, "play with the mandarins (p.29)", kind=bool),
        OptionSpec("washing", True, "washing the tiles with 9+ different heads (p.61)", kind=bool),
        # House rule: the other reading of docs/rules.md (Pung Chow Part II), the text's first.
        OptionSpec(
            "first_discard_bonus",
            "added",
            "winning on the first discard: half the limit added after the doubling (added), "
            "or the hand worth half the limit, as a limit hand worth half (half-limit-hand)",
            choices=("added", "half-limit-hand"),
            kind=str,
            source="Pung Chow p.62: 'a bonus of half the limit hand is given'",
            house=True,
        ),
    )

    def limit_of(self, options: Options) -> int:
        limit = options.get("limit")
        if limit is None:
            return 300 if options["mahjong_bonus"] == 10 else 400
        return limit

    # -- pairs -------------------------------------------------------------------------------
    def pair_points(self, tile: int, situation: Situation) -> int:
        """Other hands' pairs (p.65): any dragon 2, own wind 2, wind of the round 2, own wind in
        own wind round 4."""
        own = wind_tile(situation.seat_wind)
        round_wind = wind_tile(situation.round_wind)
        if tile == own and tile == round_wind:
            return 4
        if is_dragon(tile) or tile in (own, round_wind):
            return 2
        return 0

    @staticmethod
    def completing_pair_points(tile: int, situation: Situation, drawn: bool) -> tuple[str, int]:
        """The winning tile matched the final pair (p.65-66, items 1-6)."""
        how = "drawn" if drawn else "punged"
        own = wind_tile(situation.seat_wind)
        if tile == own and situation.round_wind == situation.seat_wind:
            return f"Pair of own wind in own wind round {how} to complete hand", 8 if drawn else 6
        if is_head(tile):
            return f"Pair of heads ({tile_name(tile)}) {how} to complete hand", 6 if drawn else 4
        return f"Pair of 2 to 8 ({tile_name(tile)}) {how} to complete hand", 4 if drawn else 2

    # -- scoring -----------------------------------------------------------------------------
    def score_reading(
        self,
        reading: Reading,
        facts: Facts,
        hand: Hand,
        situation: Situation,
        win: Win | None,
        options: Options,
    ) -> Score:
        """A winning reading by the winning-hand table (p.65-66), the doubling honours (p.67)
        and the bonus scores (p.62); a limit hand (p.62-64) is worth the limit. A losing hand
        by :meth:`score_other_hand`.

        This runs for every reading of every winning hand, so it is one function: one pass
        over the sets gathers their lines, their doubling honours and the counts the limit
        hands read, on plain lists and prebuilt lines. tests/rules/test_scoring_reference.py
        holds it to a plain reference scorer."""
        if win is None:
            return self.score_other_hand(reading, facts, hand, situation)
        limit = self.limit_of(options)
        flags = win.flags
        by = win.by
        seat = situation.seat_wind
        special = reading.special
        # The limit hands of p.62-64, in the book's order; those the sets decide after the pass.
        if special == "thirteen-heads":
            return self._limit_hand("single-heads", limit, reading)
        if seat == 0 and (by == DEALT or "original-hand" in flags):
            return self._limit_hand("east-original", limit, reading)
        items = [mahjong_line(options["mahjong_bonus"])]
        line_of = _WINNING_VALUE_LINES.get
        own = EAST + seat
        own_wind: list[ScoreLine] = []
        dragons: list[ScoreLine] = []
        chows = pungs = kongs = 0
        winds: list[int] = []
        for s in reading.sets:
            if s[0] == CHOW:  # (no line: a chow is looked at first, the common set)
                chows += 1
                continue
            line = line_of(s)
            if line is not None:
                items.append(line)
                pungs += 1
                kind, tile = s[0], s[1]
                if kind == KONG:
                    kongs += 1
                # Doubling honours 1-5 (p.67), as set_double_lines gives them.
                if tile == own:
                    own_wind.append(
                        _OWN_WIND_IN_OWN_ROUND if situation.round_wind == seat else _OWN_WIND
                    )
                elif tile >= WHITE:
                    dragons.append(_DRAGON_SET[tile])
                if EAST <= tile < WHITE:
                    winds.append(tile)
        pairs = reading.pairs
        if pairs:
            pair = pairs[0]
            special = None
            if chows == 0 and facts.no_simples:
                special = "heads-only"
            elif len(winds) == 4:
                special = "four-winds"
            elif len(winds) == 3 and is_wind(pair) and pair not in winds:
                special = "three-winds-and-pair"
            elif kongs == chows + pungs:
                special = "all-kongs"
            elif len(dragons) == 3:
                special = "three-dragons"
            if special is not None:
                return self._limit_hand(special, limit, reading)
        if "first-discard" in flags and options["first_discard_bonus"] == "half-limit-hand":
            line = ScoreLine("Winning on the first discard: half the limit", limit // 2, 0, BONUS)
            return Score((line,), limit // 2, reading=reading, winner=True)
        drawn = by in (SELF_DRAW, LOOSE_TILE)
        pair = pairs[0]
        role = reading.win_role
        if role == "pair":
            items.append(pair_completion_line(pair, seat, situation.round_wind, drawn))
        else:
            points = self.pair_points(pair, situation)
            if points:
                items.append(other_pair_line(pair, points))
        if role is not None and role.startswith("chow"):
            if drawn:
                items.append(_SEQUENCE_BY_DRAW)
            elif role == "chow-middle":
                items.append(_SEQUENCE_MIDDLE)
            elif role == "chow-edge":
                items.append(_SEQUENCE_EDGE)
        if len(items) == 1:
            items.append(_NO_OTHER_SCORE)
        if chows == 0:
            items.append(_NO_SEQUENCES)
        if own_wind:
            items.extend(own_wind)
        if dragons:
            items.extend(dragons)
        if facts.one_suit:
            items.append(_ONE_SUIT)
        elif facts.one_suit_with_honours:
            items.append(_ONE_SUIT_WITH_HONOURS)
        if drawn and "last-tile" in flags:
            items.append(_LAST_TILE)
        if by == LOOSE_TILE:
            items.append(_LOOSE_TILE)
        for meld in hand.melds:
            if meld.tile == win.tile and meld.kind == PUNG and not meld.concealed:
                items.append(_FOURTH_TILE)
                break
        if hand.flowers:
            lines = Lines()
            self.add_bonus_doubles(lines, hand, situation)
            items.extend(lines.items)
        total = sum(map(line_points, items)) << sum(map(line_doubles, items))
        if "first-discard" in flags:
            items.append(first_discard_line(limit // 2))
            total += limit // 2
        return new_score(Score, (tuple(items), total, None, reading, True, False))

    @staticmethod
    def _limit_hand(special: str, limit: int, reading: Reading) -> Score:
        name = LIMIT_HAND_NAMES[special]
        line = ScoreLine(f"Limit hand: {name}", limit, 0, LIMITS)
        return Score((line,), limit, limit_hand=name, reading=reading, winner=True)

    def score_other_hand(
        self, reading: Reading, facts: Facts, hand: Hand, situation: Situation
    ) -> Score:
        """A losing hand: the other-hands table (p.65) and doubling honours 1-5 (p.67)."""
        lines = Lines()
        for s in reading.sets:
            if s.kind == PUNG or s.kind == KONG:
                lines.push(value_line(s.kind, s.tile, s.concealed, False))
        best_pair = max(reading.pairs, key=lambda t: self.pair_points(t, situation), default=None)
        if best_pair is not None:
            points = self.pair_points(best_pair, situation)
            if points:
                lines.push(other_pair_line(best_pair, points))
        self.add_set_doubles(lines, reading, situation)
        self.add_bonus_doubles(lines, hand, situation)
        return Score(tuple(lines.items), lines.total, reading=reading)

    @staticmethod
    def add_set_doubles(lines: Lines, reading: Reading, situation: Situation) -> None:
        """Doubling honours 1-5 (p.67): own wind once, own wind in own round twice, each
        dragon set once."""
        for line in set_double_lines(reading, situation):
            lines.push(line)


def set_double_lines(reading: Reading, situation: Situation) -> list[ScoreLine]:
    """The lines of doubling honours 1-5 (p.67) a reading holds: own wind once, own wind in
    own round twice, then each dragon set once."""
    own = EAST + situation.seat_wind
    out: list[ScoreLine] = []
    dragons = []
    for kind, tile, _, _ in reading.sets:
        if kind in (PUNG, KONG):
            if tile == own:
                if situation.round_wind == situation.seat_wind:
                    out.append(_OWN_WIND_IN_OWN_ROUND)
                else:
                    out.append(_OWN_WIND)
            elif tile >= WHITE:
                dragons.append(_DRAGON_SET[tile])
    if dragons:
        out.extend(dragons)
    return out


def washing_payments(seat: int, heads: int, seats: list[int]) -> list[Payment]:
    """Washing the tiles (p.61): each other player pays the table's amount; East neither
    collects nor pays double when tiles are washed."""
    amount = WASHING[min(heads, 13)]
    return [
        Payment(other, seat, amount, f"washing the tiles ({heads} heads)")
        for other in seats
        if other != seat
    ]


def different_heads(tiles: list[int]) -> int:
    """How many different heads a dealt hand holds (p.61)."""
    return len({t for t in tiles if t < 34 and is_head(t)})


def dangerous_exposure(winner: Hand, win_tile: int) -> str | None:
    """Which of the four exposures of penalty 2 (p.67-68) the winner showed, if the winning
    discard completed it; None when the discarder is not liable on this ground."""
    exposed = [t for m in winner.melds for t in m.tiles]
    all_tiles = winner.all_tiles()
    for s in range(3):
        if sum(1 for t in exposed if suit(t) == s) >= 9 and all(suit(t) == s for t in all_tiles):
            return "one-suit"
    if sum(1 for t in exposed if is_head(t)) >= 9 and all(is_head(t) for t in all_tiles):
        return "heads"
    dragon_sets = {m.tile for m in winner.melds if m.kind in (PUNG, KONG) and is_dragon(m.tile)}
    if len(dragon_sets) == 2 and is_dragon(win_tile) and win_tile not in dragon_sets:
        held = counts_of(winner.concealed)
        if held[win_tile] >= 3:
            return "dragons"
    wind_sets = {m.tile for m in winner.melds if m.kind in (PUNG, KONG) and is_wind(m.tile)}
    if len(wind_sets) == 3 and is_wind(win_tile) and win_tile not in wind_sets:
        return "winds"
    return None


def discarder_is_liable(
    winner: Hand,
    win: Win,
    discarder: Hand | None,
    discarder_situation: Situation | None,
) -> bool:
    """Penalty 2 (p.67-69): the discard that lets a dangerous exposed hand win makes the
    discarder pay for all, unless he was himself waiting to win (ready) with two complete
    doubling honours, or waiting for a win that would give him more than two doubling honours,
    or had no choice (note a: every tile he held was of the dangerous kind). docs/rules.md
    explains this reading of "waiting for the winning tile"; the doubling honours are those of
    p.67, counted as the doublings they give (mandarins and the bonus doubles of p.62 are not
    doubling honours), and a limit hand he waited for holds its doubling honours too."""
    if win.by != DISCARD or win.tile is None:
        return False
    danger = dangerous_exposure(winner, win.tile)
    if danger is None:
        return False
    if discarder is None or discarder_situation is None:
        return True
    held_before = [*discarder.concealed, win.tile]
    if all(_is_of_danger(t, danger, winner) for t in held_before):
        return False
    own_waits = waits(counts_of(discarder.concealed), held=discarder.counts())
    if not own_waits:
        return True
    if _set_honours(losing_reading(discarder), discarder_situation) >= 2:
        return False
    for tile in own_waits:
        completed = Hand((*discarder.concealed, tile), discarder.melds, discarder.flowers)
        would_win = Win(tile, DISCARD)
        facts = Facts(completed, would_win)
        for reading in winning_readings(
            completed, would_win, RULESET.sets_needed, concealed=facts.concealed
        ):
            if _winning_honours(reading, facts, discarder_situation) > 2:
                return False
    return True


def _set_honours(reading: Reading, situation: Situation) -> int:
    """Doublings from doubling honours 1-5 (p.67): own wind once (twice in his own wind
    round), each set of dragons once."""
    lines = Lines()
    PungChowLimit.add_set_doubles(lines, reading, situation)
    return lines.doubles


def _winning_honours(reading: Reading, facts: Facts, situation: Situation) -> int:
    """Doublings from every doubling honour of p.67 a winning reading holds (6-8 count for
    the winning hand only)."""
    doubles = _set_honours(reading, situation)
    if reading.special is None and not any(s.kind == CHOW for s in reading.sets):
        doubles += 1
    if facts.one_suit:
        doubles += 3
    elif facts.one_suit_with_honours:
        doubles += 1
    return doubles


def _is_of_danger(tile: int, danger: str, winner: Hand) -> bool:
    if danger == "one-suit":
        suits = {suit(t) for t in winner.all_tiles()}
        return suit(tile) in suits
    if danger == "heads":
        return is_head(tile)
    if danger == "dragons":
        return tile in DRAGONS
    return tile in WINDS


RULESET = PungChowLimit()
