"""Run the real bot in a process of its own against a fake Discord on 127.0.0.1, for the tests
that kill it (SIGKILL) and start it again on the same database.

    python -m tests.e2e.launcher PORT DATABASE TOKEN
    python -m tests.e2e.launcher PORT - TOKEN [ARGS...]

With ``-`` the bot starts as ``mahjong-bot ARGS`` does (``bot.__main__.main``): every setting
from the environment (MAHJONG_DB, MAHJONG_DATA_DIR, LOG_LEVEL...), as a container started from
``docker-compose.yml`` gets it (tests/cluster/test_compose.py). Otherwise DATABASE is a
SQLite file or a ``postgresql://`` URL; MAHJONG_SHARDS / MAHJONG_SHARD_COUNT,
MAHJONG_DRAWING_PROCESSES and MAHJONG_GLOBAL_RATE are read from the environment as the bot
reads them (several processes on one PostgreSQL database: tests/e2e/test_failover.py).

It points discord.py at the fake (``Route.BASE``, ``DiscordWebSocket.DEFAULT_GATEWAY``,
``Asset.BASE``), refuses any connection that is not to loopback, turns the speed knobs the
in-process tests turn, and calls ``bot.app.run(settings)`` as ``mahjong-bot`` does. Nothing in
the bot knows it is being tested.

``MJ_DRAWING_TIMEOUT=seconds`` shortens the time one drawing may take before its process is
replaced; ``MJ_WRITES=file`` lets a test make the database refuse writes (``control_writes``).

``MJ_KILL_AT=name:n[,name:n...]`` makes the process SIGKILL itself on the n-th call of one of
the store or ledger steps below (``name`` before the call, ``name+`` right after it), to hit
the narrow moments between two writes that random kills rarely reach.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
KILL_POINTS = {
    "append_event": ("bot.store.tables_repo", "TablesRepository", "append_event"),
    "set_status": ("bot.store.tables_repo", "TablesRepository", "set_status"),
    "record_hand": ("bot.store.tables_repo", "TablesRepository", "record_hand"),
    "post_settlement": ("bot.service.ledger", "LedgerService", "post_settlement"),
}


def point_at_fake(port: int) -> None:
    import discord.asset
    import discord.gateway
    import discord.http
    import yarl

    base = f"http://127.0.0.1:{port}"
    discord.http.Route.BASE = f"{base}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(f"ws://127.0.0.1:{port}/gateway")
    discord.asset.Asset.BASE = f"{base}/cdn"


def guard_network() -> None:
    """Refuse anything but loopback, and die loudly if the bot tries."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fakediscord.sandbox import network_guard

    def violation(message: str) -> None:
        print(f"NETWORK VIOLATION: {message}", file=sys.stderr, flush=True)

    network_guard(violation).__enter__()


def speed_up() -> None:
    import bot.service.tables.service as tables
    import cogs.notify.notifier as notifier
    from bot.app import MahjongBot

    tables.COMPUTER_DELAY = 0
    tables.NEXT_HAND_DELAY = 0.05
    tables.RETRY_DELAY = 0.05
    init = notifier.DiscordTableNotifier.__init__

    @functools.wraps(init)
    def notifier_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.min_edit_gap = 0.05
        self.dm_gap = 0.02
        from tests.e2e.harness import speed_up_pacer

        speed_up_pacer(self.pacer)

    notifier.DiscordTableNotifier.__init__ = notifier_init  # type: ignore[method-assign]
    bot_init = MahjongBot.__init__

    @functools.wraps(bot_init)
    def bot_init_fast(self: Any, *args: Any, **kwargs: Any) -> None:
        bot_init(self, *args, **kwargs)
        self._connection.guild_ready_timeout = 0.2

    MahjongBot.__init__ = bot_init_fast  # type: ignore[method-assign]


def arm_kills(spec: str) -> None:
    import importlib

    wanted: dict[str, int] = {}
    for part in filter(None, spec.split(",")):
        name, _, count = part.partition(":")
        wanted[name] = int(count or 1)
    for point, (module_name, class_name, method) in KILL_POINTS.items():
        before, after = wanted.get(point), wanted.get(point + "+")
        if before is None and after is None:
            continue
        cls = getattr(importlib.import_module(module_name), class_name)
        setattr(cls, method, _killing(getattr(cls, method), before, after))


