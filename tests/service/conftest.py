"""The services on a real SQLite file per test, with a clock the test moves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

from bot.service.guild_settings import GuildSettingsService
from bot.service.ledger import LedgerService
from bot.service.scoring import ScoringService
from bot.store.database import open_database
from tests.store.helpers import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[aiosqlite.Connection]:
    connection = await open_database(tmp_path / "mahjong.sqlite3")
    try:
        yield connection
    finally:
        await connection.close()


@pytest.fixture
def settings(db: aiosqlite.Connection, clock: FakeClock) -> GuildSettingsService:
    return GuildSettingsService(db, clock=clock)


@pytest.fixture
def ledger(
    db: aiosqlite.Connection, settings: GuildSettingsService, clock: FakeClock
) -> LedgerService:
    return LedgerService(db, settings, clock=clock)


@pytest.fixture
def scoring(db: aiosqlite.Connection, ledger: LedgerService, clock: FakeClock) -> ScoringService:
    return ScoringService(db, ledger, clock=clock)
