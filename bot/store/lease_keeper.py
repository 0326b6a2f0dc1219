"""A process's side of the table leases: the heartbeat, noticing a lost table, claiming free
ones (design: docs/architecture.md, "Several processes").

The keeper knows nothing of games: it tells its owner through two callbacks. The table service
(through ``bot/cluster/ownership.py``) rebuilds a table from its events in ``on_acquired``
and drops it (timers too) in ``on_lost``, and passes ``keeper.lease(table_id)`` to every
event write, calling ``keeper.fenced(table_id)`` when a write raises ``Fenced``. A table the
process opens has its lease from the transaction that inserts its row (``take_new``), so no
other process ever sees it unleased.

Timing: every ``ttl / 3`` seconds ``tick`` renews this process's leases in one statement and
claims up to ``claim_batch`` tables nobody holds. A process that dies stops renewing; its
leases run out ``ttl`` after the last renewal and the next tick of another process takes them,
so a table is taken over at most ``ttl + ttl / 3`` after its owner's last heartbeat (12 s with
the default 9 s), within issue 15's 15 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable

from bot.store.backend import StoreError
from bot.store.leases_repo import Lease, LeasesRepository

log = logging.getLogger(__name__)

TTL = 9.0


def process_owner() -> str:
    """An owner id unique to this run of this process (a restarted process is a new owner:
    it must acquire its tables again, with new generations)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class LeaseKeeper:
    def __init__(
        self,
        repo: LeasesRepository,
        *,
        owner: str | None = None,
        ttl: float = TTL,
        claim_batch: int = 5,
        on_acquired: Callable[[Lease], Awaitable[None]] | None = None,
        on_lost: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self.repo = repo
        self.owner = owner or process_owner()
        self.ttl = ttl
        self.claim_batch = claim_batch
        self.on_acquired = on_acquired
        self.on_lost = on_lost
        self.leases: dict[int, Lease] = {}
        self._task: asyncio.Task[None] | None = None

    def lease(self, table_id: int) -> Lease | None:
        """The lease to write table ``table_id``'s events under (None: not ours to run)."""
        return self.leases.get(table_id)

    async def acquire(self, table_id: int) -> Lease | None:
        """Take a table now (one this process just opened, or a press for a free table)."""
        lease = await self.repo.acquire(table_id, self.owner, self.ttl)
        if lease is not None:
            self.leases[table_id] = lease
        return lease

    async def take_new(self, table_id: int) -> Lease:
        """The lease of a table this process is creating, written in the caller's transaction
        (the one inserting the table): no other process ever sees the table without its lease,
        so none claims it from its creator. Not held until ``hold``, once that transaction
        committed (undone, it leaves nothing to run)."""
        if self.repo.db.current() is None:  # on its own, the table would exist unleased
            raise StoreError("a new table's lease is taken in the transaction inserting it")
        lease = await self.repo.acquire(table_id, self.owner, self.ttl)
        if lease is None:  # a table id just made cannot have a live lease
            raise StoreError(f"the new table {table_id} is leased already")
        return lease

    def hold(self, lease: Lease) -> None:
        """Run the table under ``lease`` from now on (``take_new``'s transaction committed)."""
        self.leases[lease.table_id] = lease

    async def claim(self, table_id: int) -> Lease | None:
        """Take a table nobody runs now and tell the owner (``on_acquired``), as a tick would
        (a press for a table whose process died, before the next tick found it)."""
        lease = await self.acquire(table_id)
        if lease is not None and self.on_acquired is not None:
            await self.on_acquired(lease)
        return lease

    async def forget(self, table_id: int) -> None:
        """A table this process closed: give its lease up (no ``on_lost``: nothing to drop)."""
        lease = self.leases.pop(table_id, None)
        if lease is not None:
            await self.repo.release(lease)

    async def fenced(self, table_id: int) -> None:
        """A write was refused: the table is someone else's now."""
        if self.leases.pop(table_id, None) is not None and self.on_lost is not None:
            await self.on_lost(table_id)

    async def tick(self) -> None:
        """One heartbeat: renew, drop what was lost, claim what is free."""
        before = dict(self.leases)
        held = await self.repo.renew(self.owner, self.ttl)
        for table_id in sorted(_lost(before, held, now=self.leases)):
            log.warning("lease of table %s lost: another process runs it now", table_id)
            await self.fenced(table_id)
        self.leases.update({t: lease for t, lease in held.items() if t in self.leases})
        for table_id in await self.repo.claimable(self.claim_batch):
            if table_id not in self.leases:
                await self.claim(table_id)

    async def run(self) -> None:
        """Tick every ``ttl / 3`` seconds until cancelled; a failed tick is logged and the next
        one tries again (a lease outlives two missed heartbeats)."""
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("lease heartbeat failed")
            await asyncio.sleep(self.ttl / 3)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name=f"lease-keeper-{self.owner}")

    async def stop(self, *, release: bool = True) -> None:
        """Stop the heartbeat and (by default) give every table up at once, so another process
        takes them over without waiting for the leases to run out."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if release:
            for lease in list(self.leases.values()):
                await self.repo.release(lease)
            self.leases.clear()


def _lost(
    before: dict[int, Lease], renewed: dict[int, Lease], *, now: dict[int, Lease]
) -> set[int]:
    """The tables whose lease a renewal found gone: held when it ran (``before``), not
    renewed, and still held under that same lease. A lease taken while the renewal's answer
    was on its way (a table just opened, a press's claim) is not in the answer, and is not
    lost: the renewal ran before it existed."""
    return {t for t, lease in before.items() if t not in renewed and now.get(t) is lease}
