"""The schema: migrating from empty, re-opening, the constraints that keep the data honest,
and the per-connection transaction helper."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import aiosqlite
import pytest

from bot.store.base import transaction
from bot.store.database import migrations, open_database

TABLES = {
    "guild_settings",
    "tables",
    "seats",
    "events",
    "hands",
    "settlements",
    "settlement_parties",
    "ledger",
    "accounts",
    "player_results",
    "player_names",
}


async def names(db: aiosqlite.Connection, kind: str) -> set[str]:
    async with db.execute("SELECT name FROM sqlite_master WHERE type = ?", (kind,)) as cursor:
        return {row[0] for row in await cursor.fetchall()}


async def scalar(db: aiosqlite.Connection, sql: str, params: tuple = ()) -> object:
    async with db.execute(sql, params) as cursor:
        row = await cursor.fetchone()
    return row[0] if row else None


async def test_migrates_from_empty_and_reopens_without_change(db_path: Path) -> None:
    db = await open_database(db_path)
    try:
        assert await scalar(db, "PRAGMA user_version") == len(migrations())
        assert await scalar(db, "PRAGMA journal_mode") == "wal"
        assert await scalar(db, "PRAGMA foreign_keys") == 1
        assert await names(db, "table") >= TABLES
        assert {
            "tables_one_open_per_channel",
            "ledger_by_payer",
            "ledger_by_payee",
            "player_results_by_user",
            "player_results_by_time",
            "accounts_by_net",
        } <= await names(db, "index")
        await db.execute("INSERT INTO guild_settings (guild_id, updated_at) VALUES (1, 0)")
    finally:
        await db.close()
    again = await open_database(db_path)
    try:
        assert await scalar(again, "PRAGMA user_version") == len(migrations())
        assert await scalar(again, "SELECT starting_chips FROM guild_settings") == 1000
    finally:
        await again.close()


async def test_a_database_of_an_older_version_is_migrated_keeping_its_rows(db_path: Path) -> None:
    import sqlite3

    (first, *_rest) = migrations()
    with sqlite3.connect(db_path) as old:
        old.executescript(first[2])
        old.execute("PRAGMA user_version = 1")
        old.execute(
            "INSERT INTO tables (guild_id, channel_id, host_id, ruleset, created_at) "
            "VALUES (1, 10, 100, 'pung-chow', 0)"
        )
    db = await open_database(db_path)
    try:
        assert await scalar(db, "PRAGMA user_version") == len(migrations()) > 1
        assert await scalar(db, "SELECT COUNT(*) FROM tables WHERE sets_planned IS NULL") == 1
    finally:
        await db.close()


async def test_defaults_of_guild_settings(db: aiosqlite.Connection) -> None:
    await db.execute("INSERT INTO guild_settings (guild_id, updated_at) VALUES (7, 0)")
    async with db.execute("SELECT * FROM guild_settings WHERE guild_id = 7") as cursor:
        row = dict(await cursor.fetchone())
    assert row["ruleset"] == "pung-chow"
    assert (row["starting_chips"], row["turn_seconds"], row["claim_seconds"]) == (1000, 60, 15)
    assert row["allowed_channels"] == "[]" and row["options"] == "{}"


async def _table(db: aiosqlite.Connection, channel: int, status: str = "lobby") -> int:
    finished = None if status in ("lobby", "playing") else 5
    cursor = await db.execute(
        "INSERT INTO tables (guild_id, channel_id, host_id, ruleset, status, created_at, "
        "finished_at) VALUES (1, ?, 1, 'pung-chow', ?, 0, ?)",
        (channel, status, finished),
    )
    return cursor.lastrowid


async def test_one_open_table_per_channel(db: aiosqlite.Connection) -> None:
    await _table(db, 10, "finished")
    await _table(db, 10, "cancelled")
    await _table(db, 10, "playing")
    with pytest.raises(sqlite3.IntegrityError):
        await _table(db, 10, "lobby")
    await _table(db, 11, "lobby")


async def test_events_are_unique_per_table_and_sequence(db: aiosqlite.Connection) -> None:
    table = await _table(db, 10)
    sql = "INSERT INTO events (table_id, seq, kind, created_at) VALUES (?, ?, 'join', 0)"
    await db.execute(sql, (table, 1))
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute(sql, (table, 1))
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute(sql, (999, 1))  # no such table: the foreign key refuses it


async def test_ledger_rows_are_positive_unique_and_between_two_players(
    db: aiosqlite.Connection,
) -> None:
    await db.execute(
        "INSERT INTO settlements (id, guild_id, kind, ruleset, source_key, created_at) "
        "VALUES (1, 1, 'manual', 'pung-chow', 'k1', 0)"
    )
    sql = (
        "INSERT INTO ledger (settlement_id, guild_id, payer_id, payee_id, amount, created_at) "
        "VALUES (1, 1, ?, ?, ?, 0)"
    )
    await db.execute(sql, (1, 2, 10))
    for bad in ((1, 2, 5), (3, 4, 0), (3, 4, -5), (3, 3, 5)):
        with pytest.raises(sqlite3.IntegrityError):
            await db.execute(sql, bad)
    with pytest.raises(sqlite3.IntegrityError):  # the same source key twice
        await db.execute(
            "INSERT INTO settlements (guild_id, kind, ruleset, source_key, created_at) "
            "VALUES (1, 'hand', 'pung-chow', 'k1', 0)"
        )
    with pytest.raises(sqlite3.IntegrityError):  # kinds are a closed list
        await db.execute(
            "INSERT INTO settlements (guild_id, kind, ruleset, source_key, created_at) "
            "VALUES (1, 'gift', 'pung-chow', 'k2', 0)"
        )


async def test_transaction_rolls_back_and_nests(db: aiosqlite.Connection) -> None:
    with pytest.raises(RuntimeError):
        async with transaction(db):
            await db.execute("INSERT INTO guild_settings (guild_id, updated_at) VALUES (1, 0)")
            async with transaction(db):  # joins the outer one
                await db.execute("INSERT INTO guild_settings (guild_id, updated_at) VALUES (2, 0)")
            raise RuntimeError("boom")
    assert await scalar(db, "SELECT COUNT(*) FROM guild_settings") == 0
    async with transaction(db):
        await db.execute("INSERT INTO guild_settings (guild_id, updated_at) VALUES (3, 0)")
    assert await scalar(db, "SELECT COUNT(*) FROM guild_settings") == 1


async def test_concurrent_tasks_never_share_a_transaction(db: aiosqlite.Connection) -> None:
    """A task that fails and rolls back must not take another task's write with it."""
    started = asyncio.Event()

    async def failing() -> None:
        async with transaction(db):
            await db.execute("INSERT INTO guild_settings (guild_id, updated_at) VALUES (1, 0)")
            started.set()
            await asyncio.sleep(0.01)
            raise RuntimeError("rolled back")

    async def writing() -> None:
        await started.wait()
        async with transaction(db):
            await db.execute("INSERT INTO guild_settings (guild_id, updated_at) VALUES (2, 0)")

    results = await asyncio.gather(failing(), writing(), return_exceptions=True)
    assert isinstance(results[0], RuntimeError) and results[1] is None
    async with db.execute("SELECT guild_id FROM guild_settings") as cursor:
        assert [r[0] for r in await cursor.fetchall()] == [2]
