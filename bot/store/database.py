"""Opening the store named by ``MAHJONG_DB``: a path is a SQLite file (the default), a
``postgresql://`` URL a PostgreSQL database. Either is migrated to the newest schema before it
is returned."""

from __future__ import annotations

from pathlib import Path

from bot.store.backend import Database


def is_postgres(target: Path | str) -> bool:
    return str(target).startswith(("postgresql://", "postgres://"))


async def open_database(target: Path | str) -> Database:
    """Open (creating a SQLite file if needed) and migrate the store at ``target``."""
    if is_postgres(target):
        from bot.store.postgres import PostgresDatabase

        return await PostgresDatabase.open(str(target))
    from bot.store.sqlite import SQLiteDatabase

    return await SQLiteDatabase.open(target)
