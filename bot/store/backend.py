"""The small interface the repositories use, which each backend implements once.

A ``Database`` is one store (a SQLite file, a PostgreSQL database). It hands out units of
work: ``transaction()`` (writes, committed together or not at all) and ``reading()`` (a
consistent snapshot that does not wait on writers); it takes single-statement writes with
``write()``, and short lists of statements that commit together with no Python between them
with ``batch()`` (a fenced event append: check the lease, then insert). Inside a unit,
``current()`` returns it to every repository the task calls, so a service groups writes of
several repositories in one transaction without passing a connection around. The SQL is the
repositories' own, written with ``?`` placeholders; a backend translates whatever it must
(PostgreSQL numbers them ``$1, $2 ...``).

Backends: ``bot/store/sqlite.py`` (the default: a file, one writer thread with group commit,
one reader connection) and ``bot/store/postgres.py`` (asyncpg, a connection pool).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

Row = Mapping[str, Any]
"""A row: ``row["column"]`` and ``dict(row)`` work on both backends."""


class StoreError(RuntimeError):
    """The store was asked for something its invariants forbid (a bug in the caller)."""


class Conflict(StoreError):
    """A constraint refused a write: a unique key, a check, a foreign key. The message holds
    the backend's own text (it names the column or the index)."""


class Refused(StoreError):
    """A guarded statement of a batch changed no row, so the batch was undone. ``index`` is
    that statement's place in the batch."""

    def __init__(self, index: int) -> None:
        super().__init__(f"statement {index} of the batch changed no row")
        self.index = index


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement of a batch. ``guard``: it must change a row, or the batch is undone."""

    sql: str
    params: Sequence[Any] = ()
    guard: bool = False


@dataclass(frozen=True, slots=True)
class Result:
    """What a write did: the rows it changed and, with ``RETURNING``, the rows it returned."""

    rowcount: int
    rows: Sequence[Row] = field(default_factory=tuple)

    @property
    def lastrowid(self) -> int:
        """The id of the row an ``INSERT ... RETURNING id`` made."""
        if not self.rows:
            raise StoreError("no row returned: write INSERT ... RETURNING id")
        return int(self.rows[0]["id"])


class Unit(Protocol):
    """One connection inside one transaction (or one read snapshot)."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> Result: ...
    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...
    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...
    async def batch(self, statements: Sequence[Statement]) -> list[Result]: ...
    async def copy_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None: ...


class Database(Protocol):
    """A store the repositories receive. ``kind`` is ``"sqlite"`` or ``"postgres"``;
    ``target`` the path or URL it was opened on."""

    kind: str
    target: str

    def transaction(self) -> AbstractAsyncContextManager[Unit]: ...
    def reading(self) -> AbstractAsyncContextManager[Unit]: ...
    def current(self) -> Unit | None: ...
    async def write(self, sql: str, params: Sequence[Any] = ()) -> Result: ...
    async def batch(self, statements: Sequence[Statement]) -> list[Result]: ...
    async def close(self) -> None: ...


class Holder:
    """Which unit of work the current task holds on one database.

    A context variable alone would leak into tasks created inside a transaction (they copy the
    context), and such a task must not write through its parent's transaction: it is a unit
    of its own. So the holder is remembered with its task.
    """

    def __init__(self, name: str) -> None:
        self._var: ContextVar[tuple[Any, asyncio.Task[Any] | None] | None] = ContextVar(
            name, default=None
        )

    def get(self) -> Any:
        held = self._var.get()
        if held is not None and held[1] is asyncio.current_task():
            return held[0]
        return None

    def joinable(self, *, writes: bool) -> Any:
        """The unit a new unit of the task joins (None: open one). A transaction cannot
        join a read: the read's connection may not write."""
        held = self.get()
        if held is not None and writes and not held.writes:
            raise StoreError("a transaction inside reading(): open the transaction first")
        return held

    @contextmanager
    def holding(self, unit: Any) -> Iterator[Any]:
        """The task holds ``unit`` for the block."""
        token = self._var.set((unit, asyncio.current_task()))
        try:
            yield unit
        finally:
            self._var.reset(token)
