"""Memory over a long evening: does the bot's memory stay flat while tables come and go?

The real bot runs in its own process (as in ``benchmarks/bot.py``) against the fake Discord.
``--tables`` channels each hold a short game (``--hands``, two simulated members and two
computer players); when a game ends, its host opens the next one in the same channel at once,
so over an hour hundreds of tables start, finish and must be let go. Every ``--every``
seconds it prints the bot's resident memory, its drawing processes' memory, and how many games
have finished; at the end, the growth after the warm-up (the first ``--warmup`` seconds,
while caches fill) in MB per 10 minutes, and the verdict against ``--flat`` MB.

    python benchmarks/soak.py [--tables 50] [--minutes 60] [--hands 2] [--json]

The machine is shared: memory figures do not depend on its load, the number of games does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import json
import logging
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _path  # the repository first: this file is not the bot package

sys.path.insert(1, str(Path(_path.ROOT) / "tests"))  # the fake Discord of the tests


def _bench() -> Any:
    """benchmarks/bot.py (its module name would clash with the ``bot`` package)."""
    spec = importlib.util.spec_from_file_location("bench_bot", Path(__file__).with_name("bot.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_bot"] = module
    spec.loader.exec_module(module)
    return module


bench = _bench()


def finished_games(database: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        db.execute("PRAGMA busy_timeout = 5000")
        return db.execute("SELECT COUNT(*) FROM tables WHERE status = 'finished'").fetchone()[0]


def open_game(database: Path, channel_id: int) -> bool:
    """Whether the channel (or the thread opened from it) has a table that has not ended."""
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        db.execute("PRAGMA busy_timeout = 5000")
        row = db.execute(
            "SELECT COUNT(*) FROM tables WHERE status IN ('lobby', 'playing')"
            " AND (channel_id = ? OR home_channel_id = ?)",
            (channel_id, channel_id),
        ).fetchone()
    return bool(row[0])


async def host_games(
    channel: Any, users: list[Any], database: Path, hands: int, stop: asyncio.Event
) -> None:
    """Open a game in ``channel``; when it has ended, open the next."""
    while not stop.is_set():
        try:
            await bench.open_game(channel, users, hands)
        except Exception as exc:  # told; tried again in a moment
            logging.warning("a table did not open in %s: %r", channel.name, exc)
            await asyncio.sleep(5)
            continue
        await asyncio.sleep(2)
        while not stop.is_set() and await asyncio.to_thread(open_game, database, channel.id):
            await asyncio.sleep(2)
        await asyncio.sleep(1)


class FakeWatch:
    """How this process (the fake Discord and the simulated members) keeps up: its longest
    full pass of the garbage collector and its loop's longest lateness since the last sample.
    A stall here delays every interaction's answer as the fake measures it, whatever the bot
    did, so a late acknowledgement is only the bot's when this process was keeping up."""

    def __init__(self) -> None:
        self.gc_ms = 0.0
        self.lag_ms = 0.0
        self._gc_began = 0.0

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._gc_began = time.perf_counter()
        else:
            self.gc_ms = max(self.gc_ms, (time.perf_counter() - self._gc_began) * 1000)

    async def watch_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            asked = time.perf_counter()
            await asyncio.sleep(0.1)
            self.lag_ms = max(self.lag_ms, (time.perf_counter() - asked - 0.1) * 1000)

    def take(self) -> tuple[float, float]:
        taken = (self.gc_ms, self.lag_ms)
        self.gc_ms = self.lag_ms = 0.0
        return taken


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    server = bench.benchmark_fake()
    folder = Path(tempfile.mkdtemp(prefix="mahjong-soak-"))
    args.no_render = False
    args.drawing_processes = None
    bot = bench.BotProcess(server, folder, args)
    samples: list[tuple[float, float, float, int]] = []
    stop = asyncio.Event()
    tasks: list[asyncio.Task[Any]] = []
    watch = FakeWatch()
    late_seen = 0
    async with server.running():
        world = bench.build_world(server, args.tables, 2)
        gc.callbacks.append(watch.on_gc)
        try:
            await bot.start()
            low, high = args.think
            players = [
                bench.simulated_member(u, c, lambda: rng.uniform(low, high))
                for c, users in world.tables
                for u in users
            ]
            tasks = [asyncio.create_task(p.play(stop.is_set, timeout=86400)) for p in players]
            tasks += [
                asyncio.create_task(host_games(c, u, bot.database, args.hands, stop))
                for c, u in world.tables
            ]
            tasks.append(asyncio.create_task(watch.watch_loop(stop)))
            began = time.monotonic()
            end = began + args.minutes * 60
            while time.monotonic() < end:
                await asyncio.sleep(min(args.every, max(0.0, end - time.monotonic())))
                server.requests.clear()  # the fake's own record of requests: not the bot's
                at = time.monotonic() - began
                games = await asyncio.to_thread(finished_games, bot.database)
                rss = bench.rss_mb(bot.pid)
                drawing = sum(bench.rss_mb(c) for c in bot.children())
                samples.append((at, rss, drawing, games))
                line = {"minute": round(at / 60, 1), "rss_mb": round(rss, 1)}
                line |= {"rss_drawing_mb": round(drawing, 1), "games_finished": games}
                late = sum("answered after" in p for p in server.problems)
                gc_ms, lag_ms = watch.take()
                fake_mb = bench.rss_mb(os.getpid())
                line |= {"late_acks": late - late_seen, "fake_rss_mb": round(fake_mb, 1)}
                line |= {"fake_gc_max_ms": round(gc_ms), "fake_loop_lag_max_ms": round(lag_ms)}
                late_seen = late
                print(json.dumps(line) if args.json else _sample_text(line), flush=True)
                bench.settle_harness_heap()
        finally:
            await bench.stop_players(stop, tasks)
            await bot.stop()
            gc.callbacks.remove(watch.on_gc)
    return verdict(samples, args)


