"""The PostgreSQL backend (``MAHJONG_DB=postgresql://...``): an asyncpg connection pool.

The repositories' SQL is the same as on SQLite; this module numbers its ``?`` placeholders
(``$1, $2 ...``) and turns status strings into row counts.

Units of work, and why they are shaped like SQLite's:

- **A single write** (``db.write``: an event append, a status) runs on its own on a pooled
  connection, in autocommit: PostgreSQL commits it before answering. The conditional
  statements the repositories write (``INSERT ... SELECT ... WHERE last = seq - 1``,
  ``UPDATE ... WHERE status = 'pending'``) and the unique keys decide between racing writers,
  in one process or several.
- **A transaction** (``async with db.transaction():``) is serialized with every other
  transaction on the database, in this process (an asyncio lock, so waiting costs no pooled
  connection) and across processes (``pg_advisory_xact_lock``), exactly as SQLite's single
  writer serializes them. The services were written against that guarantee (read, check,
  then write in one transaction: a settlement posted once per key, a confirmation counted
  once); keeping it means no service needs a retry loop. Transactions are rare next to event
  appends (a hand's settlement, seat changes), so the single lane is not the bottleneck.
- **A read** (``reading()``) is a read-only ``REPEATABLE READ`` transaction: one snapshot,
  never waiting for writers.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from bot.store.backend import Conflict, Holder, Refused, Result, Row, Statement
from bot.store.migrations import SCHEMA_MIGRATIONS, migrations

# Keys of pg_advisory_xact_lock: the migrations, and the one lane of write transactions.
MIGRATION_LOCK = 0x6D6A_0001
TRANSACTION_LOCK = 0x6D6A_0002


@functools.lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2 ...`` (no ``?`` inside literals: see the
    store's README)."""
    parts = sql.split("?")
    out = [parts[0]]
    for n, part in enumerate(parts[1:], start=1):
        out.append(f"${n}{part}")
    return "".join(out)


def _count(status: str) -> int:
    """The row count at the end of a command status (``INSERT 0 1``, ``UPDATE 3``)."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


async def _execute(conn: asyncpg.Connection, sql: str, params: Sequence[Any]) -> Result:
    query = numbered(sql)
    try:
        if "RETURNING" in sql.upper():
            rows = await conn.fetch(query, *params)
            return Result(len(rows), rows)
        return Result(_count(await conn.execute(query, *params)))
    except asyncpg.IntegrityConstraintViolationError as exc:
        detail = getattr(exc, "detail", None) or ""
        raise Conflict(f"{exc} {detail}".strip()) from None


async def _batch(conn: asyncpg.Connection, statements: Sequence[Statement]) -> list[Result]:
    """The statements in one transaction (a savepoint inside the caller's); a guard that
    changed no row raises Refused and undoes them."""
    if len(statements) == 1 and not statements[0].guard:
        return [await _execute(conn, statements[0].sql, statements[0].params)]
    out = []
    async with conn.transaction():
        for index, st in enumerate(statements):
            result = await _execute(conn, st.sql, st.params)
            if st.guard and result.rowcount == 0:
                raise Refused(index)
            out.append(result)
    return out


class _Unit:
    def __init__(self, conn: asyncpg.Connection, *, writes: bool) -> None:
        self.conn = conn
        self.writes = writes

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        return await _execute(self.conn, sql, params)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await self.conn.fetchrow(numbered(sql), *params)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self.conn.fetch(numbered(sql), *params))

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        return await _batch(self.conn, statements)

    async def copy_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Insert many rows at once with COPY (``migrate-db``)."""
        try:
            await self.conn.copy_records_to_table(
                table, records=[tuple(r) for r in rows], columns=list(columns)
            )
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise Conflict(f"{exc} {getattr(exc, 'detail', None) or ''}".strip()) from None


class PostgresDatabase:
    """A PostgreSQL database through a pool of ``max_size`` connections."""

    kind = "postgres"

    def __init__(self, pool: asyncpg.Pool, url: str = "") -> None:
        self.pool = pool
        self.target = url  # what open_database was given
        self._write_turn = asyncio.Lock()
        self._holder = Holder(f"postgres-unit-{id(self)}")

    @classmethod
    async def open(cls, url: str, *, min_size: int = 1, max_size: int = 10) -> PostgresDatabase:
        """Connect to ``url`` and migrate the database to the newest schema."""
        pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size)
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url)

    def current(self) -> _Unit | None:
        return self._holder.get()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Unit]:
        """One write transaction at a time on the database (see the module's docstring); a
        nested use in the same task joins the outer one."""
        held = self._holder.joinable(writes=True)
        if held is not None:
            yield held
            return
        async with self._write_turn, self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", TRANSACTION_LOCK)
            with self._holder.holding(_Unit(conn, writes=True)) as unit:
                yield unit

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[_Unit]:
        """One snapshot (read-only, repeatable read); inside a transaction: that one."""
        held = self._holder.joinable(writes=False)
        if held is not None:
            yield held
            return
        async with (
            self.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            with self._holder.holding(_Unit(conn, writes=False)) as unit:
                yield unit

    async def write(self, sql: str, params: Sequence[Any] = ()) -> Result:
        """One statement, committed when it returns (or inside the task's transaction)."""
        [result] = await self.batch([Statement(sql, tuple(params))])
        return result

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        """Statements committed together on one pooled connection, in parallel with other
        writes: row locks and unique keys decide between them, not the transaction lane."""
        held = self.current()
        if held is not None:
            return await held.batch(statements)
        # Like SQLite's group commit: once handed over, the write runs to its end even when
        # the caller is cancelled meanwhile (it commits whole or fails whole, never half).
        task = asyncio.ensure_future(self._batch_alone(statements))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return await asyncio.shield(task)

    async def _batch_alone(self, statements: Sequence[Statement]) -> list[Result]:
        async with self.pool.acquire() as conn:
            return await _batch(conn, statements)

    async def close(self) -> None:
        await self.pool.close()


async def migrate(conn: asyncpg.Connection) -> int:
    """Apply the PostgreSQL migrations not recorded in ``schema_migrations``, all in one
    transaction (PostgreSQL's DDL is transactional) under an advisory lock, so two processes
    starting at once migrate once."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        await conn.execute(SCHEMA_MIGRATIONS)
        applied = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        for m in migrations("postgres"):
            if m.version in applied:
                continue
            await conn.execute(m.sql)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                m.version,
                m.name,
                int(time.time()),
            )
            applied.add(m.version)
    return max(applied, default=0)
