"""What a seat may see of a table: the only way anything outside the engine sees a hand.

The game engine builds these with ``view(state, seat)``; the renderer, the computer players
and the bot read nothing else. A seat's ``concealed`` is None unless the viewer may see it
(its own seat, or every seat once the hand is revealed); ``concealed_count`` is always given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.rules.melds import Meld

if TYPE_CHECKING:
    from bot.rules.game.state import GameState


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it.

    ``seat`` is the physical seat (0-3 counter-clockwise from the first East), ``wind`` its
    wind this hand (0 East .. 3 North). ``drawn`` is the tile just drawn, shown apart from
    ``concealed`` (which does not include it). ``claimed`` holds the indices of ``discards``
    that another player took. ``occupied`` is False for the dummy of a two- or three-player
    table (Pung Chow p.76).

    Added by the game engine: ``concealed_count`` counts the concealed tiles without the drawn
    one, and ``holding_drawn`` says whether the seat holds a drawn tile apart (everyone may
    know that, not which tile); ``player`` is the index of the player sitting there (in the
    order they joined; None for a dummy); ``riichi`` and ``furiten`` are the singapore
    declarations made; ``net`` the seat's chips won or lost so far in the game.
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
    holding_drawn: bool = False
    player: int | None = None
    riichi: bool = False
    furiten: bool = False
    net: int = 0


@dataclass(frozen=True, slots=True)
class TableView:
    """The table as one viewer sees it (``viewer`` None: the public channel view).

    ``dealer`` and ``turn`` are physical seats; during a claim window ``turn`` is still the
    discarder's, and ``awaiting`` holds the viewer's own seat if it is asked about the discard
    and has not answered (which other seats are asked is not shown: being asked tells what a
    hand holds; the bot's timers use ``pending_seats(state)``).
    ``last_discard`` is ``(seat, tile)`` of the latest discard while it lies untaken.

    Added by the game engine: ``loose_tiles`` on top of the wall (counted in
    ``wall_remaining``), ``drawable`` tiles before the dead wall, ``wall_break`` (the dice and
    the breaker, :class:`~bot.rules.game.wall.WallBreak`), ``seed_hash`` (SHA-256 of the hand's
    wall seed, published at the deal) and ``seed`` (revealed when the hand is over),
    ``sets_done`` and ``hands_played`` of the game, ``renchon`` (singapore: East's consecutive
    wins), ``result`` (the :class:`~bot.rules.game.state.HandResult` once the hand is over),
    ``game_over``, ``events`` (what the last action caused, in words, nothing private) and
    ``options`` (the rule set's options for the table).
    """

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
    awaiting: frozenset[int] = frozenset()
    loose_tiles: int = 0
    drawable: int = 0
    wall_break: Any = None
    seed_hash: str = ""
    seed: str | None = None
    sets_done: int = 0
    hands_played: int = 0
    renchon: int = 0
    result: Any = None
    game_over: bool = False
    events: tuple[str, ...] = ()
    options: Any = None


def view(state: GameState, seat: int | None) -> TableView:
    """What ``seat`` may see (None: the public view): its own concealed tiles and drawn tile,
    everyone's exposed melds, flowers and discards, the wall count; every hand once the hand is
    over."""
    from bot.rules.game.engine import pending_seats
    from bot.rules.game.state import GAME_OVER, HAND_OVER

    revealed = state.phase in (HAND_OVER, GAME_OVER)
    seats = []
    for s in range(4):
        st = state.seats[s]
        occupied = state.occupied[s]
        show = revealed or s == seat
        seats.append(
            SeatView(
                seat=s,
                wind=(s - state.dealer) % 4,
                concealed=st.concealed if show and occupied else None,
                concealed_count=len(st.concealed),
                drawn=st.drawn if show else None,
                melds=st.melds,
                flowers=st.flowers,
                discards=st.discards,
                claimed=st.claimed,
                occupied=occupied,
                holding_drawn=st.drawn is not None,
                player=state.seating.seats[s],
                riichi=st.riichi,
                furiten=bool(st.furiten),
                net=state.net[s],
            )
        )
    texts = tuple(e.text for e in state.events if e.text)
    wall = state.wall
    return TableView(
        viewer=seat,
        ruleset=state.config.ruleset,
        seats=tuple(seats),
        round_wind=state.round_wind,
        hand_number=state.deal,
        dealer=state.dealer,
        turn=state.turn,
        wall_remaining=wall.remaining,
        dead_wall=wall.dead,
        last_discard=state.last_discard if state.phase == "claim" else None,
        last_action=state.last_text,
        phase=state.phase,
        revealed=revealed,
        move=state.move,
        awaiting=pending_seats(state) & {seat} if state.phase == "claim" else frozenset(),
        loose_tiles=len(wall.loose),
        drawable=wall.drawable,
        wall_break=state.wall_break,
        seed_hash=state.seed_hash,
        seed=state.hand_seed if revealed else None,
        sets_done=state.sets_done,
        hands_played=state.hands_played,
        renchon=state.renchon,
        result=state.result if revealed else None,
        game_over=state.phase == GAME_OVER,
        events=texts,
        options=state.config.options,
    )
