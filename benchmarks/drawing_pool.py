"""The drawing pool fed by a busy event loop, at a fixed rate: how many pictures it draws and
how long each waits, for each number of drawings handed to a process at once (``DEPTH``).

``benchmarks/bot.py`` is a closed loop (a faster bot makes its members move sooner, so the
load changes with what is measured); here the asks come at a set rate, the loop is kept as
busy as the bot's at 200 tables (it spins ``--busy`` of every ``--turn`` milliseconds, as
the bot's loop runs callbacks), and the settings are measured in turn, round after round, in
one run. Seat pictures of real games, each table's next moment, as a member's DM.

    python benchmarks/drawing_pool.py --rate 120 --seconds 15 --depths 2 4 8
"""

from __future__ import annotations

import argparse
import asyncio
import time

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)

import bot.drawing
from benchmarks.bot import percentile
from bot.drawing import Drawing
from bot.rules.game import view as game_view
from renderer.samples import NAMES, played_hand


def _seat_views(tables: int) -> list[object]:
    """Each table's moments in turn (table 1's first, table 2's first, ...), from the seat to
    play: what a member's DM shows, over as many tables as the bot draws for."""
    hands = [played_hand("pung-chow", seed)[4:-1] for seed in range(200, 200 + tables)]
    longest = max(len(h) for h in hands)
    return [game_view(h[i], h[i].turn) for i in range(longest) for h in hands if i < len(h)]


async def _busy_loop(busy_ms: float, turn_ms: float, stop: asyncio.Event) -> None:
    """Keep the loop as busy as the bot's: spin ``busy_ms`` of every ``turn_ms``."""
    while not stop.is_set():
        end = time.perf_counter() + busy_ms / 1000
        while time.perf_counter() < end:
            pass
        await asyncio.sleep(max(0.0, (turn_ms - busy_ms) / 1000))


async def measure(depth: int, views: list[object], args: argparse.Namespace) -> dict:
    bot.drawing.DEPTH = depth  # read by the workers on every hand-over
    drawing = Drawing(args.processes, recycle_after=0)
    drawing.start()
    await drawing.ready()
    stop = asyncio.Event()
    hog = asyncio.create_task(_busy_loop(args.busy, args.turn, stop))
    waits: list[float] = []
    loop = asyncio.get_running_loop()

    async def one(view: object) -> None:
        asked = loop.time()
        await drawing.draw("seat_table", view, NAMES, lane="dm")
        waits.append(loop.time() - asked)

    tasks: list[asyncio.Task[None]] = []
    start = loop.time()
    n = 0
    while (now := loop.time()) - start < args.seconds:
        due = int((now - start) * args.rate)
        while n < due:
            tasks.append(asyncio.create_task(one(views[n % len(views)])))
            n += 1
        await asyncio.sleep(0.005)
    asked_for = len(tasks)
    drawn_in_time = len(waits)
    await asyncio.gather(*tasks)
    stop.set()
    await hog
    await drawing.close()
    return {
        "depth": depth,
        "asked": asked_for,
        "drawn_per_s": round(drawn_in_time / args.seconds, 1),
        "wait_p50_s": round(percentile(waits, 50), 3),
        "wait_p99_s": round(percentile(waits, 99), 3),
    }


async def main_async(args: argparse.Namespace) -> None:
    views = _seat_views(args.tables)
    print(
        f"{len(views)} seat pictures of {args.tables} tables; asked {args.rate}/s for "
        f"{args.seconds} s; the loop busy {args.busy} of every {args.turn} ms; "
        f"{args.processes} processes"
    )
    for round_ in range(1, args.rounds + 1):
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
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
