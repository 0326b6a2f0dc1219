"""The table service's side of table ownership (issue 15; docs/scaling.md): a mixin of
:class:`~bot.service.tables.service.TableService`, kept out of the service so the service only
carries small hooks.

With ``ownership`` None (SQLite: one process per file) every hook is a no-op and no lease is
read or written. With a :class:`~bot.cluster.ownership.TableOwnership` (PostgreSQL) the service
holds only the tables this process runs: ``adopt`` reads one from the store and resumes it as a
restart would (seats, unposted hands, the channel told, timers re-armed), ``drop`` forgets one
another process took over (its timers and runner stop; nothing is written), and every event
write names the table's lease so the store refuses a write by a process that lost it.
"""

from __future__ import annotations

import functools
import logging
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from bot.cluster.ownership import TableMoved
from bot.i18n import N_
from bot.service.tables.events import rebuild
from bot.service.tables.model import LiveTable, MemberSettings, TableError

if TYPE_CHECKING:
    from bot.cluster.ownership import TableOwnership

log = logging.getLogger("bot.cluster")

#: Gateway events that end tables, relayed to every process (``_share_gateway_event``).
RELAYED_EVENTS = frozenset({"channel_deleted", "guild_removed"})
_RELAYED: ContextVar[bool] = ContextVar("gateway_event_relayed", default=False)

MOVED_KEPT = 1000  # tables remembered as moved to another process (a press may still come)
MOVED = N_(
    "This table has just moved to another of the bot's processes; press the button again in "
    "a few seconds."
)


