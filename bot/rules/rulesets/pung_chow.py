"""``pung-chow``: L. L. Harr, *Pung Chow* (1922), Part I, the game without a limit.

Score card p.3 and p.29-31: bonus scores for the winner only, combination scores and doubling
honours for all four hands; every hand scores and the losers settle their differences (p.25).
"""

from __future__ import annotations

from typing import ClassVar

from bot.rules.analysis import CHOW, KONG, PUNG
from bot.rules.hand import DEALT, LOOSE_TILE, Hand, Situation, Win
from bot.rules.options import Options, OptionSpec
from bot.rules.reading import Facts, Reading, has_unique_wait
from bot.rules.rulesets.base import Lines, RuleSet
from bot.rules.score import Score
from bot.rules.tiles import (
    DRAGON_NAMES,
    WHITE,
    bonus_wind,
    is_dragon,
    is_head,
    wind_tile,
)

SRC = "Pung Chow p.29"
CARD = "Pung Chow p.3"

# Combination scores (score card p.3): (exposed, concealed) for three and four of a kind.
PUNG_POINTS = {False: (2, 4), True: (4, 8)}  # keyed by "is a head"
KONG_POINTS = {False: (8, 16), True: (16, 32)}
SET_NAMES = {PUNG: "3", KONG: "4"}


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
    )
    # Pung Chow p.30: the bonus for the pair is for "a pair of any dragon or the player's own
    # wind"; the book has no round wind in Part I.
    source_bonus: ClassVar[str] = CARD
    source_combination: ClassVar[str] = CARD

    def pair_points(self, tile: int, situation: Situation) -> int:
        """Pair of any dragon or the player's own wind: 2 (score card p.3; Example 12 note:
        "Dragons and own wind are only pairs that score, and they are limited to two points")."""
        if is_dragon(tile) or tile == wind_tile(situation.seat_wind):
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
        lines = Lines()
        winner = win is not None
        sequences = any(s.kind == CHOW for s in reading.sets)
        if winner:
            assert win is not None
            lines.add("Mah-Jongg", options["mahjong_bonus"], self.source_bonus)
            if not sequences:
                lines.add("No sequences in hand or on table", 10, self.source_bonus)
            if win.by == LOOSE_TILE:
                lines.add("Winning on a draw from the loose tiles", 10, self.source_bonus)
            if win.drawn:
                lines.add("Drawing the winning piece", 2, self.source_bonus)
            if win.by != DEALT and has_unique_wait(hand, win):
                lines.add("Filling the only place to win", 2, self.source_bonus)
        bonus_lines = len(lines.items)
        for s in reading.sets:
            if s.kind == PUNG or s.kind == KONG:
                lines.add(
                    set_label(s.kind, s.tile, s.concealed),
                    combination_points(s.kind, s.tile, s.concealed),
                    self.source_combination,
                )
        pair_scores = sorted((self.pair_points(t, situation), t) for t in reading.pairs)
        if pair_scores and pair_scores[-1][0]:
            points, tile = pair_scores[-1]
            lines.add(f"Pair of {_pair_name(tile, situation)}", points, self.source_combination)
        for tile in hand.flowers:
            lines.add(f"{_bonus_name(tile)}", self.bonus_points(tile), self.source_combination)
        if winner and len(lines.items) == bonus_lines == 1:
            lines.add("No other score than Mah-Jongg in hand or on table", 10, self.source_bonus)
        self.add_doubles(lines, reading, facts, hand, situation, win)
        return Score(tuple(lines.items), lines.total, winner=winner)

    def add_doubles(
        self,
        lines: Lines,
        reading: Reading,
        facts: Facts,
        hand: Hand,
        situation: Situation,
        win: Win | None,
    ) -> None:
        """Doubling honours (score card p.3), which all four players may use (p.30)."""
        if win is not None and (win.by == DEALT or "original-hand" in win.flags):
            lines.double("Winning on original hand", 3, self.source_bonus)
        if facts.all_honours:
            lines.double("All one suit (honours)", 3, self.source_bonus)
        elif facts.one_suit:
            lines.double("All one suit", 3, self.source_bonus)
        elif facts.one_suit_with_honours:
            lines.double("All one suit except winds or dragons", 1, self.source_bonus)
        own = wind_tile(situation.seat_wind)
        for s in reading.sets:
            if s.kind in (PUNG, KONG) and is_dragon(s.tile):
                lines.double(
                    f"Three {DRAGON_NAMES[s.tile - WHITE].lower()} dragons", 1, self.source_bonus
                )
        for s in reading.sets:
            if s.kind in (PUNG, KONG) and s.tile == own:
                lines.double("Three of own wind", 1, self.source_bonus)
        self.add_bonus_doubles(lines, hand, situation)

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
