"""The drawing pool fed by a busy event loop, at a fixed rate: how many pictures it draws and
how long each waits, for each number of drawings handed to a process at once (``DEPTH``), or
(``--homes``) with each drawing's table named as its home or not, and the drawing processes'
CPU a picture.

``benchmarks/bot.py`` is a closed loop (a faster bot makes its members move sooner, so the
load changes with what is measured); here the asks come at a set rate, the loop is kept as
busy as the bot's at 200 tables (it spins ``--busy`` of every ``--turn`` milliseconds, as
the bot's loop runs callbacks), and the settings are measured in turn, round after round, in
one run. Seat pictures of real games, each table's next moment, as a member's DM (with
``--homes``, also the next seat's and, every third moment, the channel's: the bot's mix).

    python benchmarks/drawing_pool.py --rate 120 --seconds 15 --depths 2 4 8
    python benchmarks/drawing_pool.py --homes --tables 200 --rate 150 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)

import bot.drawing
from benchmarks.bot import cpu_seconds, percentile
from bot.drawing import Drawing
from bot.rules.game import view as game_view
from renderer.samples import NAMES, played_hand


def _seat_views(tables: int, mix: bool = False) -> list[tuple[int, str, Any]]:
    """Each table's moments in turn (table 1's first, table 2's first, ...), as (table, kind,
    view): from the seat to play, what a member's DM shows, over as many tables as the bot
    draws for; with ``mix`` also the next seat's and every third moment the channel's."""
    hands = [played_hand("pung-chow", seed)[4:-1] for seed in range(200, 200 + tables)]
    longest = max(len(h) for h in hands)
    views: list[tuple[int, str, Any]] = []
    for i in range(longest):
        for table, hand in enumerate(hands):
            if i >= len(hand):
                continue
            state = hand[i]
            views.append((table, "seat_table", game_view(state, state.turn)))
            if mix:
                views.append((table, "seat_table", game_view(state, (state.turn + 1) % 4)))
                if i % 3 == 0:
                    views.append((table, "table", game_view(state, None)))
    return views


async def _busy_loop(busy_ms: float, turn_ms: float, stop: asyncio.Event) -> None:
    """Keep the loop as busy as the bot's: spin ``busy_ms`` of every ``turn_ms``."""
    while not stop.is_set():
        end = time.perf_counter() + busy_ms / 1000
        while time.perf_counter() < end:
            pass
        await asyncio.sleep(max(0.0, (turn_ms - busy_ms) / 1000))


async def measure(
    depth: int, views: list[tuple[int, str, Any]], args: argparse.Namespace, homes: bool = False
) -> dict:
    bot.drawing.DEPTH = depth  # read by the workers on every hand-over
    drawing = Drawing(args.processes, recycle_after=0)
    drawing.start()
    await drawing.ready()
    cpu = sum(cpu_seconds(pid) for pid in drawing.pids())
    stop = asyncio.Event()
    hog = asyncio.create_task(_busy_loop(args.busy, args.turn, stop))
    waits: list[float] = []
    loop = asyncio.get_running_loop()

    async def one(table: int, kind: str, view: object) -> None:
        asked = loop.time()
        await drawing.draw(kind, view, NAMES, lane="dm", home=table if homes else None)
        waits.append(loop.time() - asked)

    tasks: list[asyncio.Task[None]] = []
    start = loop.time()
    n = 0
    while (now := loop.time()) - start < args.seconds:
        due = int((now - start) * args.rate)
        while n < due:
            tasks.append(asyncio.create_task(one(*views[n % len(views)])))
            n += 1
        await asyncio.sleep(0.005)
    asked_for = len(tasks)
    drawn_in_time = len(waits)
    await asyncio.gather(*tasks)
    cpu = sum(cpu_seconds(pid) for pid in drawing.pids()) - cpu
    stop.set()
    await hog
    await drawing.close()
    return {
        "depth": depth,
        "cpu_ms_per_picture": round(1000 * cpu / max(1, asked_for), 2),
        "asked": asked_for,
        "drawn_per_s": round(drawn_in_time / args.seconds, 1),
        "wait_p50_s": round(percentile(waits, 50), 3),
        "wait_p99_s": round(percentile(waits, 99), 3),
    }


async def main_async(args: argparse.Namespace) -> None:
    views = _seat_views(args.tables, mix=args.homes)
    print(
        f"{len(views)} pictures of {args.tables} tables; asked {args.rate}/s for "
        f"{args.seconds} s; the loop busy {args.busy} of every {args.turn} ms; "
        f"{args.processes} processes"
    )
    for round_ in range(1, args.rounds + 1):
        if args.homes:
            for homes in (False, True):
                r = await measure(bot.drawing.DEPTH, views, args, homes)
                print(
                    f"round {round_}  {'a table, one process' if homes else 'any process':20}: "
                    f"drawn {r['drawn_per_s']}/s of {args.rate}/s asked, CPU a picture "
                    f"{r['cpu_ms_per_picture']} ms, wait p50 {r['wait_p50_s']} s, p99 "
                    f"{r['wait_p99_s']} s"
                )
            continue
        for depth in args.depths:
            r = await measure(depth, views, args)
            print(
                f"round {round_}  DEPTH {depth}: drawn {r['drawn_per_s']}/s of "
                f"{args.rate}/s asked, wait p50 {r['wait_p50_s']} s, p99 {r['wait_p99_s']} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=120, help="pictures asked a second")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--depths", type=int, nargs="*", default=[2, 4, 8])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--busy", type=float, default=8.0, help="ms the loop spins a turn")
    parser.add_argument("--turn", type=float, default=10.0, help="ms of a turn of the loop")
    parser.add_argument(
        "--homes",
        action="store_true",
        help="each table's drawings in one process or any, side by side (at the bot's DEPTH)",
    )
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
