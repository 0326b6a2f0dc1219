"""``pung-chow``: L. L. Harr, *Pung Chow* (1922), Part I, the game without a limit.

Score card p.3 and p.29-31: bonus scores for the winner only, combination scores and doubling
honours for all four hands; every hand scores and the losers settle their differences (p.25).
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from bot.rules.analysis import CHOW, KONG, PAIR, PUNG, SetInfo
from bot.rules.hand import DEALT, LOOSE_TILE, SELF_DRAW, Hand, Situation, Win
from bot.rules.options import Options, OptionSpec
from bot.rules.reading import Facts, Reading
from bot.rules.rulesets.base import Lines, Outcome, RuleSet
from bot.rules.score import Payment, Score, ScoreLine, line_doubles, line_points, new_score
from bot.rules.tiles import (
    DRAGON_NAMES,
    DRAGONS,
    EAST,
    RED,
    WHITE,
    bonus_wind,
    is_dragon,
    is_head,
    tile_name,
    wind_tile,
)

SRC = "Pung Chow p.29"
CARD = "Pung Chow p.3"

# Combination scores (score card p.3): (exposed, concealed) for three and four of a kind.
PUNG_POINTS = {False: (2, 4), True: (4, 8)}  # keyed by "is a head"
KONG_POINTS = {False: (8, 16), True: (16, 32)}
SET_NAMES = {PUNG: "3", KONG: "4"}


@cache
def set_label(kind: int, tile: int, concealed: bool) -> str:
    """``3 ones (concealed)`` as the book writes its examples."""
    from bot.rules.tiles import is_wind, rank

    count = SET_NAMES[kind]
    if is_dragon(tile):
        what = f"{DRAGON_NAMES[tile - WHITE].lower()} dragons"
    elif is_wind(tile):
        what = f"{('east', 'south', 'west', 'north')[tile - 27]} winds"
    else:
        words = ("ones", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines")
        suit_word = ("characters", "dots", "bamboo")[tile // 9]
        what = f"{words[rank(tile) - 1]} ({suit_word})"
    return f"{count} {what} ({'concealed' if concealed else 'exposed'})"


def combination_points(kind: int, tile: int, concealed: bool) -> int:
    table = PUNG_POINTS if kind == PUNG else KONG_POINTS
    return table[is_head(tile)][1 if concealed else 0]


@cache
def combination_line(kind: int, tile: int, concealed: bool, source: str) -> ScoreLine:
    return ScoreLine(
        set_label(kind, tile, concealed), combination_points(kind, tile, concealed), 0, source
    )


@cache
def combination_lines(source: str) -> dict[tuple[int, int, bool], ScoreLine]:
    """Every set's combination line (score card p.3), keyed by (kind, tile, concealed)."""
    return {
        (kind, tile, concealed): combination_line(kind, tile, concealed, source)
        for kind in (PUNG, KONG)
        for tile in range(34)
        for concealed in (False, True)
    }


@cache
def set_lines(source: str) -> dict[SetInfo, ScoreLine]:
    """Every pung's and kong's combination line keyed by the set as a reading holds it
    (kind, tile, concealed, winning): one look-up per set, and None for a chow or a pair."""
    return {
        SetInfo(kind, tile, concealed, winning): line
        for (kind, tile, concealed), line in combination_lines(source).items()
        for winning in (False, True)
    }


@cache
def pair_line(tile: int, seat_wind: int, points: int, source: str) -> ScoreLine:
    return ScoreLine(f"Pair of {_pair_name(tile, Situation(seat_wind))}", points, 0, source)


