"""The numbered SQL migrations of each backend: ``sqlite/NNNN_name.sql`` and
``postgres/NNNN_name.sql``, the same numbers and names in both folders (a test checks).

How to add one: see ``bot/store/README.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

BACKENDS = ("sqlite", "postgres")
_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

SCHEMA_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
)
"""The table that records which migrations a database has (the same on both backends)."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations(backend: str) -> list[Migration]:
    """Every migration shipped for ``backend``, in order of number.

    Numbers are unique but may have gaps: helpers reserve numbers and land in any order, and
    ``schema_migrations`` records each version applied, so a database applies every migration
    it has not recorded (a lower number landing after a higher one included). A migration
    must therefore not depend on one with a higher number."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}")
    stray = sorted(e.name for e in resources.files(__name__).iterdir() if e.name.endswith(".sql"))
    if stray:  # from before the per-backend folders: it would silently never run
        raise RuntimeError(
            f"migrations {stray} are in bot/store/migrations/: move each to sqlite/ and write "
            "its twin in postgres/ (bot/store/README.md)"
        )
    found = []
    for entry in resources.files(__name__).joinpath(backend).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text()))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions) or 0 in versions:
        raise RuntimeError(f"{backend} migrations need unique numbers from 1, found {versions}")
    return found


def statements(sql: str) -> list[str]:
    """Split a migration into statements (migrations hold no ';' inside literals or
    comments: the README says so)."""
    out = []
    for chunk in sql.split(";"):
        lines = [ln for ln in chunk.splitlines() if not ln.strip().startswith("--")]
        if "\n".join(lines).strip():
            out.append(chunk.strip())
    return out
