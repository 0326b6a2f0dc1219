"""The bot under load: many tables playing at once over the fake Discord, in one process.

The real bot (discord.py, SQLite, the renderer) connects to the fake Discord of the tests
(``tests/fakediscord``) on 127.0.0.1. ``--tables`` tables open at once, each with
``--humans`` simulated members (who read their DMs and press the buttons after a thinking
time) and computer players in the other seats, at the bot's real pace (computer players wait
``COMPUTER_DELAY``, the table image is redrawn at most every 1.2 s, and so on) unless
``--fast``. For every interaction the members send, it measures the time from the fake
dispatching INTERACTION_CREATE to the fake receiving the bot's callback, and prints p50, p90,
p99 and the maximum (goal: p99 under 100 ms), with the throughput: interactions answered,
moves stored and Discord requests per second.

    python benchmarks/bot.py [--tables 50] [--humans 2] [--seconds 30] [--warmup 5]
                             [--think 0.3 1.5] [--fast] [--profile FILE]
                             [--drawing-processes N [N ...]]

``--drawing-processes 1 0`` measures the bot's drawing processes against drawing in threads,
one after the other in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import logging
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _path  # the repository first: this file is not the bot package

sys.path.insert(1, str(Path(_path.ROOT) / "tests"))  # the fake Discord of the tests

CALLBACK = re.compile(r"^/api/v10/interactions/(\d+)/[^/]+/callback$")


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class LoopWatch:
    """How late the event loop runs a 5 ms timer (it is late while anything blocks the loop),
    and how long the garbage collector's pauses are."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.gc_pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._gc_start = 0.0
        self.on = False
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        elif self.on:
            self.gc_pauses[info["generation"]].append((time.perf_counter() - self._gc_start) * 1000)

    async def watch(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            if self.on:
                self.lags.append((time.perf_counter() - before - 0.005) * 1000)


class Meter:
    """Interaction latencies, taken where Discord would see them: from the dispatch of
    INTERACTION_CREATE (the record's creation, just before it is sent on the gateway) to the
    arrival of the callback request."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.on = False
        self.latencies: list[float] = []
        self.kinds: dict[int, str] = {}
        self.by_kind: dict[str, list[float]] = {}
        handle = server.rest.handle

        async def timed(request: Any) -> Any:
            match = CALLBACK.match(request.path)
            if match and self.on:
                arrived = server.loop_time()
                record = server.state.interactions.get(int(match.group(1)))
                if record is not None:
                    ms = (arrived - record.created_at) * 1000
                    self.latencies.append(ms)
                    kind = _kind(record)
                    self.by_kind.setdefault(kind, []).append(ms)
            return await handle(request)

        server.rest.handle = timed  # before the server starts: the router binds it then


def _kind(record: Any) -> str:
    if record.type == 2:
        return "/" + record.data.get("name", "?")
    custom_id = str(record.data.get("custom_id", ""))
    parts = custom_id.split(":")
    return f"button {parts[3] if len(parts) > 3 and parts[2].isdigit() else parts[2]}"


async def run(args: argparse.Namespace) -> int:
    from fakediscord import FakeDiscord
    from fakediscord.runner import BotRunner

    from bot.app import MahjongBot
    from bot.config import Settings
    from tests.e2e.harness import lobby_id
    from tests.e2e.players import SimPlayer

    rng = random.Random(args.seed)
    if args.no_render:
        _stub_renderer()
    server = FakeDiscord()
    meter = Meter(server)
    folder = Path(tempfile.mkdtemp(prefix="mahjong-bench-"))
    async with server.running():
        owner = server.create_user("owner")
        guild = server.create_guild("Benchmark Club", owner=owner)
        from fakediscord.world import BOT_PERMISSIONS

        role = server.state.create_role(guild, "Mahjong Bot", BOT_PERMISSIONS, managed=True)
        server.add_member(guild, server.bot_user, [role])
        tables = []
        for t in range(args.tables):
            channel = server.create_text_channel(guild, f"table-{t}")
            users = [server.create_user(f"p{t}-{h}") for h in range(args.humans)]
            for u in users:
                server.add_member(guild, u)
            tables.append((channel, users))
        settings = Settings(
            token="bench",
            database=folder / "db.sqlite3",
            dev_guild=None,
            log_level="WARNING",
            drawing_processes=args.drawing_processes,
        )
        bot = MahjongBot(settings)
        runner = BotRunner(server)
        await runner.start(bot)
        service = bot.services.tables
        if args.fast:
            service.computer_delay = 0
            service.next_hand_delay = 0.05
            service.notifier.min_edit_gap = 0.05
            service.notifier.dm_gap = 0.02
        else:
            service.next_hand_delay = 2.0  # the real 8 s only idles the tables

        async def open_one(channel: Any, users: list[Any]) -> None:
            host, guests = users[0], users[1:]
            handle = await host.slash(
                channel, "mahjong new", computer_players=4 - len(users), hands=64
            )
            lobby = await handle.reply(timeout=30)
            for guest in guests:
                await (await guest.click(lobby, lobby_id(lobby, "join"))).ack(timeout=30)
            await (await host.click(lobby, lobby_id(lobby, "start"))).ack(timeout=30)

        began = time.perf_counter()
        await asyncio.gather(*(open_one(c, u) for c, u in tables))
        print(f"{args.tables} tables opened in {time.perf_counter() - began:.1f} s")
        low, high = args.think
        players = [
            SimPlayer(
                u,
                c,
                patient=True,
                ack_timeout=10,
                think=lambda: rng.uniform(low, high),
                poll=0.05,
            )
            for c, users in tables
            for u in users
        ]
        watch = LoopWatch()
        watcher = asyncio.create_task(watch.watch())
        stop = asyncio.Event()
        tasks = [asyncio.create_task(p.play(stop.is_set, timeout=3600)) for p in players]
        await asyncio.sleep(args.warmup)
        events_before = _events(settings.database)
        requests_before = len(server.requests)
        meter.on = watch.on = True
        profiler = cProfile.Profile() if args.profile else None
        if profiler:
            profiler.enable()
        began = time.perf_counter()
        await asyncio.sleep(args.seconds)
        elapsed = time.perf_counter() - began
        meter.on = watch.on = False
        if profiler:
            profiler.disable()
            profiler.dump_stats(args.profile)
        events = _events(settings.database) - events_before
        requests = len(server.requests) - requests_before
        stop.set()
        watcher.cancel()
        # Let the presses in flight be answered before the bot closes.
        await asyncio.wait(tasks, timeout=15)
        for task in tasks:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*tasks, watcher, return_exceptions=True)
        await service.notifier.drain()
        await runner.close_all()
    lat = meter.latencies
    print(
        f"{args.tables} tables x {args.humans} members (+{4 - args.humans} computer players), "
        f"{'fast' if args.fast else 'real'} pace, think {low}-{high} s, {elapsed:.0f} s measured, "
        f"images drawn in {_drawn_in(args.drawing_processes)}"
    )
    print(
        f"interaction -> callback: n={len(lat)}  p50 {percentile(lat, 50):.1f} ms  "
        f"p90 {percentile(lat, 90):.1f} ms  p99 {percentile(lat, 99):.1f} ms  "
        f"max {max(lat, default=float('nan')):.1f} ms  "
        f"mean {statistics.fmean(lat) if lat else float('nan'):.1f} ms"
    )
    for kind, values in sorted(meter.by_kind.items()):
        print(
            f"  {kind:<16} n={len(values):<6} p50 {percentile(values, 50):6.1f}  "
            f"p99 {percentile(values, 99):6.1f}"
        )
    print(
        f"throughput: {len(lat) / elapsed:.1f} interactions/s, {events / elapsed:.1f} moves "
        f"stored/s, {requests / elapsed:.1f} Discord requests/s"
    )
    lags = watch.lags
    print(
        f"event loop lateness: p50 {percentile(lags, 50):.1f} ms  p99 {percentile(lags, 99):.1f}"
        f" ms  max {max(lags, default=0):.1f} ms"
    )
    for generation, pauses in watch.gc_pauses.items():
        if pauses:
            print(
                f"gc generation {generation}: {len(pauses)} pauses, max {max(pauses):.1f} ms, "
                f"total {sum(pauses):.0f} ms"
            )
    refused = sum(1 for p in players for c in p.clicks if c.ack == 4)
    print(f"presses refused (stale after thinking): {refused}")
    ok = percentile(lat, 99) < 100
    print(f"goal p99 < 100 ms: {'met' if ok else 'NOT met'}")
    return 0


def _drawn_in(processes: int) -> str:
    return f"{processes} drawing process{'es' if processes > 1 else ''}" if processes else "threads"


def _stub_renderer() -> None:
    from PIL import Image

    import renderer
    from renderer.encode import png_bytes

    tiny = png_bytes(Image.new("RGB", (1, 1)))
    renderer.render_table = lambda *a, **k: tiny
    renderer.render_hand = lambda *a, **k: tiny
    renderer.render_score_card = lambda *a, **k: tiny


def _events(database: Path) -> int:
    with contextlib.closing(sqlite3.connect(database, timeout=10)) as db:
        return db.execute("SELECT COUNT(*) FROM events WHERE kind = 'action'").fetchone()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--humans", type=int, default=2, choices=(1, 2, 3, 4))
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--think", type=float, nargs=2, default=(0.3, 1.5))
    parser.add_argument("--fast", action="store_true", help="no pauses for people to follow")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a cProfile of the measured time to this file")
    parser.add_argument(
        "--drawing-processes",
        type=int,
        nargs="+",
        default=[1],
        metavar="N",
        help="drawing processes (0: threads); several values run one after another, to compare",
    )
    parser.add_argument(
        "--no-render",
        action="store_true",
        help="diagnosis: draw every image as a 1x1 PNG, to see the cost of the drawing",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("discord").setLevel(logging.ERROR)
    for processes in args.drawing_processes:
        asyncio.run(run(argparse.Namespace(**{**vars(args), "drawing_processes": processes})))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
