"""Which migrations a SQLite database file has, read without changing it, and which this code
ships. For the start-up log and ``mahjong-bot doctor``; the migrations themselves, and their
list, are the store's (``bot/store/migrations``).

The store records each applied migration in ``schema_migrations`` (numbers may have gaps and
land in any order), and keeps ``PRAGMA user_version`` equal to the highest; a database from
before that table has only the pragma, meaning migrations 1..N.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.config import is_url
from bot.store.migrations import migrations


@dataclass(frozen=True, slots=True)
class SchemaState:
    applied: frozenset[int]
    shipped: frozenset[int]

    @property
    def version(self) -> int:
        return max(self.applied, default=0)

    @property
    def pending(self) -> list[int]:
        """Migrations the next start will apply."""
        return sorted(self.shipped - self.applied)

    @property
    def unknown(self) -> list[int]:
        """Migrations the database has that this code does not ship (a newer version's)."""
        return sorted(self.applied - self.shipped)


def shipped_versions() -> frozenset[int]:
    return frozenset(m.version for m in migrations("sqlite"))


def schema_state(database: Path | str) -> SchemaState | None:
    """What the SQLite file ``database`` has; None when it is not a file (a PostgreSQL URL,
    a database not created yet). Raises ``sqlite3.DatabaseError`` for a file that is not a
    SQLite database."""
    if is_url(database) or not Path(database).is_file():
        return None
    uri = f"{Path(database).resolve().as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=5)
    try:
        legacy = int(conn.execute("PRAGMA user_version").fetchone()[0])
        has_table = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        ).fetchone()
        applied: set[int] = set()
        if has_table:
            applied = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
    finally:
        conn.close()
    shipped = shipped_versions()
    if not applied:  # the pragma alone: every shipped migration up to it (as the store reads it)
        applied = {v for v in shipped if v <= legacy}
        if legacy > max(shipped, default=0):
            applied.add(legacy)
    return SchemaState(frozenset(applied), shipped)


def schema_version(database: Path | str) -> int | None:
    """The highest migration the file has (None: see :func:`schema_state`)."""
    state = schema_state(database)
    return None if state is None else state.version
