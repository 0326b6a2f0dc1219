"""A real SQLite file per test, migrated from empty, and a clock the test moves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

from bot.store.database import open_database
from tests.store.helpers import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "mahjong.sqlite3"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[aiosqlite.Connection]:
    connection = await open_database(db_path)
    try:
        yield connection
    finally:
        await connection.close()
