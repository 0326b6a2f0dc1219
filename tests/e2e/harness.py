"""What the end-to-end tests share: the real bot on a SQLite file, the speed knobs, opening a
table through the lobby buttons, and a test-side record of every state a table went through.

The record is the tests' own knowledge of the truth (each seat's concealed tiles at every
move), taken by wrapping the engine's ``apply`` as the table service calls it. The bot never
reads it; the privacy and restart checks compare what users were shown with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import MahjongBot
from bot.config import Settings

STANDINGS = "Final standings"


# Seconds of time passing in which a closed or paused table must send nothing.
QUIET = 1.5


def make_bot(tmp_path: Path, name: str = "db.sqlite3") -> MahjongBot:
    settings = Settings(
        token="test-token", database=tmp_path / name, dev_guild=None, log_level="INFO"
    )
    return MahjongBot(settings)


def notifier_of(bot: MahjongBot) -> Any:
    return bot.services.tables.notifier


def fast(bot: MahjongBot, *, edit_gap: float = 0.05, dm_gap: float = 0.02) -> MahjongBot:
    """No pauses for people to follow the table: computer players move at once, the next hand
    is dealt at once, and the channel and DMs are redrawn as often as the tests need."""
    tables = bot.services.tables
    tables.computer_delay = 0
    tables.next_hand_delay = 0.05
    notifier = notifier_of(bot)
    notifier.min_edit_gap = edit_gap
    notifier.dm_gap = dm_gap
    speed_up_pacer(notifier.pacer)
    return bot


def speed_up_pacer(pacer: Any) -> None:
    """The notifier's pacer at the fake's time scale (below): the same budgets, 24 times as
    fast (test_edit_pace keeps the real ones)."""
    pacer.window *= FAST_TIME_SCALE
    pacer.margin *= FAST_TIME_SCALE
    pacer.global_window *= FAST_TIME_SCALE
    pacer.global_margin *= FAST_TIME_SCALE
    pacer.low_age *= FAST_TIME_SCALE


# fast() makes the bot's pauses about 1/24 of the real ones (a 0.05 s table gap for 1.2 s);
# the fake's rate-limit windows shrink by the same factor, so the bot is held to Discord's
# budget at the pace the test runs it (5 edits per 0.21 s instead of per 5 s).
FAST_TIME_SCALE = 1 / 24


async def start_bot(run_bot: Any, tmp_path: Path, name: str = "db.sqlite3") -> MahjongBot:
    bot = await run_bot.start(make_bot(tmp_path, name))
    run_bot.server.rate_limits.time_scale = FAST_TIME_SCALE
    return fast(bot)


# -- opening a table --------------------------------------------------------------------------


@dataclass
class Opened:
    table_id: int
    lobby: Any  # the lobby message (MessageRecord), in the channel
    place: Any = None  # where the table plays: its thread (or the channel without one)


def lobby_id(lobby: Any, verb: str) -> str:
    found = [cid for cid in lobby.custom_ids() if cid.endswith(f":lobby:{verb}")]
    # What the bot answered instead of a lobby, when it did (a CI run failed here once with
    # a bare StopIteration, which said nothing of what the message showed).
    assert found, f"no {verb!r} button in {lobby.content!r}, embeds {lobby.embeds!r}"
    return found[0]


async def open_table(
    w: Any,
    host: Any,
    guests: list[Any] = (),  # type: ignore[assignment]
    *,
    start: bool = True,
    channel: Any = None,
    thread: bool | None = None,
    **options: Any,
) -> Opened:
    """``/mahjong new`` by ``host``, every guest presses Join, the host presses Start.
    ``thread``: whether the table gets a thread of its own (by default: in a text channel,
    where the standard world's bot may open one); ``Opened.place`` is where it plays."""
    channel = channel or w.channel
    handle = await host.slash(channel, "mahjong new", **options)
    lobby = await handle.reply()
    table_id = int(lobby_id(lobby, "join").split(":")[1])
    if thread is None:
        thread = getattr(channel, "type", 0) == 0
    place = channel
    if thread:
        place = await w.server.wait_for(
            lambda: w.server.message(lobby.id).thread, timeout=10, what="the table's thread"
        )
    for guest in guests:
        ack = await (await guest.click(lobby, lobby_id(lobby, "join"))).ack()
        assert ack == 6, f"{guest} could not join"
    if start:
        assert await (await host.click(lobby, lobby_id(lobby, "start"))).ack() == 6
    return Opened(table_id, lobby, place)


def standings_posted(user: Any, channel: Any) -> bool:
    return any(e.get("title") == STANDINGS for m in user.messages(channel) for e in m.embeds)


def titles(user: Any, channel: Any) -> list[str]:
    return [e.get("title", "") for m in user.messages(channel) for e in m.embeds]


# -- the truth, recorded test-side ------------------------------------------------------------


@dataclass
class Snapshot:
    at: float  # time.time() when the service applied the move
    state: Any


@dataclass
class StateLog:
    """Every state each table's game went through, by wall seed (one seed per table)."""

    games: dict[str, list[Snapshot]] = field(default_factory=dict)

    def record(self, state: Any) -> None:
        log = self.games.setdefault(str(state.config.seed), [])
        if log and (log[-1].state.move, log[-1].state.deal) >= (state.move, state.deal):
            return  # a replay after a restart, or a refused move
        log.append(Snapshot(time.time(), state))

    def states(self, seed: str | None = None) -> list[Any]:
        if seed is None:
            (seed,) = self.games
        return [s.state for s in self.games[seed]]

    def at_move(self, seed: str, move: int) -> Any | None:
        for snap in self.games.get(seed, ()):
            if snap.state.move == move:
                return snap.state
        return None


@contextlib.contextmanager
def recording_states() -> Iterator[StateLog]:
    """Record every state the table service reaches (the service's ``apply`` wrapped)."""
    import bot.service.tables.events as events_module
    import bot.service.tables.service as service_module

    log = StateLog()
    original_apply, original_new = service_module.apply, events_module.new_game

    def apply(state: Any, action: Any) -> Any:
        after = original_apply(state, action)
        log.record(after)
        return after

    def new_game(*args: Any, **kwargs: Any) -> Any:
        state = original_new(*args, **kwargs)
        log.record(state)
        return state

    # The service applies moves; replay (events) applies them on start-up and deals.
    service_module.apply, events_module.new_game = apply, new_game
    events_module.apply = apply
    try:
        yield log
    finally:
        service_module.apply, events_module.new_game = original_apply, original_new
        events_module.apply = original_apply


async def wait_until(predicate: Any, timeout: float, what: str, step: float = 0.02) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(
                f"timed out after {timeout:g} s waiting for {what}\n{tasks_report()}"
            )
        await asyncio.sleep(step)


def tasks_report() -> str:
    """Where every task of the bot in this loop is waiting: a stalled game's first clue."""
    lines = []
    for task in sorted(asyncio.all_tasks(), key=lambda t: t.get_name()):
        chain, coro = [], task.get_coro()
        while coro is not None and len(chain) < 12:
            frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
            if frame is not None:
                chain.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
            coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        lines.append(f"  task {task.get_name()}: {' > '.join(chain)}")
    return "tasks:\n" + "\n".join(lines[:80]) + "\n" + _tables_report()


def _tables_report() -> str:
    """Every live table in this process: what it waits for."""
    import gc

    from bot.rules.game import pending_seats
    from bot.service.tables import LiveTable

    lines = []
    for table in [o for o in gc.get_objects() if isinstance(o, LiveTable)][:10]:
        state = table.state
        lines.append(
            f"  table {table.id} {table.status}: phase {state and state.phase}, move "
            f"{state and state.move}, controls {table.controls_move}, pending "
            f"{state and [(s, _name(table, s)) for s in sorted(pending_seats(state))]}"
            f", paused {table.paused}, runner "
            f"{table.runner}, timers {sorted(table.timers)}, players "
            f"{[(p.name, p.away) for p in table.players]}"
        )
    return "tables:\n" + "\n".join(lines)


def _name(table: Any, seat: int) -> str | None:
    player = table.player_at(seat)
    return None if player is None else player.name


# -- the bot in a process of its own (for the tests that kill it) --------------------------------


class BotProcess:
    """``python -m tests.e2e.launcher`` against the fake: started, killed with SIGKILL, and
    started again on the same database. Each run's stderr goes to ``bot-<n>.log``."""

    def __init__(
        self,
        server: Any,
        database: Path | str,
        logs: Path,
        env: dict[str, str] | None = None,
        args: list[str] | None = None,
    ) -> None:
        self.server = server
        self.database = database  # "-": from the environment, as mahjong-bot (launcher.py)
        self.env = dict(env or {})  # more environment (shards, a lease time: test_failover)
        self.args = list(args or [])  # mahjong-bot's arguments, with database "-"
        self.logs = logs
        self.runs = 0
        self.proc: asyncio.subprocess.Process | None = None
        self.startup: list[float] = []

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def start(self, kill_at: str = "", timeout: float = 30.0) -> None:
        """Start the bot; return once it has a fresh gateway session (a new IDENTIFY)."""
        import os
        import sys

        root = Path(__file__).resolve().parents[2]
        self.server.rate_limits.time_scale = FAST_TIME_SCALE  # the launcher runs it fast()
        identified = self.server.gateway.count("identify")
        self.runs += 1
        log = open(self.logs / f"bot-{self.runs}.log", "wb")  # noqa: SIM115
        began = time.monotonic()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.e2e.launcher",
                str(self.server.port),
                str(self.database),
                self.server.token,
                *self.args,
                cwd=root,
                env={**os.environ, **self.env, "MJ_KILL_AT": kill_at},
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        finally:
            log.close()

        def connected() -> bool:
            if self.proc is not None and self.proc.returncode is not None:
                return True  # died on its way up (a kill point in the start-up)
            return self.server.gateway.count("identify") > identified and (
                self.server.gateway.connected
            )

        await self.server.wait_for(connected, timeout=timeout, what="the bot process to connect")
        self.startup.append(time.monotonic() - began)

    async def kill(self) -> None:
        if self.alive:
            assert self.proc is not None
            self.proc.kill()
        await self.wait()

    async def wait(self, timeout: float | None = None) -> int | None:
        """Wait for the process to end (for a kill point); None if it is still running."""
        if self.proc is None:
            return None
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            return None

    def log_text(self) -> str:
        return "\n".join(
            (self.logs / f"bot-{n}.log").read_text(errors="replace")
            for n in range(1, self.runs + 1)
        )
