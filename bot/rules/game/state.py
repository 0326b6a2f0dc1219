"""The state of a table: immutable, rebuilt by each accepted action.

A table plays a *game* of several hands. The state holds the configuration chosen when the
table opened, the seating, the wind box (dealer, round wind, sets played), the current hand
(wall, each seat's tiles, whose turn it is or the open claim window), the results of the hands
played and the running chip totals. ``move`` counts accepted actions (the bot puts it in button
ids to reject stale clicks).

Seats in the state are *physical seats*: 0-3 counter-clockwise from the first East. A seat's
wind this hand is ``(seat - dealer) % 4`` (0 East .. 3 North); the rules API (scoring,
settling) is keyed by wind, and ``scoring.py`` maps between the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.game.actions import Action, Event
from bot.rules.game.seating import SeatingRecord
from bot.rules.game.wall import Wall, WallBreak
from bot.rules.hand import Hand, Win
from bot.rules.melds import Meld
from bot.rules.score import Payment, Score

PLAY = "play"  # the seat in turn must discard (it has drawn or claimed)
CLAIM = "claim"  # a discard is out; the seats that can claim it are asked
HAND_OVER = "hand-over"  # the hand is over and shown; NextHand deals the next
GAME_OVER = "game-over"

# How a hand ended.
MAHJONG = "mahjong"
DRAWN = "draw"  # the wall reached the dead wall with no winner
WASHING = "washing"
FALSE_MAHJONG = "false-mahjong"
FOUR_KONGS = "four-kongs"  # singapore: four kongs by more than one player


class IllegalAction(ValueError):
    """An action the rules do not allow now; ``reason`` says why. The state is unchanged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TableConfig:
    """What is chosen when the table opens.

    ``sets`` (four rounds of the wind box each, Pung Chow p.59) or ``hands`` (hands played to a
    result; washed hands do not count) ends the game; both None plays until the table is
    closed. ``strict`` penalises a Mah-Jongg called on an incomplete hand as the rule text says
    instead of refusing it. ``rig`` gives stacked walls for the first deals (tests only), in the
    form of :func:`bot.rules.game.wall.from_sequence`.
    """

    ruleset: str
    options: Mapping[str, Any]
    seed: int | str = 0
    players: int = 4
    sets: int | None = 1
    hands: int | None = None
    strict: bool = False
    rig: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat's tiles and flags during a hand.

    ``concealed`` is sorted and excludes ``drawn``, the tile just drawn (``source`` says from
    where: ``dealt`` for East's fourteenth tile, ``wall``, ``loose``; ``discard`` for the
    winner's claimed tile at the end). ``claimed`` holds the indices of ``discards`` that another
    player took. ``original`` stays True until the seat draws in play, claims or discards
    (washing the tiles, Pung Chow p.61; winning on the original hand). ``furiten`` is what the
    seat covered by declaring Furi Tem and ``furiten_at`` the number of discards made then.
    """

    concealed: tuple[int, ...] = ()
    drawn: int | None = None
    source: str = ""
    melds: tuple[Meld, ...] = ()
    flowers: tuple[int, ...] = ()
    discards: tuple[int, ...] = ()
    claimed: frozenset[int] = frozenset()
    original: bool = True
    riichi: bool = False
    furiten: frozenset[int] = frozenset()
    furiten_at: int = -1

    def tiles(self) -> list[int]:
        """Concealed tiles with the drawn one."""
        if self.drawn is None:
            return list(self.concealed)
        return [*self.concealed, self.drawn]

    def tile_count(self) -> int:
        """Counted as the texts count (a kong as three, Pung Chow p.24)."""
        n = len(self.concealed) + (self.drawn is not None)
        return n + sum(3 for _ in self.melds)


@dataclass(frozen=True, slots=True)
class ClaimWindow:
    """The claim window on the latest discard (Pung Chow p.19-21).

    ``options[seat]`` is the tuple of claims that seat may make (None: it is not asked);
    ``responses[seat]`` what it answered. ``number`` is the discard's number in the hand
    (1 for East's first); ``last`` is True when no tile may be drawn after it.
    """

    discarder: int
    tile: int
    number: int
    options: tuple[tuple[Action, ...] | None, ...]
    responses: tuple[Action | None, ...]
    last: bool = False


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended, what each seat scored and who paid whom (physical seats).

    ``winds`` is each seat's wind that hand; ``win`` is the rules API's :class:`Win` (its
    ``from_seat`` a wind); ``scores`` each seat's itemised score (None where nothing is scored);
    ``hands`` every seat's tiles as revealed; ``payments`` in physical seats; ``net`` per seat.
    ``seed`` is the hand seed, revealed now, whose SHA-256 ``seed_hash`` was shown at the deal.
    """

    number: int
    kind: str
    dealer: int
    round_wind: int
    winds: tuple[int | None, ...]
    winner: int | None = None
    discarder: int | None = None
    win: Win | None = None
    scores: tuple[Score | None, ...] = (None, None, None, None)
    hands: tuple[Hand | None, ...] = (None, None, None, None)
    payments: tuple[Payment, ...] = ()
    net: tuple[int, ...] = (0, 0, 0, 0)
    liable: int | None = None
    caller: int | None = None
    renchon: int = 0
    seed: str = ""
    seed_hash: str = ""
    note: str = ""
    # House rules (name=value) whose text reading would have scored or settled this hand
    # otherwise (bot/rules/house_rules.py): the reveal names them.
    house_rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameState:
    """The whole table. Build it with ``new_game`` and change it only with ``apply``."""

    config: TableConfig
    seating: SeatingRecord
    occupied: tuple[bool, ...]
    phase: str
    deal: int
    hands_played: int
    dealer: int
    round_wind: int
    sets_done: int
    renchon: int
    hand_seed: str
    seed_hash: str
    wall_break: WallBreak | None
    wall: Wall
    seats: tuple[SeatState, ...]
    turn: int
    claim: ClaimWindow | None
    discards: int
    last_discard: tuple[int, int] | None
    last_tile: bool
    result: HandResult | None
    results: tuple[HandResult, ...]
    net: tuple[int, ...]
    move: int
    events: tuple[Event, ...]
    # The newest public words of the hand, kept across moves whose events say nothing (a
    # pass): were they cleared, every picture would change when a seat answers a discard,
    # telling the table that someone was asked (could claim it).
    last_text: str = ""

    def wind_of(self, seat: int) -> int:
        """The seat's wind this hand (0 East .. 3 North)."""
        return (seat - self.dealer) % 4

    def seat_of_wind(self, wind: int) -> int:
        return (self.dealer + wind) % 4

    @property
    def active_seats(self) -> tuple[int, ...]:
        """Occupied seats in turn order from East."""
        return tuple(
            (self.dealer + i) % 4 for i in range(4) if self.occupied[(self.dealer + i) % 4]
        )

    def next_seat(self, seat: int) -> int:
        """The next occupied seat to the right (counter-clockwise), skipping a dummy."""
        for step in range(1, 5):
            candidate = (seat + step) % 4
            if self.occupied[candidate]:
                return candidate
        return seat

    def player_at(self, seat: int) -> int | None:
        return self.seating.seats[seat]

    def seat_of_player(self, player: int) -> int:
        return self.seating.seats.index(player)

    @property
    def game_over(self) -> bool:
        return self.phase == GAME_OVER