class OwnedTables:
    """Adopting and dropping tables; the lease of each write. See the module's docstring."""

    ownership: TableOwnership | None
    tables: dict[int, LiveTable]
    by_channel: dict[int, int]
    _unrestored: dict[int, tuple[dict[str, Any], list[tuple[str, dict]]]]
    _member_settings: dict[int, MemberSettings]
    finished: dict[int, LiveTable]
    _moved_away: dict[int, None]  # tables dropped for another process, the latest MOVED_KEPT
    store: Any

    def _restored(self, table_id: int) -> LiveTable | None:
        raise NotImplementedError

    def _stop_moving(self, table: LiveTable) -> None:
        raise NotImplementedError

    def in_channel(self, channel_id: int) -> LiveTable | None:
        raise NotImplementedError

    def tables_of_user(self, user_id: int) -> list[LiveTable]:
        raise NotImplementedError

    def tables_in(self, channel_id: int) -> list[LiveTable]:
        raise NotImplementedError

    async def _save_seats(self, table: LiveTable) -> None:
        raise NotImplementedError

    # -- hooks the service calls ---------------------------------------------------------------
    def _fence(self, table_id: int) -> dict[str, Any]:
        """The keyword arguments of a write of the table's log or status (``lease=``)."""
        if self.ownership is None:
            return {}
        try:
            return self.ownership.fence(table_id)
        except TableMoved:
            raise TableError(MOVED) from None

    async def _moved(self, table: LiveTable) -> None:
        """A write was fenced: another process took the table over while this one believed
        it ran it (a long pause). Drop it here; the player presses again for the new owner."""
        log.warning("table %s: a write was refused, another process runs it now", table.id)
        if self.ownership is not None:
            await self.ownership.lost(table.id)
        self.drop(table.id)

    async def _closed(self, table_id: int) -> None:
        if self.ownership is not None:
            await self.ownership.closed(table_id)

    # -- caps and look-ups across processes -------------------------------------------------
    async def _create(self, table: LiveTable, host_name: str, caps: dict[str, int]) -> int:
        """Insert a new table. With several processes the caps on open tables are counted in
        the database in the same transaction as the insert (``create_capped``): each process
        holds only its own tables, so its memory cannot count them. The table's lease is
        written in that transaction too (``TableOwnership.create``)."""
        if self.ownership is None:
            return await self.store.create_table(table)
        return await self.ownership.create(
            functools.partial(self.store.create_capped, table, host_name, caps)
        )

    async def _seat_capped(self, table: LiveTable, user_id: int, name: str, cap: int) -> None:
        """With several processes: seat a joining member in the database unless they sit at
        ``cap`` open tables already, counted there (``seat_capped``; raises CapReached)."""
        if self.ownership is not None:
            await self.store.seat_capped(table.id, len(table.players), user_id, name, cap)

    async def _unseat_capped(self, table: LiveTable) -> None:
        """A join whose event could not be written: the seat taken by ``_seat_capped`` goes."""
        if self.ownership is not None:
            try:
                await self._save_seats(table)
            except Exception as exc:  # counted against the member until the next seat write
                log.warning("table %s: could not undo a seat (%s)", table.id, exc)

    async def _share_member_settings(self, user_id: int, values: dict[str, bool]) -> None:
        """A member changed their settings here: the other processes, which may run their
        tables (and read pings or auto_pass_chows there), learn them (``share_members``: set
        by ``bot/cluster/forwarding.py``, a NOTIFY every process listens to)."""
        share = getattr(self, "share_members", None)
        if self.ownership is not None and share is not None:
            await share(user_id, values)

    def member_settings_shared(self, user_id: int, values: dict[str, Any]) -> None:
        """Another process saved a member's settings: keep them for this process's tables."""
        known = set(MemberSettings.__dataclass_fields__)
        self._member_settings[user_id] = MemberSettings(
            **{k: bool(v) for k, v in values.items() if k in known}
        )

    async def _share_gateway_event(self, name: str, *args: int) -> None:
        """A gateway event that ends tables (a channel or thread deleted, the bot removed
        from a server) reaches only the process of the server's shard, but the tables there
        may run in any process: tell them all (``share_event``, set by
        ``bot/cluster/forwarding.py``: a NOTIFY every process listens to). Not again for an
        event relayed from another process."""
        share = getattr(self, "share_event", None)
        if self.ownership is not None and share is not None and not _RELAYED.get():
            await share(name, list(args))

    async def gateway_event_relayed(self, name: str, args: list[int]) -> None:
        """Another process heard ``name`` (see ``_share_gateway_event``): apply it to this
        process's tables."""
        if name not in RELAYED_EVENTS:
            log.warning("an unknown gateway event relayed: %s", name)
            return
        _RELAYED.set(True)  # this task only
        await getattr(self, name)(*(int(a) for a in args))

    async def _finished_elsewhere(self, table_id: int) -> LiveTable | None:
        """With several processes: a finished table another process ran (its "Play again"
        reaches whichever process has the server's shard), rebuilt from its row and events;
        None if it is not finished. Without, None: this process ran every table."""
        if self.ownership is None:
            return None
        loaded = await self.store.open_table(table_id, closed_too=True)
        if loaded is None or loaded[0]["status"] != "finished":
            return None
        return rebuild(*loaded)

    async def table_here(self, channel_id: int, user_id: int) -> int:
        """The table a command used in ``channel_id`` by ``user_id`` is about: the one playing
        in that channel or thread; elsewhere the member's only open table, or the only one
        opened from that channel. With several processes the database answers, since another
        process may run the table (the command is then handed to it,
        ``bot/cluster/forwarding.py``)."""
        if self.ownership is None:
            table = self.in_channel(channel_id)
            if table is not None:
                return table.id
            mine = [t.id for t in self.tables_of_user(user_id)]
            here = [t.id for t in self.tables_in(channel_id)]
        else:
            row = await self.store.open_in_channel(channel_id)
            if row is not None:
                return int(row["id"])
            mine = await self.store.open_ids(user_id=user_id)
            here = await self.store.open_ids(channel_id=channel_id)
        if len(mine) == 1:
            return mine[0]
        if len(here) == 1:
            return here[0]
        if here:
            raise TableError(N_("Use this inside the table's thread."))
        raise TableError(N_("There is no table in this channel."))

    # -- the lease keeper's callbacks ----------------------------------------------------------
    async def adopt(self, table_id: int) -> bool:
        """Run a table this process just acquired: read it with its events, rebuild it and
        resume it (in a task, as a table asked for during a restore). A closed table (its
        process died while closing it) is closed again: settled, its end shown. False if it is
        gone."""
        self._moved_away.pop(table_id, None)
        if table_id in self.tables:
            return True
        loaded = await self.store.open_table(table_id, closed_too=True)
        if loaded is None:
            return False
        row, events = loaded
        self._unrestored[table_id] = (row, events)
        if (
            row["status"] in ("lobby", "playing")
            and row.get("home_channel_id") != row["channel_id"]
        ):
            self.by_channel[row["channel_id"]] = table_id
        self._restored(table_id)
        log.info("table %s: taken over (%d events replayed)", table_id, len(events))
        return True

    def holds(self, table_id: int) -> bool:
        """Whether the table (open or just finished) is in this process's memory, rebuilt or
        waiting to be."""
        return table_id in self.tables or table_id in self._unrestored or table_id in self.finished

    def moved_away(self, table_id: int) -> bool:
        """Whether this process handed the table to another one (``drop``)."""
        return table_id in self._moved_away

    def drop(self, table_id: int) -> None:
        """Stop running a table another process runs now: its timers and runner stop, it
        leaves memory, nothing is written. Kept paused, so a task still holding it (a timer
        that just woke, the runner) makes no move. A press that still reaches this process
        for it is told it moved (press again), not that it closed."""
        self._moved_away[table_id] = None
        while len(self._moved_away) > MOVED_KEPT:
            del self._moved_away[next(iter(self._moved_away))]
        pending = self._unrestored.pop(table_id, None)
        if pending is not None and self.by_channel.get(pending[0]["channel_id"]) == table_id:
            del self.by_channel[pending[0]["channel_id"]]
        table = self.tables.pop(table_id, None)
        if table is None:
            return
        if self.by_channel.get(table.channel_id) == table_id:
            del self.by_channel[table.channel_id]
        table.paused = True
        table.pause_reason = "run by another of the bot's processes"
        self._stop_moving(table)
