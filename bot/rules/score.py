"""Scores and payments: itemised lines with their source, and who pays whom."""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple


class ScoreLine(NamedTuple):
    """One line of an itemised score: points added, or doubles applied (``x2`` per double).

    ``source`` cites the rule text (``Pung Chow p.29``); ``value`` is what the line adds: the
    points, or the total after the doubling, as the book writes its examples.
    """

    name: str
    points: int = 0
    doubles: int = 0
    source: str = ""

    def describe(self) -> str:
        if self.doubles:
            times = "once" if self.doubles == 1 else f"{self.doubles} times"
            return f"{self.name}: double {times}"
        return f"{self.name}: {self.points}"


#: A line's points and doubles, for ``sum(map(line_points, lines))``: the scorers total every
#: reading of every hand, and mapping a C getter is several times cheaper than a generator.
line_points = itemgetter(1)
line_doubles = itemgetter(2)


class Score(NamedTuple):
    """A hand's score: the lines in the book's order, the total, and how it was reached.

    Immutable like the rest of the engine's values; a named tuple because the scorer builds one
    per reading of every hand and it is several times cheaper to make than a dataclass.

    ``total`` is the hand's value before any cap on payments; a limit hand is worth the limit
    (``limit_hand`` names it). ``reading`` is the way of counting the hand that scored best;
    ``arrangement`` describes it for people.
    """

    lines: tuple[ScoreLine, ...]
    total: int
    limit_hand: str | None = None
    reading: Any = None
    winner: bool = False
    dead: bool = False

    @property
    def arrangement(self) -> tuple[str, ...]:
        if self.reading is None:
            return ()
        from bot.rules.reading import describe_reading

        return describe_reading(self.reading)

    @property
    def points(self) -> int:
        return sum(line.points for line in self.lines)

    @property
    def doubles(self) -> int:
        return sum(line.doubles for line in self.lines)

    def render(self) -> str:
        """The score as a person reads it on paper: points, subtotal, each double."""
        rows: list[str] = []
        running = 0
        for line in self.lines:
            if line.doubles:
                running <<= line.doubles
                rows.append(f"  {line.describe():<52} {running:>8}")
            else:
                running += line.points
                rows.append(f"  {line.name:<52} {line.points:>8}")
        rows.append(f"  {'Total':<52} {self.total:>8}")
        return "\n".join(rows)


#: ``new_score(Score, (lines, total, limit_hand, reading, winner, dead))``: a Score made from
#: all six fields in order, without the keyword handling of ``Score(...)``, for the scorers'
#: hot paths.
new_score = tuple.__new__


@dataclass(frozen=True, slots=True)
class Payment:
    """``amount`` chips from seat ``payer`` to seat ``payee``, with why.

    Rule sets settle by seat wind (0 East .. 3 North); the game engine's hand results hold the
    same payments translated to physical seats (see ``bot.rules.game.scoring``)."""

    payer: int
    payee: int
    amount: int
    reason: str = ""


def net_of(payments: list[Payment], seats: int = 4) -> list[int]:
    """Each seat's net change; always sums to zero."""
    net = [0] * seats
    for p in payments:
        net[p.payer] -= p.amount
        net[p.payee] += p.amount
    return net
