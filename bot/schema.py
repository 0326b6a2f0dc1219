"""Which schema version a SQLite database file is at, read without changing it, and which
version this code would bring it to. For the start-up log and ``mahjong-bot doctor``; the
migrations themselves are the store's (``bot/store``).

The store records its version in ``PRAGMA user_version`` (and keeps it so alongside its
``schema_migrations`` table), so reading that pragma on a read-only connection is enough.
"""

from __future__ import annotations

import re
import sqlite3
from importlib import resources
from pathlib import Path

_MIGRATION = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def schema_version(database: Path | str) -> int | None:
    """The version of the SQLite file ``database``; None when it is not a readable file (a
    PostgreSQL URL, a missing file). Raises ``sqlite3.DatabaseError`` for a file that is not
    a SQLite database."""
    path = Path(database) if not str(database).startswith("postgres") else None
    if path is None or not path.is_file():
        return None
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def latest_schema_version() -> int:
    """The number of the newest SQLite migration shipped with this code."""
    folder = resources.files("bot.store.migrations")
    sqlite_folder = folder / "sqlite"
    if sqlite_folder.is_dir():  # per-backend folders (migrations/sqlite, migrations/postgres)
        folder = sqlite_folder
    numbers = [int(m.group(1)) for entry in folder.iterdir() if (m := _MIGRATION.match(entry.name))]
    return max(numbers, default=0)