def _killing(original: Any, before: int | None, after: int | None) -> Any:
    """``original`` that kills the process on its ``before``-th call (before running it) or
    its ``after``-th call (once it returned)."""
    calls = 0

    @functools.wraps(original)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == before:
            os.kill(os.getpid(), signal.SIGKILL)
        result = await original(*args, **kwargs)
        if calls == after:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    return wrapper


def drawing_timeout(seconds: float) -> None:
    """A shorter time one drawing may take before its process is replaced (10 s in the bot):
    for the test that hangs a drawing process (tests/e2e/test_drawing_faults.py)."""
    import bot.drawing as drawing

    init = drawing.Drawing.__init__

    @functools.wraps(init)
    def shorter(self: Any, processes: int | None = None, *, timeout: float = seconds) -> None:
        init(self, processes, timeout=timeout)

    drawing.Drawing.__init__ = shorter  # type: ignore[method-assign]


def control_writes(control: str) -> None:
    """Let the test make the database refuse writes while the bot runs, as SQLite itself
    refuses them on a read-only database: the word in the file ``control`` ("readonly" or
    "writable") is applied to the bot's writer connection (``PRAGMA query_only``) whenever
    it changes, so every write fails with SQLITE_READONLY until it is "writable" again."""
    import asyncio

    import bot.app as app
    import bot.store.database as database

    opener = database.open_database

    def set_query_only(db: Any, on: bool) -> Any:
        conn = db._writer.conn  # the SQLite backend's one writer connection
        return db._writer.call(conn.execute, f"PRAGMA query_only = {'ON' if on else 'OFF'}")

    async def poll(db: Any) -> None:
        applied = ""
        while True:
            await asyncio.sleep(0.05)
            try:
                wanted = Path(control).read_text().strip()
            except OSError:
                continue
            if wanted in ("readonly", "writable") and wanted != applied:
                await set_query_only(db, wanted == "readonly")
                applied = wanted

    @functools.wraps(opener)
    async def open_database(*args: Any, **kwargs: Any) -> Any:
        db = await opener(*args, **kwargs)
        _keep.append(asyncio.get_running_loop().create_task(poll(db)))
        return db

    database.open_database = open_database
    app.open_database = open_database  # imported by name there


_keep: list[Any] = []


def main(argv: list[str]) -> None:
    port, token = int(argv[0]), argv[2]
    database: Path | str = argv[1] if argv[1].startswith("postgresql://") else Path(argv[1])
    sys.path.insert(0, str(ROOT))
    guard_network()
    point_at_fake(port)
    speed_up()
    arm_kills(os.environ.get("MJ_KILL_AT", ""))
    if os.environ.get("MJ_WRITES"):
        control_writes(os.environ["MJ_WRITES"])
    if os.environ.get("MJ_DRAWING_TIMEOUT"):
        drawing_timeout(float(os.environ["MJ_DRAWING_TIMEOUT"]))
    if argv[1] == "-":  # as `mahjong-bot` runs: everything from the environment
        from bot.__main__ import main as entry

        os.environ["DISCORD_TOKEN"] = token
        sys.exit(entry(argv[3:]))
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    from bot.app import run
    from bot.config import Settings, shards_from

    shard_ids, shard_count = shards_from(
        os.environ.get("MAHJONG_SHARDS", ""), os.environ.get("MAHJONG_SHARD_COUNT", "")
    )
    drawing = os.environ.get("MAHJONG_DRAWING_PROCESSES", "")
    rate = os.environ.get("MAHJONG_GLOBAL_RATE", "")
    settings = Settings(
        token=token,
        database=database,
        dev_guild=None,
        log_level="WARNING",
        drawing_processes=int(drawing) if drawing else None,
        shard_ids=shard_ids,
        shard_count=shard_count,
        global_rate=float(rate) if rate else None,
    )
    sys.exit(run(settings))


if __name__ == "__main__":
    main(sys.argv[1:])
