"""Replays of finished hands (issue 13, part 1): a hand watched again, event by event, from
any seat, drawn as that seat's DM showed it.

A replay is rebuilt from the table's stored events with the same code that rebuilds a table
after a restart (:func:`bot.service.tables.events.replay_event`), so every state it steps
through is a state the live table went through. Each frame is what the live bot would have
drawn at that state: for a seat, ``render_seat_table`` of that seat's view with the hint marks
its DM carried; for the table (:data:`TABLE`), ``render_table`` of the public view. The views
come from :mod:`bot.service.privacy`, the one gate of live play, so a replay shows a seat only
what that seat saw at that moment, and every hand once the hand is over (the last frame is the
reveal). A hand still in play, or abandoned unfinished, is refused: its concealed tiles were
never revealed.

Steps and stops: a hand's *steps* are its deal and then every stored event that changed the
table (a move, a player leaving). The viewer stops only where the chosen seat's picture
changes (its *stops*); a step whose picture equals the previous one (another seat's pass,
for that seat) is not a frame of its own, as it never was a new picture in that seat's DM.

A replay code (:func:`replay_code`) is the first :data:`CODE_LENGTH` hex digits of the
SHA-256 of the table's seed and the hand's number, ``3fa9c02b-2``: short, typeable, and
telling nothing about the walls (the seed stays secret; each hand's own seed is shown at its
reveal). Anyone on the table's server may open it. A table's *number* is no secret (they
count up), so opening a hand by number asks more (:func:`check_access`): the member played at
the table, or can see the channel it was played in (its thread, or the channel it was opened
from). A table played where only some may look stays among those, and whoever played it can
share a code.

Rebuilding costs ~0.05 ms an event (a 16-hand game, 680 events: 29 ms), run in a worker
thread all the same (a long game must not hold the event loop); the last
few replays are kept (:data:`CACHED`): the viewer's buttons rebuild nothing.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from bot.i18n import FALLBACK, N_, _
from bot.rules.game import GAME_OVER, HAND_OVER
from bot.rules.game.state import GameState, HandResult
from bot.rules.game.view import TableView
from bot.rules.tiles import WIND_NAMES
from bot.service.hints import seat_hints
from bot.service.privacy import names_of, public_view, seat_view
from bot.service.tables.events import describe, rebuild, replay_event
from bot.service.tables.model import LiveTable

CODE_LENGTH = 8
TABLE = 4  # "from the seat of" the table itself: the channel's picture, no concealed tile
CACHED = 16
MOVES = ("first", "prev", "next", "last")
_CODE = re.compile(r"^\s*([0-9a-fA-F]{6,64})\s*[-:/# ]\s*(\d{1,4})\s*$")


class ReplayError(Exception):
    """A replay that cannot be shown: ``message`` (a catalogue entry) with ``values`` filled
    in is for the member, in their language (:meth:`text`); ``str()`` is the English."""

    def __init__(self, message: str, **values: Any) -> None:
        super().__init__(message.format(**values) if values else message)
        self.message = message
        self.values = values

    def text(self, locale: Any = FALLBACK) -> str:
        return _(locale, self.message, **self.values)


def _no_table(table: int, guild_id: int | None) -> ReplayError:
    """The command-line tool (``guild_id`` None) sees every server's tables."""
    if guild_id is None:
        return ReplayError(N_("There is no table {table}."), table=table)
    return ReplayError(N_("There is no table {table} on this server."), table=table)


def table_hash(seed: str) -> str:
    """SHA-256 of the table's seed (hex): what replay codes start with."""
    return hashlib.sha256(seed.encode()).hexdigest()


def replay_code(seed: str, hand: int) -> str:
    """The code of hand ``hand`` of the table with ``seed``, e.g. ``3fa9c02b-2``."""
    return f"{table_hash(seed)[:CODE_LENGTH]}-{hand}"


