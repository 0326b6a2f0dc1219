"""A burst of commands: how many are acknowledged later than Discord's 3 s (issue 16 item 7).

The real bot (discord.py, SQLite, the drawing processes) connects to the fake Discord of the
tests. ``--members`` members fire ``--count`` slash commands within ``--within`` seconds,
mixed as a busy server would (``/chips``, ``/score``, ``/stats``, ``/history``,
``/leaderboard``, ``/rules``, ``/settle``), after a warm-up that puts hands in the ledger.
For each it measures the time from the fake dispatching INTERACTION_CREATE to the bot's
first callback (the acknowledgement), and prints how many came later than 3 s (goal: 0),
p50, p99 and the maximum, per command too.

The members, the fake Discord and the bot share one process and one event loop here, so the
figures include the fake's own work on the burst (it needs ~1.5 s just to dispatch 500):
an upper bound of what the bot alone would take.

    python benchmarks/burst.py [--count 500] [--within 0.2] [--members 50]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _path  # the repository first: benchmarks/bot.py is not the bot package

sys.path.insert(1, str(Path(_path.ROOT) / "tests"))  # the fake Discord of the tests

from benchmarks.bot import Meter, percentile

LATE_MS = 3000
HANDS = [
    "123m 456m 789s 55s 22p win 2p from W",
    "111s 444s 789s 22z {4444z} win 2z self-draw",
    "123m 456m 789s 55s 22p",
    "111m 999m 111p 99p 11z win 1z self-draw",
]


def commands(rng: random.Random, members: list[Any], count: int) -> list[tuple[Any, str, dict]]:
    """``count`` commands: half /chips and /score (the issue's burst), the rest mixed."""
    out = []
    for i in range(count):
        user = members[i % len(members)]
        other = members[(i + 1) % len(members)]
        roll = i % 10
        if roll < 3:
            out.append((user, "chips", {}))
        elif roll < 6:
            out.append((user, "score", {"hand": rng.choice(HANDS), "seat": "S"}))
        elif roll == 6:
            out.append((user, "stats", {}))
        elif roll == 7:
            out.append((user, "leaderboard", {"metric": "wins", "period": "week"}))
        elif roll == 8:
            out.append((user, "rules", {"topic": "washing"}))
        else:
            options = {"east_score": "48", "south_score": "8"}
            out.append((user, "settle", {"winner": user, "east": user, "south": other, **options}))
    rng.shuffle(out)
    return out


async def run(args: argparse.Namespace) -> int:
    from fakediscord import FakeDiscord
    from fakediscord.runner import BotRunner
    from fakediscord.world import BOT_PERMISSIONS

    from bot.app import MahjongBot
    from bot.config import Settings

    rng = random.Random(args.seed)
    server = FakeDiscord()
    meter = Meter(server)
    folder = Path(tempfile.mkdtemp(prefix="mahjong-burst-"))
    async with server.running():
        owner = server.create_user("owner")
        guild = server.create_guild("Burst Club", owner=owner)
        role = server.state.create_role(guild, "Mahjong Bot", BOT_PERMISSIONS, managed=True)
        server.add_member(guild, server.bot_user, [role])
        channel = server.create_text_channel(guild, "mahjong")
        members = [server.create_user(f"m{i}") for i in range(args.members)]
        for member in members:
            server.add_member(guild, member)
        settings = Settings(
            token="burst",
            database=folder / "db.sqlite3",
            dev_guild=None,
            log_level="WARNING",
            drawing_processes=args.drawing_processes,
        )
        bot = MahjongBot(settings)
        runner = BotRunner(server)
        await runner.start(bot)
        # Warm-up: some hands in the ledger (confirmed /settle), so the look-ups read rows.
        for i in range(0, min(len(members), 20), 2):
            a, b = members[i], members[i + 1]
            handle = await a.slash(
                channel, "settle", winner=a, east=a, south=b, east_score="24", south_score="0"
            )
            message = await handle.reply(timeout=30)
            confirm = next(c for c in message.custom_ids() if c.endswith(":confirm"))
            await (await b.click(message, confirm)).reply(timeout=30)
        burst = commands(rng, members, args.count)
        meter.on = True
        gap = args.within / max(1, len(burst) - 1)

        async def fire(k: int, user: Any, name: str, options: dict) -> Any:
            await asyncio.sleep(k * gap)
            return await user.slash(channel, name, **options)

        began = time.perf_counter()
        handles = await asyncio.gather(*(fire(k, *c) for k, c in enumerate(burst)))
        sent = time.perf_counter() - began
        unanswered = 0
        for handle in handles:
            try:
                await handle.ack(timeout=30)
            except Exception:
                unanswered += 1
        meter.on = False
        for handle in handles:  # let every answer arrive before the bot closes
            try:
                await handle.reply(timeout=60)
            except Exception:
                unanswered += 1
        await asyncio.sleep(1)  # the /settle pings and other follow-ups
        await runner.close_all()
    lat = meter.latencies
    late = sum(1 for ms in lat if ms > LATE_MS)
    print(
        f"{len(handles)} commands sent in {sent:.2f} s by {args.members} members; "
        f"acknowledged later than 3 s: {late}; unanswered: {unanswered}"
    )
    print(
        f"interaction -> acknowledgement: p50 {percentile(lat, 50):.0f} ms  "
        f"p99 {percentile(lat, 99):.0f} ms  max {max(lat, default=float('nan')):.0f} ms"
    )
    for kind, values in sorted(meter.by_kind.items()):
        print(
            f"  {kind:<14} n={len(values):<4} p50 {percentile(values, 50):6.0f} ms  "
            f"p99 {percentile(values, 99):6.0f} ms  late {sum(1 for v in values if v > LATE_MS)}"
        )
    print(f"goal 0 later than 3 s: {'met' if late == 0 and not unanswered else 'NOT met'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--within", type=float, default=0.2)
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drawing-processes", type=int, default=1)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("discord").setLevel(logging.ERROR)
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
