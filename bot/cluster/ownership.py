"""Which open tables this process runs, when several processes share one PostgreSQL database
(issue 15; the design is in docs/scaling.md).

A process runs a table (takes its moves, runs its timers and computer players) only while it
holds the table's lease (``bot/store/leases_repo.py``); the :class:`LeaseKeeper` renews the
leases, notices a lost one and claims tables nobody runs. This module connects the keeper to
the table service through a few small hooks the service calls:

- ``fence(table_id)``: the keyword arguments of every event write and status change
  (``lease=``), so a write by a process that lost the table is refused by the store
  (``Fenced``) instead of forking the table's log;
- ``create(insert)``: a table this process creates is its own from the moment it exists
  (its lease is written in the transaction inserting it);
- ``closed(table_id)``: a closed table's lease is given up;
- the keeper's callbacks: a table acquired is read from the store and resumed
  (``TableService.adopt``), a table lost is dropped from memory with its timers
  (``TableService.drop``).

On SQLite there is no ownership object at all: one process per file (the lock), every table
its own, and no lease is read or written.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from bot.store.lease_keeper import TTL, LeaseKeeper
from bot.store.leases_repo import Lease, LeasesRepository

log = logging.getLogger(__name__)

#: Tables claimed per heartbeat at most (each is replayed from its events).
CLAIM_BATCH = 25
#: A closed table's lease is kept this long, while its final messages go out.
CLOSING_SECONDS = 10.0


class TableMoved(Exception):
    """This process does not (or no longer) run the table: another process does."""


def lease_seconds() -> float:
    """The lease time: ``MAHJONG_LEASE_SECONDS`` (tests shorten it), else 9 s. A process that
    dies loses its tables to another within ``ttl + ttl / 3`` of its last heartbeat."""
    text = os.environ.get("MAHJONG_LEASE_SECONDS", "").strip()
    try:
        value = float(text) if text else TTL
    except ValueError:
        value = TTL
    return value if value >= 1.0 else TTL


class TableOwnership:
    """This process's tables, through its lease keeper; see the module's docstring."""

    def __init__(self, leases: LeasesRepository, *, ttl: float | None = None) -> None:
        self.leases = leases
        self.keeper = LeaseKeeper(
            leases,
            ttl=ttl or lease_seconds(),
            claim_batch=CLAIM_BATCH,
            on_acquired=self._acquired,
            on_lost=self._lost,
        )
        self.service: Any = None
        self._releasing: set[asyncio.Task[None]] = set()
        # Tables acquired and still being read and rebuilt (adopt): leased, not yet in memory.
        self._adopting: dict[int, asyncio.Event] = {}

    @property
    def owner(self) -> str:
        return self.keeper.owner

    def attach(self, service: Any) -> None:
        """Run ``service``'s tables under these leases (sets ``service.ownership``). Its store
        must be on the leases' database: a new table's lease is written in the transaction
        inserting the table (``create``), which a second database would not join."""
        if getattr(service.store, "db", self.leases.db) is not self.leases.db:
            raise ValueError("the table store and the leases are on different databases")
        self.service = service
        service.ownership = self

    # -- the service's hooks ---------------------------------------------------------------------
    def owns(self, table_id: int) -> bool:
        return self.keeper.lease(table_id) is not None

    def fence(self, table_id: int) -> dict[str, Lease]:
        """``lease=`` for a write of the table; raises TableMoved when it is not ours."""
        lease = self.keeper.lease(table_id)
        if lease is None:
            raise TableMoved(f"table {table_id} is not run by this process")
        return {"lease": lease}

    async def create(self, insert: Callable[[], Awaitable[int]]) -> int:
        """A new table of this process's: ``insert`` writes its row (and returns its id), and
        the table's lease is written in the same transaction. Taken afterwards, the lease left
        a moment in which the table was open and unleased, which another process's heartbeat
        claims; on a loaded host it did (the creator then answered "moved")."""
        async with self.leases.transaction():
            table_id = await insert()
            lease = await self.keeper.take_new(table_id)
        self.keeper.hold(lease)
        return table_id

    async def closed(self, table_id: int) -> None:
        """A table this process closed: its lease is kept (renewed) for ``CLOSING_SECONDS``
        while the final messages go out, then released. If the process dies meanwhile, the
        lease expires unreleased and another process shows the table's end again."""

        async def release() -> None:
            await asyncio.sleep(CLOSING_SECONDS)
            try:
                await self.keeper.forget(table_id)
            except Exception as exc:  # it expires by itself
                log.info("could not release the lease of table %s (%s)", table_id, exc)

        task = asyncio.create_task(release(), name=f"release-{table_id}")
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def lost(self, table_id: int) -> None:
        """A write was fenced: the table is another process's now."""
        await self.keeper.fenced(table_id)

    # -- who runs a table ----------------------------------------------------------------------
    async def owner_of(self, table_id: int) -> str | None:
        """The process running the table now, None if none does (never leased or expired)."""
        if self.owns(table_id):
            return self.owner
        return await self.leases.live_owner(table_id)

    async def claim(self, table_id: int) -> bool:
        """Take a table nobody runs (a press came for it before any heartbeat claimed it)."""
        return await self.keeper.claim(table_id) is not None

    # -- the keeper's callbacks ----------------------------------------------------------------
    async def adopted(self, table_id: int) -> None:
        """Wait while a table this process just acquired is read and rebuilt: its lease is
        held from the moment it is acquired, but a press run before the table is in memory
        would be told "That table is closed" (seen in the failover test during takeovers)."""
        adopting = self._adopting.get(table_id)
        if adopting is not None:
            await adopting.wait()

    async def _acquired(self, lease: Lease) -> None:
        # Marked before the first await: the keeper calls this right after taking the lease.
        adopting = self._adopting[lease.table_id] = asyncio.Event()
        try:
            if self.service is None or not await self.service.adopt(lease.table_id):
                await self.keeper.forget(lease.table_id)  # closed meanwhile: nothing to run
        finally:
            adopting.set()
            if self._adopting.get(lease.table_id) is adopting:
                del self._adopting[lease.table_id]

    async def _lost(self, table_id: int) -> None:
        if self.service is not None:
            self.service.drop(table_id)

    # -- running -------------------------------------------------------------------------------
    def start(self) -> None:
        """The first heartbeat now (claim what nobody runs), then one every ``ttl / 3``."""
        self.keeper.start()

    async def stop(self) -> None:
        """Give every table up at once, so other processes take them over without waiting."""
        for task in list(self._releasing):
            task.cancel()
        try:
            await self.keeper.stop(release=True)
        except Exception as exc:  # the database is gone: the leases run out by themselves
            log.warning(
                "could not give the tables up at stop (%s); they move in %g s", exc, self.keeper.ttl
            )
