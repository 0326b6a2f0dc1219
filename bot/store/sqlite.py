"""The SQLite backend: one file; writes on the event loop's own thread, group committed
while the writer is taken; reads on a connection and thread of their own.

Why this shape (issue 12): with one shared connection every event append took about six
round trips to the connection's thread under one lock, and under load each round trip waits
its turn on the event loop, so the lock was held for milliseconds per event and moves queued
behind each other (120-150 appends/s at most). Then a writer thread with group commit: one
hand-off per group, but py-spy at 200 tables still found 15 % of the loop's samples waiting
in ``ThreadPoolExecutor.submit`` for the GIL the writer thread held, and each hand-off and
each answer took a turn of a loop lagging tens of milliseconds. SQLite's own work is far
smaller: about 20 us to commit one event. So:

- **A write of one statement or one batch** (an event append, a status, a message id) is
  committed at once, on the loop's thread, before the caller goes on: a move is answered
  only after its own commit, and the commit costs no turn of the loop.
- **Transactions** (``async with db.transaction():``, several statements and Python between
  them) run their statements on the loop's thread too (on the writer thread a hand's
  settlement held the writer for a tenth of a second at 100 tables, every move meanwhile
  waiting). They take the writer in turn with the group commits (one FIFO lock), so they
  never mix.
- **Group commit** while the writer is taken (a transaction holds it): writes go to a queue,
  and one flusher task then runs everything pending in a single ``BEGIN IMMEDIATE ...
  COMMIT`` and only then resolves each caller's future. A statement that fails (a
  constraint) fails alone; SQLite backs out just that statement and the others commit.
- What could make the loop wait on SQLite is kept off it: the writer does not checkpoint
  (``wal_autocheckpoint=0``; a checkpoint fsyncs), a third connection does, in its own
  thread, about once a second; and ``BEGIN`` does not wait for a lock another process holds
  (busy timeout 0 for it: the write or transaction then goes to the writer thread, which
  waits).
- **Reads** (``db.reading()``) use a second connection, in its own thread (a leaderboard's
  query can be long). In WAL mode a reader sees the last commit and never waits for the
  writer, so ``/stats`` or a restore does not queue behind moves.

Durability: ``synchronous=NORMAL`` in WAL mode, as before: a commit survives the process
being killed (the tests SIGKILL the bot), not necessarily a power cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from bot.store.backend import (
    Conflict,
    Holder,
    Refused,
    Result,
    Row,
    Statement,
    StoreError,
)
from bot.store.migrations import SCHEMA_MIGRATIONS, migrations, statements

T = TypeVar("T")
log = logging.getLogger(__name__)

BUSY_MS = 5000  # how long a statement waits for a lock another connection holds
CHECKPOINT_EVERY = 1.0  # seconds between checkpoints of the WAL, while anything is written


def _conflict(exc: sqlite3.IntegrityError) -> Conflict:
    return Conflict(str(exc))


def _run(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> Result:
    try:
        cursor = conn.execute(sql, params)
        rows = cursor.fetchall()
        return Result(cursor.rowcount if cursor.rowcount >= 0 else len(rows), rows)
    except sqlite3.IntegrityError as exc:
        raise _conflict(exc) from None


def _insert_many(conn: sqlite3.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    try:
        conn.executemany(sql, rows)
    except sqlite3.IntegrityError as exc:
        raise _conflict(exc) from None


def _fetchall(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[Row]:
    return conn.execute(sql, params).fetchall()


def _fetchone(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> Row | None:
    return conn.execute(sql, params).fetchone()


def _begin(conn: sqlite3.Connection, mode: str) -> None:
    if conn.in_transaction:  # a unit whose end never ran (its task was cancelled twice)
        conn.execute("ROLLBACK")
    conn.execute(f"BEGIN {mode}")


def _end(conn: sqlite3.Connection, ok: bool) -> None:
    if conn.in_transaction:
        conn.execute("COMMIT" if ok else "ROLLBACK")


def _batch(conn: sqlite3.Connection, statements: Sequence[Statement]) -> list[Result]:
    """Run one batch inside the open transaction; a guard that changed nothing, or an error,
    undoes the whole batch (a savepoint) and raises."""
    if len(statements) == 1 and not statements[0].guard:
        return [_run(conn, statements[0].sql, statements[0].params)]
    conn.execute("SAVEPOINT batch")
    try:
        out = []
        for index, st in enumerate(statements):
            result = _run(conn, st.sql, st.params)
            if st.guard and result.rowcount == 0:
                raise Refused(index)
            out.append(result)
    except BaseException:
        if conn.in_transaction:  # else SQLite rolled the whole transaction back itself
            conn.execute("ROLLBACK TO batch")
            conn.execute("RELEASE batch")
        raise
    conn.execute("RELEASE batch")
    return out


def _group(
    conn: sqlite3.Connection, batches: Sequence[Sequence[Statement]]
) -> list[list[Result] | BaseException]:
    """Run ``batches`` in one transaction: each its own results or its own error."""
    _begin(conn, "IMMEDIATE")
    return _group_begun(conn, batches)


def _group_begun(
    conn: sqlite3.Connection, batches: Sequence[Sequence[Statement]]
) -> list[list[Result] | BaseException]:
    """``_group`` once its transaction has begun."""
    out: list[list[Result] | BaseException] = []
    try:
        for statements in batches:
            try:
                out.append(_batch(conn, statements))
            except (sqlite3.Error, StoreError) as exc:
                if not conn.in_transaction:
                    # SQLite rolled the whole transaction back by itself (disk full, I/O
                    # error): every write of the group is undone, and the rest must not run
                    # in autocommit. Each caller hears the cause.
                    return [exc] * len(batches)
                out.append(exc)
        conn.execute("COMMIT")
    except BaseException as exc:
        _end(conn, ok=False)
        return [exc] * len(batches)
    return out


def _begin_here(conn: sqlite3.Connection | None) -> bool:
    """``BEGIN IMMEDIATE`` on the calling thread (the event loop's), or False, with nothing
    begun, when another process holds the database's write lock: waiting for it is the
    writer thread's. Once begun, nothing in the transaction waits for a lock (in WAL mode
    readers never block the writer, and the writer holds the only write lock)."""
    assert conn is not None
    conn.execute("PRAGMA busy_timeout=0")
    try:
        _begin(conn, "IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
            raise
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    return True


def _group_here(
    conn: sqlite3.Connection | None, batches: Sequence[Sequence[Statement]]
) -> list[list[Result] | BaseException] | None:
    """``_group`` on the calling thread, or None, with nothing done, when another process
    holds the lock (see ``_begin_here``)."""
    if not _begin_here(conn):
        return None
    assert conn is not None
    return _group_begun(conn, batches)


class _Thread:
    """One sqlite3 connection used only from its own thread."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=name)
        self.conn: sqlite3.Connection | None = None

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        # The job is queued before the first await: jobs run in the order of the calls, even
        # when the caller is cancelled while waiting for the answer.
        future = asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        return await future

    async def open(self, path: str, *, readonly: bool = False) -> None:
        def connect() -> sqlite3.Connection:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
            conn.execute("PRAGMA foreign_keys=ON")
            if readonly:
                conn.execute("PRAGMA query_only=ON")
            else:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                # Checkpoints (they fsync) are the checkpointer's: commits run on the loop.
                conn.execute("PRAGMA wal_autocheckpoint=0")
            return conn

        self.conn = await self.call(connect)

    async def close(self) -> None:
        if self.conn is not None:
            await self.call(self.conn.close)
            self.conn = None
        self._executor.shutdown(wait=True)


