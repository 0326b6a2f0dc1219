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

import logging
from typing import TYPE_CHECKING, Any

from bot.cluster.ownership import TableMoved
from bot.i18n import N_
from bot.service.tables.model import LiveTable, TableError

if TYPE_CHECKING:
    from bot.cluster.ownership import TableOwnership

log = logging.getLogger("bot.cluster")

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
    store: Any

    def _restored(self, table_id: int) -> LiveTable | None:
        raise NotImplementedError

    def _stop_moving(self, table: LiveTable) -> None:
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

    async def _opened(self, table_id: int) -> None:
        if self.ownership is not None:
            try:
                await self.ownership.opened(table_id)
            except TableMoved:
                self.drop(table_id)
                raise TableError(MOVED) from None

    async def _closed(self, table_id: int) -> None:
        if self.ownership is not None:
            await self.ownership.closed(table_id)

    # -- the lease keeper's callbacks ----------------------------------------------------------
    async def adopt(self, table_id: int) -> bool:
        """Run a table this process just acquired: read it with its events, rebuild it and
        resume it (in a task, as a table asked for during a restore). A closed table (its
        process died while closing it) is closed again: settled, its end shown. False if it is
        gone."""
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

    def drop(self, table_id: int) -> None:
        """Stop running a table another process runs now: its timers and runner stop, it
        leaves memory, nothing is written. Kept paused, so a task still holding it (a timer
        that just woke, the runner) makes no move."""
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
