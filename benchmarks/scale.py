"""How many tables one bot process holds, on SQLite and on PostgreSQL with 1, 2 and 3
processes, side by side in one run (issue 15).

"Holds" means: at that many tables per process, the members' presses are answered at p99
within 100 ms (from the fake dispatching INTERACTION_CREATE to the bot's answer to it, the
interaction callback: in one process it comes once the move is committed) and no interaction
waited for its answer more than Discord's 3 s. A press handed to another process is answered
at once and its move committed there afterwards, so the answer alone would flatter several
processes: the table also gives "shown", from the press to the clicked message edited with the
seat's new picture and controls (the move taken, the picture drawn), for every configuration.

For each configuration and each count of ``--tables`` per process (the total is that times
the processes), the real bot runs as ``benchmarks/bot_process.py`` processes (one shard each,
MAHJONG_GLOBAL_RATE = 45 / processes) against the fake Discord of the tests, sharded like
Discord (DMs and their presses to shard 0), with ``--humans`` simulated members a table
playing from their DMs and computer players in the other seats (``benchmarks/bot.py``'s world
and players). After ``--warmup`` seconds it measures ``--seconds``: answers and "shown"
(p50/p99, over 3 s), Discord requests/s outside interaction answers, and the CPU of each bot
process (its drawing processes apart), of PostgreSQL and of this process (the fake and the
members).

"Saturates first" is read off the first count that fails: the bot process's event loop (one
core) near 100 %, the drawing processes near the machine's cores, PostgreSQL, Discord's global
budget, or this benchmark's own process (the fake and every member run in it: on a small
machine the harness competes with the bot).

    python benchmarks/scale.py [--tables 5 10 20 40] [--configs sqlite:1 postgres:1 postgres:2
                               postgres:3] [--humans 1] [--seconds 20] [--warmup 6]
                               [--postgres URL|auto] [--json]

``--postgres auto`` (the default) starts a throwaway server (Debian's ``postgresql``, fsync
off, as the tests do); a URL uses that server (each run creates and drops a database there).
The machine is shared: the figures move with whatever else runs (say so with them).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import _path  # the repository first

from benchmarks import bot as bench  # the Meter, the bot's process, the world and players

sys.path.insert(1, str(Path(_path.ROOT) / "tests"))

REPLY_GOAL_MS = 100.0  # the answer's p99
ORIGINAL = re.compile(r"^/api/v10/webhooks/\d+/([^/]+)/messages/@original$")
BUDGET = 45.0  # what one process paces itself to; shared between processes


class Replies(bench.Meter):
    """The Meter of benchmarks/bot.py (acknowledgements), plus each press's reply: the answer
    that shows the move (a message answer or update, or the first edit of the clicked message
    through the interaction's token after a deferral)."""

    def __init__(self, server: Any) -> None:
        super().__init__(server)
        self.replies: list[float] = []
        self._replied: set[int] = set()
        self._by_token: dict[str, Any] = {}
        handle = server.rest.handle

        async def timed(request: Any) -> Any:
            response = await handle(request)
            self._reply(request, server.loop_time())
            return response

        server.rest.handle = timed

    def _record_of(self, token: str) -> Any:
        record = self._by_token.get(token)
        if record is None:
            self._by_token = {r.token: r for r in self.server.state.interactions.values()}
            record = self._by_token.get(token)
        return record

    def _reply(self, request: Any, at: float) -> None:
        record = None
        match = bench.CALLBACK.match(request.path)
        if match:
            record = self.server.state.interactions.get(int(match.group(1)))
            if record is None or record.callback_type not in (4, 7):
                return  # a deferral: the reply is the edit that follows
        else:
            match = ORIGINAL.match(request.path)
            if match is None or request.method != "PATCH":
                return
            record = self._record_of(match.group(1))
        if record is None or record.id in self._replied:
            return
        self._replied.add(record.id)
        if self.on and record.type == 3:
            self.replies.append((at - record.created_at) * 1000)


class ScaleBot(bench.BotProcess):
    """One bot process of a configuration: its database, its shard, its share of the budget."""

    def __init__(
        self, server: Any, folder: Path, args: argparse.Namespace, database: Any, env: dict
    ) -> None:
        super().__init__(server, folder, args)
        self.database = database
        self.env = env

    async def start(self, timeout: float = 120.0) -> float:
        saved = dict(os.environ)
        os.environ.update(self.env)
        try:
            return await super().start(timeout)
        finally:
            os.environ.clear()
            os.environ.update(saved)


def guilds_on_shards(server: Any, count: int) -> list[Any]:
    from fakediscord.world import BOT_PERMISSIONS

    owner = server.create_user("owner")
    guilds = []
    for shard in range(count):
        while True:
            guild = server.create_guild(f"Club {shard}", owner=owner)
            if (guild.id >> 22) % count == shard:
                break
            del server.state.guilds[guild.id]
        role = server.state.create_role(guild, "Mahjong Bot", BOT_PERMISSIONS, managed=True)
        server.add_member(guild, server.bot_user, [role])
        guilds.append(guild)
    return guilds


def build_world(server: Any, guilds: list[Any], per_guild: int, humans: int) -> bench.World:
    """``per_guild`` tables in each server (so each process runs as many)."""
    tables = [
        bench.add_table(server, guild, f"{g}-{t}", humans)
        for g, guild in enumerate(guilds)
        for t in range(per_guild)
    ]
    return bench.World(server, guilds[0], tables, [u for _, users in tables for u in users])


def postgres_cpu(server: Any) -> float:
    """CPU seconds of the PostgreSQL server and its backends (0 when it is not ours)."""
    if server is None:
        return 0.0
    with contextlib.suppress(OSError, ValueError):
        pid = int((server.data / "postmaster.pid").read_text().split()[0])
        return bench.cpu_seconds(pid) + sum(bench.cpu_seconds(c) for c in bench._children(pid))
    return 0.0


async def measure(
    kind: str, processes: int, per_process: int, args: argparse.Namespace, pg: Any
) -> dict[str, Any]:
    rng = random.Random(args.seed)
    server = bench.benchmark_fake()
    server.gateway.shard_count = processes
    meter = Replies(server)
    folder = Path(tempfile.mkdtemp(prefix=f"mahjong-scale-{kind}-{processes}-{per_process}-"))
    database: Any = folder / "db.sqlite3"
    if kind == "postgres":
        database = await pg.database()
    result: dict[str, Any] = {
        "store": kind,
        "processes": processes,
        "tables_per_process": per_process,
    }
    bots = []
    for shard in range(processes):
        env = {"MAHJONG_GLOBAL_RATE": f"{BUDGET / processes:g}"}
        if processes > 1:
            env |= {"MAHJONG_SHARDS": str(shard), "MAHJONG_SHARD_COUNT": str(processes)}
        sub = folder / f"shard-{shard}"
        sub.mkdir()
        bots.append(ScaleBot(server, sub, args, database, env))
    async with server.running():
        guilds = guilds_on_shards(server, processes)
        world = build_world(server, guilds, per_process, args.humans)
        tasks: list[asyncio.Task[Any]] = []
        stop = asyncio.Event()
        try:
            await asyncio.gather(*(b.start() for b in bots))
            opened = await bench.open_tables(world)
            result["tables_opened"] = opened
            low, high = args.think
            players = [
                bench.simulated_member(u, c, lambda: rng.uniform(low, high))
                for c, users in world.tables
                for u in users
            ]
            tasks = [asyncio.create_task(p.play(stop.is_set, timeout=3600)) for p in players]
            await asyncio.sleep(args.warmup)
            result.update(await window(server, meter, bots, pg, args))
        finally:
            await bench.stop_players(stop, tasks)
            await asyncio.gather(*(b.stop() for b in bots))
            if kind == "postgres":
                await pg.drop(database)
    shown = meter.replies
    result.update(
        shown_p50_ms=bench._round(bench.percentile(shown, 50), 1),
        shown_p99_ms=bench._round(bench.percentile(shown, 99), 1),
        shown=len(shown),
    )
    result["holds"] = bool(
        result["acks"]
        and result["ack_p99_ms"] is not None
        and result["ack_p99_ms"] <= REPLY_GOAL_MS
        and result["acks_over_3s"] == 0
    )
    return result


async def window(
    server: Any, meter: Replies, bots: list[ScaleBot], pg: Any, args: argparse.Namespace
) -> dict[str, Any]:
    mine = os.getpid()
    pids = [b.pid for b in bots]
    before = [bench.cpu_seconds(p) for p in pids]
    drawing_before = sum(bench.cpu_seconds(c) for b in bots for c in b.children())
    own_before, pg_before = bench.cpu_seconds(mine), postgres_cpu(pg.server if pg else None)
    begin = server.loop_time()
    first = len(meter.requests)
    meter.on = True
    await asyncio.sleep(args.seconds)
    meter.on = False
    seconds = server.loop_time() - begin
    after = [bench.cpu_seconds(p) for p in pids]
    drawing_after = sum(bench.cpu_seconds(c) for b in bots for c in b.children())
    requests = meter.requests[first:]
    outside = sum(1 for r in requests if not r.exempt)
    lat = meter.latencies
    return {
        "seconds": round(seconds, 1),
        "ack_p50_ms": bench._round(bench.percentile(lat, 50), 1),
        "ack_p99_ms": bench._round(bench.percentile(lat, 99), 1),
        "acks": len(lat),
        "acks_over_3s": sum(1 for ms in lat if ms > bench.LATE_MS),
        "requests_per_s": round(outside / seconds, 1),
        "cpu_bot_pct": [round((a - b) / seconds * 100) for a, b in zip(after, before, strict=True)],
        "cpu_drawing_pct": round((drawing_after - drawing_before) / seconds * 100),
        "cpu_postgres_pct": round(
            (postgres_cpu(pg.server if pg else None) - pg_before) / seconds * 100
        ),
        "cpu_fake_and_members_pct": round((bench.cpu_seconds(mine) - own_before) / seconds * 100),
    }


class Postgres:
    """The PostgreSQL server of the run: a throwaway one (``auto``) or the given URL's."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.server: Any = None
        self.count = 0

    async def start(self) -> None:
        if self.url != "auto":
            return
        from tests.store.postgres_server import HOW_TO_GET, PostgresServer, find_binaries

        binaries = find_binaries()
        if binaries is None:
            raise SystemExit(HOW_TO_GET)
        self.server = PostgresServer(binaries)
        self.server.start()
        self.url = self.server.url()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()

    async def database(self) -> str:
        import asyncpg

        self.count += 1
        name = f"scale_{os.getpid()}_{self.count}"
        admin = await asyncpg.connect(self.url)
        try:
            await admin.execute(f"CREATE DATABASE {name}")
        finally:
            await admin.close()
        return self.url.rsplit("/", 1)[0] + "/" + name

    async def drop(self, url: str) -> None:
        import asyncpg

        admin = await asyncpg.connect(self.url)
        try:
            await admin.execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")
        finally:
            await admin.close()


def saturated(row: dict[str, Any]) -> str:
    """The resource nearest its limit in a run that did not hold."""
    cores = os.cpu_count() or 1
    loads = {
        "a bot process's event loop (one core)": max(row["cpu_bot_pct"]) / 100,
        "the drawing processes": row["cpu_drawing_pct"] / (100 * cores),
        "PostgreSQL": row["cpu_postgres_pct"] / (100 * cores),
        "Discord's global budget": row["requests_per_s"] / BUDGET,
        "the benchmark's own process (fake + members)": row["cpu_fake_and_members_pct"] / 100,
    }
    total = (
        sum(row["cpu_bot_pct"])
        + row["cpu_drawing_pct"]
        + row["cpu_postgres_pct"]
        + row["cpu_fake_and_members_pct"]
    ) / (100 * cores)
    name, value = max(loads.items(), key=lambda kv: kv[1])
    return f"{name} ({value:.0%}); the machine's {cores} cores {total:.0%} busy"


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    if args.json:
        for row in rows:
            print(json.dumps(row), flush=True)
        return
    print(
        f"\n{'store':9} {'proc':>4} {'tables/proc':>11} {'acks':>5} {'ack p50':>8} "
        f"{'ack p99':>8} {'shown p50':>9} {'shown p99':>9} {'acks>3s':>7} {'req/s':>6} "
        f"{'cpu bots %':>14} {'draw %':>6} {'pg %':>5} {'fake %':>6}  holds"
    )
    for r in rows:
        print(
            f"{r['store']:9} {r['processes']:>4} {r['tables_per_process']:>11} {r['acks']:>5} "
            f"{r['ack_p50_ms']!s:>8} {r['ack_p99_ms']!s:>8} {r['shown_p50_ms']!s:>9} "
            f"{r['shown_p99_ms']!s:>9} {r['acks_over_3s']:>7} "
            f"{r['requests_per_s']:>6} {'/'.join(map(str, r['cpu_bot_pct'])):>14} "
            f"{r['cpu_drawing_pct']:>6} {r['cpu_postgres_pct']:>5} "
            f"{r['cpu_fake_and_members_pct']:>6}  {'yes' if r['holds'] else 'no'}"
        )
    print()
    configs = sorted(
        {(r["store"], r["processes"]) for r in rows}, key=lambda c: (c[0] != "sqlite", c[1])
    )
    for store, processes in configs:
        mine = [r for r in rows if (r["store"], r["processes"]) == (store, processes)]
        held = [r["tables_per_process"] for r in mine if r["holds"]]
        failed = [r for r in mine if not r["holds"]]
        line = f"{store} x{processes}: holds {max(held) if held else 'none of the counts tried'}"
        line += " tables a process" if held else ""
        if failed:
            line += f"; at {failed[0]['tables_per_process']}: {saturated(failed[0])}"
        print(line)


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    configs = []
    for text in args.configs:
        kind, _, count = text.partition(":")
        configs.append((kind, int(count or 1)))
    pg = Postgres(args.postgres) if any(k == "postgres" for k, _ in configs) else None
    rows: list[dict[str, Any]] = []
    if pg is not None:
        await pg.start()
    try:
        for kind, processes in configs:
            for per_process in args.tables:
                row = await measure(kind, processes, per_process, args, pg)
                rows.append(row)
                if not args.json:
                    print(
                        f"{kind} x{processes}, {per_process} tables each: {row['acks']} acks, "
                        f"p99 {row['ack_p99_ms']} ms, over 3 s {row['acks_over_3s']}; shown "
                        f"p99 {row['shown_p99_ms']} ms; cpu {row['cpu_bot_pct']} %",
                        flush=True,
                    )
                if not row["holds"] and not args.all:
                    break  # more tables will not hold either
    finally:
        if pg is not None:
            pg.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="*", default=[5, 10, 20, 40])
    parser.add_argument(
        "--configs", nargs="*", default=["sqlite:1", "postgres:1", "postgres:2", "postgres:3"]
    )
    parser.add_argument("--humans", type=int, default=1, choices=(1, 2, 3, 4))
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--warmup", type=float, default=6)
    parser.add_argument("--think", type=float, nargs=2, default=(0.3, 1.5))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", default="auto", help="auto, or a postgresql:// URL")
    parser.add_argument("--drawing-processes", type=int, default=None)
    parser.add_argument("--all", action="store_true", help="try every count even after a miss")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.no_render = False
    with contextlib.suppress(KeyboardInterrupt):
        report(asyncio.run(run(args)), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
