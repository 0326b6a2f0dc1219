"""TableService: the tables of every server, from the lobby to the final standings.

The service owns one ``asyncio.Lock`` per table. A move flows: check the seat and the move
number the button was drawn for, ``apply`` it to the engine, append the event to SQLite (one
transaction), and only then answer; computer players and timers then move the table on, each
of their moves persisted the same way. The notifier (the Discord side) is told what changed;
it reads the table only through :mod:`bot.service.privacy`.

Everything a table is can be rebuilt from its event log, so a bot killed at any moment
resumes every table exactly where it was.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import logging
import time
from collections.abc import Callable, Coroutine, Generator
from dataclasses import asdict, replace
from typing import Any, TypeVar, cast

from bot.i18n import N_
from bot.rules.game import GAME_OVER, Action, IllegalAction, apply, legal_actions
from bot.rules.game.state import GameState
from bot.service.tables.events import (
    action_of,
    action_payload,
    describe,
    rebuild,
)
from bot.service.tables.lifecycle import SWEEP_SECONDS, TableLifecycle
from bot.service.tables.lobby import PLACE_WAIT, WRITE_FAILED, TableLobby
from bot.service.tables.model import (
    LiveTable,
    MemberSettings,
    TableError,
    WriteFailed,
)
from bot.service.tables.ownership import MOVED, OwnedTables
from bot.service.tables.ports import MemberSettingsStore, TableNotifier, TableStore
from bot.service.tables.settlement import post_hand
from bot.service.tables.timers import TableTimers
from bot.store.leases_repo import Fenced
from bot.store.tables_repo import SeatRow

log = logging.getLogger("bot.service.tables")
T = TypeVar("T")

COMPUTER_DELAY = 0.6  # seconds between computer moves, so people can follow the table
NEXT_HAND_DELAY = 8.0  # seconds to look at the reveal before the next deal
RETRY_DELAY = 0.5  # seconds before a refused write is tried again (doubling, see timers)


FINISHED_KEPT = 200  # closed tables kept in memory for "Play again" and /mahjong verify


class TableService(TableLobby, TableTimers, TableLifecycle, OwnedTables):
    def __init__(
        self,
        bot: Any,
        store: TableStore,
        ledger: Any,
        guild_settings: Any,
        *,
        clock: Callable[[], float] | None = None,
        members: MemberSettingsStore | None = None,
    ) -> None:
        self.bot = bot
        self.store = store
        self.members = members
        self.clock: Callable[[], float] = clock or time.time
        self._member_settings: dict[int, MemberSettings] = {}
        self.ledger = ledger
        self.guild_settings = guild_settings
        self.notifier: TableNotifier | None = None
        # bot/service/ratings.py (set by bot/services.py): rates a finished game, once.
        self.ratings: Any = None
        self.tables: dict[int, LiveTable] = {}
        self.by_channel: dict[int, int] = {}
        self.finished: dict[int, LiveTable] = {}  # recently closed, oldest first
        self._sweeper: asyncio.Task[Any] | None = None
        self.computer_delay = COMPUTER_DELAY
        self.next_hand_delay = NEXT_HAND_DELAY
        self.retry_delay = RETRY_DELAY
        self.place_wait = PLACE_WAIT
        self.sweep_interval = SWEEP_SECONDS
        self._stopping = False
        # Open tables read at start-up and not rebuilt yet (see load), and resumptions running.
        self._unrestored: dict[int, tuple[dict[str, Any], list[tuple[str, dict]]]] = {}
        self._resuming: set[asyncio.Task[None]] = set()
        self._moved_away: dict[int, None] = {}
        # Several processes on PostgreSQL: the tables this one runs (bot/cluster); None on
        # SQLite, where every open table is this process's.
        self.ownership: Any = None

    # -- life cycle --------------------------------------------------------------------------
    async def start(self) -> None:
        """Rebuild every open table from its events, then resume play and timers."""
        await self.load()
        await self.restore_all()

    # -- restoring in the background (issue 12: a restart that keeps the bot available) -----
    # The bot reads the open tables before it connects (load), connects, and rebuilds them
    # afterwards (restore_all, a background task): replaying 1,000 tables kept it offline for
    # 25 s. A table asked for before its turn (a press, a command in its channel, a member's
    # tables) is rebuilt there and then, from the events already in memory, and its resumption
    # (seats saved, unposted hands settled, the channel told, timers started) runs at once.
    async def load(self) -> None:
        """Read every open table's row and events (and the members' settings); replay none
        yet. A table whose thread was still being opened does not hold its channel."""
        if self.members is not None:
            stored = await self.members.all_member_settings()
            self._member_settings = {
                user: MemberSettings(**values) for user, values in stored.items()
            }
        if self.ownership is not None:
            return  # the lease keeper hands this process its tables (adopt)
        for row, events in await self.store.open_tables():
            self._unrestored[row["id"]] = (row, events)
            if row.get("home_channel_id") != row["channel_id"]:
                self.by_channel[row["channel_id"]] = row["id"]

    async def restore_all(self) -> None:
        """Rebuild and resume every table not rebuilt yet, one at a time, letting the bot
        answer interactions in between."""
        for table_id in list(self._unrestored):
            table = self._rebuild(table_id)
            if table is not None:
                await self._resume(table)
            await asyncio.sleep(0)
        if self._resuming:
            await asyncio.gather(*self._resuming, return_exceptions=True)
        self._ensure_sweeper()

    def _restored(self, table_id: int) -> LiveTable | None:
        """The live table, rebuilt now if it had not been (its resumption runs as a task)."""
        table = self.tables.get(table_id)
        if table is None and table_id in self._unrestored:
            table = self._rebuild(table_id)
            if table is not None:
                task = asyncio.create_task(self._resume(table), name=f"resume-{table_id}")
                self._resuming.add(task)
                task.add_done_callback(self._resuming.discard)
        return table

    def _rebuild(self, table_id: int) -> LiveTable | None:
        pending = self._unrestored.pop(table_id, None)
        if pending is None:
            return None
        table = rebuild(*pending)
        self.tables[table.id] = table
        return table

    def live_tables(self) -> list[LiveTable]:
        """Every open table, those not rebuilt yet rebuilt now (for what concerns them all:
        a deleted channel, a removed bot, permissions computed again)."""
        for table_id in list(self._unrestored):
            self._restored(table_id)
        return list(self.tables.values())

    def _restore_tables_of(self, user_id: int) -> None:
        for table_id, (row, events) in list(self._unrestored.items()):
            if row.get("host_id") == user_id or any(
                kind == "join" and payload.get("user_id") == user_id for kind, payload in events
            ):
                self._restored(table_id)

    async def _resume(self, table: LiveTable) -> None:
        if table.status in ("lobby", "playing"):
            await self._save_seats(table)
        if table.status == "playing":
            await self._settle_new_results(table)
            if table.status == "playing" and not table.paused:
                await self._notify_all(table, "The bot restarted; the table resumes.")
                self._kick(table)
            elif table.status != "playing" and self.notifier is not None:
                # The last move was committed, the rest of the game's end was not.
                await self.notifier.game_finished(table)
        elif table.status == "lobby" and table.thread_pending and not table.summary_message_id:
            # Stopped before its lobby was posted: nobody could have joined it.
            await self.close_for(table, "the bot stopped before the table's lobby was posted")
        elif table.status == "lobby":
            await self._set_expiry(table)
            if self.notifier is not None:
                await self.notifier.lobby_changed(table)
        else:
            await self._finish_closing(table)

    async def _finish_closing(self, table: LiveTable) -> None:
        """A table whose events say it closed, stopped before the store said so too: close
        it in the store, free its channel, settle what is left and tell the channel."""
        if table.state is not None:
            await self._settle_new_results(table)
        await self.store.set_status(table.id, table.status, **self._fence(table.id))
        self._forget(table)
        await self._rate(table)
        await self._closed(table.id)
        if self.notifier is None:
            return
        if table.state is not None:
            await self.notifier.game_finished(table)
        else:
            await self.notifier.lobby_changed(table)

    async def stop(self) -> None:
        self._stopping = True
        self._unrestored.clear()
        for task in list(self._resuming):
            task.cancel()
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self.tables.values():
            for task in table.timers.values():
                task.cancel()
            if table.runner is not None:
                table.runner.cancel()

    async def _record(self, table: LiveTable, kind: str, payload: dict[str, Any]) -> None:
        """Append one event to the table's log (committed before anyone is answered)."""
        # Counted only once stored: after a failed write (a busy database, a full disk) the
        # next event must take the same number, or the table would be stuck until a restart.
        # The caller changes the table only after this returns, so a refused write leaves
        # the table as it was.
        fence = self._fence(table.id)
        try:
            await run_to_end(
                self.store.append_event(table.id, table.seq + 1, kind, payload, **fence)
            )
        except Fenced:
            await self._moved(table)
            raise TableError(MOVED) from None
        except Exception as exc:
            table.write_failures += 1
            log.warning(
                "table %s: could not write its %s event (%s: %s)",
                table.id,
                kind,
                type(exc).__name__,
                exc,
            )
            raise WriteFailed(WRITE_FAILED) from exc
        table.seq += 1
        if table.write_failures:
            log.info("table %s: writes work again", table.id)
            table.write_failures = 0

    async def _save_seats(self, table: LiveTable) -> None:
        """Who sits where, in the store's seats table: a projection of the events for look-ups
        and the record (physical seats once the game started, join order in the lobby).
        Written after each change and again on start-up, so a stop between the event and
        this write heals."""
        if table.state is None:
            rows = [SeatRow(i, p.user_id, p.name, p.computer) for i, p in enumerate(table.players)]
        else:
            rows = [
                SeatRow(seat, p.user_id, p.name, p.computer)
                for seat in range(4)
                if (p := table.player_at(seat)) is not None
            ]
        await self.store.set_seats(table.id, rows)

    # -- look-ups ----------------------------------------------------------------------------
    def in_channel(self, channel_id: int) -> LiveTable | None:
        table_id = self.by_channel.get(channel_id)
        return self._restored(table_id) if table_id is not None else None

    def get(self, table_id: int) -> LiveTable:
        table = self._restored(table_id)
        if table is None and self.moved_away(table_id):
            raise TableError(MOVED)  # another process runs it now: a second press gets there
        if table is None:
            raise TableError(N_("That table is closed."))
        return table

    def tables_of_user(self, user_id: int) -> list[LiveTable]:
        self._restore_tables_of(user_id)
        return [t for t in self.tables.values() if t.is_seated(user_id)]

    def tables_in(self, channel_id: int) -> list[LiveTable]:
        """Every open table playing in the channel or thread, or at home in the channel."""
        return [t for t in self.live_tables() if channel_id in (t.channel_id, t.home_channel_id)]

    def tables_of_guild(self, guild_id: int) -> list[LiveTable]:
        return [t for t in self.live_tables() if t.guild_id == guild_id]

    def _forget(self, table: LiveTable) -> None:
        """A closed table leaves memory and frees its channel or thread."""
        self.tables.pop(table.id, None)
        if self.by_channel.get(table.channel_id) == table.id:
            del self.by_channel[table.channel_id]

    # -- member settings ---------------------------------------------------------------------
    def member_settings(self, user_id: int) -> MemberSettings:
        """The member's own settings (cached; the defaults until they choose)."""
        return self._member_settings.get(user_id) or MemberSettings()

    async def set_member_settings(self, user_id: int, **changes: bool) -> MemberSettings:
        """Change some of a member's settings (``/mahjong settings``); stored, then cached."""
        known = set(MemberSettings.__dataclass_fields__)
        unknown = set(changes) - known
        if unknown:
            raise TableError(f"Unknown setting {sorted(unknown)[0]}.")
        settings = replace(self.member_settings(user_id), **changes)
        if self.members is not None:
            try:
                await self.members.save_member_settings(user_id, asdict(settings))
            except Exception as exc:
                log.warning("could not save the settings of %s (%s)", user_id, exc)
                raise WriteFailed(WRITE_FAILED) from exc
        self._member_settings[user_id] = settings
        await self._share_member_settings(user_id, asdict(settings))
        return settings

    # -- closing ---------------------------------------------------------------------------
    async def _close(self, table: LiveTable, status: str, reason: str = "") -> None:
        """Close the table (its end event first: a refused write leaves it open)."""
        payload: dict[str, Any] = {"status": status}
        if reason:
            payload["reason"] = reason
        await self._record(table, "end", payload)
        table.status = status
        for task in table.timers.values():
            task.cancel()
        table.timers.clear()
        try:
            await self.store.set_status(table.id, status, **self._fence(table.id))
        except Exception as exc:  # the end event is stored: start-up closes it (_finish_closing)
            log.warning("table %s: could not mark it %s (%s)", table.id, status, exc)
        self._forget(table)
        self._remember_finished(table)
        await self._rate(table)
        await self._closed(table.id)

    async def _rate(self, table: LiveTable) -> None:
        """A finished game's rating changes, for its final standings (table.rating_changes).
        Rating is idempotent per table; one that fails here is caught up when ratings are
        next read (bot/service/ratings.py), so a failure only leaves the standings without
        the ratings line."""
        if self.ratings is None or table.status != "finished" or table.state is None:
            return
        try:
            table.rating_changes = await self.ratings.rate_game(table.id)
        except Exception as exc:
            log.warning("table %s: could not rate the game yet (%s)", table.id, exc)

    def _remember_finished(self, table: LiveTable) -> None:
        """Keep the last closed tables for "Play again" (its place, players and options),
        without their game: kept for 200 tables, the games' objects were most of what the
        garbage collector's full passes walked (close to a second each on a loaded machine,
        the 1-hour soak). The notifier keeps the whole table until its last posts are out."""
        self.finished[table.id] = dataclasses.replace(table, state=None)
        while len(self.finished) > FINISHED_KEPT:
            self.finished.pop(next(iter(self.finished)))

    # -- playing -----------------------------------------------------------------------------
    def _playing(self, table_id: int) -> LiveTable:
        table = self.get(table_id)
        if table.status != "playing" or table.state is None:
            raise TableError(N_("This table is not playing."))
        return table

    async def act(self, table_id: int, user_id: int, verb: str, arg: str | None, move: int) -> str:
        """A member's move from a control drawn for ``move``. Returns a short confirmation;
        raises TableError (nothing changed) for a stale, foreign or illegal click."""
        table = self._playing(table_id)
        async with table.lock:
            table = self._playing(table_id)
            assert table.state is not None
            seat = table.seat_of_user(user_id)
            if seat is None:
                raise TableError(N_("You are not seated at this table."))
            if move not in (table.state.move, table.controls_move):
                raise TableError(
                    N_("Those controls are from an earlier move; use the newest ones.")
                )
            if table.paused:
                raise TableError(
                    "The table is paused: the bot is missing something it needs in the "
                    f"table's channel ({table.pause_reason}). It resumes by itself."
                )
            player = table.player_at(seat)
            if player is not None and player.away:
                raise TableError(
                    N_("A computer player has your seat; press 'Take my seat back' first.")
                )
            action = action_of(verb, arg, seat)
            text = await self._apply(table, action)
            if player is not None:
                player.timeouts = 0
            table.last_member_move = self.clock()
        self._kick(table)
        return text

    async def _apply(self, table: LiveTable, action: Action) -> str:
        """Apply, persist, notify. The caller holds the table's lock."""
        assert table.state is not None
        before = table.state
        try:
            after = apply(before, action)
        except IllegalAction as exc:
            raise TableError(exc.reason) from None
        await run_to_end(self._commit(table, before, after, action))
        line = describe(table, after)
        await self._settle_safely(table)
        await self._after_change(table, before, line)
        return line

    async def _commit(
        self, table: LiveTable, before: GameState, after: GameState, action: Action
    ) -> None:
        """Store the move, then let the table take it: one step, never half done."""
        await self._record(table, "action", action_payload(action))
        table.state = after
        table.track_window(before, after)

    async def _settle_safely(self, table: LiveTable) -> None:
        """Settle finished hands; a failed ledger write is tried again by the runner (the
        move itself is stored, so it stands)."""
        try:
            await self._settle_new_results(table)
        except WriteFailed:
            pass
        except Exception as exc:
            table.write_failures += 1
            log.warning("table %s: could not settle a hand yet (%s)", table.id, exc)

    async def _after_change(self, table: LiveTable, before: GameState, line: str) -> None:
        state = table.state
        assert state is not None
        if self.notifier is None:
            return
        await self.notifier.table_changed(table, line)
        for seat in range(4):
            if state.occupied[seat] and table.player_at(seat) is not None:
                player = table.player_at(seat)
                if player is not None and not player.computer:
                    await self.notifier.hand_changed(table, seat)
        if state.phase == GAME_OVER:
            await self.notifier.game_finished(table)

    async def _settle_new_results(self, table: LiveTable) -> None:
        """Post every finished hand to the ledger once (idempotent by its source key) and
        record it for the table's history."""
        state = table.state
        assert state is not None
        while table.settled < len(state.results):
            result = state.results[table.settled]
            await post_hand(self.ledger, self.store, table, result)
            table.settled += 1
            if self.notifier is not None:
                await self.notifier.hand_finished(table, result)
        if state.phase == GAME_OVER and table.status == "playing":
            await self._close(table, "finished")

    async def take_back(self, table_id: int, user_id: int) -> None:
        table = self._playing(table_id)
        async with table.lock:
            seat = table.seat_of_user(user_id)
            if seat is None:
                raise TableError(N_("You are not seated at this table."))
            player = table.player_at(seat)
            if player is None or not player.away:
                raise TableError(N_("Your seat is already yours."))
            await self._set_away(table, seat, False)
        self._kick(table)

    async def leave(self, table_id: int, user_id: int) -> None:
        """Hand one's seat to a computer player for the rest of the game."""
        table = self._playing(table_id)
        async with table.lock:
            seat = table.seat_of_user(user_id)
            if seat is None:
                raise TableError(N_("You are not seated at this table."))
            player = table.player_at(seat)
            assert player is not None and table.state is not None
            index = table.state.seating.seats[seat]
            name = f"Computer (for {player.name})"
            await self._record(table, "leave", {"player": index, "name": name})
            table.left[user_id] = player.name
            player.user_id = None
            player.name = name
            player.away = False
            await self._save_seats(table)
            if self.notifier is not None:
                await self.notifier.table_notice(table, f"{name} takes over the seat.")
        self._kick(table)

    async def end(self, table_id: int, user_id: int, can_manage: bool) -> LiveTable:
        """``/mahjong end``: finished hands stay settled, the hand in play is dropped."""
        table = self.get(table_id)
        async with table.lock:
            # A second /mahjong end, or the game's own end, may have closed it meanwhile.
            self.get(table_id)
            if user_id != table.host_id and not can_manage:
                raise TableError(N_("Only the host (or someone with Manage Server) can end it."))
            was_lobby = table.status == "lobby"
            status = "cancelled" if was_lobby else "finished"
            await self._close(table, status, N_("ended by the host"))
        if table.runner is not None and table.runner is not asyncio.current_task():
            table.runner.cancel()
        if self.notifier is not None:
            if was_lobby:
                await self.notifier.lobby_changed(table)  # the lobby's buttons go
            else:
                await self.notifier.game_finished(table)
        return table

    async def _notify_all(self, table: LiveTable, line: str) -> None:
        if self.notifier is None or table.state is None:
            return
        await self.notifier.table_changed(table, line)
        for seat in range(4):
            player = table.player_at(seat)
            if player is not None and not player.computer:
                await self.notifier.hand_changed(table, seat)

    def legal_for(self, table: LiveTable, seat: int) -> list[Action]:
        if table.state is None:
            return []
        return legal_actions(table.state, seat)


