"""What players feel with many tables playing: the bot in its own process over the fake Discord.

The real bot (discord.py, SQLite, the drawing processes) runs as a process of its own
(``benchmarks/bot_process.py``, as the restart tests run it) at its real pace, against the
fake Discord of the tests (``tests/fakediscord``) in this process on 127.0.0.1. For each table
count, ``--humans`` simulated members a table play from their DMs (they press a button after a
thinking time), computer players fill the other seats, and after ``--warmup`` seconds it
measures for ``--seconds``:

- **moves/s**: moves committed;
- **acks**: from the fake dispatching INTERACTION_CREATE to the bot's callback arriving: p50,
  p99, max, and how many came after Discord's 3 s; and the bot's own part of each (from
  discord.py parsing the interaction to the callback leaving the bot: the rest is the fake's
  loop, which shares the machine with the bot and 400 members at 200 tables);
- **staleness**: from a move's commit to the request that shows it finishing: the channel's
  table message (moves the channel can see) and each member's DM (moves after which that
  member has a decision: what they are waiting for). Taken from the bot's trace
  (``bot_process.py``) of what each request showed, and of each DM the notifier found
  already showing a move (nothing changed for that seat: shown from then); a move not shown
  by the end is counted;
- **a click's answer**: from the bot answering a member's click (after its acknowledgement)
  to the member's DM message showing what their move did (``SeatDMs.answer``, the edit
  through the interaction's token);
- **requests per move**, split into interaction callbacks (and their webhooks, outside
  Discord's global limit) and the rest, and the rest per second against Discord's global
  50 requests/s;
- the bot's full garbage collections (how many, the longest: it stops the bot meanwhile), and
  this process's (the fake's loop stops for them too);
- **CPU** of the bot's process, its drawing processes and this process (the fake and the
  members), and the **RSS** of the bot's process and of its drawing processes.

``--burst N`` fires N mixed interactions within 0.2 s during the smallest table count's run
(``/chips``, ``/score``, ``/rules`` and button presses) and reports how many were
acknowledged after 3 s and the p99. ``--restart N`` opens N tables (one member each), lets them
play for ``--seconds``, kills the bot (SIGKILL) and starts it again: seconds from the start
until it connects and until it answers an interaction (``/rules``).
``--no-render`` stubs the drawing out (1x1 images, no drawing process). ``--json`` prints one
JSON object per line (per table count; then the burst and the restart). ``--global-limit N``
lets the bot's token make N requests a second outside interaction responses at the fake
instead of Discord's 50, and paces the bot to 0.9 N (``MAHJONG_GLOBAL_RATE``), as for a bot
Discord granted a higher limit: what a table count needs beyond the budget
(docs/performance.md).

    python benchmarks/bot.py [--tables 20 50 100 200] [--humans 2] [--seconds 30]
                             [--warmup 8] [--think 0.3 1.5] [--no-render] [--json]
                             [--burst 500] [--restart 1000] [--drawing-processes N]
                             [--global-limit 50]

The machine is shared: the figures move with whatever else runs (say so with them).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import logging
import math
import os
import random
import re
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _path  # the repository first: this file is not the bot package

sys.path.insert(1, str(Path(_path.ROOT) / "tests"))  # the fake Discord of the tests

CALLBACK = re.compile(r"^/api/v10/interactions/(\d+)/[^/]+/callback$")
WEBHOOK = re.compile(r"^/api/v10/webhooks/")
LATE_MS = 3000
BUDGET = 50  # Discord's global requests per second outside interaction responses
# The share of the global limit the bot's pacer takes by default (45 of Discord's 50).
PACER_SHARE = 0.9
GUILD_TABLES = 40  # tables a server (below its default cap of 50 open tables)
# The issue's goal for the tables' staleness p99. ``least_table_edits`` counts the edits that
# show every visible move within it; a p99 may leave 1 % of the moves later, each sparing at
# most one edit: at most 0.9 a second fewer at 200 tables (93 visible moves a second).
TABLE_GOAL_S = 2.5
TAIL = 5.0  # seconds at the end of the window whose moves are not asked to be shown yet


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class Meter:
    """Interaction latencies, taken where Discord would see them: from the dispatch of
    INTERACTION_CREATE (the record's creation, just before it is sent on the gateway) to the
    arrival of the callback request. Also every request's arrival time and whether it was an
    interaction callback or webhook (outside Discord's global limit) or not."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.on = False
        self.latencies: list[float] = []
        self.kinds: dict[int, str] = {}
        self.by_kind: dict[str, list[float]] = {}
        self.by_id: dict[int, float] = {}
        # id -> (INTERACTION_CREATE dispatched, its callback arrived), on the fake's clock
        # (the loop's time.monotonic, which the bot's process shares)
        self.timeline: dict[int, tuple[float, float]] = {}
        # (arrival, callback or webhook, "METHOD /route/{id}", HTTP status of the answer)
        self.requests: list[Request] = []
        handle = server.rest.handle

        async def timed(request: Any) -> Any:
            arrived = server.loop_time()
            match = CALLBACK.match(request.path)
            exempt = bool(match or WEBHOOK.match(request.path))
            seen = Request(
                arrived,
                exempt,
                f"{request.method} {_route(request.path)}",
                # aiohttp's content_type parses the header with the email package: dear
                upload=request.headers.get("Content-Type", "").startswith("multipart/"),
            )
            self.requests.append(seen)
            if match:
                record = server.state.interactions.get(int(match.group(1)))
                if record is not None and record.id not in self.by_id:
                    ms = (arrived - record.created_at) * 1000
                    self.by_id[record.id] = ms
                    self.timeline[record.id] = (record.created_at, arrived)
                    if self.on:
                        self.latencies.append(ms)
                        self.by_kind.setdefault(_kind(record), []).append(ms)
            response = await handle(request)
            seen.status = getattr(response, "status", 0)
            return response

        server.rest.handle = timed  # before the server starts: the router binds it then

        # When each INTERACTION_CREATE frame was written to the bot's socket: what comes
        # before is the fake's own loop, what comes after (to discord.py parsing it) the
        # bot's.
        self.written: dict[int, float] = {}
        dispatch = server.gateway.dispatch

        async def dispatched(event: str, data: dict[str, Any], **kwargs: Any) -> bool:
            sent = await dispatch(event, data, **kwargs)
            if event == "INTERACTION_CREATE":
                self.written[int(data["id"])] = server.loop_time()
            return sent

        server.gateway.dispatch = dispatched


@dataclass
class Request:
    """One request as the fake saw it arrive."""

    at: float
    exempt: bool  # an interaction callback or interaction-token webhook: outside the budget
    route: str  # "PATCH /channels/{id}/messages/{id}"
    status: int = 0
    upload: bool = False  # it carried a file (a picture)


def _route(path: str) -> str:
    path = path.removeprefix("/api/v10")
    path = re.sub(r"/webhooks/(\d+)/[^/]+", "/webhooks/{app}/{token}", path)
    path = re.sub(r"/interactions/\d+/[^/]+", "/interactions/{id}/{token}", path)
    return re.sub(r"/\d+", "/{id}", path)


def most_in_any(times: list[float], span: float = 1.0) -> int:
    """The most of ``times`` within any ``span`` seconds (a sliding window: Discord counts
    any second, not only those starting on a whole second of the benchmark)."""
    times = sorted(times)
    best = start = 0
    for end, t in enumerate(times):
        while times[start] <= t - span:
            start += 1
        best = max(best, end - start + 1)
    return best


def _kind(record: Any) -> str:
    if record.type == 2:
        return "/" + record.data.get("name", "?")
    custom_id = str(record.data.get("custom_id", ""))
    parts = custom_id.split(":")
    return f"button {parts[3] if len(parts) > 3 and parts[2].isdigit() else parts[2]}"


# -- the bot's process -----------------------------------------------------------------------


def simulated_member(user: Any, channel: Any, think: Any) -> Any:
    """A member at their screen: patient with a bot that is down, thinking ``think()``
    seconds before each press, looking again when their DMs or the table's channel change
    (not polling: the fake and every member share this process with the measurements)."""
    from tests.e2e.players import SimPlayer

    return SimPlayer(
        user,
        channel,
        patient=True,
        ack_timeout=10,
        think=think,
        on_change=True,
        poll=1.0,
        keep_clicks=8,
    )


def _end_with_parent() -> None:
    """In the bot's process before it starts: killed when this benchmark dies, however it
    dies (a soak stopped with ``kill`` left its bot running, and drawing, for an hour).
    Linux only; elsewhere nothing."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class BotProcess:
    """``benchmarks/bot_process.py``: started, stopped (SIGINT, then SIGKILL), measured."""

    def __init__(self, server: Any, folder: Path, args: argparse.Namespace) -> None:
        self.server = server
        self.folder = folder
        self.args = args
        self.database = folder / "db.sqlite3"
        self.trace = folder / "trace.txt"
        self.proc: asyncio.subprocess.Process | None = None
        self.runs = 0

    async def start(self, timeout: float = 120.0) -> float:
        """Start it; return the seconds until it has a gateway session."""
        self.runs += 1
        identified = self.server.gateway.count("identify")
        env = dict(os.environ)
        if self.args.drawing_processes is not None:
            env["MAHJONG_DRAWING_PROCESSES"] = str(self.args.drawing_processes)
        limit = getattr(self.args, "global_limit", BUDGET)  # scale.py and soak.py: Discord's
        if limit != BUDGET and "MAHJONG_GLOBAL_RATE" not in env:
            # As an operator whose bot Discord granted a higher limit would set it.
            env["MAHJONG_GLOBAL_RATE"] = f"{limit * PACER_SHARE:g}"
        command = [
            sys.executable,
            str(Path(_path.ROOT) / "benchmarks" / "bot_process.py"),
            str(self.server.port),
            str(self.database),
            self.server.token,
            str(self.trace),
        ]
        if self.args.no_render:
            command.append("--no-render")
        log = open(self.folder / f"bot-{self.runs}.log", "wb")  # noqa: SIM115
        began = time.monotonic()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *command,
                cwd=_path.ROOT,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                preexec_fn=_end_with_parent,
            )
        finally:
            log.close()

        def connected() -> bool:
            if self.proc is not None and self.proc.returncode is not None:
                raise RuntimeError(f"the bot exited at start-up: see {self.folder}/bot-*.log")
            return self.server.gateway.count("identify") > identified and (
                self.server.gateway.connected
            )

        await self.server.wait_for(connected, timeout=timeout, what="the bot to connect")
        return time.monotonic() - began

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.returncode is None else None

    def children(self) -> list[int]:
        return _children(self.pid) if self.pid else []

    async def stop(self, *, kill: bool = False) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        if not kill:
            self.proc.send_signal(signal.SIGINT)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 20)
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def cpu_seconds(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


# -- the trace -------------------------------------------------------------------------------


@dataclass
class AckLegs:
    """Each acknowledgement's legs, in ms, on the one monotonic clock both processes share."""

    to_socket: list[float] = field(default_factory=list)  # the fake's dispatch to its socket
    to_bot: list[float] = field(default_factory=list)  # that socket to discord.py's parse
    # the callback leaving discord.py to the bot's socket (the bot's loop and aiohttp)
    out: list[float] = field(default_factory=list)
    back: list[float] = field(default_factory=list)  # that socket to the fake reading it
    # Socket to socket: the frame on the bot's socket to the callback on it, all of it the
    # bot's (its loop reaching the frame, its own part, its write): what Discord would see
    # of the bot, less the network
    bot: list[float] = field(default_factory=list)


def ack_legs(
    timeline: dict[int, tuple[float, float]],
    framed: dict[int, float],
    in_bot: dict[int, tuple[float, float]],
    written: dict[int, float],
    begin: float,
    end: float,
) -> AckLegs:
    """The legs of each acknowledgement dispatched in [begin, end]."""
    legs = AckLegs()
    for interaction, (dispatched, arrived) in timeline.items():
        times = in_bot.get(interaction)
        if times is None or not begin <= dispatched <= end:
            continue
        parsed, left = times
        frame = framed.get(interaction, dispatched)
        on_socket = written.get(interaction, left)
        legs.to_socket.append((frame - dispatched) * 1000)
        legs.to_bot.append((parsed - frame) * 1000)
        legs.out.append((on_socket - left) * 1000)
        legs.back.append((arrived - on_socket) * 1000)
        legs.bot.append((on_socket - frame) * 1000)
    return legs


@dataclass
class Trace:
    moves: list[tuple[int, int, bool, float, tuple[int, ...]]] = field(default_factory=list)
    shown: dict[tuple[int, int | None], list[tuple[float, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    # (t, ms, CPU ms): the full passes of the garbage collector
    gc_pauses: list[tuple[float, float, float]] = field(default_factory=list)
    unpaced: list[tuple[float, str]] = field(default_factory=list)  # (t, "METHOD route")
    drawings: list[tuple[float, str, float]] = field(default_factory=list)  # (t, lane, s)
    drawn: list[tuple[float, str, bool]] = field(default_factory=list)  # (t, lane, wasted)
    acks: list[tuple[float, float]] = field(default_factory=list)  # (t, ms in the bot)
    # interaction id -> when discord.py parsed it and when its callback left the bot
    ack_times: dict[int, tuple[float, float]] = field(default_factory=dict)
    ack_written: dict[int, float] = field(default_factory=dict)  # id -> headers on the socket
    answers: list[tuple[float, float]] = field(default_factory=list)  # (t, s): a click's DM
    # (table, seat, when it finished) -> when the request that showed a move began
    sent: dict[tuple[int, int | None, float], float] = field(default_factory=dict)

    def acks_in(self, begin: float, end: float) -> list[float]:
        """The bot's own part (ms) of each acknowledgement sent in [begin, end]."""
        return [ms for at, ms in self.acks if begin <= at <= end]

    def drawings_in(self, begin: float, end: float) -> dict[str, list[float]]:
        """Each lane's drawings (their seconds, queue included) finished in [begin, end]."""
        out: dict[str, list[float]] = defaultdict(list)
        for at, lane, seconds in self.drawings:
            if begin <= at <= end:
                out[lane].append(seconds)
        return dict(out)

    def drawn_in(self, begin: float, end: float) -> dict[str, tuple[int, int]]:
        """Each lane's drawings the pool finished in [begin, end]: (all, wasted)."""
        out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for at, lane, wasted in self.drawn:
            if begin <= at <= end:
                out[lane][0] += 1
                out[lane][1] += int(wasted)
        return {lane: (n, w) for lane, (n, w) in out.items()}

    def unpaced_in(self, begin: float, end: float) -> dict[str, int]:
        """Requests with the bot's token sent outside the notifier's pacer, by route."""
        out: dict[str, int] = defaultdict(int)
        for at, route in self.unpaced:
            if begin <= at <= end:
                out[route] += 1
        return dict(out)

    @classmethod
    def read(cls, path: Path) -> Trace:
        trace = cls()
        if not path.exists():
            return trace
        for line in path.read_text().splitlines():
            parts = line.split()
            if parts[0] == "E" and len(parts) == 6:
                seats = () if parts[5] == "-" else tuple(int(s) for s in parts[5].split(","))
                trace.moves.append(
                    (int(parts[1]), int(parts[2]), parts[3] == "1", float(parts[4]), seats)
                )
            elif parts[0] == "D" and len(parts) == 4:
                trace.drawings.append((float(parts[3]), parts[1], float(parts[2])))
            elif parts[0] == "P" and len(parts) == 4:
                trace.drawn.append((float(parts[3]), parts[1], parts[2] == "1"))
            elif parts[0] == "U" and len(parts) == 4:
                trace.unpaced.append((float(parts[3]), f"{parts[1]} {parts[2]}"))
            elif parts[0] == "N" and len(parts) == 3:
                trace.answers.append((float(parts[2]), float(parts[1])))
            elif parts[0] == "A" and len(parts) in (3, 5):
                trace.acks.append((float(parts[2]), float(parts[1])))
                if len(parts) == 5:
                    trace.ack_times[int(parts[3])] = (float(parts[4]), float(parts[2]))
            elif parts[0] == "H" and len(parts) == 3:
                trace.ack_written.setdefault(int(parts[1]), float(parts[2]))
            elif parts[0] == "G" and len(parts) == 6:
                trace.gc_pauses.append((float(parts[3]), float(parts[2]), float(parts[4])))
            elif parts[0] == "R" and len(parts) in (6, 7):
                seat = None if parts[2] == "-" else int(parts[2])
                trace.shown[(int(parts[1]), seat)].append((float(parts[4]), int(parts[3])))
                if len(parts) == 7:  # when the request began: the rest was Discord's (the fake's)
                    trace.sent[(int(parts[1]), seat, float(parts[4]))] = float(parts[6])
        for shown in trace.shown.values():
            shown.sort()
        return trace

    def staleness(
        self, begin: float, end: float
    ) -> tuple[list[float], list[float], int, int, list[tuple[float, float]]]:
        """(table staleness, DM staleness, moves never shown on the table, in a DM, and per
        DM sample its staleness with the seconds of it spent in the request that showed it)
        for the moves committed in [begin, end - TAIL]."""
        table, dm, dm_in_flight = [], [], []
        table_missed = dm_missed = 0
        for table_id, move, visible, at, seats in self.moves:
            if not begin <= at <= end - TAIL:
                continue
            if visible:
                when = self._shown_at(table_id, None, at, move)
                if when is None:
                    table_missed += 1
                else:
                    table.append(when - at)
            for seat in seats:
                when = self._shown_at(table_id, seat, at, move)
                if when is None:
                    dm_missed += 1
                    continue
                delay = when - at
                dm.append(delay)
                began = self.sent.get((table_id, seat, when))
                if began is not None:
                    dm_in_flight.append((delay, min(delay, when - began)))
        return table, dm, table_missed, dm_missed, dm_in_flight

    def least_table_edits(self, begin: float, end: float, within: float) -> int:
        """The fewest table edits any schedule needs to show each visible move committed in
        [begin, end] within ``within`` seconds of it, these moves at these times (the
        members play from their DMs: the game's pace does not wait for the channel).

        Greedy, which is optimal for covering points with intervals: the first move not yet
        shown must be shown by ``within`` after it, and the latest edit that does so shows
        every move made until then. No schedule does better, whatever its order, however
        fast its drawing: beside Discord's budget it says whether a goal on the tables'
        staleness can be met at all."""
        times: dict[int, list[float]] = defaultdict(list)
        for table_id, _, visible, at, _ in self.moves:
            if visible and begin <= at <= end:
                times[table_id].append(at)
        edits = 0
        for moments in times.values():
            moments.sort()
            shown_until = -math.inf
            for at in moments:
                if at > shown_until:
                    edits += 1
                    shown_until = at + within
        return edits

    def table_edits(self, begin: float, end: float) -> int:
        """Requests that showed a table's channel message (edits, and its posts anew),
        finished in [begin, end]."""
        return sum(
            begin <= at <= end
            for (_, seat), shown in self.shown.items()
            if seat is None
            for at, _ in shown
        )

    def _shown_at(self, table_id: int, seat: int | None, at: float, move: int) -> float | None:
        """When the first request after ``at`` that showed ``move`` (or later) finished."""
        shown = self.shown.get((table_id, seat), [])
        for when, showed in shown[bisect.bisect_left(shown, (at, -1)) :]:
            if showed >= move:
                return when
        return None


# -- a run -----------------------------------------------------------------------------------


@dataclass
class World:
    server: Any
    guild: Any
    tables: list[tuple[Any, list[Any]]]
    members: list[Any]


def build_world(server: Any, tables: int, humans: int) -> World:
    from fakediscord.world import BOT_PERMISSIONS

    owner = server.create_user("owner")
    guilds = []
    # A server holds at most 50 open tables by default (bot/service/guild_settings.py): the
    # tables are spread over servers of GUILD_TABLES each (100 or 200 tables in one server
    # opened only 50 of them, and the run measured those).
    for number in range(max(1, -(-tables // GUILD_TABLES))):
        guild = server.create_guild(f"Benchmark Club {number + 1}", owner=owner)
        role = server.state.create_role(guild, "Mahjong Bot", BOT_PERMISSIONS, managed=True)
        server.add_member(guild, server.bot_user, [role])
        guilds.append(guild)
    out = [add_table(server, guilds[t // GUILD_TABLES], f"{t}", humans) for t in range(tables)]
    return World(server, guilds[0], out, [u for _, users in out for u in users])


def add_table(server: Any, guild: Any, name: str, humans: int) -> tuple[Any, list[Any]]:
    """A channel ``table-<name>`` and ``humans`` new members of ``guild`` to play there."""
    channel = server.create_text_channel(guild, f"table-{name}")
    users = [server.create_user(f"p{name}-{h}") for h in range(humans)]
    for u in users:
        server.add_member(guild, u)
    return channel, users


async def open_game(channel: Any, users: list[Any], hands: int) -> None:
    """``/mahjong new`` by the first member, the others join, computers fill the other
    seats, the host starts."""
    from tests.e2e.harness import lobby_id

    host, guests = users[0], users[1:]
    handle = await host.slash(channel, "mahjong new", computer_players=4 - len(users), hands=hands)
    lobby = await handle.reply(timeout=60)
    if not any(cid.endswith(":lobby:join") for cid in lobby.custom_ids()):
        embeds = " / ".join(e.get("description") or e.get("title") or "" for e in lobby.embeds)
        raise RuntimeError(f"/mahjong new answered without a lobby: {lobby.content!r} {embeds}")
    for guest in guests:
        await (await guest.click(lobby, lobby_id(lobby, "join"))).ack(timeout=60)
    await (await host.click(lobby, lobby_id(lobby, "start"))).ack(timeout=60)


async def open_tables(world: World, hands: int = 64, at_once: int = 8) -> int:
    """``/mahjong new`` in every channel, members join, the host starts; a few at a time.
    Returns how many tables started."""
    gate = asyncio.Semaphore(at_once)

    async def open_one(channel: Any, users: list[Any]) -> bool:
        async with gate:
            try:
                await open_game(channel, users, hands)
            except Exception as exc:  # counted and told; the run goes on without the table
                logging.warning("a table did not open: %s", exc)
                return False
        return True

    opened = await asyncio.gather(*(open_one(c, u) for c, u in world.tables))
    return sum(opened)


def benchmark_fake(global_limit: int = BUDGET) -> Any:
    """The fake Discord for a timed run: it does not check payloads against Discord's spec
    (the tests do) and keeps no history (`FakeDiscord.keep_history`), so that its own work
    stays small and flat however long the run. ``global_limit``: the bot's requests a
    second outside interaction responses (Discord's 50 unless it granted the bot more)."""
    from fakediscord import FakeDiscord

    server = FakeDiscord()
    server.check_spec = False
    server.forget_history()
    server.rate_limits.global_limit = global_limit
    return server


def settle_harness_heap() -> None:
    """Keep what this process (the fake Discord and every member) has built so far out of the
    collector's later passes. The fake's state only grows while a run lasts (messages,
    interactions for 15 minutes), and each full pass over it stopped the fake's loop (0.3 s
    after a minute of 50 tables, 0.9 s after three): every interaction in flight then
    looked late to the fake, whatever the bot did."""
    gc.collect()
    gc.freeze()


class HarnessCollectorOff:
    """No collection in this process while a window is measured (reference counting still
    frees what the fake and the members drop; the cycles wait for the window's end). Even
    with the heap frozen, at 200 tables the fake's loop stopped for 39 collections over
    10 ms in a 40 s window, the longest 176 ms, and the acks in flight then took up to
    357 ms at the fake while the bot's own socket-to-socket part was at most 119 ms:
    Discord's servers do not stop for the simulation's collector. Any pass run anyway (an
    explicit ``gc.collect()``) is counted, with the longest."""

    def __init__(self) -> None:
        self.passes: list[float] = []  # ms each
        self._began = 0.0

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.passes.append((time.perf_counter() - self._began) * 1000)

    def __enter__(self) -> HarnessCollectorOff:
        gc.disable()
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)
        gc.enable()

    def figures(self) -> dict[str, Any]:
        return {
            "harness_gc_passes": len(self.passes),
            "harness_gc_max_ms": round(max(self.passes, default=0.0), 1),
        }


async def measure_tables(count: int, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    server = benchmark_fake(args.global_limit)
    meter = Meter(server)
    folder = Path(tempfile.mkdtemp(prefix=f"mahjong-bench-{count}-"))
    bot = BotProcess(server, folder, args)
    result: dict[str, Any] = {"tables": count, "global_limit": args.global_limit}
    async with server.running():
        world = build_world(server, count, args.humans)
        tasks: list[asyncio.Task[Any]] = []
        stop = asyncio.Event()
        try:
            await bot.start()
            began = time.perf_counter()
            opened = await open_tables(world)
            say(args, f"{opened}/{count} tables opened in {time.perf_counter() - began:.1f} s")
            low, high = args.think
            players = [
                simulated_member(u, c, lambda: rng.uniform(low, high))
                for c, users in world.tables
                for u in users
            ]
            tasks = [asyncio.create_task(p.play(stop.is_set, timeout=3600)) for p in players]
            await asyncio.sleep(args.warmup)
            settle_harness_heap()
            with HarnessCollectorOff() as collector:
                result.update(await window(server, meter, bot, args))
            result.update(collector.figures())
            if args.burst:
                result["burst"] = await burst(world, meter, args.burst, rng)
        finally:
            await stop_players(stop, tasks)
            await bot.stop()
    trace = Trace.read(bot.trace)
    begin, end = result.pop("_begin", 0.0), result.pop("_end", 0.0)
    table, dm, table_missed, dm_missed, dm_in_flight = trace.staleness(begin, end)
    moves = sum(1 for m in trace.moves if begin <= m[3] <= end)
    seconds = result["seconds"]
    pauses = [ms for at, ms, _ in trace.gc_pauses if begin <= at <= end]
    pauses_cpu = [cpu for at, _, cpu in trace.gc_pauses if begin <= at <= end]
    in_bot = trace.acks_in(begin, end)
    legs = ack_legs(meter.timeline, meter.written, trace.ack_times, trace.ack_written, begin, end)
    if args.keep:
        write_acks(folder / "acks.txt", meter, trace)
    answers = [took for at, took in trace.answers if begin <= at <= end]
    result.update(
        answer_p50_s=_round(percentile(answers, 50)),
        answer_p99_s=_round(percentile(answers, 99)),
        ack_in_bot_p50_ms=_round(percentile(in_bot, 50), 1),
        ack_in_bot_p99_ms=_round(percentile(in_bot, 99), 1),
        ack_bot_p50_ms=_round(percentile(legs.bot, 50), 1),
        ack_bot_p99_ms=_round(percentile(legs.bot, 99), 1),
        ack_bot_max_ms=_round(max(legs.bot, default=float("nan")), 1),
        ack_bot_over_100ms=sum(1 for ms in legs.bot if ms > 100),
        ack_to_socket_p99_ms=_round(percentile(legs.to_socket, 99), 1),
        ack_to_bot_p50_ms=_round(percentile(legs.to_bot, 50), 1),
        ack_to_bot_p99_ms=_round(percentile(legs.to_bot, 99), 1),
        ack_out_p50_ms=_round(percentile(legs.out, 50), 1),
        ack_out_p99_ms=_round(percentile(legs.out, 99), 1),
        ack_back_p50_ms=_round(percentile(legs.back, 50), 1),
        ack_back_p99_ms=_round(percentile(legs.back, 99), 1),
        gc_full_passes=len(pauses),
        gc_full_pass_max_ms=_round(max(pauses, default=0.0), 1),
        gc_full_pass_max_cpu_ms=_round(max(pauses_cpu, default=0.0), 1),
        moves_per_s=round(moves / seconds, 1),
        dm_staleness_p50_s=_round(percentile(dm, 50)),
        dm_staleness_p99_s=_round(percentile(dm, 99)),
        dm_staleness_max_s=_round(max(dm, default=float("nan"))),
        # Of each DM sample, the time its request spent with Discord (here the fake, which
        # shares the machine): the rest is the bot's (waiting to draw, drawing, pacing).
        dm_in_request_p50_s=_round(percentile([f for _, f in dm_in_flight], 50)),
        dm_in_request_p99_s=_round(percentile([f for _, f in dm_in_flight], 99)),
        dm_before_request_p99_s=_round(percentile([d - f for d, f in dm_in_flight], 99)),
        dm_never_shown=dm_missed,
        table_staleness_p50_s=_round(percentile(table, 50)),
        table_staleness_p99_s=_round(percentile(table, 99)),
        table_never_shown=table_missed,
        table_edits_per_s=round(trace.table_edits(begin, end) / seconds, 1),
        least_table_edits_per_s=(
            round(trace.least_table_edits(begin, end - TAIL, TABLE_GOAL_S) / (seconds - TAIL), 1)
            if seconds > TAIL
            else None
        ),
        requests_per_move=_round(result["_requests"] / moves if moves else float("nan")),
        callback_requests_per_move=_round(result["_callbacks"] / moves if moves else float("nan")),
        noncallback_requests_per_move=_round(
            (result["_requests"] - result["_callbacks"]) / moves if moves else float("nan")
        ),
    )
    routes = result.pop("_routes", {})
    result["requests_per_move_by_route"] = {
        route: _round(n / moves, 3) if moves else None
        for route, n in sorted(routes.items(), key=lambda kv: -kv[1])
    }
    result["unpaced_requests"] = trace.unpaced_in(begin, end)
    result["drawings_by_lane"] = {
        lane: {
            "per_move": _round(len(times) / moves, 2) if moves else None,
            "p50_s": _round(percentile(times, 50)),
            "p99_s": _round(percentile(times, 99)),
        }
        for lane, times in sorted(trace.drawings_in(begin, end).items())
    }
    result["drawn_by_lane"] = {
        lane: {
            "per_move": _round(n / moves, 2) if moves else None,
            "wasted_per_move": _round(w / moves, 2) if moves else None,
        }
        for lane, (n, w) in sorted(trace.drawn_in(begin, end).items())
    }
    uploads = result.pop("_uploads", 0)
    result["uploads_per_move"] = _round(uploads / moves, 2) if moves else None
    for key in ("_requests", "_callbacks"):
        result.pop(key)
    _tidy(folder, args)
    return result


def write_acks(path: Path, meter: Meter, trace: Trace) -> None:
    """Each interaction's moments on the shared monotonic clock, for a kept run: dispatched
    by the fake, written to the bot's socket, parsed by discord.py, its callback written by
    the bot, its callback read by the fake (``-`` where unknown): to line up the slow ones
    with the bot's stalls (``MAHJONG_STALLS``, ``K`` lines in trace.txt)."""

    def at(value: float | None) -> str:
        return "-" if value is None else f"{value:.4f}"

    with open(path, "w") as out:
        for key, (created, arrived) in sorted(meter.timeline.items(), key=lambda kv: kv[1]):
            parsed = trace.ack_times.get(key, (None, None))[0]
            out.write(
                f"{key} {at(created)} {at(meter.written.get(key))} {at(parsed)} "
                f"{at(trace.ack_written.get(key))} {at(arrived)}\n"
            )


def _tidy(folder: Path, args: argparse.Namespace) -> None:
    """A run's folder (the database, the trace, the bot's log) goes once the run is measured,
    unless ``--keep`` (a failed run leaves it, to read its log): a benchmark run a few
    dozen times in a session left a gigabyte in /tmp."""
    if args.keep:
        say(args, f"  kept: {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)


async def stop_players(stop: asyncio.Event, tasks: list[asyncio.Task[Any]]) -> None:
    """Tell the members to stop, give them a moment to finish a press, then cancel them."""
    stop.set()
    if tasks:
        await asyncio.wait(tasks, timeout=15)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def window(server: Any, meter: Any, bot: BotProcess, args: argparse.Namespace) -> dict:
    """The measured seconds: acks, requests, CPU and RSS (staleness comes from the trace)."""
    mine = os.getpid()
    pid = bot.pid
    cpu_before = (cpu_seconds(pid), sum(cpu_seconds(c) for c in bot.children()))
    own_before = cpu_seconds(mine)
    begin = server.loop_time()
    first_request = len(meter.requests)
    meter.on = True
    await asyncio.sleep(args.seconds)
    meter.on = False
    end = server.loop_time()
    drawers = bot.children()
    cpu_after = (cpu_seconds(pid), sum(cpu_seconds(c) for c in drawers))
    seconds = end - begin
    requests = [r for r in meter.requests[first_request:] if r.at <= end]
    callbacks = sum(1 for r in requests if r.exempt)
    counted = [r for r in requests if not r.exempt]
    accepted = [r.at for r in counted if r.status != 429]
    refused = [r for r in requests if r.status == 429]
    routes: dict[str, int] = defaultdict(int)
    for r in requests:
        routes[("callback " if r.exempt else "") + r.route] += 1
    lat = meter.latencies
    return {
        "seconds": round(seconds, 1),
        "ack_p50_ms": _round(percentile(lat, 50), 1),
        "ack_p99_ms": _round(percentile(lat, 99), 1),
        "ack_max_ms": _round(max(lat, default=float("nan")), 1),
        "acks": len(lat),
        "acks_over_3s": sum(1 for ms in lat if ms > LATE_MS),
        "noncallback_requests_per_s": round((len(requests) - callbacks) / seconds, 1),
        "noncallback_requests_max_in_1s": most_in_any(accepted),
        "noncallback_arrivals_max_in_1s": most_in_any([r.at for r in counted]),
        "refused_429": len(refused),
        "refused_429_by_bucket": _refusals(server, begin, end),
        "_routes": dict(routes),
        "_uploads": sum(1 for r in requests if r.upload and r.status < 300),
        "cpu_bot_pct": round((cpu_after[0] - cpu_before[0]) / seconds * 100),
        "cpu_drawing_pct": round((cpu_after[1] - cpu_before[1]) / seconds * 100),
        "cpu_fake_and_members_pct": round((cpu_seconds(mine) - own_before) / seconds * 100),
        "drawing_processes": len(drawers),
        "rss_mb": round(rss_mb(pid)),
        "rss_drawing_mb": round(sum(rss_mb(c) for c in drawers)),
        "_begin": begin,
        "_end": end,
        "_requests": len(requests),
        "_callbacks": callbacks,
    }


def _refusals(server: Any, begin: float, end: float) -> dict[str, int]:
    """The fake's 429s in [begin, end] by bucket ("global", "message-edit", ...)."""
    out: dict[str, int] = defaultdict(int)
    for at, *_, bucket in server.rate_limits.refusals:
        if begin <= at <= end:
            out[bucket] += 1
    return dict(out)


async def burst(world: World, meter: Meter, count: int, rng: random.Random) -> dict[str, Any]:
    """``count`` interactions within 0.2 s: slash commands and presses of DM buttons."""
    hands = ["123m 456m 789s 55s 22p win 2p from W", "123m 456m 789s 55s 22p"]
    sent: list[int] = []  # interaction ids

    async def one(i: int) -> None:
        user = world.members[i % len(world.members)]
        channel = world.tables[(i // len(world.tables[0][1])) % len(world.tables)][0]
        kind = i % 4
        try:
            if kind == 0:
                sent.append((await user.slash(channel, "chips")).id)
            elif kind == 1:
                hand = rng.choice(hands)
                sent.append((await user.slash(channel, "score", hand=hand, seat="S")).id)
            elif kind == 2:
                sent.append((await user.slash(channel, "rules")).id)
            else:
                pressed = await press_any(user)
                if pressed is None:  # no button in their DMs now: a command instead
                    pressed = (await user.slash(channel, "rules")).id
                sent.append(pressed)
        except AssertionError as exc:  # a command this bot does not offer (yet)
            logging.warning("burst: %s", exc)

    began = time.perf_counter()
    tasks = []
    for i in range(count):
        tasks.append(asyncio.create_task(one(i)))
        if i % 25 == 24:
            await asyncio.sleep(0.2 / (count / 25))
    await asyncio.gather(*tasks)
    spread = time.perf_counter() - began
    ids = list(sent)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not all(i in meter.by_id for i in ids):
        await asyncio.sleep(0.1)
    acks = [meter.by_id[i] for i in ids if i in meter.by_id]
    return {
        "interactions": len(ids),
        "sent_within_s": round(spread, 2),
        "answered": len(acks),
        "acks_over_3s": sum(1 for ms in acks if ms > LATE_MS) + len(ids) - len(acks),
        "ack_p50_ms": _round(percentile(acks, 50), 1),
        "ack_p99_ms": _round(percentile(acks, 99), 1),
        "ack_max_ms": _round(max(acks, default=float("nan")), 1),
    }


async def press_any(user: Any) -> int | None:
    """Press the first button of the newest DM of ``user`` (often stale: a refusal is an
    answer too). Returns the interaction's id, or None without a button."""
    messages = user.messages(user.dm())
    for message in reversed(messages):
        ids = message.custom_ids()
        if ids:
            return (await user.click(message, ids[0])).id
    return None


async def restart(count: int, args: argparse.Namespace) -> dict[str, Any]:
    """``count`` open tables, SIGKILL, start again: seconds until connected and until an
    interaction is answered."""
    from tests.e2e.players import SimPlayer

    server = benchmark_fake(args.global_limit)
    meter = Meter(server)
    folder = Path(tempfile.mkdtemp(prefix=f"mahjong-restart-{count}-"))
    bot = BotProcess(server, folder, args)
    async with server.running():
        world = build_world(server, count, 1)
        try:
            await bot.start()
            began = time.perf_counter()
            opened = await open_tables(world, hands=8, at_once=16)
            say(args, f"restart: {opened} tables opened in {time.perf_counter() - began:.0f} s")
            # The members play for a while, so that the tables have moves to replay.
            stop = asyncio.Event()
            players = [
                SimPlayer(
                    u, c, patient=True, ack_timeout=10, think=lambda: 0.2, on_change=True, poll=1.0
                )
                for c, users in world.tables
                for u in users
            ]
            tasks = [asyncio.create_task(p.play(stop.is_set, timeout=3600)) for p in players]
            await asyncio.sleep(args.seconds)
            stop.set()
            events = _events(bot.database)
            await bot.stop(kill=True)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            user, channel = world.members[0], world.tables[0][0]
            started = time.monotonic()
            connected = await bot.start(timeout=300)
            answered = None
            while time.monotonic() - started < 300:
                handle = await user.slash(channel, "rules")
                sent = time.monotonic()
                while time.monotonic() - sent < 3 and handle.record.id not in meter.by_id:
                    await asyncio.sleep(0.02)
                if handle.record.id in meter.by_id:
                    answered = time.monotonic() - started
                    break
        finally:
            await bot.stop()
    _tidy(folder, args)
    return {
        "restart_tables": opened,
        "restart_events": events,
        "restart_connected_s": round(connected, 2),
        "restart_answers_s": _round(answered if answered is not None else float("nan"), 2),
    }


def _events(database: Path) -> int:
    with contextlib.closing(
        sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    ) as db:
        return db.execute("SELECT COUNT(*) FROM events").fetchone()[0]


def _round(value: float, digits: int = 2) -> float | None:
    return None if value != value else round(value, digits)  # NaN -> null in JSON


def say(args: argparse.Namespace, text: str) -> None:
    print(text, file=sys.stderr if args.json else sys.stdout, flush=True)


def report(result: dict[str, Any], args: argparse.Namespace) -> None:
    if args.json:
        print(json.dumps(result), flush=True)
        return
    r = result
    if "tables" in r:
        print(
            f"{r['tables']} tables x {args.humans} members, {r['seconds']:.0f} s measured, "
            f"{'no drawing (1x1 stubs)' if args.no_render else 'drawing for real'}"
        )
        print(f"  moves/s {r['moves_per_s']}")
        print(
            f"  acks: n={r['acks']} p50 {r['ack_p50_ms']} ms  p99 {r['ack_p99_ms']} ms  "
            f"max {r['ack_max_ms']} ms  over 3 s: {r['acks_over_3s']}; the bot's own part "
            f"p50 {r['ack_in_bot_p50_ms']} ms  p99 {r['ack_in_bot_p99_ms']} ms"
        )
        print(
            f"  acks socket to socket (the bot's loop, its part, its write): p50 "
            f"{r['ack_bot_p50_ms']} ms  p99 {r['ack_bot_p99_ms']} ms  max {r['ack_bot_max_ms']}"
            f" ms  over 100 ms: {r['ack_bot_over_100ms']}; legs p99: the fake's send "
            f"{r['ack_to_socket_p99_ms']}, to discord.py {r['ack_to_bot_p99_ms']}, the bot's "
            f"write {r['ack_out_p99_ms']}, to the fake's read {r['ack_back_p99_ms']} ms"
        )
        print(
            f"  DM staleness: p50 {r['dm_staleness_p50_s']} s  p99 {r['dm_staleness_p99_s']} s  "
            f"max {r['dm_staleness_max_s']} s  (never shown: {r['dm_never_shown']}); in the"
            f" request p50 {r['dm_in_request_p50_s']} s p99 {r['dm_in_request_p99_s']} s,"
            f" before it p99 {r['dm_before_request_p99_s']} s"
        )
        print(
            f"  a click's own DM updated (the answer, after the acknowledgement): "
            f"p50 {r['answer_p50_s']} s  p99 {r['answer_p99_s']} s"
        )
        print(
            f"  table staleness: p50 {r['table_staleness_p50_s']} s  "
            f"p99 {r['table_staleness_p99_s']} s  (never shown: {r['table_never_shown']}); "
            f"table edits/s {r['table_edits_per_s']}, the least any schedule needs to show "
            f"every visible move within {TABLE_GOAL_S} s: {r['least_table_edits_per_s']}"
        )
        print(
            f"  requests per move {r['requests_per_move']} (callback "
            f"{r['callback_requests_per_move']}, other {r['noncallback_requests_per_move']}); "
            f"other requests/s {r['noncallback_requests_per_s']} (max in 1 s: "
            f"{r['noncallback_requests_max_in_1s']}; Discord allows {r['global_limit']}/s)"
        )
        print(
            f"  429s: {r['refused_429']} {r['refused_429_by_bucket']}; arrivals (429s too) max "
            f"in 1 s: {r['noncallback_arrivals_max_in_1s']}; outside the pacer: "
            f"{r['unpaced_requests'] or 'none'}"
        )
        top = list(r["requests_per_move_by_route"].items())[:8]
        print("  per move: " + ", ".join(f"{route} {n}" for route, n in top))
        print(
            "  drawings (per move, wait+draw p50/p99 s): "
            + ", ".join(
                f"{lane} {d['per_move']} ({d['p50_s']}/{d['p99_s']})"
                for lane, d in r["drawings_by_lane"].items()
            )
        )
        print(
            f"  pictures uploaded per move {r['uploads_per_move']}; "
            "drawn by the pool (per move, of them for nothing): "
            + ", ".join(
                f"{lane} {d['per_move']} ({d['wasted_per_move']})"
                for lane, d in r["drawn_by_lane"].items()
            )
        )
        print(
            f"  CPU: bot {r['cpu_bot_pct']} %, {r['drawing_processes']} drawing processes "
            f"{r['cpu_drawing_pct']} %, fake + members {r['cpu_fake_and_members_pct']} %;  "
            f"RSS: bot {r['rss_mb']} MB, drawing {r['rss_drawing_mb']} MB"
        )
        print(
            f"  the bot's full garbage collections: {r['gc_full_passes']}, longest "
            f"{r['gc_full_pass_max_ms']} ms ({r['gc_full_pass_max_cpu_ms']} ms of CPU); "
            f"the fake's (off while measuring): {r['harness_gc_passes']}, longest "
            f"{r['harness_gc_max_ms']} ms"
        )
        if "burst" in r:
            b = r["burst"]
            print(
                f"  burst: {b['interactions']} interactions sent within {b['sent_within_s']} s, "
                f"over 3 s: {b['acks_over_3s']}, p50 {b['ack_p50_ms']} ms, p99 "
                f"{b['ack_p99_ms']} ms, max {b['ack_max_ms']} ms"
            )
    else:
        print(
            f"restart with {r['restart_tables']} open tables ({r['restart_events']} events): "
            f"connected after {r['restart_connected_s']} s, answers after "
            f"{r['restart_answers_s']} s"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="*", default=[20, 50, 100, 200])
    parser.add_argument("--humans", type=int, default=2, choices=(1, 2, 3, 4))
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=8)
    parser.add_argument("--think", type=float, nargs=2, default=(0.3, 1.5))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-render", action="store_true", help="stub the drawing out")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--keep", action="store_true", help="keep each run's folder (database, trace, log)"
    )
    parser.add_argument(
        "--global-limit",
        type=int,
        default=BUDGET,
        metavar="N",
        help="the bot's global requests a second at the fake (Discord's 50 unless it grants "
        "a big bot more); the bot paces itself to 0.9 N",
    )
    parser.add_argument("--burst", type=int, default=0, metavar="N")
    parser.add_argument("--restart", type=int, default=0, metavar="N")
    parser.add_argument(
        "--drawing-processes",
        type=int,
        default=None,
        metavar="N",
        help="drawing processes (default: the bot's own, one per core; 0: a thread)",
    )
    args = parser.parse_args(argv)
    # SIGTERM (a timeout, a supervisor) ends the run as Ctrl-C does: the bot is stopped too.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("discord").setLevel(logging.ERROR)
    status = 0
    for count in args.tables:
        try:
            report(asyncio.run(measure_tables(count, args)), args)
        except Exception as exc:  # the next table count still runs; the exit status says
            say(args, f"{count} tables: failed: {type(exc).__name__}: {exc}")
            status = 1
        args.burst = 0  # once, with the first table count
    if args.restart:
        try:
            report(asyncio.run(restart(args.restart, args)), args)
        except Exception as exc:
            say(args, f"restart: failed: {type(exc).__name__}: {exc}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