class _Unit:
    """The statements of one unit of work, on its connection: run right here on the loop's
    thread (``here``: the writer's transactions, a few statements of well under a
    millisecond each) or handed to the connection's thread (reads, which can be long)."""

    def __init__(self, thread: _Thread, *, writes: bool, here: bool = False) -> None:
        self._thread = thread
        self.writes = writes
        self.here = here

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        if self.here:
            return fn(self._thread.conn, *args)
        return await self._thread.call(fn, self._thread.conn, *args)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Result:
        return await self._call(_run, sql, tuple(params))

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await self._call(_fetchone, sql, tuple(params))

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._call(_fetchall, sql, tuple(params))

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        return await self._call(_batch, statements)

    async def copy_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Insert many rows at once (``migrate-db``); names come from the schema itself."""
        sql = (
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
        )
        await self._call(_insert_many, sql, rows)


class SQLiteDatabase:
    """A SQLite file (or ``:memory:``, where reads share the writer)."""

    kind = "sqlite"

    def __init__(self, path: str) -> None:
        self.path = path
        self.target = path  # what open_database was given
        self._writer = _Thread("sqlite-writer")
        self._reader: _Thread | None = None
        self._checkpointer: _Thread | None = None
        self._checkpoints: asyncio.Task[None] | None = None
        self._write_turn = asyncio.Lock()  # groups and transactions take the writer in turn
        self._read_turn = asyncio.Lock()
        self._pending: list[tuple[tuple[Statement, ...], asyncio.Future[list[Result]]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._holder = Holder(f"sqlite-unit-{id(self)}")
        self.groups = 0  # how many group commits ran (the benchmark reports writes per group)
        self.commits = 0  # groups and transactions: whether there is anything to checkpoint

    @classmethod
    async def open(cls, path: Path | str) -> SQLiteDatabase:
        """Open (creating if needed) and migrate the database at ``path``."""
        path = str(path)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = cls(path)
        await db._writer.open(path)
        try:
            await db._writer.call(migrate, db._writer.conn)
            if path != ":memory:":
                db._reader = _Thread("sqlite-reader")
                await db._reader.open(path, readonly=True)
                db._checkpointer = _Thread("sqlite-checkpoint")
                await db._checkpointer.open(path, readonly=True)
                db._checkpoints = asyncio.create_task(db._checkpoint(), name="sqlite-checkpoint")
        except BaseException:
            await db.close()
            raise
        return db

    # -- units of work -----------------------------------------------------------------------
    def current(self) -> _Unit | None:
        return self._holder.get()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[_Unit]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception); a nested use
        in the same task joins the outer transaction, which commits or rolls back the whole."""
        held = self._holder.joinable(writes=True)
        if held is not None:
            yield held
            return
        async with self._write_turn:
            here = _begin_here(self._writer.conn)
            if not here:  # another process holds the lock: wait for it off the loop
                await self._writer.call(_begin, self._writer.conn, "IMMEDIATE")
            unit = _Unit(self._writer, writes=True, here=here)
            with self._holder.holding(unit):
                try:
                    yield unit
                except BaseException:
                    await unit._call(_end, False)
                    raise
                await unit._call(_end, True)
                self.commits += 1

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[_Unit]:
        """A consistent read on the reader connection (inside a transaction: that one, so the
        task sees its own writes)."""
        held = self._holder.joinable(writes=False)
        if held is not None:
            yield held
            return
        if self._reader is None:  # :memory: has no second connection
            async with self.transaction() as unit:
                yield unit
            return
        reader = self._reader
        async with self._read_turn:
            with self._holder.holding(_Unit(reader, writes=False)) as unit:
                await reader.call(_begin, reader.conn, "DEFERRED")
                try:
                    yield unit
                finally:
                    await reader.call(_end, reader.conn, True)

    # -- group commit ------------------------------------------------------------------------
    async def write(self, sql: str, params: Sequence[Any] = ()) -> Result:
        """One statement as a transaction of its own, committed with whatever other writes are
        pending; returns after the commit (raises what the statement raised)."""
        [result] = await self.batch([Statement(sql, tuple(params))])
        return result

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        """Statements that commit together or not at all (a guard that changes no row raises
        Refused and undoes them), group committed like ``write``."""
        held = self.current()
        if held is not None:
            return await held.batch(statements)
        if not self._pending and not self._write_turn.locked():
            # Nobody waits for the writer: commit now, without a turn of the loop (~20 us).
            done = _group_here(self._writer.conn, [tuple(statements)])
            if done is not None:
                self.groups += 1
                self.commits += 1
                [result] = done
                if isinstance(result, BaseException):
                    raise result
                return result
        future: asyncio.Future[list[Result]] = asyncio.get_running_loop().create_future()
        # A caller cancelled while waiting never reads its answer: mark it read, so an error
        # is not logged as "never retrieved" (the caller's own task already ended).
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._pending.append((tuple(statements), future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="sqlite-group-commit")
        return await asyncio.shield(future)

    async def _flush(self) -> None:
        while self._pending:
            # One group per turn of the writer: a transaction waiting for it goes next.
            async with self._write_turn:
                group, self._pending = self._pending, []
                batches = [statements for statements, _ in group]
                try:
                    results = _group_here(self._writer.conn, batches)
                    if results is None:  # another process holds the lock: wait off the loop
                        results = await self._writer.call(_group, self._writer.conn, batches)
                except BaseException as exc:  # the thread itself failed (closed, cancelled)
                    results = [exc] * len(group)
                self.groups += 1
                self.commits += 1
            for (_, future), result in zip(group, results, strict=True):
                if future.done():
                    continue
                if isinstance(result, BaseException):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    async def _checkpoint(self) -> None:
        """Copy the WAL back into the database about once a second (PASSIVE: it never
        makes the writer or a reader wait), on a connection of its own."""
        assert self._checkpointer is not None
        thread = self._checkpointer
        done = self.commits
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY)
            if self.commits == done:
                continue
            done = self.commits
            try:
                await thread.call(_fetchone, thread.conn, "PRAGMA wal_checkpoint(PASSIVE)", ())
            except sqlite3.Error as exc:  # tried again in a second; the WAL only grows
                log.warning("could not checkpoint the database: %s", exc)

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            await asyncio.gather(self._checkpoints, return_exceptions=True)
        if self._checkpointer is not None:
            with contextlib.suppress(Exception):  # the last writes are in the WAL: safe
                await self._checkpointer.call(
                    _fetchone, self._checkpointer.conn, "PRAGMA wal_checkpoint(PASSIVE)", ()
                )
            await self._checkpointer.close()
            self._checkpointer = None
        if self._reader is not None:
            await self._reader.close()
            self._reader = None
        await self._writer.close()


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the SQLite migrations the database has not recorded; return the last version.

    Versions live in ``schema_migrations``. A database from before that table recorded its
    version in ``PRAGMA user_version``: its migrations 1..N are recorded as applied first, in
    the same transaction. ``user_version`` is still kept equal to the last version.
    """
    known = migrations("sqlite")
    _begin(conn, "IMMEDIATE")
    try:
        conn.execute(SCHEMA_MIGRATIONS)
        applied = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
        if not applied:
            legacy = conn.execute("PRAGMA user_version").fetchone()[0]
            for m in (m for m in known if m.version <= legacy):
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (m.version, m.name, int(time.time())),
                )
                applied.add(m.version)
        conn.execute("COMMIT")
    except BaseException:
        _end(conn, ok=False)
        raise
    pending = [m for m in known if m.version not in applied]
    if pending and applied:
        _back_up(conn, max(applied))
    for m in known:
        if m.version in applied:
            continue
        _begin(conn, "IMMEDIATE")
        try:
            for statement in statements(m.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (m.version, m.name, int(time.time())),
            )
            applied.add(m.version)
            conn.execute(f"PRAGMA user_version = {max(applied)}")
            conn.execute("COMMIT")
        except BaseException:
            _end(conn, ok=False)
            raise
    return max(applied, default=0)


def _back_up(conn: sqlite3.Connection, version: int) -> Path | None:
    """Copy a database that is about to be migrated beside itself, as it is, before the
    first change (``mahjong.sqlite3.before-v7``): an update that goes wrong can be undone by
    stopping the bot and putting the copy back. SQLite's online backup, so the copy is
    consistent; an older copy of the same version is kept, not overwritten."""
    row = conn.execute("PRAGMA database_list").fetchone()
    if row is None or not row[2]:
        return None  # :memory:
    target = Path(f"{row[2]}.before-v{version}")
    if target.exists():
        return target
    copy = sqlite3.connect(target)
    try:
        conn.backup(copy)
    finally:
        copy.close()
    log.warning("migrating the database: a copy as it was is at %s", target)
    return target
