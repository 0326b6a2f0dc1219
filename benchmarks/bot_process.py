"""The bot as ``benchmarks/bot.py`` runs it: a process of its own against the fake Discord, at
its real pace, writing what it did and when into a trace file.

    python benchmarks/bot_process.py PORT DATABASE TOKEN TRACE [--no-render]

DATABASE is a SQLite file or a ``postgresql://`` URL; MAHJONG_SHARDS, MAHJONG_SHARD_COUNT,
MAHJONG_GLOBAL_RATE and MAHJONG_DRAWING_PROCESSES are read as the bot reads them
(``benchmarks/scale.py`` runs several such processes on one PostgreSQL database).

As ``tests/e2e/launcher.py`` does, it points discord.py at the fake and refuses any connection
that is not to loopback, then calls ``bot.app.run``; unlike it, it keeps the bot's own delays
(computer players, edit gaps) but for the pause between hands (2 s instead of 8 s: the reveal
only idles the tables). The trace has one line per fact, times from ``time.monotonic()`` (the
same clock as the fake's loop in the benchmark's process):

- ``E table move visible t seats``: a move was committed and handed to the notifier; ``visible``
  is 1 when it changes what the channel shows (a pass or an answer to a claim does not),
  ``seats`` lists the members' seats that now have a decision (comma separated, ``-``: none);
- ``R table seat move t method`` : a request that showed ``table`` (``seat`` ``-`` for the
  channel's table message, else that seat's DM) as of ``move`` finished at ``t``. What a
  request shows is taken from the view the notifier built it from (``bot.service.privacy``:
  ``public_view`` / ``seat_view``, the one place every picture's contents come from).

- ``R table seat move t -``: that seat's DM was found already showing the seat's state as of
  ``move`` (nothing changed for it, so nothing was sent): shown as of ``t``;
- ``N seconds t``: a member's click was answered in its own DM message (``SeatDMs.answer``:
  waiting for the DM's lock, drawing, the edit through the interaction's token) in
  ``seconds``;
- ``U method route t``: a request with the bot's token sent outside the notifier's pacer
  (``cogs.notify.pacing.GRANTED`` unset): it bypassed the pacer's global budget;
- ``Q t {json}``: once a second, where the notifier's pacer stands (requests waiting per
  priority level, in flight, counted in the last second: ``Pacer.snapshot``);
- ``D lane seconds t``: a drawing asked for in ``lane`` took ``seconds`` (queue and drawing;
  superseded ones too);
- ``P lane wasted t``: the drawing pool finished a drawing of ``lane`` (``wasted`` 1: its
  caller had given up meanwhile, the work was for nothing);
- ``G 2 ms t cpu_ms n``: a full pass of the garbage collector took ``ms`` (it stops the bot),
  ``cpu_ms`` of them on a core, and found ``n`` objects that were garbage;
- ``A ms t id parsed``: the bot's own part of an acknowledgement: from discord.py parsing the
  INTERACTION_CREATE to the interaction's first callback request leaving (the rest of what
  the fake measures is the gateway, the network and the fake's own loop);
- ``H id t``: the callback of interaction ``id`` had its headers written to the socket.

``--no-render`` stubs the drawing out altogether: every image is a 1x1 PNG made in the bot's
process, and no drawing process starts (to see what the drawing costs).

MAHJONG_MEMORY_TRACE=FOLDER (every MAHJONG_MEMORY_TRACE_EVERY seconds, 60 by default) writes
where the bot's memory is into FOLDER (``trace_memory``; MAHJONG_MEMORY_TRACE_PYTHON=SECONDS adds
tracemalloc snapshots from that many seconds on), to find what grows in a soak.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHOWN: contextvars.ContextVar[tuple[int, int | None, int] | None] = contextvars.ContextVar(
    "shown", default=None
)


class Trace:
    def __init__(self, path: Path) -> None:
        self.file = open(path, "a", buffering=1)  # noqa: SIM115  (lives as long as the bot)

    def line(self, *parts: Any) -> None:
        self.file.write(" ".join(str(p) for p in parts) + "\n")


def instrument(trace: Trace) -> None:
    import discord.http
    import discord.webhook.async_

    import bot.service.privacy as privacy

    def shows(view_of: Any, public: bool) -> Any:
        @functools.wraps(view_of)
        def wrapper(table: Any, *args: Any, **kwargs: Any) -> Any:
            seat = None if public else (args[0] if args else kwargs.get("seat"))
            SHOWN.set((table.id, seat, table.move))
            return view_of(table, *args, **kwargs)

        return wrapper

    privacy.public_view = shows(privacy.public_view, True)
    privacy.seat_view = shows(privacy.seat_view, False)  # before the cogs import them

    from bot.service.tables import service as tables

    tables.NEXT_HAND_DELAY = 2.0

    after_change = tables.TableService._after_change

    @functools.wraps(after_change)
    async def traced_change(self: Any, table: Any, before: Any, line: str) -> None:
        now = time.monotonic()
        seats = []
        for player in table.players:
            if player.computer or player.user_id is None:
                continue
            seat = table.seat_of_user(player.user_id)
            if seat is not None and self.legal_for(table, seat):
                seats.append(str(seat))
        trace.line("E", table.id, table.move, int(bool(line)), f"{now:.4f}", ",".join(seats) or "-")
        await after_change(self, table, before, line)

    tables.TableService._after_change = traced_change  # type: ignore[method-assign]

    if os.environ.get("MAHJONG_SLOW_CALLBACKS"):
        act = tables.TableService.act

        @functools.wraps(act)
        async def timed_act(self: Any, table_id: int, *args: Any) -> Any:
            began = time.monotonic()
            table = self.tables.get(table_id)
            lock = getattr(table, "lock", None)
            locked = lock is not None and lock.locked()
            try:
                return await act(self, table_id, *args)
            finally:
                took = (time.monotonic() - began) * 1000
                verb = args[1] if len(args) > 1 else "?"
                state = getattr(self.tables.get(table_id), "state", None)
                phase = getattr(state, "phase", "-")
                trace.line("K", f"{took:.1f}", int(locked), f"{time.monotonic():.4f}", verb, phase)

        tables.TableService.act = timed_act  # type: ignore[method-assign]

    from cogs.notify import pacing

    dispatch = pacing.Pacer._dispatch

    async def watched(self: Any) -> None:
        """``Q {json}`` once a second: where the pacer's budget stands."""
        import asyncio
        import json

        async def watch() -> None:
            while True:
                await asyncio.sleep(1.0)
                trace.line("Q", f"{time.monotonic():.4f}", json.dumps(self.snapshot()))

        watcher = asyncio.ensure_future(watch())
        try:
            await dispatch(self)
        finally:
            watcher.cancel()

    pacing.Pacer._dispatch = watched  # type: ignore[method-assign]

    trace_unchanged_dms(trace)

    from bot import drawing

    def timed(draw: Any) -> Any:
        """``D`` lines for ``Drawing.draw`` and ``Drawing.draw_newest`` alike."""

        @functools.wraps(draw)
        async def traced(self: Any, *args: Any, lane: str = "lookup", **kw: Any) -> Any:
            began = time.monotonic()
            try:
                return await draw(self, *args, lane=lane, **kw)
            finally:
                now = time.monotonic()
                trace.line("D", lane, f"{now - began:.4f}", f"{now:.4f}")

        return traced

    drawing.Drawing.draw = timed(drawing.Drawing.draw)  # type: ignore[method-assign]
    drawing.Drawing.draw_newest = timed(drawing.Drawing.draw_newest)  # type: ignore[method-assign]

    from cogs.notify.pictures import Pictures

    newest = Pictures.newest

    @functools.wraps(newest)
    async def traced_newest(self: Any, make: Any, **kw: Any) -> Any:
        """A picture made when its drawing starts is made in the pool's task: what it shows
        is carried back to the task that sends it."""
        made: list[Any] = [None]

        def traced_make() -> Any:
            SHOWN.set(None)
            picture = make()
            made[0] = SHOWN.get()
            return picture

        result = await newest(self, traced_make, **kw)
        if made[0] is not None:
            SHOWN.set(made[0])
        return result

    Pictures.newest = traced_newest  # type: ignore[method-assign]

    settle = drawing.Drawing._settle

    @functools.wraps(settle)
    async def traced_settle(self: Any, slot: int, job: Any, answer: Any) -> None:
        trace.line("P", job.lane, int(job.future.done()), f"{time.monotonic():.4f}")
        await settle(self, slot, job, answer)

    drawing.Drawing._settle = traced_settle  # type: ignore[method-assign]

    from cogs.notify.pacing import GRANTED

    def shown_by(request: Any, skip: Any, paced: bool = False) -> Any:
        @functools.wraps(request)
        async def traced(self: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
            shown = SHOWN.get()
            began = time.monotonic()
            if paced and not GRANTED.get():
                path = route.path.replace(" ", "")
                trace.line("U", route.method, path, f"{time.monotonic():.4f}")
            result = await request(self, route, *args, **kwargs)
            if shown is not None and route.method in ("POST", "PATCH") and not skip(kwargs):
                SHOWN.set(None)
                table, seat, move = shown
                where = "-" if seat is None else seat
                trace.line(
                    "R", table, where, move, f"{time.monotonic():.4f}", route.method, f"{began:.4f}"
                )
            return result

        return traced

    import discord.state

    received: dict[str, float] = {}  # interaction id -> when discord.py parsed it
    parse = discord.state.ConnectionState.parse_interaction_create

    @functools.wraps(parse)
    def parsed(self: Any, data: Any) -> Any:
        received[str(data.get("id"))] = time.monotonic()
        return parse(self, data)

    discord.state.ConnectionState.parse_interaction_create = parsed  # type: ignore[method-assign]

    def answered(request: Any) -> Any:
        @functools.wraps(request)
        async def timed(self: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
            path = route.path if hasattr(route, "path") else ""
            if path.endswith("/callback"):
                began = received.pop(str(route.webhook_id), None)
                if began is not None:
                    now = time.monotonic()
                    trace.line(
                        "A",
                        f"{(now - began) * 1000:.1f}",
                        f"{now:.4f}",
                        str(route.webhook_id),
                        f"{began:.4f}",
                    )
            return await request(self, route, *args, **kwargs)

        return timed

    import aiohttp

    # When each callback's headers were written to the socket: what lies between the
    # request leaving discord.py and the fake reading it is the bot's loop, then the fake's.
    sent = aiohttp.TraceConfig()

    async def headers_sent(session: Any, context: Any, params: Any) -> None:
        path = params.url.path
        if path.endswith("/callback"):
            trace.line("H", path.split("/")[-3], f"{time.monotonic():.4f}")

    sent.on_request_headers_sent.append(headers_sent)

    session_init = aiohttp.ClientSession.__init__

    @functools.wraps(session_init)
    def traced_session(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs["trace_configs"] = [*(kwargs.get("trace_configs") or ()), sent]
        session_init(self, *args, **kwargs)

    aiohttp.ClientSession.__init__ = traced_session  # type: ignore[method-assign]

    def acknowledgement(kwargs: dict[str, Any]) -> bool:
        """A deferral (callback type 5 or 6) shows nothing."""
        payload = kwargs.get("payload")
        return isinstance(payload, dict) and payload.get("type") in (5, 6)

    discord.http.HTTPClient.request = shown_by(  # type: ignore[method-assign]
        discord.http.HTTPClient.request, lambda kwargs: False, paced=True
    )
    # Interaction callbacks and follow-ups (a DM updated in the answer to its click) go
    # through the webhook adapter instead.
    adapter = discord.webhook.async_.AsyncWebhookAdapter
    adapter.request = answered(shown_by(adapter.request, acknowledgement))  # type: ignore[method-assign]


def trace_unchanged_dms(trace: Trace) -> None:
    """``R table seat move t -``: a seat's DM update or click answer found the DM already
    showing the seat's newest content (its key unchanged since the last request): nothing is
    sent, and the member's screen shows that move as of now. Without these a move that
    changed nothing a seat sees counted as stale until the seat's next request, seconds
    later (13 s at 200 tables), though the member saw it all along."""
    from cogs.notify import dm

    built: contextvars.ContextVar[Any] = contextvars.ContextVar("built", default=None)
    content = dm.SeatDMs.content

    @functools.wraps(content)
    def traced_content(self: Any, table: Any, seat: int, **kwargs: Any) -> Any:
        result = content(self, table, seat, **kwargs)
        built.set(result.key)
        return result

    dm.SeatDMs.content = traced_content  # type: ignore[method-assign]

    def unchanged(work: Any) -> Any:
        @functools.wraps(work)
        async def traced(self: Any, *args: Any) -> Any:
            table, seat = args[-2], args[-1]  # update(table, seat), answer(click, table, seat)
            SHOWN.set(None)
            built.set(None)
            result = await work(self, *args)
            shown, key = SHOWN.get(), built.get()  # a view built, and no request showed it
            live = self.live.get((table.id, seat))
            on_screen = live is not None and live.message is not None and live.key == key
            if shown is not None and key is not None and on_screen:
                trace.line("R", table.id, seat, shown[2], f"{time.monotonic():.4f}", "-")
            return result

        return traced

    dm.SeatDMs.update = unchanged(dm.SeatDMs.update)  # type: ignore[method-assign]
    answer = unchanged(dm.SeatDMs.answer)

    @functools.wraps(answer)
    async def timed_answer(self: Any, *args: Any) -> Any:
        began = time.monotonic()
        try:
            return await answer(self, *args)
        finally:
            now = time.monotonic()
            trace.line("N", f"{now - began:.4f}", f"{now:.4f}")

    dm.SeatDMs.answer = timed_answer  # type: ignore[method-assign]


def trace_gc(trace: Trace) -> None:
    """``G 2 ms t cpu_ms n``: each full (generation 2) pass of the garbage collector, its wall
    time, the CPU time the bot's thread spent in it (less when the machine is busy and the
    pass waited for a core) and the garbage it found."""
    import gc

    started = cpu = 0.0

    def callback(phase: str, info: dict[str, Any]) -> None:
        nonlocal started, cpu
        if info.get("generation") != 2:
            return
        if phase == "start":
            started, cpu = time.perf_counter(), time.thread_time()
        else:
            ms = (time.perf_counter() - started) * 1000
            cpu_ms = (time.thread_time() - cpu) * 1000
            collected = info.get("collected", 0)
            trace.line("G", 2, f"{ms:.1f}", f"{time.monotonic():.4f}", f"{cpu_ms:.1f}", collected)

    gc.callbacks.append(callback)


def trace_stalls(trace: Trace, over: float) -> None:
    """``K ms t cpu_ms stacks``: the bot's event loop (uvloop's too, which
    ``trace_slow_callbacks`` cannot hook) ran its heartbeat ``over`` seconds or more later
    than due, for ``ms``; the CPU the loop's thread used meanwhile (less than ``ms`` when it
    waited: for a core, the disk, or the GIL held by another of the bot's threads); and
    where it was: a thread samples the loop thread's stack every 5 ms while the heartbeat is
    late (``stacks``: each distinct innermost three frames, with how often). The line is
    written by the loop itself once it is back."""
    import asyncio
    import threading
    from collections import Counter

    import bot.app

    period = 0.01  # the heartbeat's own sleep, not counted as a stall
    beat = [time.monotonic(), time.thread_time()]  # the loop's last heartbeat, its CPU then
    loop_thread = threading.get_ident()
    stopped = threading.Event()

    async def heartbeat() -> None:
        while True:
            beat[:] = time.monotonic(), time.thread_time()
            await asyncio.sleep(period)

    def where() -> str:
        frame = sys._current_frames().get(loop_thread)
        names = []
        while frame is not None and len(names) < 3:
            code = frame.f_code
            names.append(f"{code.co_qualname}@{Path(code.co_filename).name}:{frame.f_lineno}")
            frame = frame.f_back
        return "<".join(names) or "?"

    def watch(loop: asyncio.AbstractEventLoop) -> None:
        stacks: Counter[str] = Counter()
        began = cpu = 0.0
        while not stopped.wait(0.005):
            at, at_cpu = beat
            if time.monotonic() - at - period > over:
                if not stacks:
                    began, cpu = at, at_cpu
                stacks[where()] += 1
            elif stacks:
                took = (at - began - period) * 1000
                used = (at_cpu - cpu) * 1000
                top = ",".join(f"{n}x{s}" for s, n in stacks.most_common(4)).replace(" ", "_")
                line = ("K", f"{took:.0f}", f"{at:.4f}", f"{used:.0f}", top)
                with contextlib.suppress(RuntimeError):  # the loop has closed
                    loop.call_soon_threadsafe(trace.line, *line)
                stacks.clear()

    serve = bot.app.serve

    async def watched_serve(settings: Any) -> int:
        loop = asyncio.get_running_loop()
        task = loop.create_task(heartbeat())
        threading.Thread(target=watch, args=(loop,), name="stall-watch", daemon=True).start()
        try:
            return await serve(settings)
        finally:
            stopped.set()
            task.cancel()

    bot.app.serve = watched_serve  # type: ignore[assignment]


def trace_slow_callbacks(trace: Trace, over: float) -> None:
    """``S ms t what cpu_ms``: a callback of the event loop (a task's step, a timer, a reader) that
    ran longer than ``over`` seconds, and what it was (the task's coroutine, or the callback):
    what keeps every other interaction waiting."""
    import asyncio.events

    run = asyncio.events.Handle._run

    def timed(self: Any) -> None:
        began, cpu = time.perf_counter(), time.thread_time()
        run(self)
        took = time.perf_counter() - began
        if took > over:
            cpu = time.thread_time() - cpu
            callback = self._callback
            owner = getattr(callback, "__self__", None)
            if isinstance(owner, asyncio.Task):
                # The task's coroutine and where it waits now (where this step ended).
                chain, coro = [], owner.get_coro()
                while coro is not None and hasattr(coro, "cr_code"):
                    chain.append(coro.cr_code.co_qualname)
                    coro = coro.cr_await
                what = ">".join(chain[:1] + chain[-2:]) if chain else repr(coro)
            else:
                what = getattr(callback, "__qualname__", repr(callback))
            what = what.replace(" ", "_")
            trace.line(
                "S", f"{took * 1000:.1f}", f"{time.monotonic():.4f}", what, f"{cpu * 1000:.1f}"
            )

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]


def count_garbage(after: float, out: Path) -> None:
    """``after`` seconds from now, the garbage one full pass of the collector finds (objects
    only the collector frees: reference cycles), by type, and for the commonest types what
    their cycles hold and the cycles themselves (``cycles``: how many of a sample of each
    type are in each), written to ``out`` as JSON."""
    import collections
    import gc
    import json
    import threading

    def run() -> None:
        time.sleep(after)
        gc.collect()  # what was garbage before is not counted
        time.sleep(10)  # ten seconds of the bot's garbage
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found = list(gc.garbage)
            gc.garbage.clear()
        finally:
            gc.set_debug(0)
        counts = collections.Counter(type(o).__qualname__ for o in found)
        inside = {id(o) for o in found}
        cycles = collections.Counter(
            _cycle_through(o, inside)
            for name, _ in counts.most_common(12)
            for o in [o for o in found if type(o).__qualname__ == name][:20]
        )
        names = collections.Counter(
            getattr(o, "__qualname__", "?") for o in found if type(o).__name__ == "coroutine"
        )
        out.write_text(
            json.dumps(
                {
                    "objects": len(found),
                    "types": counts.most_common(60),
                    "coroutines": names.most_common(20),
                    "cycles": [[n, c] for c, n in cycles.most_common(30) if c],
                }
            )
        )
        del found

    threading.Thread(target=run, name="count-garbage", daemon=True).start()


def _cycle_through(start: Any, inside: set[int]) -> str:
    """The shortest reference cycle from ``start`` back to it through objects in ``inside``
    (the garbage), as ``View -> list -> Button -> View``; "" when it is in none (held by a
    cycle without being in one)."""
    import collections
    import gc

    def name(o: Any) -> str:
        kind = type(o).__qualname__
        if kind == "frame":
            return f"frame({o.f_code.co_name})"
        if kind in ("coroutine", "function", "method"):
            return f"{kind}({getattr(o, '__qualname__', '?')})"
        if kind == "Task":
            return f"Task({getattr(o.get_coro(), '__qualname__', '?')})"
        return kind

    came_from: dict[int, Any] = {id(start): None}
    queue = collections.deque([start])
    while queue:
        here = queue.popleft()
        for there in gc.get_referents(here):
            if there is start:
                path = [here]
                while came_from[id(path[-1])] is not None:
                    path.append(came_from[id(path[-1])])
                return " -> ".join(name(o) for o in [*reversed(path), start])
            if id(there) in inside and id(there) not in came_from:
                came_from[id(there)] = here
                queue.append(there)
    return ""


def trace_memory(folder: Path, every: float, python: float | None, holders: str = "") -> None:
    """Every ``every`` seconds, where the bot's memory is, written into ``folder``.

    ``memory.jsonl``: one line per sample: resident memory, the C allocator's own figures
    (glibc's ``mallinfo2``: bytes in use, bytes freed but kept, mmapped) and the number of
    live Python objects (RSS that grows while they stay flat is the allocator's, not the
    bot's) and SQLite's own heap (its page caches and statements: malloc'd by the library,
    invisible to tracemalloc); ``types-N.json``: live objects per type. With ``python`` (a
    number of seconds), tracemalloc starts that long after the bot and every sample from then
    on also writes ``snapshot-N.pickle`` (``benchmarks/memory_diff.py`` compares two). Started
    after warm-up, it traces only what is allocated since, which keeps the bot fast enough to
    play: traced from the start, a soak finished one game in six minutes. ``holders`` (type
    names, comma separated, e.g. ``Message,_Job``): what holds a sample of each type's
    objects, written into every fifth ``types-N.json``.
    """
    import collections
    import ctypes
    import gc
    import json
    import threading
    import tracemalloc
    import types

    class MallInfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in (
                *("arena", "ordblks", "smblks", "hblks", "hblkhd"),
                *("usmblks", "fsmblks", "uordblks", "fordblks", "keepcost"),
            )
        ]

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    # The library _sqlite3 is linked against: already loaded, so this is the same instance.
    sqlite = ctypes.CDLL("libsqlite3.so.0")
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    sqlite.sqlite3_memory_highwater.restype = ctypes.c_int64
    sqlite.sqlite3_memory_highwater.argtypes = [ctypes.c_int]
    started = time.monotonic()
    folder.mkdir(parents=True, exist_ok=True)
    log = open(folder / "memory.jsonl", "a", buffering=1)  # noqa: SIM115

    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]

    def arenas() -> list[tuple[float, float]]:
        """Each of glibc's heaps (0: the main thread's; one more per thread that allocated, up
        to eight a core): (MB from the system, MB of it free), from ``malloc_info``."""
        import re
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".xml") as out:
            handle = libc.fopen(out.name.encode(), b"w")
            libc.malloc_info(0, handle)
            libc.fclose(handle)
            text = Path(out.name).read_text()
        found = []
        for heap in re.findall(r'<heap nr="\d+">(.*?)</heap>', text, re.S):
            free = re.search(r'<total type="rest" count="\d+" size="(\d+)"/>', heap)
            system = re.search(r'<system type="current" size="(\d+)"/>', heap)
            if free and system:
                found.append((int(system[1]) / 2**20, int(free[1]) / 2**20))
        return found

    def rss_mb() -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def sample(n: int) -> None:
        info = libc.mallinfo2()
        facts = {"t": time.monotonic(), "rss_mb": rss_mb()}
        facts["malloc_in_use_mb"] = info.uordblks / 2**20
        facts["malloc_free_kept_mb"] = info.fordblks / 2**20
        facts["malloc_mmapped_mb"] = info.hblkhd / 2**20
        facts["malloc_heaps_mb"] = [[round(a, 2), round(b, 2)] for a, b in arenas()]
        facts["sqlite_mb"] = sqlite.sqlite3_memory_used() / 2**20
        facts["sqlite_highwater_mb"] = sqlite.sqlite3_memory_highwater(0) / 2**20
        facts |= python_arenas()
        counts: collections.Counter[str] = collections.Counter()
        kept = 0  # closed tables whose game is still in memory (all let go after a minute)
        cached: dict[str, int] = {}  # the bot's lru caches: entries held
        for o in gc.get_objects():
            name = type(o).__qualname__
            counts[name] += 1
            if name == "_lru_cache_wrapper" and getattr(o, "__module__", "").startswith("bot."):
                cached[f"{o.__module__}.{o.__qualname__}"] = o.cache_info().currsize
            if name == "LiveTable" and o.status not in ("lobby", "playing") and o.state:
                kept += 1
        facts["objects"] = sum(counts.values())
        facts["closed_tables_with_game"] = kept
        facts["lru_entries"] = sum(cached.values())
        log.write(json.dumps(facts) + "\n")
        facts["types"] = counts.most_common(80)
        facts["lru_caches"] = cached
        if holders and n % 5 == 0:  # each takes seconds of the bot's loop
            facts["holders"] = {name: held_by(name) for name in holders.split(",")}
        due = python is not None and time.monotonic() - started >= python
        if due and not tracemalloc.is_tracing():
            tracemalloc.start(6)
        if tracemalloc.is_tracing():
            current, peak = tracemalloc.get_traced_memory()
            facts |= {"traced_mb": current / 2**20, "peak_mb": peak / 2**20}
            tracemalloc.take_snapshot().dump(str(folder / f"snapshot-{n}.pickle"))
        (folder / f"types-{n}.json").write_text(json.dumps(facts))

    def python_arenas() -> dict[str, float]:
        """CPython's own small-object allocator (not malloc's: it maps arenas of 1 MiB in
        3.11 and unmaps one only when all of it is free): arenas mapped now and at most, and
        the bytes its objects use. ``sys._debugmallocstats`` writes to the C stderr, so fd 2
        points at a file for that moment (what another thread logs then is lost). Nothing
        under ``PYTHONMALLOC=malloc``."""

        import tempfile

        with tempfile.TemporaryFile() as out:
            sys.stderr.flush()
            saved = os.dup(2)
            os.dup2(out.fileno(), 2)
            try:
                sys._debugmallocstats()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            out.seek(0)
            text = out.read().decode(errors="replace")
        wanted = {
            "# arenas allocated current": "py_arenas",
            "# arenas highwater mark": "py_arenas_highwater",
            "# bytes in allocated blocks": "py_blocks_bytes",
        }
        found: dict[str, float] = {}
        for line in text.splitlines():
            label, _, value = line.partition("=")
            if "bytes/arena" in label:  # "N arenas * S bytes/arena = total"
                found["py_arenas_mb"] = int(value.strip().replace(",", "")) / 2**20
                continue
            key = wanted.get(label.strip())
            if key and value.strip().replace(",", "").isdigit():
                found[key] = int(value.strip().replace(",", ""))
        if "py_blocks_bytes" in found:
            found["py_blocks_mb"] = found.pop("py_blocks_bytes") / 2**20
        return found

    def held_by(name: str, count: int = 40, depth: int = 5) -> list[tuple[str, int]]:
        """What holds ``count`` objects of type ``name``: each one's chain of referrers, as
        type names (the first referrer that is not a frame), ``depth`` steps up."""
        import random

        found = [o for o in gc.get_objects() if type(o).__qualname__ == name]
        if name == "LiveTable":  # the ones that should be gone: closed, game still attached
            found = [o for o in found if o.status not in ("lobby", "playing") and o.state]
        paths: collections.Counter[str] = collections.Counter()
        sampled = random.sample(found, min(count, len(found)))
        for obj in sampled:
            chain: list[str] = []
            current, up = obj, [obj]
            for _ in range(depth):
                own = {id(found), id(sampled), id(chain), id(up)}
                up = [
                    r
                    for r in gc.get_referrers(current)
                    if id(r) not in own and not isinstance(r, types.FrameType)
                ]
                if not up:
                    break
                current = up[0]
                described = type(current).__qualname__
                if isinstance(current, (dict, list, collections.deque)):
                    described += f"[{len(current)}]"
                elif isinstance(current, (types.CoroutineType, types.FunctionType)):
                    described += f"({current.__qualname__})"  # which one holds it
                chain.append(described)
            paths[" <- ".join(chain)] += 1
        del found
        return paths.most_common(15)

    def loop() -> None:
        n = 0
        while True:
            time.sleep(every)
            n += 1
            sample(n)

    threading.Thread(target=loop, name="memory-trace", daemon=True).start()