def _sample_text(line: dict[str, Any]) -> str:
    return (
        f"  {line['minute']:5.1f} min  bot {line['rss_mb']:6.1f} MB  "
        f"drawing {line['rss_drawing_mb']:6.1f} MB  games finished {line['games_finished']}  "
        f"late acks {line['late_acks']}  fake {line['fake_rss_mb']:6.1f} MB, "
        f"longest GC {line['fake_gc_max_ms']} ms, loop late {line['fake_loop_lag_max_ms']} ms"
    )


def slope_per_10_min(points: list[tuple[float, float]]) -> float:
    """Least-squares growth in MB per 10 minutes."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    if not var:
        return float("nan")
    return sum((x - mx) * (y - my) for x, y in points) / var * 600


def verdict(samples: list[tuple[float, float, float, int]], args: argparse.Namespace) -> dict:
    after = [s for s in samples if s[0] >= args.warmup]
    bot_points = [(s[0], s[1]) for s in after]
    drawing_points = [(s[0], s[2]) for s in after]
    bot_slope = slope_per_10_min(bot_points)
    first, last = (after[0], after[-1]) if after else (None, None)
    return {
        "tables": args.tables,
        "minutes": args.minutes,
        "games_finished": samples[-1][3] if samples else 0,
        "rss_after_warmup_mb": round(first[1], 1) if first else None,
        "rss_end_mb": round(last[1], 1) if last else None,
        "rss_max_mb": round(max((s[1] for s in after), default=0.0), 1),
        "growth_mb_per_10_min": round(bot_slope, 2),
        "drawing_growth_mb_per_10_min": round(slope_per_10_min(drawing_points), 2),
        "flat": bool(bot_slope == bot_slope and abs(bot_slope) <= args.flat),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--every", type=float, default=60.0, help="seconds between samples")
    parser.add_argument("--warmup", type=float, default=600.0, help="seconds before judging")
    parser.add_argument("--flat", type=float, default=2.0, help="MB per 10 min that is flat")
    parser.add_argument("--think", type=float, nargs=2, default=(0.3, 1.5))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("discord").setLevel(logging.ERROR)
    result = asyncio.run(soak(args))
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['tables']} tables, {result['minutes']} min, "
            f"{result['games_finished']} games finished; bot RSS after warm-up "
            f"{result['rss_after_warmup_mb']} MB, at the end {result['rss_end_mb']} MB, "
            f"max {result['rss_max_mb']} MB; growth {result['growth_mb_per_10_min']} MB per "
            f"10 min (drawing {result['drawing_growth_mb_per_10_min']}): "
            + ("flat" if result["flat"] else "NOT flat")
        )
    return 0 if result["flat"] else 1


if __name__ == "__main__":
    sys.exit(main())
