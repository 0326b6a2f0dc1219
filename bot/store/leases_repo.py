"""Table leases: which process runs each open table when several share one database.

Design (issue 15 item 2; docs/architecture.md, "Several processes"): a process runs a table
(applies its moves, its timers, its computer players) only while it holds the table's lease,
a row of ``table_leases``:

- ``acquire`` takes a table whose lease is free, released or expired, in one statement, and
  adds one to its ``generation``: the fencing token. Of two processes racing for a table one
  gets it (the upsert's condition is decided under the row's lock).
- ``renew`` is the heartbeat: one statement extends every lease the process still holds.
  A lease found expired is not renewed: its table may already be someone else's, so the
  process must stop running it and ``acquire`` it again like anyone.
- Every event write of a table names the lease it runs under (``TablesRepository.append_event
  (..., lease=)``): the write first updates the lease row where ``(owner, generation)`` is
  still the one given, and is refused (``Fenced``) when it is not. So a process that was
  paused past its expiry (a GC pause, a stopped VM) and comes back believing it still owns
  the table cannot write a single event once another process took the table over. On
  PostgreSQL the update locks the lease row, so an append and a takeover are ordered: an
  append that commits is always before the takeover, and the new owner, reading the log after
  acquiring, sees it. On SQLite the single writer orders them.
- ``release`` expires a lease at once (a process stopping cleanly), keeping the row, so a
  generation is never handed out twice.

Lease times are milliseconds of the repository's clock. The processes' clocks must agree
to well within the lease time (NTP does); a clock running ahead only takes tables over early,
and fencing keeps even that safe.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.store.backend import Statement, StoreError
from bot.store.base import Repository


class Fenced(StoreError):
    """A write under a lease that is no longer the table's: another process took it over."""


@dataclass(frozen=True, slots=True)
class Lease:
    table_id: int
    owner: str
    generation: int
    expires_at: int  # milliseconds


def fence(lease: Lease, *, seq: int | None = None) -> Statement:
    """The guard statement a fenced write starts with: it changes the lease row only while
    the lease is still ``lease`` (and locks the row on PostgreSQL)."""
    return Statement(
        "UPDATE table_leases SET last_seq = COALESCE(?, last_seq) "
        "WHERE table_id = ? AND owner = ? AND generation = ?",
        (seq, lease.table_id, lease.owner, lease.generation),
        guard=True,
    )


class LeasesRepository(Repository):
    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    async def acquire(self, table_id: int, owner: str, ttl: float) -> Lease | None:
        """Take ``table_id`` for ``ttl`` seconds if no live lease holds it; None otherwise."""
        now = self.now_ms()
        expires = now + int(ttl * 1000)
        result = await self.write(
            "INSERT INTO table_leases (table_id, owner, generation, expires_at) "
            "VALUES (?, ?, 1, ?) ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner, "
            "generation = table_leases.generation + 1, expires_at = excluded.expires_at "
            "WHERE table_leases.expires_at <= ? RETURNING generation",
            (table_id, owner, expires, now),
        )
        if not result.rows:
            return None
        return Lease(table_id, owner, int(result.rows[0]["generation"]), expires)

    async def renew(self, owner: str, ttl: float) -> dict[int, Lease]:
        """The heartbeat: extend every live lease of ``owner``; returns them by table. A table
        missing from the answer is no longer this owner's to run."""
        now = self.now_ms()
        expires = now + int(ttl * 1000)
        result = await self.write(
            "UPDATE table_leases SET expires_at = ? WHERE owner = ? AND expires_at > ? "
            "RETURNING table_id, generation",
            (expires, owner, now),
        )
        return {
            int(r["table_id"]): Lease(int(r["table_id"]), owner, int(r["generation"]), expires)
            for r in result.rows
        }

    async def release(self, lease: Lease) -> bool:
        """Give the table up at once (expire the lease); False if it was not ours any more."""
        result = await self.write(
            "UPDATE table_leases SET expires_at = 0 "
            "WHERE table_id = ? AND owner = ? AND generation = ? AND expires_at > 0",
            (lease.table_id, lease.owner, lease.generation),
        )
        return result.rowcount == 1

    async def holder(self, table_id: int) -> Lease | None:
        """The table's lease row as it stands (live or expired), None if never leased."""
        async with self.reading():
            row = await self.fetchone(
                "SELECT table_id, owner, generation, expires_at FROM table_leases "
                "WHERE table_id = ?",
                (table_id,),
            )
        if row is None:
            return None
        return Lease(
            int(row["table_id"]), row["owner"], int(row["generation"]), int(row["expires_at"])
        )

    async def claimable(self, limit: int = 100) -> list[int]:
        """Open tables that no process runs (never leased, released or expired): what a
        process scanning for work should try to ``acquire``, oldest first. A table the bot
        opens is never seen here unleased: its lease is written in the transaction inserting
        it (``LeaseKeeper.take_new``). One never leased was made otherwise (copied by
        ``migrate-db``, say) and is free at once.

        Also a closed table whose lease expired without being released: its process died while
        closing it (a process keeps a closed table's lease for a few seconds, until the final
        messages went out), so the table's end may never have been shown."""
        now = self.now_ms()
        async with self.reading():
            rows = await self.fetchall(
                "SELECT t.id FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id "
                "WHERE (t.status IN ('lobby', 'playing') "
                "AND (l.table_id IS NULL OR l.expires_at <= ?)) "
                "OR (t.status IN ('finished', 'cancelled') AND l.expires_at > 0 "
                "AND l.expires_at <= ?) ORDER BY t.id LIMIT ?",
                (now, now, limit),
            )
        return [int(r["id"]) for r in rows]

    async def live_owner(self, table_id: int) -> str | None:
        """The process running the table now (its lease unexpired), None if none does."""
        lease = await self.holder(table_id)
        if lease is None or lease.expires_at <= self.now_ms():
            return None
        return lease.owner