def parse_code(text: str) -> tuple[str, int]:
    """``(hash prefix, hand)`` of a typed code; ReplayError says what a code looks like."""
    match = _CODE.match(text or "")
    if match is None or int(match.group(2)) < 1:
        raise ReplayError(
            N_(
                "'{text}' is not a replay code: a code is 8 characters (digits 0-9 and letters "
                "a-f), a dash and the hand's number, such as 3fa9c02b-2."
            ),
            text=(text or "").strip()[:40],
        )
    return match.group(1).lower(), int(match.group(2))


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who asks for a hand by its table's number: the member, and whether they can see a
    channel (by id; the cog asks discord.py's permissions)."""

    user_id: int
    sees: Callable[[int], bool]


def seated_at_start(events: Iterable[tuple[str, dict]]) -> tuple[int | None, ...]:
    """The member (user id, None for a computer player) in each player's place when the game
    started, from the table's joins and unjoins (a member who left later still played)."""
    players: list[int | None] = []
    for kind, payload in events:
        if kind == "join":
            players.append(payload.get("user_id"))
        elif kind == "unjoin":
            players = [p for p in players if p != payload["user_id"]]
        elif kind == "start":
            break
    return tuple(players)


def check_access(
    viewer: Viewer, channels: Iterable[int | None], seated: Iterable[int | None]
) -> None:
    """A hand opened by table number is shown to a member who played at the table or can see
    a channel it was played in (``channels``: its thread and the channel it was opened from);
    ReplayError otherwise (a replay code opens it for anyone on the server)."""
    if viewer.user_id in set(seated):
        return
    if any(viewer.sees(channel) for channel in channels if channel):
        return
    raise ReplayError(
        N_(
            "That table was played in a channel you cannot see, so I cannot show it to you by "
            "its number. Someone who played it can share its replay code."
        )
    )


@dataclass(frozen=True, slots=True)
class Step:
    """One state of the hand and the names shown with it (a member who left is shown as the
    computer player who took the seat, as the table showed it then)."""

    state: GameState
    names: tuple[str, ...]
    words: str  # what the channel said about the event that led here ("" for none)


@dataclass(frozen=True)
class Frame:
    """One picture of the replay: ``drawing.draw(kind, *args, **kwargs)``, and ``view``, the
    privacy-gated view it is drawn from. ``key`` is what the picture shows, so two steps with
    the same key are the same image."""

    kind: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(hash=False, compare=False)
    view: TableView = field(hash=False, compare=False, default=None)  # type: ignore[assignment]
    key: Hashable = None


@dataclass(eq=False)
class HandReplay:
    """Hand ``hand`` of table ``table_id``, rebuilt: its steps from the deal to the reveal."""

    table: LiveTable  # as rebuilt up to the hand's end (its state is the last step's)
    hand: int
    code: str
    steps: tuple[Step, ...]
    result: HandResult
    seated: tuple[int | None, ...] = ()  # by player place: who played (seated_at_start)
    _stops: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False)

    @property
    def table_id(self) -> int:
        return self.table.id

    @property
    def guild_id(self) -> int:
        return self.table.guild_id

    def seats(self) -> list[tuple[int, str, str]]:
        """``(seat, name, wind)`` of every occupied seat at the deal, East first."""
        first = self.steps[0]
        state = first.state
        out = []
        for offset in range(4):
            seat = (state.dealer + offset) % 4
            if state.occupied[seat]:
                out.append((seat, first.names[seat], WIND_NAMES[offset]))
        return out

    def check_seat(self, seat: int) -> int:
        if seat != TABLE and seat not in {s for s, _name, _wind in self.seats()}:
            raise ReplayError(N_("Nobody sat in that seat in this hand."))
        return seat

    def frame(self, step: int, seat: int, *, player: bool = False, locale: str = FALLBACK) -> Frame:
        """The picture of ``step`` from ``seat`` (or :data:`TABLE`), drawn as live play drew
        it: through the privacy gate, with the seat's hint marks. ``player``: the one watching
        is the seat's own player, so the picture is the very one their DM showed ("You",
        "Your turn"); anyone else sees the seat's name there instead. The picture's words are
        in ``locale`` (the viewer's), as a DM's are in its member's."""
        at = self.steps[step]
        moment = copy.copy(self.table)
        moment.state = at.state
        if seat == TABLE:
            view = public_view(moment)
            shown = replace(view, move=0, events=(), drawable=0)
            key = ("table", shown, at.names, locale)
            return Frame("table", (view, at.names), {"locale": locale}, view, key)
        view = seat_view(moment, seat)
        hints = seat_hints(view) if self.table.hints else None
        marks = frozenset(hints.ready_discards) if hints else frozenset()
        # As the DM's picture key (cogs/notify/seat.py): the seat's table draws no wall
        # count, move number or event log.
        shown = replace(view, wall_remaining=0, move=0, events=(), drawable=0)
        key = ("seat_table", shown, at.names, marks, player, locale)
        # The player's own frame is drawn with exactly the live DM's arguments.
        kwargs: dict[str, Any] = {"marks": marks, "locale": locale}
        if not player:
            kwargs["player"] = False
        return Frame("seat_table", (view, at.names), kwargs, view, key)

    def stops(self, seat: int) -> tuple[int, ...]:
        """The steps where the picture from ``seat`` changes (the deal always)."""
        if seat not in self._stops:
            out: list[int] = []
            last: Hashable = None
            for i in range(len(self.steps)):
                key = self.frame(i, seat).key
                if not out or key != last:
                    out.append(i)
                last = key
            self._stops[seat] = tuple(out)
        return self._stops[seat]

    def position(self, step: int, seat: int) -> tuple[int, int]:
        """``(index, count)``: which of the seat's stops shows ``step`` (the last stop at or
        before it), and how many there are."""
        stops = self.stops(seat)
        index = 0
        for i, stop in enumerate(stops):
            if stop > step:
                break
            index = i
        return index, len(stops)

    def go(self, step: int, seat: int, move: str) -> int:
        """The step a viewer button leads to from ``step``: ``first``, ``prev``, ``next``,
        ``last`` (staying put at either end)."""
        stops = self.stops(seat)
        index, count = self.position(step, seat)
        if move == "first":
            return stops[0]
        if move == "last":
            return stops[-1]
        if move == "prev":
            return stops[max(0, index - 1)]
        if move == "next":
            return stops[min(count - 1, index + 1)]
        raise ReplayError(N_("That button is not one of the replay's."))

    def clamp(self, step: int) -> int:
        return max(0, min(step, len(self.steps) - 1))


