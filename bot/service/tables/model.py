"""What a live table is: its players, its place on Discord, its game, its timers.

A ``LiveTable`` is rebuilt from the table's row and event log on start-up (see
:mod:`bot.service.tables.events`); the asyncio parts (lock, timers, runner) live only in memory.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from bot.rules.game import CLAIM
from bot.rules.game.state import GameState


class TableError(Exception):
    """Something a user tried that cannot be done; the message is shown to them as is."""


class WriteFailed(TableError):
    """The database refused a table's write (disk full, read-only, locked): nothing changed;
    the move may be tried again, and the table's own moves are retried by themselves."""


@dataclass(frozen=True, slots=True)
class MemberSettings:
    """A member's own choices for every table they play (``/mahjong settings``).

    ``pings``: turns and claim prompts notify them (a new DM message) rather than a silent edit.
    ``auto_pass_chows``: a claim window offering them only Chow or Pass passes at once, so a
    table is not held up for a chow they never make (and nobody else learns they could have).
    ``discard_drawn_on_timeout``: when their turn timer runs out, the drawn tile is discarded
    (the engine's own default discards the last tile in hand order)."""

    pings: bool = True
    auto_pass_chows: bool = False
    discard_drawn_on_timeout: bool = True


@dataclass
class Player:
    """Who sits in a place: a member (``user_id``) or a computer player (``user_id`` None)."""

    user_id: int | None
    name: str
    away: bool = False  # a computer plays for the member until they take the seat back
    timeouts: int = 0

    @property
    def computer(self) -> bool:
        return self.user_id is None


@dataclass(eq=False)
class LiveTable:
    """One table. Where it is on Discord (see docs/tables.md, "Where a table lives"):

    ``channel_id`` is where it PLAYS: its thread, or the text channel itself when it has no
    thread. ``home_channel_id`` is the text channel holding its one summary message
    ``summary_message_id`` (the lobby, then one line of state), None without a thread.
    ``message_id`` is the live table image in ``channel_id``. ``paused`` with ``pause_reason``:
    a permission the table needs is missing, so no timer runs down until it returns."""

    id: int
    guild_id: int
    channel_id: int
    host_id: int
    ruleset: str
    options: dict[str, Any]
    turn_seconds: int
    claim_seconds: int
    hands: int | None
    sets: int | None = None  # with hands None: this many sets (None: one)
    home_channel_id: int | None = None
    summary_message_id: int | None = None
    hints: bool = True
    paused: bool = False
    pause_reason: str = ""
    created_at: float = 0.0  # wall clock, for the lobby's expiry
    players: list[Player] = field(default_factory=list)
    status: str = "lobby"
    seed: str = ""
    state: GameState | None = None
    message_id: int | None = None
    seq: int = 0
    settled: int = 0  # hand results already posted to the ledger
    window_move: int | None = None  # the move at which the open claim window opened
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timers: dict[int, asyncio.Task[Any]] = field(default_factory=dict)
    timer_moves: dict[int, int] = field(default_factory=dict)  # the move each timer is for
    # seat -> (move, wall-clock time): when the seat's time for that move runs out
    deadlines: dict[int, tuple[int, float]] = field(default_factory=dict)
    runner: asyncio.Task[Any] | None = None
    # wall clock of the last move a member made themselves (not a timer, not a computer)
    last_member_move: float = 0.0
    write_failures: int = 0  # event writes failed in a row (disk full, read-only database)
    lobby_expires_at: float = 0.0  # wall clock; 0: never (set from the server's settings)
    unattended_since: float | None = None  # no member present (all left, away or paused)
    closing: str = ""  # a reason it must end, kept while the end could not be written
    end_reason: str = ""  # why it ended, when not by its game's end (its channel's line says)
    # A finished game's rating change per member (bot/service/ratings.py), for the standings.
    rating_changes: dict[int, Any] = field(default_factory=dict)
    # Members who handed their seat to a computer player (``leave``): user id -> the name they
    # played under, so the final standings still name them beside their rating.
    left: dict[int, str] = field(default_factory=dict)
    placed: asyncio.Event = field(default_factory=asyncio.Event)  # its place is settled
    restored: bool = False  # rebuilt from the store at start-up (not opened in this run)

    @property
    def thread_pending(self) -> bool:
        """Opened to play in a thread of its own that is not made yet."""
        return self.home_channel_id is not None and self.channel_id == self.home_channel_id

    def attended(self) -> bool:
        """Whether some member is there to play (seated, not away) and the table can play."""
        return not self.paused and any(not p.computer and not p.away for p in self.players)

    @property
    def thread_id(self) -> int | None:
        """The table's own thread, if it plays in one it opened."""
        if self.home_channel_id is None or self.thread_pending:
            return None
        return self.channel_id

    def player_at(self, seat: int) -> Player | None:
        """The player in a physical seat (None for the dummy of a short table)."""
        if self.state is None:
            return None
        index = self.state.seating.seats[seat]
        return None if index is None else self.players[index]

    def seat_of_user(self, user_id: int) -> int | None:
        if self.state is None:
            return None
        for seat in range(4):
            player = self.player_at(seat)
            if player is not None and player.user_id == user_id:
                return seat
        return None

    def is_seated(self, user_id: int) -> bool:
        return any(p.user_id == user_id for p in self.players)

    def members(self) -> list[Player]:
        """The seated members (not computer players)."""
        return [p for p in self.players if not p.computer]

    def plays_itself(self, seat: int) -> bool:
        """Whether the seat's moves are made by a computer player (always, or while away)."""
        player = self.player_at(seat)
        return player is not None and (player.computer or player.away)

    @property
    def move(self) -> int:
        return self.state.move if self.state is not None else 0

    @property
    def controls_move(self) -> int:
        """The move a seat's controls are drawn for. In a claim window that is the move the
        window opened at, for as long as it stays open: another seat's answer (a pass, a
        computer player's choice) must neither make someone's claim buttons stale nor change
        them, which would tell that someone else was asked about the discard."""
        if self.state is not None and self.state.phase == CLAIM and self.window_move is not None:
            return self.window_move
        return self.move

    def track_window(self, before: GameState | None, after: GameState) -> None:
        """Follow the claim window across a move (see ``controls_move``)."""
        if after.phase != CLAIM or after.claim is None:
            self.window_move = None
            return
        same = (
            before is not None
            and before.phase == CLAIM
            and before.claim is not None
            and before.deal == after.deal
            and before.claim.number == after.claim.number
            and before.claim.discarder == after.claim.discarder
            and self.window_move is not None
        )
        if not same:
            self.window_move = after.move
