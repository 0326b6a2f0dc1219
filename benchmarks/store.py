"""The event write path: appends per second and append latency with many tables at once.

Side by side in one run, on fresh SQLite files (and PostgreSQL when a URL is given):

- ``before``: the write path this project had until issue 12, reproduced here as it was: one
  aiosqlite connection shared under one asyncio lock, ``BEGIN IMMEDIATE``, ``SELECT MAX(seq)``,
  ``INSERT``, ``COMMIT``, each a round trip to the connection's thread.
- ``sqlite``: the store as it is (``bot/store/sqlite.py``): one statement per append, group
  committed by one writer, each append answered after its own commit.
- ``postgres``: ``bot/store/postgres.py`` on ``--postgres URL``, or ``--postgres auto`` for a
  throwaway server started like the tests' (Debian's ``postgresql`` binaries).

Each of ``--tables`` tables loops: append its next event, then do ``--work-ms`` of CPU on the
event loop (the engine, the notifier: without it the loop is idle and round trips are free,
which is not how a loaded bot looks), while one reader reads a table's events every 10 ms.
Reports appends/s, append latency p50/p99/max, and the reader's latency p50/p99.

    python benchmarks/store.py [--tables 400] [--seconds 5] [--work-ms 0.2] [--postgres URL|auto]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)
import aiosqlite

from bot.store.database import open_database
from bot.store.tables_repo import TablesRepository

Append = Callable[[int, int], Awaitable[None]]
Read = Callable[[int], Awaitable[object]]


class Before:
    """The old path, kept here only to measure against."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self.lock = asyncio.Lock()

    async def append(self, table_id: int, seq: int) -> None:
        async with self.lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                async with self.db.execute(
                    "SELECT COALESCE(MAX(seq), 0) AS last FROM events WHERE table_id = ?",
                    (table_id,),
                ) as cursor:
                    row = await cursor.fetchone()
                if row[0] != seq - 1:
                    raise RuntimeError("out of order")
                await self.db.execute(
                    "INSERT INTO events (table_id, seq, kind, payload, created_at) "
                    "VALUES (?, ?, 'action', '{}', 0)",
                    (table_id, seq),
                )
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    async def read(self, table_id: int) -> object:
        """A ``/stats``-like read: the old path read through the same connection and lock."""
        async with (
            self.lock,
            self.db.execute(
                "SELECT COUNT(*) FROM events WHERE table_id = ?", (table_id,)
            ) as cursor,
        ):
            return await cursor.fetchone()


def busy(ms: float) -> None:
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass


def _ms(values: list[float], q: float) -> float:
    values = sorted(values)
    return 1000 * values[int(q * (len(values) - 1))] if values else 0.0


async def load(
    append: Append, read: Read, tables: list[int], seconds: float, work_ms: float
) -> dict:
    """Every table appends in a loop; meanwhile one reader reads (as ``/stats`` or a restore
    would) every 10 ms, and its latency says whether reads wait behind the writes."""
    latencies: list[float] = []
    reads: list[float] = []
    stop = time.perf_counter() + seconds

    async def table(table_id: int) -> None:
        seq = 1
        while time.perf_counter() < stop:
            start = time.perf_counter()
            await append(table_id, seq)
            latencies.append(time.perf_counter() - start)
            seq += 1
            busy(work_ms)
            await asyncio.sleep(0)

    async def reader() -> None:
        while time.perf_counter() < stop:
            start = time.perf_counter()
            await read(tables[len(reads) % len(tables)])
            reads.append(time.perf_counter() - start)
            await asyncio.sleep(0.01)

    began = time.perf_counter()
    await asyncio.gather(reader(), *(table(t) for t in tables))
    elapsed = time.perf_counter() - began
    return {
        "appends_per_s": len(latencies) / elapsed,
        "p50_ms": _ms(latencies, 0.5),
        "p99_ms": _ms(latencies, 0.99),
        "max_ms": _ms(latencies, 1.0),
        "read_p50_ms": _ms(reads, 0.5),
        "read_p99_ms": _ms(reads, 0.99),
        "appends": len(latencies),
    }


async def make_tables(repo: TablesRepository, count: int) -> list[int]:
    return [
        await repo.create(guild_id=1, channel_id=c, host_id=1, ruleset="pung-chow")
        for c in range(1, count + 1)
    ]


async def run_before(folder: Path, args: argparse.Namespace) -> dict:
    store = await open_database(folder / "before.sqlite3")  # the schema, then the old path
    tables = await make_tables(TablesRepository(store), args.tables)
    await store.close()
    db = await aiosqlite.connect(folder / "before.sqlite3", isolation_level=None)
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute("PRAGMA synchronous=NORMAL")
    try:
        before = Before(db)
        return await load(before.append, before.read, tables, args.seconds, args.work_ms)
    finally:
        await db.close()


async def run_store(target: Path | str, args: argparse.Namespace) -> dict:
    store = await open_database(target)
    try:
        repo = TablesRepository(store)
        tables = await make_tables(repo, args.tables)

        async def append(table_id: int, seq: int) -> None:
            await repo.append_event(table_id, seq, "action", {})

        async def read(table_id: int) -> object:
            return await repo.events(table_id)

        out = await load(append, read, tables, args.seconds, args.work_ms)
        if hasattr(store, "groups") and store.groups:
            out["per_commit"] = out["appends"] / store.groups
        return out
    finally:
        await store.close()


async def run_on_own_server(args: argparse.Namespace) -> dict:
    import asyncpg

    from tests.store.postgres_server import HOW_TO_GET, PostgresServer, find_binaries

    binaries = find_binaries()
    if binaries is None:
        raise SystemExit(HOW_TO_GET)
    server = PostgresServer(binaries)
    try:
        server.start()
        admin = await asyncpg.connect(server.url())
        await admin.execute("CREATE DATABASE bench")
        await admin.close()
        return await run_store(server.url("bench"), args)
    finally:
        server.stop()


async def run(args: argparse.Namespace) -> None:
    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as folder:
        rows["before"] = await run_before(Path(folder), args)
        rows["sqlite"] = await run_store(Path(folder) / "after.sqlite3", args)
    if args.postgres == "auto":
        rows["postgres"] = await run_on_own_server(args)
    elif args.postgres:
        rows["postgres"] = await run_store(args.postgres, args)
    print(
        f"{args.tables} tables, {args.seconds:g} s each, {args.work_ms:g} ms of loop work "
        "after each append"
    )
    head = ("appends/s", "p50 ms", "p99 ms", "max ms", "per commit", "read p50", "read p99")
    print(
        f"{'path':10} {head[0]:>10} {head[1]:>8} {head[2]:>8} {head[3]:>8} {head[4]:>11} "
        f"{head[5]:>9} {head[6]:>9}"
    )
    for name, r in rows.items():
        per = f"{r['per_commit']:.1f}" if "per_commit" in r else "1"
        print(
            f"{name:10} {r['appends_per_s']:10.0f} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} "
            f"{r['max_ms']:8.1f} {per:>11} {r['read_p50_ms']:9.1f} {r['read_p99_ms']:9.1f}"
        )
    if args.postgres == "auto":
        print("(postgres: a throwaway server with fsync off, on the same two cores)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--work-ms", type=float, default=0.2)
    parser.add_argument("--postgres", default="", help="a postgresql:// URL to measure too")
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