def build_replay(row: dict[str, Any], events: list[tuple[str, dict]], hand: int) -> HandReplay:
    """Hand ``hand`` of the table with ``row`` and ``events``, replayed event by event.
    Raises ReplayError for a hand not dealt, still in play, or abandoned unfinished."""
    table = rebuild(row, [])
    steps: list[Step] = []
    result: HandResult | None = None
    for kind, payload in events:
        table.seq += 1
        replay_event(table, kind, payload)
        state = table.state
        if state is None or state.deal < hand:
            continue
        if state.deal > hand:
            break
        names = names_of(table)
        if steps and steps[-1].state is state and steps[-1].names == names:
            continue
        words = describe(table, state) if steps and kind == "action" else ""
        steps.append(Step(state, names, words))
        result = next((r for r in reversed(state.results) if r.number == hand), None)
        if result is not None and state.phase in (HAND_OVER, GAME_OVER):
            break
    if not steps:
        if table.state is None:
            raise ReplayError(
                N_("Table {table} never started, so it has no hands to replay."), table=table.id
            )
        raise ReplayError(
            N_("Table {table} has no hand {hand}: it dealt {played}."),
            table=table.id,
            hand=hand,
            played=table.state.deal,
        )
    if result is None:
        if table.status == "playing":
            raise ReplayError(
                N_(
                    "Hand {hand} of table {table} is still being played: it can be replayed "
                    "once it is over."
                ),
                hand=hand,
                table=table.id,
            )
        raise ReplayError(
            N_("Hand {hand} of table {table} was never finished (the table ended during it)."),
            hand=hand,
            table=table.id,
        )
    code = replay_code(table.seed, hand)
    return HandReplay(table, hand, code, tuple(steps), result, seated_at_start(events))


def last_finished(row: dict[str, Any], events: list[tuple[str, dict]]) -> int:
    """The number of the table's last finished hand (ReplayError if none is)."""
    table = rebuild(row, events)
    if table.state is None or not table.state.results:
        raise ReplayError(N_("Table {table} has no finished hand to replay yet."), table=table.id)
    return table.state.results[-1].number


