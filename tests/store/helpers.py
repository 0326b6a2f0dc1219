"""Shared by the store, service and cog tests."""

from __future__ import annotations

from typing import Any


class FakeClock:
    """``clock()`` returns ``t``; tests move it to put rows in a week, a month, or all time."""

    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


async def rows(db: Any, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows of a query on either backend, as tuples (``?`` placeholders)."""
    async with db.reading() as unit:
        return [tuple(r) for r in await unit.fetchall(sql, params)]


async def scalar(db: Any, sql: str, params: tuple = ()) -> Any:
    """The first column of the first row (None without a row)."""
    found = await rows(db, sql, params)
    return found[0][0] if found else None


async def execute(db: Any, sql: str, params: tuple = ()) -> Any:
    """One statement in a transaction of its own (test set-up and constraint checks)."""
    async with db.transaction() as unit:
        return await unit.execute(sql, params)
