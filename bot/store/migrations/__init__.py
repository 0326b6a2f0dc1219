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
    """Every migration shipped for ``backend``, in order; numbered 1..n without gaps."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}")
    found = []
    for entry in resources.files(__name__).joinpath(backend).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text()))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(versions) + 1)):
        raise RuntimeError(f"{backend} migrations must be numbered 1..n, found {versions}")
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
