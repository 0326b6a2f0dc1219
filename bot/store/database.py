"""Opening the database: WAL mode, foreign keys, and numbered SQL migrations.

Migrations are the files ``migrations/NNNN_name.sql``, applied in order inside one
transaction each; ``PRAGMA user_version`` records the last one applied, so opening an
up-to-date database does nothing and an old one is brought forward.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import aiosqlite

_MIGRATION = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) of every migration shipped with the package, in order."""
    found = []
    for entry in resources.files("bot.store.migrations").iterdir():
        match = _MIGRATION.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text()))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(versions) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps, found {versions}")
    return found


async def open_database(path: Path | str) -> aiosqlite.Connection:
    """Open (creating if needed) and migrate the database at ``path``."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = await aiosqlite.connect(str(path), isolation_level=None)
    db.row_factory = aiosqlite.Row
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute("PRAGMA foreign_keys=ON")
    await db.execute("PRAGMA synchronous=NORMAL")
    await db.execute("PRAGMA busy_timeout=5000")
    await migrate(db)
    return db


async def migrate(db: aiosqlite.Connection) -> int:
    """Apply the migrations newer than the database's ``user_version``; return the version."""
    async with db.execute("PRAGMA user_version") as cursor:
        row = await cursor.fetchone()
    current = row[0] if row else 0
    for version, _name, sql in migrations():
        if version <= current:
            continue
        await db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(sql):
                await db.execute(statement)
            await db.execute(f"PRAGMA user_version = {version}")
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")
        current = version
    return current


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (our migrations hold no ';' inside literals)."""
    return [s.strip() for s in sql.split(";") if s.strip()]
