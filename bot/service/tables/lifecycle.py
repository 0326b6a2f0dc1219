"""A table's place on Discord coming and going, and tables that nobody plays any more.

A mixin of :class:`~bot.service.tables.service.TableService`. The Discord side (the
lifecycle cog, and the notifier when a request fails) reports what happened; this module
decides what it means for the table:

- Its thread or channel is deleted, or the server removes the bot: the table ENDS. Finished
  hands stay settled (they were posted when they ended); the hand in play is abandoned
  without payments; the seated members are told by DM (``notifier.table_closed``).
- Its thread is archived: a table still open wants it back, so the cog unarchives it (a bot
  that may post in a thread may unarchive it); a thread LOCKED by a moderator is a decision
  to stop, and the table ends.
- A permission it needs is missing: the table PAUSES (no timer runs down, the notifier sends
  nothing there, members' clicks are refused with the reason), the host is told, and it
  resumes by itself when the cog sees the permission back.
- Nothing lives forever: a lobby nobody starts expires; a table with no member present (all
  left, all away, or paused) for the server's idle time ends.

Pausing and ending are stored (``paused`` column, ``end`` event) so a restart keeps them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from bot.i18n import N_
from bot.service.tables.model import LiveTable, TableError, WriteFailed

if TYPE_CHECKING:
    from bot.service.tables.ports import TableNotifier, TableStore

log = logging.getLogger("bot.service.tables")

DEFAULT_LOBBY_MINUTES = 30
DEFAULT_IDLE_MINUTES = 30
SWEEP_SECONDS = 30.0


class TableLifecycle:
    """See the module's docstring."""

    tables: dict[int, LiveTable]
    finished: dict[int, LiveTable]
    by_channel: dict[int, int]
    notifier: TableNotifier | None
    store: TableStore
    clock: Callable[[], float]
    sweep_interval: float
    _sweeper: asyncio.Task[Any] | None
    _stopping: bool
    # bot/service/tables/ownership.py: tell the other processes (their tables end too).
    _share_gateway_event: Callable[..., Awaitable[None]]

    async def _close(self, table: LiveTable, status: str, reason: str = "") -> None:
        raise NotImplementedError

    async def _guild(self, guild_id: int) -> Any:
        raise NotImplementedError

    def _kick(self, table: LiveTable) -> None:
        raise NotImplementedError

    def get(self, table_id: int) -> LiveTable:
        raise NotImplementedError

    def in_channel(self, channel_id: int) -> LiveTable | None:
        raise NotImplementedError

    def live_tables(self) -> list[LiveTable]:
        raise NotImplementedError

    # -- where the table is --------------------------------------------------------------------
    async def place_in_thread(
        self, table_id: int, thread_id: int, summary_message_id: int | None
    ) -> LiveTable:
        """The table's thread was opened from its lobby message: it plays there from now on;
        the lobby message in the home channel is its summary."""
        table = self.get(table_id)
        async with table.lock:
            home = table.home_channel_id if table.home_channel_id is not None else table.channel_id
            await self.store.set_place(table.id, thread_id, home)
            table.channel_id, table.home_channel_id = thread_id, home
            self.by_channel[thread_id] = table.id
            if summary_message_id is not None:
                await self.store.set_summary_message(table.id, summary_message_id)
                table.summary_message_id = summary_message_id
            table.placed.set()
        return table

    async def play_in_channel(self, table_id: int) -> LiveTable:
        """No thread could be opened for the table: it plays in its channel, as tables did
        before threads; refused (and the lobby cancelled) if that channel has a table."""
        table = self.get(table_id)
        async with table.lock:
            channel = table.channel_id
            other = self.by_channel.get(channel)
            if other is not None and other != table.id:
                await self._close(table, "cancelled", N_("no thread, and the channel has a table"))
                raise TableError(
                    "I could not open a thread for the table, and this channel already has "
                    "one playing here. Finish it first, or give me Create Public Threads."
                )
            await self.store.set_place(table.id, channel, None)
            table.home_channel_id = None
            self.by_channel[channel] = table.id
            table.placed.set()
        return table

    async def set_message(self, table_id: int, message_id: int | None) -> None:
        """The live table image message in the table's channel (or the lobby, without a
        thread): remembered so a restart edits it instead of posting anew."""
        table = self.tables.get(table_id) or self.finished.get(table_id)
        if table is None:
            return
        table.message_id = message_id
        try:
            await self.store.set_message(table_id, message_id)
        except Exception as exc:  # a display detail: the next post sets it again
            log.warning("table %s: could not store its message (%s)", table_id, exc)

    async def set_summary_message(self, table_id: int, message_id: int | None) -> None:
        """The table's one message in its home channel (the lobby, then its state)."""
        table = self.tables.get(table_id) or self.finished.get(table_id)
        if table is None:
            return
        table.summary_message_id = message_id
        try:
            await self.store.set_summary_message(table_id, message_id)
        except Exception as exc:
            log.warning("table %s: could not store its summary message (%s)", table_id, exc)

    # -- Discord taking the place away ---------------------------------------------------------
    async def channel_lost(self, table_id: int, reason: str) -> None:
        """The table's channel or thread is gone (a post got Unknown Channel, or the gateway
        said it was deleted): the table ends."""
        table = self.tables.get(table_id)
        if table is not None:
            await self.close_for(table, reason)

    async def channel_deleted(self, channel_id: int) -> list[LiveTable]:
        """CHANNEL_DELETE or THREAD_DELETE: every table playing there or at home there ends
        (a channel's threads go with it)."""
        await self._share_gateway_event("channel_deleted", channel_id)
        ended = []
        for table in self.live_tables():
            if channel_id == table.channel_id:
                deleted = N_("its thread was deleted")
                reason = deleted if table.thread_id else N_("its channel was deleted")
            elif channel_id == table.home_channel_id:
                reason = N_("its channel was deleted")
            else:
                continue
            await self.close_for(table, reason)
            ended.append(table)
        return ended

    async def guild_removed(self, guild_id: int) -> list[LiveTable]:
        """The bot was removed from the server (GUILD_DELETE without ``unavailable``)."""
        await self._share_gateway_event("guild_removed", guild_id)
        ended = []
        for table in self.live_tables():
            if table.guild_id == guild_id:
                await self.close_for(table, "the bot was removed from the server")
                ended.append(table)
        return ended

    async def thread_archived(self, thread_id: int, locked: bool) -> LiveTable | None:
        """A table's thread was archived. Locked (a moderator's decision): the table ends.
        Otherwise returns the table, whose thread the cog then unarchives."""
        table = self.in_channel(thread_id)
        if table is None or table.thread_id != thread_id:
            return None
        if locked:
            await self.close_for(table, N_("its thread was locked by a moderator"))
            return None
        return table

    async def close_for(self, table: LiveTable, reason: str) -> None:
        """End a table for a reason other than its game's end. Finished hands stay settled
        (each was posted when it ended); the hand in play is dropped without payments. A
        refused write keeps the reason: the table stays paused and the sweep tries again."""
        async with table.lock:
            if self.tables.get(table.id) is not table:
                return  # closed meanwhile
            status = "cancelled" if table.status == "lobby" else "finished"
            try:
                await self._close(table, status, reason)
            except WriteFailed:
                table.closing = reason
                if not table.paused:
                    table.paused, table.pause_reason = True, reason
                self._stop_moving(table)
                return
        log.info("table %s ends: %s", table.id, reason)
        table.end_reason = reason
        self._stop_moving(table)
        if self.notifier is None:
            return
        closed = getattr(self.notifier, "table_closed", None)
        if closed is not None:
            await closed(table, reason)
        elif table.state is not None:  # a notifier from before table_closed
            await self.notifier.game_finished(table)
        else:
            await self.notifier.lobby_changed(table)

    async def _tell(self, method: str, *args: Any) -> None:
        """Call the notifier's ``method`` if it has it (the pause notices are optional)."""
        hook = getattr(self.notifier, method, None)
        if hook is not None:
            await hook(*args)

    def _stop_moving(self, table: LiveTable) -> None:
        for task in table.timers.values():
            task.cancel()
        table.timers.clear()
        table.timer_moves.clear()
        table.deadlines.clear()
        if table.runner is not None and table.runner is not asyncio.current_task():
            table.runner.cancel()

    # -- permissions ---------------------------------------------------------------------------
    async def permissions_lost(self, table_id: int, missing: list[str]) -> None:
        """A post for the table was refused (403 Missing Access / Missing Permissions)."""
        table = self.tables.get(table_id)
        if table is not None and not table.paused:
            await self.pause(table, missing)

    async def permissions_checked(self, table_id: int, missing: list[str]) -> None:
        """The bot's permissions in the table's channel, computed again by the cog after a
        CHANNEL_UPDATE, GUILD_ROLE_UPDATE, THREAD_UPDATE or a change of the bot's roles:
        pause when something is missing, resume when nothing is."""
        table = self.tables.get(table_id)
        if table is None or table.closing:
            return
        if missing and not table.paused:
            await self.pause(table, missing)
        elif not missing and table.paused:
            await self.resume(table)

    async def pause(self, table: LiveTable, missing: list[str]) -> None:
        """No timer runs down, no automatic move is made, nothing is sent to the channel."""
        reason = "missing " + ", ".join(missing) if missing else N_("missing permissions")
        async with table.lock:
            if table.paused:
                return
            table.paused, table.pause_reason = True, reason
            self._stop_moving(table)
        log.info("table %s pauses: %s", table.id, reason)
        try:
            await self.store.set_paused(table.id, True, reason)
        except Exception as exc:  # recomputed from Discord on start-up anyway
            log.warning("table %s: could not store its pause (%s)", table.id, exc)
        await self._tell("table_paused", table, list(missing))

    async def resume(self, table: LiveTable) -> None:
        """The permission is back: every waiting member gets their full time again."""
        async with table.lock:
            if not table.paused or table.closing:
                return
            table.paused, table.pause_reason = False, ""
        log.info("table %s resumes", table.id)
        try:
            await self.store.set_paused(table.id, False, "")
        except Exception as exc:
            log.warning("table %s: could not store its resumption (%s)", table.id, exc)
        await self._tell("table_resumed", table)
        self._kick(table)

    # -- nothing lives forever -----------------------------------------------------------------
    async def limits(self, guild_id: int) -> tuple[float, float]:
        """(lobby expiry, idle time) in seconds, from the server's settings."""
        settings = await self._guild(guild_id)
        lobby = getattr(settings, "lobby_minutes", None) or DEFAULT_LOBBY_MINUTES
        idle = getattr(settings, "idle_minutes", None) or DEFAULT_IDLE_MINUTES
        return lobby * 60.0, idle * 60.0

    async def _set_expiry(self, table: LiveTable) -> None:
        lobby, _ = await self.limits(table.guild_id)
        table.lobby_expires_at = (table.created_at or self.clock()) + lobby

    async def sweep(self, now: float | None = None) -> None:
        """End what nobody plays any more, and finish ends that could not be written."""
        now = self.clock() if now is None else now
        for table in list(self.tables.values()):
            if table.closing:
                await self.close_for(table, table.closing)
                continue
            if table.status == "lobby":
                if not table.lobby_expires_at:
                    await self._set_expiry(table)
                if now >= table.lobby_expires_at:
                    lobby, _ = await self.limits(table.guild_id)
                    await self.close_for(
                        table,
                        f"the lobby expired: nobody started it within {lobby / 60:.0f} minutes",
                    )
                continue
            if table.attended():
                table.unattended_since = None
                continue
            if table.unattended_since is None:
                table.unattended_since = now
                continue
            _, idle = await self.limits(table.guild_id)
            if now - table.unattended_since >= idle:
                why = f"paused ({table.pause_reason})" if table.paused else "no member playing"
                await self.close_for(
                    table, f"abandoned: {why} for {idle / 60:.0f} minutes; finished hands stand"
                )

    def _ensure_sweeper(self) -> None:
        if self._stopping or (self._sweeper is not None and not self._sweeper.done()):
            return
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="tables-sweep")

    async def _sweep_forever(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self.sweep_interval)
            try:
                await self.sweep()
            except Exception:
                log.exception("sweeping the tables failed; trying again next time")
