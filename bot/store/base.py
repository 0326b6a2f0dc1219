"""What every repository shares: the database it is given, JSON, the clock.

Repositories are the only code that writes SQL, and they write it once for both backends
(``bot/store/sqlite.py`` and ``bot/store/postgres.py``): ``?`` placeholders (PostgreSQL's
backend numbers them), ``RETURNING id`` for new rows, integers for times and flags, and
``CAST(SUM(..) AS BIGINT)`` where PostgreSQL would otherwise answer with a decimal.

A repository receives a ``Database`` (``bot/store/backend.py``). Inside
``async with repo.transaction():`` every statement of the task, through any repository on the
same database, belongs to that one unit of work; ``repo.reading()`` is a consistent read that
never waits on writers. A single write outside a transaction (``repo.write``) is handed to the
database as a whole, which on SQLite commits it together with the other writes pending at that
moment (a group commit) and answers only after the commit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from bot.store.backend import Database, Result, Row, StoreError, Unit

__all__ = ["Clock", "Repository", "StoreError", "dumps", "loads"]

Clock = Callable[[], float]


class Repository:
    """Base of the repositories: the database, the clock, small query helpers."""

    def __init__(self, db: Database, *, clock: Clock | None = None) -> None:
        self.db = db
        self.clock: Clock = clock or time.time

    def now(self) -> int:
        return int(self.clock())

    def transaction(self) -> Any:
        """``async with repo.transaction():`` groups writes, across repositories too."""
        return self.db.transaction()

    def reading(self) -> Any:
        """``async with repo.reading():`` several SELECTs that see one state of the database."""
        return self.db.reading()

    def _unit(self) -> Unit:
        unit = self.db.current()
        if unit is None:
            raise StoreError("a statement outside repo.transaction() or repo.reading()")
        return unit

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> Result:
        """One statement inside the caller's transaction."""
        return await self._unit().execute(sql, tuple(params))

    async def fetchone(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        return await self._unit().fetchone(sql, tuple(params))

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return await self._unit().fetchall(sql, tuple(params))

    async def write(self, sql: str, params: Iterable[Any] = ()) -> Result:
        """One statement that is a transaction of its own (or joins the caller's)."""
        unit = self.db.current()
        if unit is not None:
            return await unit.execute(sql, tuple(params))
        return await self.db.write(sql, tuple(params))


def dumps(value: Any) -> str:
    """JSON as stored: compact, keys sorted (so equal values store equal text)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def loads(text: str | None, default: Any = None) -> Any:
    if text is None or text == "":
        return default
    return json.loads(text)
