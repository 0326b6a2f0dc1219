"""What every repository shares: one transaction at a time per connection, JSON, the clock.

The bot holds a single aiosqlite connection in autocommit mode, shared by every service. Two
coroutines writing through it at once would otherwise land in each other's transactions (a
``BEGIN`` belongs to the connection, not to the coroutine), so every repository call runs
under the connection's ``asyncio.Lock``. A task that already holds it (an outer
``transaction()``) simply joins: that is how a service appends a table event and posts to the
ledger in one transaction, across repositories.

Repositories are the only code that writes SQL; a PostgreSQL backend would replace them (and
this module) without touching the services.
"""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import aiosqlite

Clock = Callable[[], float]


class StoreError(RuntimeError):
    """The store was asked for something its invariants forbid (a bug in the caller)."""


_locks: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()
# (id of the connection, the task) that holds the connection's lock right now, per context.
_holder: ContextVar[tuple[int, asyncio.Task[Any] | None] | None] = ContextVar(
    "mahjong_store_holder", default=None
)


def connection_lock(db: aiosqlite.Connection) -> asyncio.Lock:
    """The lock every repository using ``db`` shares."""
    lock = _locks.get(db)
    if lock is None:
        lock = _locks[db] = asyncio.Lock()
    return lock


def _me(db: aiosqlite.Connection) -> tuple[int, asyncio.Task[Any] | None]:
    return (id(db), asyncio.current_task())


def holds(db: aiosqlite.Connection) -> bool:
    """Whether the current task is inside a transaction (or read) on ``db``."""
    return _holder.get() == _me(db)


@asynccontextmanager
async def transaction(db: aiosqlite.Connection) -> AsyncIterator[aiosqlite.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception).

    Nested use in the same task joins the outer transaction, which commits or rolls back the
    whole. IMMEDIATE takes SQLite's write lock at once, so a second process waits
    (busy_timeout) instead of failing half-way.
    """
    if holds(db):
        yield db
        return
    async with connection_lock(db):
        token = _holder.set(_me(db))
        try:
            await db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                await db.execute("ROLLBACK")
                raise
            await db.execute("COMMIT")
        finally:
            _holder.reset(token)


@asynccontextmanager
async def reading(db: aiosqlite.Connection) -> AsyncIterator[aiosqlite.Connection]:
    """A consistent read: several SELECTs that see one state of the database, never another
    task's uncommitted writes."""
    if holds(db):
        yield db
        return
    async with connection_lock(db):
        token = _holder.set(_me(db))
        try:
            await db.execute("BEGIN")
            try:
                yield db
            finally:
                await db.execute("COMMIT")
        finally:
            _holder.reset(token)


class Repository:
    """Base of the SQLite repositories: the connection, the clock, small query helpers."""

    def __init__(self, db: aiosqlite.Connection, *, clock: Clock | None = None) -> None:
        self.db = db
        self.clock: Clock = clock or time.time

    def now(self) -> int:
        return int(self.clock())

    def transaction(self) -> Any:
        """``async with repo.transaction():`` groups writes, across repositories too."""
        return transaction(self.db)

    def reading(self) -> Any:
        return reading(self.db)

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Cursor:
        """One statement; the caller holds a transaction (writes) or a read."""
        return await self.db.execute(sql, tuple(params))

    async def fetchone(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        async with self.db.execute(sql, tuple(params)) as cursor:
            return await cursor.fetchone()

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        async with self.db.execute(sql, tuple(params)) as cursor:
            return list(await cursor.fetchall())


def dumps(value: Any) -> str:
    """JSON as stored: compact, keys sorted (so equal values store equal text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str | None, default: Any = None) -> Any:
    if text is None or text == "":
        return default
    return json.loads(text)
