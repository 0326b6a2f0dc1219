"""What every rule set shares: checking a hand, taking the best reading, settling.

A rule set is one module holding a subclass of :class:`RuleSet`: its numbers (hand size, wall,
dead wall), its option specs, and small functions that turn a reading into score lines and
scores into payments. Adding a variant means adding one module and registering it in
``bot/rules/rulesets/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType as _ResolvedTypes
from typing import Any, ClassVar

from bot.rules.hand import DEALT, Hand, Situation, Win
from bot.rules.options import Options, OptionSpec, resolve_options
from bot.rules.reading import (
    Facts,
    Reading,
    losing_reading,
    winning_readings,
)
from bot.rules.score import Payment, Score, ScoreLine
from bot.rules.tiles import (
    N_KINDS,
    format_tiles,
    is_bonus,
    tile_name,
)


class HandError(ValueError):
    """A hand that cannot be scored as given; the message says why."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a hand ended, for settling: each present seat's score (by seat wind, 0 East).

    ``dead`` seats hold a dead hand (wrong number of tiles, Pung Chow p.24); ``liable`` is a
    discarder who must bear everyone's losses (Pung Chow p.67-68, singapore); ``false_mahjong``
    a seat that called Mah-Jongg on an incomplete hand (strict tables only).
    """

    scores: Mapping[int, int]
    winner: int | None = None
    discarder: int | None = None
    dead: frozenset[int] = frozenset()
    liable: int | None = None
    false_mahjong: int | None = None
    riichi: frozenset[int] = frozenset()
    renchon: int = 0
    extras: Mapping[str, Any] = field(default_factory=dict)

    @property
    def seats(self) -> list[int]:
        return sorted(self.scores)


class Lines:
    """Collects score lines and keeps the running total the way the book writes it:
    points are added, then each double doubles the total so far."""

    __slots__ = ("after", "doubles", "items", "points")

    def __init__(self) -> None:
        self.items: list[ScoreLine] = []
        self.points = 0
        self.doubles = 0
        self.after = 0

    def push(self, line: ScoreLine) -> None:
        """Add a ready-made line (the fixed lines of a rule set are built once)."""
        self.items.append(line)
        self.points += line.points
        self.doubles += line.doubles

    def add(self, name: str, points: int, source: str) -> None:
        if points:
            self.items.append(ScoreLine(name, points, 0, source))
            self.points += points

    def double(self, name: str, times: int, source: str) -> None:
        if times:
            self.items.append(ScoreLine(name, 0, times, source))
            self.doubles += times

    def add_after_doubling(self, name: str, points: int, source: str) -> None:
        """Points added to the doubled total (a bonus the text gives outside the doubling)."""
        if points:
            self.items.append(ScoreLine(name, points, 0, source))
            self.after += points

    @property
    def total(self) -> int:
        return (self.points << self.doubles) + self.after


class RuleSet:
    """A rule set: its numbers, its options, and how it scores and settles."""

    name: ClassVar[str]
    title: ClassVar[str]
    text: ClassVar[str]
    hand_size: ClassVar[int] = 13
    sets_needed: ClassVar[int] = 4
    dead_wall: ClassVar[int] = 0
    specials: ClassVar[tuple[str, ...]] = ()
    losers_score: ClassVar[bool] = True
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()

    # -- options ---------------------------------------------------------------------------
    def options(self, given: Mapping[str, Any] | None = None) -> Options:
        return resolve_options(self.option_specs, given)

    def limit_of(self, options: Options) -> int | None:
        return options.get("limit")

    # -- checking a hand -------------------------------------------------------------------
    def check_hand(
        self,
        hand: Hand,
        win: Win | None,
        options: Options,
        counts: list[int] | None = None,
        facts: Facts | None = None,
    ) -> None:
        """Reject what no table could hold: a fifth tile, a wrong count, a stray bonus tile.
        ``facts`` (of this hand) saves counting the tiles again."""
        if facts is not None:
            counts = facts.counts
            too_many = facts.too_many
        else:
            if counts is None:
                counts = hand.counts()
            too_many = max(counts) > 4
        if too_many:
            tile = next(t for t in range(N_KINDS) if counts[t] > 4)
            raise HandError(f"{counts[tile]} copies of {tile_name(tile)}: a set has only four")
        if hand.flowers:
            if len(set(hand.flowers)) != len(hand.flowers):
                raise HandError("a flower or season appears twice: there is one of each")
            if not all(is_bonus(t) for t in hand.flowers):
                raise HandError("only flowers and seasons (1f-8f) may be listed as flowers")
            if not options.get("flowers", False):
                raise HandError(
                    "this table plays without flowers and seasons (turn the flowers option on)"
                )
        if facts.stray if facts is not None else hand.concealed and max(hand.concealed) >= N_KINDS:
            raise HandError("flowers and seasons are exposed at once, not held in hand")
        expected = self.hand_size + (1 if win is not None else 0)
        have = facts.tile_count if facts is not None else hand.tile_count()
        if have != expected:
            role = "a winning" if win is not None else "a losing"
            raise HandError(
                f"{role} {self.name} hand has {expected} tiles (a kong counting as three), "
                f"this one has {have}"
            )
        if win is not None and win.by != DEALT:
            if win.tile is None:
                raise HandError("say which tile won the hand")
            if win.tile not in hand.concealed:
                raise HandError(
                    f"the winning tile {tile_name(win.tile)} must be among the tiles in hand"
                )

    # -- scoring ---------------------------------------------------------------------------
    def score(
        self,
        hand: Hand,
        situation: Situation,
        win: Win | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Score:
        """Score a hand: the winner's (``win`` given) or a loser's. Raises HandError."""
        opts = options if isinstance(options, _ResolvedTypes) else self.options(options)
        facts = Facts(hand, win)
        self.check_hand(hand, win, opts, facts=facts)
        if win is None:
            return self.score_reading(losing_reading(hand), facts, hand, situation, None, opts)
        readings = winning_readings(
            hand, win, self.sets_needed, specials=self.specials, facts=facts
        )
        if not readings:
            raise HandError(
                f"{format_tiles(hand.concealed)} does not make {self.sets_needed} sets and a "
                "pair with the declared melds: not a winning hand"
            )
        best = self.score_reading(readings[0], facts, hand, situation, win, opts)
        if len(readings) > 1:
            for reading in readings[1:]:
                result = self.score_reading(reading, facts, hand, situation, win, opts)
                if result.total > best.total:
                    best = result
        return best

    def score_reading(
        self,
        reading: Reading,
        facts: Facts,
        hand: Hand,
        situation: Situation,
        win: Win | None,
        options: Options,
    ) -> Score:
        raise NotImplementedError

    def is_winning(self, hand: Hand) -> bool:
        """Whether the hand is complete under this rule set (sets and a pair, or a special)."""
        win = Win(hand.concealed[0] if hand.concealed else None, by=DEALT)
        return bool(winning_readings(hand, win, self.sets_needed, specials=self.specials))

    # -- settling --------------------------------------------------------------------------
    def cap(self, amount: int, options: Options, east: bool) -> int:
        """A payment held to the limit, East paying or collecting double (Pung Chow p.60)."""
        limit = self.limit_of(options)
        factor = 2 if east else 1
        if limit is None:
            return amount * factor
        return min(amount, limit) * factor

    def settle(self, outcome: Outcome, options: Mapping[str, Any] | None = None) -> list[Payment]:
        """Who pays whom. The winner collects his score from each; where the rule set says
        so, the losers then pay each other the differences (Pung Chow p.25)."""
        opts = options if isinstance(options, _ResolvedTypes) else self.options(options)
        if outcome.false_mahjong is not None:
            return self.false_mahjong_payments(outcome, opts)
        if outcome.winner is None:
            return []
        payments: list[Payment] = []
        winner = outcome.winner
        value = outcome.scores.get(winner, 0)
        losers = [s for s in outcome.seats if s != winner]
        for seat in losers:
            amount = self.cap(value, opts, east=0 in (seat, winner))
            payer = outcome.liable if outcome.liable is not None else seat
            reason = "Mah-Jongg" if payer == seat else f"pays for {_wind(seat)} (liable)"
            if amount:
                payments.append(Payment(payer, winner, amount, reason))
        if self.losers_score and outcome.liable is None:
            payments.extend(self.loser_payments(outcome, losers, opts))
        return payments

    def loser_payments(
        self, outcome: Outcome, losers: Sequence[int], options: Options
    ) -> list[Payment]:
        """Losers settle the differences of their scores, high hand first (Pung Chow p.25);
        a dead hand counts nothing and collects nothing (Pung Chow p.24)."""
        payments: list[Payment] = []
        ordered = sorted(losers, key=lambda s: (-self._loser_value(outcome, s), s))
        for i, high in enumerate(ordered):
            if high in outcome.dead:
                continue
            for low in ordered[i + 1 :]:
                difference = self._loser_value(outcome, high) - self._loser_value(outcome, low)
                amount = self.cap(difference, options, east=0 in (high, low))
                if amount > 0:
                    payments.append(Payment(low, high, amount, "difference of scores"))
        return payments

    @staticmethod
    def _loser_value(outcome: Outcome, seat: int) -> int:
        return 0 if seat in outcome.dead else outcome.scores.get(seat, 0)

    def false_mahjong_payments(self, outcome: Outcome, options: Options) -> list[Payment]:
        """A false Mah-Jongg: the caller pays each other player half the limit, East full
        (Pung Chow p.67). Rule sets without a limit make the hand dead instead."""
        limit = self.limit_of(options)
        caller = outcome.false_mahjong
        assert caller is not None
        if limit is None:
            dead = Outcome(scores=outcome.scores, dead=outcome.dead | {caller}, winner=None)
            return self.dead_hand_payments(dead, options)
        payments = []
        for seat in outcome.seats:
            if seat != caller:
                amount = limit if 0 in (seat, caller) else limit // 2
                payments.append(Payment(caller, seat, amount, "false Mah-Jongg"))
        return payments

    def dead_hand_payments(self, outcome: Outcome, options: Options) -> list[Payment]:
        """Settling a hand with no winner but a dead hand: the dead hand pays the others'
        scores (its own counts nothing)."""
        losers = outcome.seats
        return self.loser_payments(outcome, losers, options)


def _wind(seat: int) -> str:
    return "ESWN"[seat]