async def run_to_end(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` to its end even if the caller is cancelled meanwhile, then pass the
    cancellation on. A move whose event is being written must be both stored and taken by the
    table, or neither: a caller cancelled in between (a timer replaced, the bot stopping)
    would otherwise leave the log one event ahead of the table, and the next move would
    collide with it ("event N does not follow the log's last").

    ``work`` runs at once in the caller's step, and becomes a task of its own only if it has
    to wait (a cancellation can only come while it waits). An event commits on the spot when
    the writer is free (``bot/store/sqlite.py``), so most moves never wait: a task for every
    move, and another inside it for its event, cost several turns of a loop lagging tens of
    milliseconds at 100 tables (half of a click's answer)."""
    # In a context of its own, as a task's first step would run: what the work sets (the
    # store's unit of work is a context variable) must neither leak into the caller's context
    # nor be reset, after a wait, from another one.
    context = contextvars.copy_context()
    try:
        waiting_on = context.run(work.send, None)
    except StopIteration as done:
        return cast(T, done.value)
    task = asyncio.get_running_loop().create_task(_resume(work, waiting_on), context=context)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()


async def _resume(work: Coroutine[Any, Any, T], waiting_on: Any) -> T:
    return await _Resumed(work, waiting_on)


class _Resumed:
    """Awaiting it goes on with ``work``, a coroutine already started by hand and now waiting
    on ``waiting_on``: what ``yield from work`` would have done from its start (each value it
    yields goes up to the task, each answer back down to it)."""

    __slots__ = ("waiting_on", "work")

    def __init__(self, work: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self.work = work
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, Any]:
        work, value = self.work, self.waiting_on
        while True:
            try:
                sent = yield value
            except GeneratorExit:
                work.close()
                raise
            except BaseException as exc:  # thrown in by the task: a cancellation
                try:
                    value = work.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    value = work.send(sent)
                except StopIteration as done:
                    return done.value
