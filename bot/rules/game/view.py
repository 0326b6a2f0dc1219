"""What a seat may see of a table: the only way anything outside the engine sees a hand.

The game engine builds these with ``view(state, seat)``; the renderer, the computer players
and the bot read nothing else. A seat's ``concealed`` is None unless the viewer may see it
(its own seat, or every seat once the hand is revealed); ``concealed_count`` is always given.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.melds import Meld


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it.

    ``seat`` is the physical seat (0-3 counter-clockwise from the first East), ``wind`` its
    wind this hand (0 East .. 3 North). ``drawn`` is the tile just drawn, shown apart from
    ``concealed`` (which does not include it). ``claimed`` holds the indices of ``discards``
    that another player took. ``occupied`` is False for the dummy of a two- or three-player
    table (Pung Chow p.76).
    """

    seat: int
    wind: int
    concealed: tuple[int, ...] | None
    concealed_count: int
    drawn: int | None = None
    melds: tuple[Meld, ...] = ()
    flowers: tuple[int, ...] = ()
    discards: tuple[int, ...] = ()
    claimed: frozenset[int] = frozenset()
    occupied: bool = True


@dataclass(frozen=True, slots=True)
class TableView:
    """The table as one viewer sees it (``viewer`` None: the public channel view)."""

    viewer: int | None
    ruleset: str
    seats: tuple[SeatView, ...]
    round_wind: int
    hand_number: int
    dealer: int
    turn: int
    wall_remaining: int
    dead_wall: int
    last_discard: tuple[int, int] | None = None
    last_action: str = ""
    phase: str = "play"
    revealed: bool = False
    move: int = 0