def stub_drawing() -> None:
    """Every picture a 1x1 PNG drawn here, no drawing process."""
    import io

    from PIL import Image

    from bot.drawing import Drawing

    out = io.BytesIO()
    Image.new("RGB", (1, 1)).save(out, "PNG")
    tiny = out.getvalue()

    async def draw(self: Any, kind: str, *args: Any, **kwargs: Any) -> bytes:
        return tiny

    Drawing.start = lambda self: None  # type: ignore[method-assign]
    Drawing.draw = draw  # type: ignore[method-assign]


def main(argv: list[str]) -> None:
    port, token, trace_path = int(argv[0]), argv[2], Path(argv[3])
    database: Path | str = argv[1] if argv[1].startswith("postgresql://") else Path(argv[1])
    sys.path.insert(0, str(ROOT))
    from tests.e2e.launcher import guard_network, point_at_fake

    guard_network()
    point_at_fake(port)
    if "--no-render" in argv:
        stub_drawing()
    trace = Trace(trace_path)
    instrument(trace)
    trace_gc(trace)
    if os.environ.get("MAHJONG_STALLS"):  # MS: each stall of the loop over MS, and where
        trace_stalls(trace, float(os.environ["MAHJONG_STALLS"]) / 1000)
    if os.environ.get("MAHJONG_SLOW_CALLBACKS"):  # MS: each callback of the loop over MS
        trace_slow_callbacks(trace, float(os.environ["MAHJONG_SLOW_CALLBACKS"]) / 1000)
    if os.environ.get("MAHJONG_GC_GARBAGE"):  # SECONDS,FILE: what the collector frees
        after, _, out = os.environ["MAHJONG_GC_GARBAGE"].partition(",")
        count_garbage(float(after), Path(out))
    if os.environ.get("MAHJONG_GC_THRESHOLD"):  # experiments: the collector's thresholds
        import bot.collector

        thresholds = os.environ["MAHJONG_GC_THRESHOLD"].split(",")
        bot.collector.THRESHOLDS = tuple(int(n) for n in thresholds)
    if os.environ.get("MAHJONG_MEMORY_TRACE"):
        every = float(os.environ.get("MAHJONG_MEMORY_TRACE_EVERY", "60"))
        after = os.environ.get("MAHJONG_MEMORY_TRACE_PYTHON")
        python = float(after) if after else None
        holders = os.environ.get("MAHJONG_MEMORY_HOLDERS", "")
        trace_memory(Path(os.environ["MAHJONG_MEMORY_TRACE"]), every, python, holders)
    if os.environ.get("MAHJONG_TASK_DUMP"):  # FILE: on SIGUSR1, where every task waits
        import asyncio as _aio
        import signal as _signal

        def dump(*_: Any) -> None:
            with open(os.environ["MAHJONG_TASK_DUMP"], "w") as out:
                for task in _aio.all_tasks(_aio.get_event_loop()):
                    parts, coro = [], task.get_coro()
                    while coro is not None:
                        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
                        if frame is None:
                            break
                        parts.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
                        coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
                    out.write(f"{task.get_name()} | {' > '.join(parts)}\n")

        _signal.signal(_signal.SIGUSR1, dump)
    import logging

    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    from bot.app import run
    from bot.config import Settings, event_loop_from, shards_from

    event_loop = event_loop_from(os.environ.get("MAHJONG_EVENT_LOOP", ""))
    if os.environ.get("MAHJONG_SLOW_CALLBACKS") and event_loop != "asyncio":
        # The slow-callback trace hooks into asyncio's own loop (its Handle).
        print("MAHJONG_SLOW_CALLBACKS: the bot runs on asyncio's loop", file=sys.stderr)
        event_loop = "asyncio"
    processes = os.environ.get("MAHJONG_DRAWING_PROCESSES")
    rate = os.environ.get("MAHJONG_GLOBAL_RATE")
    shard_ids, shard_count = shards_from(
        os.environ.get("MAHJONG_SHARDS", ""), os.environ.get("MAHJONG_SHARD_COUNT", "")
    )
    run(
        Settings(
            token=token,
            database=database,
            dev_guild=None,
            log_level="WARNING",
            drawing_processes=int(processes) if processes else None,
            shard_ids=shard_ids,
            shard_count=shard_count,
            global_rate=float(rate) if rate else None,
            event_loop=event_loop,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