class PungChow(RuleSet):
    name: ClassVar[str] = "pung-chow"
    title: ClassVar[str] = "Pung Chow (1922), Part I: without a limit"
    text: ClassVar[str] = "pung-chow-1922.txt, Part I"
    hand_size: ClassVar[int] = 13
    sets_needed: ClassVar[int] = 4
    dead_wall: ClassVar[int] = 0
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "limit",
            None,
            "cap on what a hand collects (Part I plays without one); East double",
            allow_none=True,
            minimum=10,
        ),
        OptionSpec("mahjong_bonus", 20, "points for Mah-Jongg (p.3: 20)", choices=(10, 20)),
        OptionSpec(
            "flowers", False, "play with the mandarins (flowers and seasons), p.29", kind=bool
        ),
        # House rule: the other reading of docs/rules.md (Pung Chow Part I), the bot's first.
        OptionSpec(
            "dead_hand",
            "settle",
            "a false Mah-Jongg makes the hand dead: it pays every other hand its score and the "
            "others settle their differences as losers do (settle), or the others settle "
            "nothing among themselves, as in a draw (draw)",
            choices=("settle", "draw"),
            kind=str,
            source="Pung Chow p.24: 'it becomes \"dead\" ... he must pay all players'",
            house=True,
        ),
    )
    # Pung Chow p.30: the bonus for the pair is for "a pair of any dragon or the player's own
    # wind"; the book has no round wind in Part I.
    source_bonus: ClassVar[str] = CARD
    source_combination: ClassVar[str] = CARD
    # p.31: "if any of his loose tile draws have been fortunate enough to complete his hand",
    # after a kong or a mandarin alike.
    loose_tile_after_kong_only: ClassVar[bool] = False

    def __init__(self) -> None:
        # What score_reading looks its lines up in, fetched once (rule sets are module
        # singletons): the set lines of this rule set's table, the fixed lines by the
        # Mah-Jongg bonus (its choices; another value is built by fixed_lines on the way).
        self._set_lines = set_lines(self.source_combination)
        self._fixed = {bonus: self.fixed_lines(bonus) for bonus in (10, 20)}

    def dead_hand_payments(self, outcome: Outcome, options: Options) -> list[Payment]:
        """A dead hand pays every other hand its score (p.24); the others settle their
        differences as losers do, unless ``dead_hand=draw`` (nothing among themselves)."""
        payments = super().dead_hand_payments(outcome, options)
        if options.get("dead_hand", "settle") == "draw":
            return [p for p in payments if p.payer in outcome.dead]
        return payments

    def pair_points(self, tile: int, situation: Situation) -> int:
        """Pair of any dragon or the player's own wind: 2 (score card p.3; Example 12 note:
        "Dragons and own wind are only pairs that score, and they are limited to two points")."""
        if WHITE <= tile <= RED or tile == EAST + situation.seat_wind:
            return 2
        return 0

    def bonus_points(self, tile: int) -> int:
        """Points for each flower or season; Part I's mandarins only double (p.29)."""
        return 0

    def score_reading(
        self,
        reading: Reading,
        facts: Facts,
        hand: Hand,
        situation: Situation,
        win: Win | None,
        options: Options,
    ) -> Score:
        # The hottest function of the scorer: one pass over the sets, plain lists and prebuilt
        # lines (see fixed_lines and set_lines, looked up once per rule set in __init__), no
        # per-line method calls, no generator expressions.
        bonus = options["mahjong_bonus"]
        fixed = self._fixed.get(bonus) or self.fixed_lines(bonus)
        own = EAST + situation.seat_wind
        combinations: list[ScoreLine] = []
        doubles: list[ScoreLine] = []
        sequences = False
        lines_of = self._set_lines.get
        for s in reading.sets:
            kind = s[0]
            if kind == CHOW:  # (no line: a chow is looked at first, the common set)
                sequences = True
            elif kind != PAIR:
                line = lines_of(s)
                if line is not None:
                    combinations.append(line)
                    tile = s[1]
                    if tile >= WHITE:
                        doubles.append(fixed[tile])
                    elif tile == own:
                        doubles.append(fixed["own-wind"])
        items: list[ScoreLine] = []
        if win is not None:
            items.append(fixed["mahjong"])
            if not sequences:
                items.append(fixed["no-sequences"])
            by = win.by
            if by == LOOSE_TILE:
                if (
                    not self.loose_tile_after_kong_only
                    or hand.kong_count
                    or options.get("loose_tile_bonus") == "any"
                ):
                    items.append(fixed["loose-tile"])
                items.append(fixed["drawn"])
            elif by == SELF_DRAW:
                items.append(fixed["drawn"])
            if facts.unique_wait(hand, reading):
                items.append(fixed["only-place"])
        bonus_lines = len(items)
        if combinations:
            items += combinations
        best_pair = 0
        for tile in reading.pairs:
            if tile < EAST:
                continue  # a pair of a suit scores nothing (score card p.3, p.65)
            value = self.pair_points(tile, situation)
            if value > best_pair:
                best_pair, pair_tile = value, tile
        if best_pair:
            items.append(
                pair_line(pair_tile, situation.seat_wind, best_pair, self.source_combination)
            )
        for tile in hand.flowers:
            points = self.bonus_points(tile)
            if points:
                items.append(ScoreLine(tile_name(tile), points, 0, self.source_combination))
        if win is not None and len(items) == bonus_lines == 1:
            items.append(fixed["no-other-score"])
        # Every line so far adds points; every line from here doubles.
        points = sum(map(line_points, items))
        if win is not None and (win.by == DEALT or "original-hand" in win.flags):
            items.append(fixed["original"])
        if facts.all_honours:
            items.append(fixed["all-honours"])
        elif facts.one_suit:
            items.append(fixed["one-suit"])
        elif facts.one_suit_with_honours:
            items.append(fixed["one-suit-honours"])
        if doubles:
            items += doubles
        if hand.flowers:
            lines = Lines()
            self.add_bonus_doubles(lines, hand, situation)
            items.extend(lines.items)
        total = points << sum(map(line_doubles, items))
        return new_score(Score, (tuple(items), total, None, reading, win is not None, False))

    @cache  # noqa: B019 - rule sets are module singletons; a few entries per bonus value
    def fixed_lines(self, mahjong_bonus: int) -> dict[str | int, ScoreLine]:
        """The rule set's fixed lines (score card p.3), built once."""
        src = self.source_bonus
        lines = {
            "mahjong": ScoreLine("Mah-Jongg", mahjong_bonus, 0, src),
            "no-sequences": ScoreLine("No sequences in hand or on table", 10, 0, src),
            "loose-tile": ScoreLine("Winning on a draw from the loose tiles", 10, 0, src),
            "drawn": ScoreLine("Drawing the winning piece", 2, 0, src),
            "only-place": ScoreLine("Filling the only place to win", 2, 0, src),
            "no-other-score": ScoreLine(
                "No other score than Mah-Jongg in hand or on table", 10, 0, src
            ),
            "original": ScoreLine("Winning on original hand", 0, 3, src),
            "all-honours": ScoreLine("All one suit (honours)", 0, 3, src),
            "one-suit": ScoreLine("All one suit", 0, 3, src),
            "one-suit-honours": ScoreLine("All one suit except winds or dragons", 0, 1, src),
            "own-wind": ScoreLine("Three of own wind", 0, 1, src),
        }
        for dragon in DRAGONS:
            name = DRAGON_NAMES[dragon - WHITE].lower()
            lines[dragon] = ScoreLine(f"Three {name} dragons", 0, 1, src)
        return lines

    def add_bonus_doubles(self, lines: Lines, hand: Hand, situation: Situation) -> None:
        """Mandarins: each of the player's own wind doubles once (Pung Chow p.29)."""
        for tile in hand.flowers:
            if bonus_wind(tile) == situation.seat_wind:
                lines.double(f"Own {_bonus_name(tile).lower()}", 1, SRC)


def _pair_name(tile: int, situation: Situation) -> str:
    from bot.rules.tiles import tile_name

    if tile == wind_tile(situation.seat_wind):
        return f"own wind ({tile_name(tile)})"
    return f"{tile_name(tile).lower()}s"


def _bonus_name(tile: int) -> str:
    from bot.rules.tiles import tile_name

    return tile_name(tile)


RULESET = PungChow()