class ReplayStore(Protocol):
    """What the service needs of the store (``bot.store.replays_repo.ReplaysRepository``)."""

    async def table(
        self, table_id: int
    ) -> tuple[dict[str, Any], list[tuple[str, dict]]] | None: ...
    async def set_seed_hash(self, table_id: int, seed_hash: str) -> None: ...
    async def by_seed_hash(self, guild_id: int | None, prefix: str) -> list[int]: ...
    async def unhashed(self, guild_id: int | None) -> list[tuple[int, str]]: ...
    async def last_hand(self, guild_id: int, user_id: int) -> tuple[int, int] | None: ...


class ReplayService:
    """Finds and rebuilds finished hands; keeps the last :data:`CACHED` of them.

    ``guild_id`` None (the command-line tool) may open any server's tables; a member may open
    only those of the server the command is used in."""

    def __init__(self, store: ReplayStore) -> None:
        self.store = store
        self._cache: OrderedDict[tuple[int, int], HandReplay] = OrderedDict()

    async def open(
        self,
        guild_id: int | None,
        table_id: int,
        hand: int | None = None,
        *,
        viewer: Viewer | None = None,
    ) -> HandReplay:
        """Hand ``hand`` of table ``table_id`` (None: its last finished hand); ReplayError if
        the table is not the server's, or the hand not dealt or not finished. With ``viewer``
        (a member asking by number) also if they may not see it (:func:`check_access`),
        before anything else about the table is told."""
        cached = self._cache.get((table_id, hand)) if hand is not None else None
        if cached is not None:
            self._cache.move_to_end((table_id, hand))
            self._check_guild(cached, guild_id)
            if viewer is not None:
                table = cached.table
                check_access(viewer, (table.channel_id, table.home_channel_id), cached.seated)
            return cached
        found = await self.store.table(table_id)
        if found is None or (guild_id is not None and found[0]["guild_id"] != guild_id):
            raise _no_table(table_id, guild_id)
        row, events = found
        if viewer is not None:
            channels = (row["channel_id"], row.get("home_channel_id"))
            check_access(viewer, channels, seated_at_start(events))
        if hand is None:
            hand = await asyncio.to_thread(last_finished, row, events)
        key = (table_id, hand)
        replay = await asyncio.to_thread(build_replay, row, events, hand)
        if not row.get("seed_hash"):
            await self.store.set_seed_hash(table_id, table_hash(replay.table.seed))
        self._cache[key] = replay
        while len(self._cache) > CACHED:
            self._cache.popitem(last=False)
        return replay

    async def open_code(self, guild_id: int | None, code: str) -> HandReplay:
        """The hand a replay code names (ReplayError for a malformed or unknown code)."""
        prefix, hand = parse_code(code)
        tables = await self.store.by_seed_hash(guild_id, prefix)
        if not tables:
            # Tables whose hash was never written (nobody opened them by number yet).
            for table_id, seed in await self.store.unhashed(guild_id):
                await self.store.set_seed_hash(table_id, table_hash(seed))
            tables = await self.store.by_seed_hash(guild_id, prefix)
        if not tables:
            if guild_id is None:
                raise ReplayError(
                    N_("No table has the replay code {code}."), code=f"{prefix}-{hand}"
                )
            raise ReplayError(
                N_("No table on this server has the replay code {code}."), code=f"{prefix}-{hand}"
            )
        if len(tables) > 1:
            raise ReplayError(
                N_(
                    "The code {code} fits several tables ({tables}): type more of it, or give "
                    "the table's number instead."
                ),
                code=f"{prefix}-{hand}",
                tables=", ".join(str(t) for t in tables[:5]),
            )
        return await self.open(guild_id, tables[0], hand)

    async def last_of(self, guild_id: int, user_id: int) -> HandReplay:
        """The member's last finished hand on the server."""
        found = await self.store.last_hand(guild_id, user_id)
        if found is None:
            raise ReplayError(
                N_(
                    "You have no finished hand on this server to replay yet; give a table and "
                    "hand, or a replay code."
                )
            )
        return await self.open(guild_id, *found)

    @staticmethod
    def _check_guild(replay: HandReplay, guild_id: int | None) -> HandReplay:
        if guild_id is not None and replay.guild_id != guild_id:
            raise _no_table(replay.table_id, guild_id)
        return replay
