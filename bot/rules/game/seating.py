"""Seating the players and choosing the first East.

Players are numbered 0..n-1 in the order they sat down; their chairs go counter-clockwise round
the table (player 0, then the one on his right, ...). With three players the fourth chair holds
the dummy, with two players chairs 1 and 3 do (each player builds two sides of the wall, Pung
Chow p.76). *Physical seats* are numbered 0-3 counter-clockwise from the first East; the seating
maps them to players (None for a dummy).

Two procedures:

* By the dice (Pung Chow p.13; filipino-16 "Formalities of Opening the Game"): every player
  throws once, "the one throwing the highest number becoming first East Wind. In the event of a
  tie, players tieing throw again." The others keep their chairs.
* With the wind indicators and the wind box (Pung Chow p.57-59, pung-chow-limit): one player
  throws to choose who deals the indicators; he lays them in a line with the wind box under one
  of them, throws again to choose who picks up the first indicator, the others following
  counter-clockwise; the player who drew East sits where the box was put and the others sit by
  the winds they drew.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.rules.game.dice import rng, throw
from bot.rules.tiles import WIND_NAMES

# Chairs (counter-clockwise) that hold players, by number of players; the rest hold dummies.
CHAIRS = {4: (0, 1, 2, 3), 3: (0, 1, 2), 2: (0, 2)}


@dataclass(frozen=True, slots=True)
class SeatingRecord:
    """How the seats were chosen, for showing at the table.

    ``throws`` lists ``(player, (die, die))`` in the order thrown; ``indicators`` (wind-box
    procedure only) the winds laid out in line, ``box_at`` the index of the indicator on the
    wind box, ``takers`` the player taking each indicator. ``seats`` is the player at each
    physical seat (None for a dummy).
    """

    method: str
    throws: tuple[tuple[int, tuple[int, int]], ...]
    seats: tuple[int | None, ...]
    indicators: tuple[int, ...] = ()
    box_at: int | None = None
    takers: tuple[int, ...] = ()

    def describe(self) -> str:
        parts = [f"player {p + 1} threw {a}+{b}" for p, (a, b) in self.throws]
        east = self.seats[0]
        parts.append(f"player {east + 1 if east is not None else '?'} is the first East")
        return "; ".join(parts)


def seat_players(players: int, seed: int | str, *, wind_box: bool = False) -> SeatingRecord:
    """Choose the first East and the seats, from the table seed."""
    if players not in CHAIRS:
        raise ValueError("a table has two, three or four players")
    generator = rng(seed, "seating")
    if wind_box:
        return _by_indicators(players, generator)
    return _by_dice(players, generator)


def _by_dice(players: int, generator: random.Random) -> SeatingRecord:
    """Pung Chow p.13: the highest throw is East; tied players throw again."""
    throws: list[tuple[int, tuple[int, int]]] = []
    contenders = list(range(players))
    while True:
        results = {}
        for player in contenders:
            dice = throw(generator)
            throws.append((player, dice))
            results[player] = sum(dice)
        best = max(results.values())
        contenders = [p for p in contenders if results[p] == best]
        if len(contenders) == 1:
            break
    east = contenders[0]
    chairs = CHAIRS[players]
    east_chair = chairs[east]
    seats: list[int | None] = [None] * 4
    for player, chair in enumerate(chairs):
        seats[(chair - east_chair) % 4] = player
    return SeatingRecord("dice", tuple(throws), tuple(seats))


def _by_indicators(players: int, generator: random.Random) -> SeatingRecord:
    """Pung Chow p.57-59, counting the players only (a dummy takes no indicator)."""
    throws: list[tuple[int, tuple[int, int]]] = []
    first = 0  # "any one of the four players throws the two dice once"
    dice = throw(generator)
    throws.append((first, dice))
    dealer = (first + sum(dice) - 1) % players
    # The winds held by players with the dummies where they sit when seat 0 is East.
    indicators = list(CHAIRS[players])
    generator.shuffle(indicators)
    box_at = generator.randrange(len(indicators))
    dice = throw(generator)
    throws.append((dealer, dice))
    picker = (dealer + sum(dice) - 1) % players
    takers = tuple((picker + i) % players for i in range(len(indicators)))
    seats: list[int | None] = [None] * 4
    for wind, player in zip(indicators, takers, strict=True):
        seats[wind] = player
    return SeatingRecord(
        "wind-box",
        tuple(throws),
        tuple(seats),
        indicators=tuple(indicators),
        box_at=box_at,
        takers=takers,
    )


def describe_indicators(record: SeatingRecord) -> str:
    """The wind-box procedure in words."""
    if record.method != "wind-box":
        return record.describe()
    laid = ", ".join(WIND_NAMES[w] for w in record.indicators)
    return f"indicators laid out: {laid}; wind box under #{(record.box_at or 0) + 1}"
