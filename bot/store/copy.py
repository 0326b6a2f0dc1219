"""Moving a store to another backend: ``mahjong-bot migrate-db --from PATH --to URL``.

Both stores are opened (so both are migrated to the same schema), the target must be empty,
and every table of the source is copied from one snapshot of it (one read), in the order its
foreign keys need, into one transaction of the target: a copy that fails leaves the target
empty. Then it is verified: every table's row count, and each server's ledger (the chips paid
and the running accounts) must be equal on both sides, and every ledger must sum to zero.

Runtime state is not copied: ``table_leases`` (the new processes take the tables over) and
``schema_migrations`` (each store keeps its own). Stop the bot first: writes made after the
snapshot would not be copied.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.store.backend import Database, StoreError, Unit

SKIPPED = {"schema_migrations", "table_leases"}
CHUNK = 5000


class CopyFailed(StoreError):
    """The copy did not verify; the target's transaction was rolled back (it stays empty)."""

    def __init__(self, report: CopyReport) -> None:
        super().__init__("; ".join(report.problems))
        self.report = report


@dataclass
class CopyReport:
    rows: dict[str, tuple[int, int]] = field(default_factory=dict)  # table: (source, target)
    ledgers: dict[int, tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        out = [f"{t:22} {s:>10} -> {d:>10}" for t, (s, d) in self.rows.items()]
        out.append(f"ledgers checked: {len(self.ledgers)} servers")
        out += [f"PROBLEM: {p}" for p in self.problems] or ["verified: counts and ledgers equal"]
        return out


async def _tables(unit: Unit, kind: str) -> list[str]:
    if kind == "sqlite":
        rows = await unit.fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    else:
        rows = await unit.fetchall(
            "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()"
        )
    return sorted(r["name"] for r in rows if r["name"] not in SKIPPED)


async def _columns(unit: Unit, kind: str, table: str) -> list[str]:
    if kind == "sqlite":
        return [r["name"] for r in await unit.fetchall(f"PRAGMA table_info({table})")]
    rows = await unit.fetchall(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
        (table,),
    )
    return [r["column_name"] for r in rows]


async def _references(unit: Unit, kind: str, table: str) -> set[str]:
    """The tables ``table``'s foreign keys point at."""
    if kind == "sqlite":
        return {r["table"] for r in await unit.fetchall(f"PRAGMA foreign_key_list({table})")}
    rows = await unit.fetchall(
        "SELECT DISTINCT ccu.table_name AS name FROM information_schema.table_constraints tc "
        "JOIN information_schema.constraint_column_usage ccu "
        "ON ccu.constraint_name = tc.constraint_name "
        "WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_name = ?",
        (table,),
    )
    return {r["name"] for r in rows}


def _in_order(refs: dict[str, set[str]]) -> list[str]:
    """Tables so that each comes after the tables it references."""
    done: list[str] = []
    left = dict(refs)
    while left:
        ready = sorted(t for t, r in left.items() if not (r - {t}) - set(done))
        if not ready:
            raise StoreError(f"foreign keys in a cycle among {sorted(left)}")
        done += ready
        for t in ready:
            del left[t]
    return done


async def _count(unit: Unit, table: str) -> int:
    row = await unit.fetchone(f"SELECT COUNT(*) AS n FROM {table}")
    return int(row["n"]) if row else 0


async def _ledgers(unit: Unit) -> dict[int, tuple[int, int]]:
    """Per server: chips moved in the ledger, and the accounts' sum (which must be zero)."""
    out: dict[int, tuple[int, int]] = {}
    for r in await unit.fetchall(
        "SELECT guild_id, CAST(SUM(amount) AS BIGINT) AS moved FROM ledger GROUP BY guild_id"
    ):
        out[int(r["guild_id"])] = (int(r["moved"] or 0), 0)
    for r in await unit.fetchall(
        "SELECT guild_id, CAST(SUM(net) AS BIGINT) AS net FROM accounts GROUP BY guild_id"
    ):
        moved = out.get(int(r["guild_id"]), (0, 0))[0]
        out[int(r["guild_id"])] = (moved, int(r["net"] or 0))
    return out


async def _reset_identities(unit: Unit, tables: Iterable[str]) -> None:
    """PostgreSQL: ids were copied as they were, so each identity continues after the
    largest one (a new row must not take an id the copy already used)."""
    for table in tables:
        if "id" not in await _columns(unit, "postgres", table):
            continue
        row = await unit.fetchone("SELECT pg_get_serial_sequence(?, 'id') AS seq", (table,))
        if row is None or row["seq"] is None:
            continue
        await unit.fetchone(
            f"SELECT setval(?, COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)",
            (row["seq"],),
        )


async def copy_store(source: Database, target: Database) -> CopyReport:
    """Copy every row of ``source`` into the empty ``target``, then verify both."""
    report = CopyReport()
    async with source.reading() as src, target.transaction() as dst:
        names = await _tables(src, source.kind)
        missing = sorted(set(names) - set(await _tables(dst, target.kind)))
        if missing:
            raise StoreError(f"the target has no tables {missing}: is it the same version?")
        for table in names:
            if await _count(dst, table):
                raise StoreError(f"the target is not empty ({table} has rows): nothing copied")
        refs = {t: await _references(src, source.kind, t) & set(names) for t in names}
        for table in _in_order(refs):
            columns = await _columns(src, source.kind, table)
            wanted = set(await _columns(dst, target.kind, table))
            if set(columns) - wanted:
                raise StoreError(f"{table}: the target lacks {sorted(set(columns) - wanted)}")
            order = ", ".join(columns)
            offset = 0
            while True:
                rows = await src.fetchall(
                    f"SELECT {order} FROM {table} ORDER BY {order} LIMIT ? OFFSET ?",
                    (CHUNK, offset),
                )
                if not rows:
                    break
                await dst.copy_rows(table, columns, [tuple(r) for r in rows])
                offset += len(rows)
        if target.kind == "postgres":
            await _reset_identities(dst, names)
        for table in names:
            report.rows[table] = (await _count(src, table), await _count(dst, table))
        _verify(report, await _ledgers(src), await _ledgers(dst))
        if not report.ok:
            raise CopyFailed(report)  # rolls the target's transaction back
    return report


def _verify(
    report: CopyReport, before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]
) -> None:
    for table, (s, d) in report.rows.items():
        if s != d:
            report.problems.append(f"{table}: {s} rows in the source, {d} in the target")
    for guild in sorted(set(before) | set(after)):
        was, now = before.get(guild, (0, 0)), after.get(guild, (0, 0))
        report.ledgers[guild] = (was, now)
        if was != now:
            report.problems.append(f"server {guild}: ledger (moved, net) {was} became {now}")
        if now[1] != 0:
            report.problems.append(f"server {guild}: accounts sum to {now[1]}, not 0")


def main(argv: list[str] | None = None) -> int:
    """``mahjong-bot migrate-db --from SOURCE --to TARGET`` (paths or postgresql:// URLs)."""
    import argparse
    import asyncio

    from bot.store.database import open_database

    parser = argparse.ArgumentParser(
        prog="mahjong-bot migrate-db",
        description="Copy every row of one store into an empty other one (stop the bot first).",
    )
    parser.add_argument("--from", dest="source", required=True, help="a SQLite path or URL")
    parser.add_argument("--to", dest="target", required=True, help="a postgresql:// URL or path")
    options = parser.parse_args(argv)
    if options.source == options.target:
        parser.error("--from and --to are the same store")

    async def run() -> int:
        source = await open_database(options.source)
        try:
            target = await open_database(options.target)
            try:
                report = await copy_store(source, target)
                code = 0
            except CopyFailed as exc:
                report, code = exc.report, 1
            except StoreError as exc:
                print(f"migrate-db: {exc}")
                return 1
            finally:
                await target.close()
        finally:
            await source.close()
        print("\n".join(report.lines()))
        return code

    return asyncio.run(run())
