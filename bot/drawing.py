"""Drawing the images in a pool of separate processes, off the bot's event loop and its GIL,
the most urgent first.

A table image takes ~12 ms of Pillow, and at 200 tables there are dozens a second; with one
process and one first-come queue a player's claim prompt waited behind every table redraw
(issue 12: DM staleness p99 28 s at 200 tables). So:

- **A pool sized to the machine.** ``Drawing()`` starts one process per core
  (``os.cpu_count()``, at most :data:`MAX_PROCESSES`); ``MAHJONG_DRAWING_PROCESSES`` sets the
  number, 0 draws in one thread of the bot's own. Each process (``python -m bot.drawing``)
  reads requests on its stdin: a frame of a 4-byte length and a pickle of
  ``(kind, args, kwargs)`` for ``renderer.render_<kind>``; the answer comes back the same way
  on its stdout. A process ends when its stdin closes, so a killed bot leaves none behind.
- **Priority lanes** (:data:`LANES`): the acting player's DM (``"dm"``) and claim prompts
  (``"claim"``) first, as one tier (:data:`TIER`), then table images (``"table"``), reveals
  (``"reveal"``) and look-ups (``"lookup"``, the default). A free process takes the oldest
  job of the most urgent tier, except that of every :data:`SHARE` drawings started while
  less urgent work waits, one is the oldest job waiting in any lane.
  Strict priority starved the table images completely once the DM lane was never empty
  (``benchmarks/bot.py`` at 50 tables on a loaded machine: no table image showed a move for
  30 s); with the share a steady stream of DMs still gets most of the pool and the table
  images keep moving. Callers keep each lane bounded by coalescing (one job per table or
  seat). A process holds up to :data:`DEPTH` jobs (the one it draws and the next few), so
  it does not wait for the bot's loop to read an answer before it can start on the next;
  an urgent job waits for at most those.
- **Superseded work is dropped.** ``draw(..., key=k)``: when a newer job with the same key
  comes while an older one is still queued (not yet started), the older one is dropped and
  its caller gets :class:`Superseded` ("don't send it, a newer picture is coming"; the newer
  caller sends that). A job already being drawn is finished and answered.
- **A table's drawings go to one process** (``home=``): each process keeps the parts of
  the pictures it drew (``renderer.table``: a seat's block looks the same in the channel's
  table and every other seat's), and a table's next picture is mostly the parts of its
  last. Its jobs wait in that process's share of each lane; a process with none of its own
  in the tier it draws from takes the oldest of another's, so no process idles while work
  waits and the lanes' order between tiers stays as above. The jobs of a process that cannot
  draw them soon (none running, or stuck on one drawing) are everyone's.
- **What to draw can be asked for when the drawing starts** (``draw_newest(source)``):
  a table image waits seconds in its lane at 200 tables, and drawn with its arguments of
  the moment it was asked for it showed a table that had moved on meanwhile.
- **A timeout per drawing** (:data:`TIMEOUT`, issue 16 item 6): a process that does not
  answer in time (hung, SIGSTOPped) or dies is killed, its image is drawn in the fallback
  thread so its caller still gets it, and a new process is started in its place.
- **Nothing is drawn twice for the same picture**: :func:`signature` is a short digest of
  exactly what a drawing depends on; a caller keeps the signature of what it last sent
  and skips drawing (and the edit) when it has not changed (see ``docs/architecture.md``).

Drawing in threads has its own single thread: drawn in the loop's default executor, queued
images delayed everything else that uses it (aiohttp's address look-ups for Discord requests),
and answering a button took p50 ~550 ms instead of ~6 ms (``benchmarks/bot.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import copyreg
import hashlib
import io
import itertools
import logging
import os
import pickle
import signal
import struct
import sys
from collections import Counter, deque
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO

try:
    import fcntl
except ImportError:  # not on Windows: pipes keep their size there
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

KINDS = frozenset({"table", "seat_table", "hand", "score_card", "tile_emoji"})
LANES = ("dm", "claim", "table", "reveal", "lookup")
# Lanes of one tier share it, the oldest job first. The seat to play and the seats asked to
# claim are one tier: with the DM lane strictly first, claim prompts (their window closes in
# seconds) waited for the rare moment it was empty, 11.8 s at p50 at 200 tables on a busy
# machine (``benchmarks/bot.py``), most of a 15 s window.
TIER = {"dm": 0, "claim": 0, "table": 1, "reveal": 2, "lookup": 3}
NICENESS = 5  # of a drawing process, added to the bot's (``batch_scheduling``)
MAX_PROCESSES = 8
# Drawings handed to a process at once: it draws the next while the bot's loop, busy at 200
# tables, gets round to reading the last answer. With one at a time each drawing waited a
# few turns of a loop lagging 50-100 ms, and the pool drew a third of what it could. With
# two, a process still waited on its input a third of the time at 200 tables (py-spy), and
# asked for pictures at about the pool's capacity with the loop 80 % busy it drew 164-193 a
# second against 186-199 with eight (``benchmarks/drawing_pool.py --rate 200``). An urgent
# drawing waits behind at most the seven others a process holds (~7 ms each).
DEPTH = 8
# Its answers' pipe holds a whole picture (Linux's default, 64 KiB, needs two or three turns
# of the loop for a 90 KB table picture, the drawing process waiting in between).
PIPE_BYTES = 1 << 20
SHARE = 4  # of every SHARE drawings started while less urgent work waits, one is the oldest
# A process drawing one picture this long (~5 ms normally) is taken to be stuck: its tables'
# drawings go to any process meanwhile.
STUCK_AFTER = 1.0
TIMEOUT = 10.0  # seconds for one drawing (~12 ms normally, a few hundred under heavy load)
START_TIMEOUT = 60.0  # seconds for a process to load Pillow and the renderer
RETRY_START = 30.0  # seconds before a process that could not start is tried again
# Drawings a process makes before a fresh one takes its place (started first, so the slot
# never waits for it). The processes' memory crept up 6.8 MB per 10 minutes in the 1-hour
# soak, with every cache bounded: what Pillow and the allocators keep of pictures of every
# size. A fresh process every few minutes (at 25-50 drawings a second each) caps it.
RECYCLE_AFTER = 20_000
_LENGTH = struct.Struct(">I")
_READY = b"ready"


class Superseded(Exception):
    """A newer drawing with the same key was asked for before this one started: do not send
    anything for this one, the caller of the newer one sends the newer picture."""


class DrawingFailed(RuntimeError):
    """The renderer raised, or the image could not be drawn in time anywhere."""


def render(kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    """``renderer.render_<kind>(*args, **kwargs)``: PNG bytes."""
    if kind not in KINDS:
        raise ValueError(f"no such drawing: {kind!r}")
    import renderer

    return getattr(renderer, f"render_{kind}")(*args, **kwargs)


def default_processes() -> int:
    """One drawing process per core, at most :data:`MAX_PROCESSES`."""
    return max(1, min(os.cpu_count() or 1, MAX_PROCESSES))


def signature(kind: str, *args: Any, **kwargs: Any) -> bytes:
    """A 16-byte digest of everything ``draw(kind, *args, **kwargs)`` depends on: the
    renderer is a pure function of its arguments, so an equal signature means the same
    picture (the same pixels: ISA-L may pack them a few bytes differently in another process,
    see ``renderer/encode.py``). Costs a pickle (~20-60 µs for a table view), not a drawing.

    Equal arguments built in different ways can pickle differently (a set's order, one
    object shared twice): then the signatures differ and the picture is drawn again, never
    the other way round."""
    return hashlib.blake2b(_dumps((kind, args, kwargs)), digest_size=16).digest()


def _dumps(value: Any) -> bytes:
    """A pickle that also carries the engine's read-only option mappings."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_proxy}
    pickler.dump(value)
    return buffer.getvalue()


def _reduce_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return _read_only, (dict(proxy),)


def _read_only(values: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(values)


def _frame(payload: bytes) -> bytes:
    return _LENGTH.pack(len(payload)) + payload


def _widen(pipe: int) -> None:
    """Make a pipe hold :data:`PIPE_BYTES` (Linux; elsewhere it stays as it is)."""
    setter = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if setter is None:
        return
    with contextlib.suppress(OSError):  # above /proc/sys/fs/pipe-max-size: the default stays
        fcntl.fcntl(pipe, setter, PIPE_BYTES)


class DrawingProcess:
    """One ``python -m bot.drawing`` child; it answers its requests in the order they came."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        answers: asyncio.StreamReader,
        pipe: asyncio.ReadTransport,
    ) -> None:
        self.process = process
        self.answers = answers
        self.pipe = pipe  # the answers' pipe, read end
        self.drawn = 0  # answers read from it

    @classmethod
    async def start(cls) -> DrawingProcess:
        root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        # The answers' pipe is made here, not by the loop: uvloop's loop gives a child a
        # socket pair for its stdout, whose size F_SETPIPE_SZ cannot set.
        read_end, write_end = os.pipe()
        _widen(write_end)
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot.drawing",
                stdin=asyncio.subprocess.PIPE,
                stdout=write_end,
                env=env,
            )
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        answers = asyncio.StreamReader(limit=4 * PIPE_BYTES)
        reading = open(read_end, "rb", buffering=0)  # noqa: SIM115  (the transport closes it)
        pipe, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(answers), reading
        )
        drawer = cls(process, answers, pipe)
        try:
            ok, value = await asyncio.wait_for(drawer._read(), timeout=START_TIMEOUT)
            if not ok or value != _READY:
                raise OSError(f"the drawing process did not start: {value!r}")
        except BaseException:
            await drawer.kill()
            raise
        return drawer

    @property
    def pid(self) -> int:
        return self.process.pid

    async def send(self, request: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(_frame(request))
        await self.process.stdin.drain()

    async def answer(self) -> tuple[bool, Any]:
        """The answer to the oldest request not yet answered (answers come in order)."""
        return await self._read()

    async def _read(self) -> tuple[bool, Any]:
        (size,) = _LENGTH.unpack(await self.answers.readexactly(_LENGTH.size))
        return pickle.loads(await self.answers.readexactly(size))

    def signal_kill(self) -> None:
        """SIGKILL it, without waiting to reap it."""
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()

    async def kill(self) -> None:
        """End it now (it may be stopped or hung) and reap it."""
        self.signal_kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.process.wait(), timeout=10)
        self.pipe.close()

    async def close(self) -> None:
        """Close its input so it ends by itself; kill it if it does not within 5 s."""
        if self.process.returncode is None:
            if self.process.stdin is not None:
                self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), timeout=5)
            except (TimeoutError, asyncio.CancelledError):
                await self.kill()
                raise
        self.pipe.close()


# What to draw, asked for when a process starts on it (``Drawing.draw_newest``): the kind,
# its arguments and keyword arguments, or None when nothing needs drawing any more.
Source = Callable[[], "tuple[str, tuple[Any, ...], dict[str, Any]] | None"]


@dataclass(eq=False)
class _Job:
    kind: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    request: bytes
    lane: str
    key: Hashable | None
    future: asyncio.Future[bytes | None] = field(repr=False)
    order: int = 0  # when it was asked for, across lanes
    source: Source | None = field(default=None, repr=False)  # not yet asked: see draw_newest
    home: int = -1  # the slot whose process draws it if it can; -1: any (see ``home=``)


class Drawing:
    """The bot's drawing: ``await drawing.draw("table", view, names, lane="table")`` -> PNG.

    ``processes``: how many drawing processes (None: :func:`default_processes`; 0: a thread
    of its own). ``timeout``: seconds one drawing may take before its process is replaced.
    """

    def __init__(
        self,
        processes: int | None = None,
        *,
        timeout: float = TIMEOUT,
        recycle_after: int = RECYCLE_AFTER,
    ) -> None:
        self.processes = default_processes() if processes is None else max(0, processes)
        self.slots = max(1, self.processes)  # a process each, or the one thread
        self.timeout = timeout
        self.recycle_after = recycle_after
        # Each lane holds one queue per slot (the jobs whose home it is) and one last for
        # the jobs of no home.
        self._lanes: dict[str, tuple[deque[_Job], ...]] = {
            lane: tuple(deque() for _ in range(self.slots + 1)) for lane in LANES
        }
        self._queued: dict[Hashable, _Job] = {}
        self._work = asyncio.Event()
        self._workers: list[asyncio.Task[None]] = []
        self._settled: list[asyncio.Event] = []
        self._active: dict[int, _Job] = {}
        self._since: dict[int, float] = {}  # slot -> when its active job began
        self._drawers: dict[int, DrawingProcess | None] = {}
        self._closed = False
        # Counts for benchmarks and logs: drawn per lane, superseded, processes replaced.
        self.counts: Counter[str] = Counter()
        # Drawing in threads uses its own thread, not the loop's default executor: queued
        # drawings there delayed everything else that uses it (aiohttp's address look-ups).
        self._thread: ThreadPoolExecutor | None = None
        self._order = itertools.count()
        self._streak = 0  # drawings started from the most urgent lane while others waited
        # Replaced processes being closed, and by which task
        self._retiring: dict[asyncio.Task[None], DrawingProcess] = {}

    # -- the pool ----------------------------------------------------------------------------
    def start(self) -> None:
        """Start the workers (each starts its process in the background); images asked for
        meanwhile wait in their lanes. Called by the first ``draw`` if not before."""
        if self._workers or self._closed:
            return
        for slot in range(self.slots):
            self._drawers[slot] = None
            self._settled.append(asyncio.Event())  # set while no process is starting
            self._workers.append(asyncio.create_task(self._worker(slot), name=f"drawing-{slot}"))

    async def ready(self) -> None:
        """Wait until no process is starting: each has started or failed to (tests,
        benchmarks)."""
        self.start()
        while not all(settled.is_set() for settled in self._settled):
            for settled in self._settled:
                await settled.wait()

    def pids(self) -> list[int]:
        """The process ids of the drawing processes running now (for benchmarks and tests)."""
        return [d.pid for d in self._drawers.values() if d is not None]

    def drawing_now(self) -> list[str]:
        """The lanes of the drawings being drawn at this moment, one per busy slot."""
        return [job.lane for job in self._active.values()]

    def queued(self, *lanes: str) -> dict[str, int]:
        """How many drawings wait in each lane (not yet started), or in ``lanes`` only: the
        table lane holds hundreds at 200 tables, and the notifier asks about the first tier
        on every click."""
        return {
            lane: sum(not j.future.done() for jobs in self._lanes[lane] for j in jobs)
            for lane in (lanes or self._lanes)
        }

    async def draw(
        self,
        kind: str,
        *args: Any,
        lane: str = "lookup",
        key: Hashable | None = None,
        home: Hashable | None = None,
        **kwargs: Any,
    ) -> bytes:
        """PNG bytes of ``renderer.render_<kind>(*args, **kwargs)``, drawn off the event loop
        when a process is free for ``lane`` (see :data:`LANES`). Drawings of the same
        ``home`` (a table) are drawn by the same process when it can take them.

        Raises :class:`Superseded` when a newer drawing with the same ``key`` is asked for
        before this one starts, :class:`DrawingFailed` when the renderer raises or nothing
        could draw it in time, ``ValueError`` for an unknown kind or lane."""
        if kind not in KINDS:
            raise ValueError(f"no such drawing: {kind!r}")
        request = _dumps((kind, args, kwargs))
        png = await self._queue(
            lane, key, home, kind=kind, args=args, kwargs=kwargs, request=request
        )
        assert png is not None
        return png

    async def draw_newest(
        self,
        source: Source,
        *,
        lane: str = "lookup",
        key: Hashable | None = None,
        home: Hashable | None = None,
    ) -> bytes | None:
        """PNG bytes of what ``source()`` says to draw (kind, args, kwargs) *when a process
        starts on it*, not when asked; None when it says nothing needs drawing by then.

        A drawing that waits seconds in a busy lane (table images at 200 tables) so shows
        the state of the moment it is drawn: asked with its arguments fixed, it showed the
        state of seconds before, which its caller, finding the table moved on, drew again
        (56 % of table images at 200 tables, each waiting its turn twice). ``source`` runs
        on the bot's loop as the pool hands the job over, so it must be quick; if it raises,
        this drawing fails (:class:`DrawingFailed`). ``key``, ``home`` and the errors as for
        :meth:`draw`."""
        return await self._queue(lane, key, home, source=source)

    async def _queue(
        self,
        lane: str,
        key: Hashable | None,
        home: Hashable | None,
        *,
        kind: str = "",
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
        request: bytes = b"",
        source: Source | None = None,
    ) -> bytes | None:
        if lane not in self._lanes:
            raise ValueError(f"no such lane: {lane!r} (one of {', '.join(LANES)})")
        if self._closed:
            raise DrawingFailed("drawing is closed")
        self.start()
        job = _Job(
            kind,
            args,
            kwargs or {},
            request,
            lane,
            key,
            asyncio.get_running_loop().create_future(),
            next(self._order),
            source,
            -1 if home is None else hash(home) % self.slots,
        )
        if key is not None:
            older = self._queued.get(key)
            if older is not None and not older.future.done():
                older.future.set_exception(Superseded(key))
                self.counts["superseded"] += 1
            self._queued[key] = job
        self._lanes[lane][job.home].append(job)
        self._work.set()
        try:
            return await job.future
        finally:
            if key is not None and self._queued.get(key) is job:
                del self._queued[key]
            # A Superseded raised from the job's future has this frame in its traceback,
            # and the future holds it: a cycle that waited for the collector's full pass.
            del job

    def _next(self, slot: int) -> _Job | None:
        """The next job for ``slot`` to draw (:meth:`_pick`), a ``draw_newest`` one asked now
        what it draws; those with nothing to draw any more are answered None and skipped."""
        while True:
            streak = self._streak
            job = self._pick(slot)
            if job is None or job.source is None or self._bind(job):
                return job
            # Nothing drawn: the turn it took (a share for the less urgent lanes) is not used.
            self._streak = streak

    def _bind(self, job: _Job) -> bool:
        """Ask a ``draw_newest`` job's source what to draw; False when it is answered
        already (nothing to draw, or the source failed)."""
        assert job.source is not None
        source, job.source = job.source, None
        try:
            what = source()
            if what is not None:
                kind, args, kwargs = what
                if kind not in KINDS:
                    raise ValueError(f"no such drawing: {kind!r}")
                job.kind, job.args, job.kwargs = kind, args, kwargs
                job.request = _dumps(what)
        except Exception as exc:
            log.exception("what to draw could not be found")
            job.future.set_exception(DrawingFailed(f"what to draw: {type(exc).__name__}: {exc}"))
            return False
        if what is None:
            self.counts["unchanged"] += 1
            job.future.set_result(None)
            return False
        return True

    def _pick(self, slot: int) -> _Job | None:
        """For ``slot``: the oldest job of the most urgent lane, or, once every :data:`SHARE`
        starts while less urgent work waits, the oldest job of any lane; of those, the
        oldest of its own (its home, or none) if there is one, else the oldest of another
        slot's. Dropped and cancelled jobs are skipped."""
        waiting = []
        for lane, queues in self._lanes.items():
            for jobs in queues:
                while jobs and jobs[0].future.done():  # superseded, or its caller gave up
                    jobs.popleft()
            if any(queues):
                waiting.append((TIER[lane], queues))
        if not waiting:
            return None
        top = min(tier for tier, _ in waiting)
        urgent = [queues for tier, queues in waiting if tier == top]
        if len(urgent) == len(waiting):
            self._streak = 0
        elif self._streak >= SHARE - 1:
            self._streak = 0
            urgent = [queues for _, queues in waiting]
        else:
            self._streak += 1
        mine = (slot, -1, *self._unavailable(slot))
        own = [jobs for queues in urgent for i in mine if (jobs := queues[i])]
        chosen = min(
            own or [jobs for queues in urgent for jobs in queues if jobs],
            key=lambda jobs: jobs[0].order,
        )
        job = chosen.popleft()
        if job.key is not None and self._queued.get(job.key) is job:
            del self._queued[job.key]  # started: no longer superseded by a newer one
        return job

    def _unavailable(self, slot: int) -> list[int]:
        """The other slots whose own jobs any slot takes as its own: those without a process
        (starting one, or drawing in the thread) or stuck on one drawing for
        :data:`STUCK_AFTER` seconds (hung, until the timeout replaces it), so that a table's
        pictures do not wait on a process that cannot draw them soon."""
        now = asyncio.get_running_loop().time()
        return [
            other
            for other in range(self.slots)
            if other != slot
            and (
                self._drawers.get(other) is None
                or (other in self._active and now - self._since[other] > STUCK_AFTER)
            )
        ]

    def _begin(self, slot: int, job: _Job) -> None:
        self._active[slot] = job
        self._since[slot] = asyncio.get_running_loop().time()

    async def _worker(self, slot: int) -> None:
        """One slot of the pool: its process (or the thread while it has none), one job at a
        time, the most urgent first."""
        loop = asyncio.get_running_loop()
        drawer: DrawingProcess | None = None
        starting: asyncio.Task[DrawingProcess | None] | None = None
        retry_at = 0.0
        handed: deque[_Job] = deque()  # sent to the process, answers not yet read
        successor: asyncio.Task[DrawingProcess | None] | None = None  # see RECYCLE_AFTER
        try:
            while not self._closed or handed:
                if (
                    drawer is not None
                    and successor is None
                    and not self._closed
                    and self.recycle_after > 0
                    and drawer.drawn >= self.recycle_after
                ):
                    successor = asyncio.create_task(self._start_process(), name="drawing-next")
                    # An idle slot takes its successor as soon as it is ready, not at its
                    # next drawing.
                    successor.add_done_callback(lambda _: self._work.set())
                if successor is not None and successor.done() and not handed:
                    fresh, successor = successor.result(), None
                    if fresh is not None and not self._closed:
                        # Taken whatever the slot has now (its process may have died and
                        # no replacement started meanwhile).
                        self.counts["recycled"] += 1
                        if drawer is not None:
                            self._retire(drawer)
                        self._drawers[slot] = drawer = fresh
                    elif fresh is not None:
                        await fresh.close()
                    elif drawer is not None:
                        drawer.drawn = 0  # could not start one: this one goes on a while
                if self.processes and drawer is None and loop.time() >= retry_at:
                    self._settled[slot].clear()
                    starting = asyncio.create_task(self._start_process(), name="drawing-start")
                    self._drawers[slot] = drawer = await starting
                    starting = None
                    if drawer is None:
                        retry_at = loop.time() + RETRY_START
                self._settled[slot].set()
                if drawer is None:
                    job = self._next(slot)
                    if job is None:
                        self._work.clear()
                        await self._work.wait()
                        continue
                    self._begin(slot, job)
                    await self._settle(slot, job, await self._in_thread(job))
                    continue
                answer: tuple[bool, Any] | None = None
                # With its successor ready, the process is given nothing more: once it has
                # answered what it holds, the successor takes the slot.
                full = DEPTH if successor is None or not successor.done() else 0
                try:
                    while len(handed) < full and (job := self._next(slot)) is not None:
                        handed.append(job)
                        await drawer.send(job.request)
                except (OSError, RuntimeError):  # its input is closed: it died
                    log.warning("drawing process %d died; replacing it", drawer.pid)
                    await drawer.kill()
                else:
                    if not handed:
                        if full == 0:
                            continue  # the successor takes over now
                        self._work.clear()
                        await self._work.wait()
                        continue
                    self._begin(slot, handed[0])
                    answer = await self._in_process(drawer, handed[0])
                if answer is not None:
                    await self._settle(slot, handed.popleft(), answer)
                    continue
                # It hung or died (and is killed): a new one starts while the thread draws
                # what it was given.
                self.counts["replaced"] += 1
                self._drawers[slot] = drawer = None
                self._settled[slot].clear()
                if successor is not None:  # already starting: it is the replacement
                    starting, successor = successor, None
                else:
                    starting = asyncio.create_task(self._start_process(), name="drawing-start")
                while handed:
                    job = handed.popleft()
                    self._begin(slot, job)
                    await self._settle(slot, job, await self._in_thread(job))
                self._drawers[slot] = drawer = await starting
                starting = None
                if drawer is None:
                    retry_at = loop.time() + RETRY_START
                self._settled[slot].set()
        finally:
            for job in handed:  # cancelled meanwhile (the bot's shut-down): never answered
                job.future.cancel()
            self._active.pop(slot, None)
            self._settled[slot].set()
            if starting is not None:  # cancelled while starting: its process is killed
                starting.cancel()
                with contextlib.suppress(BaseException):
                    late = await starting
                    if late is not None:
                        await late.kill()
            self._drawers[slot] = None
            if successor is not None:
                successor.cancel()
                with contextlib.suppress(BaseException):
                    late = await successor
                    if late is not None:
                        await late.kill()
            if drawer is not None:
                with contextlib.suppress(BaseException):
                    await drawer.close()

    def _retire(self, drawer: DrawingProcess) -> None:
        """Close a replaced process in the background (it has answered all it was given)."""
        task = asyncio.create_task(drawer.close(), name="drawing-retire")
        self._retiring[task] = drawer
        task.add_done_callback(self._retired)

    def _retired(self, task: asyncio.Task[None]) -> None:
        self._retiring.pop(task, None)
        if not task.cancelled() and task.exception() is not None:
            # It did not end within 5 s of its input closing, and was killed.
            log.warning("a recycled drawing process was killed: %r", task.exception())

    async def _start_process(self) -> DrawingProcess | None:
        try:
            return await DrawingProcess.start()
        except (OSError, EOFError, asyncio.IncompleteReadError, TimeoutError, pickle.PickleError):
            log.warning("could not start a drawing process; drawing in a thread", exc_info=True)
            return None

    async def _in_process(self, drawer: DrawingProcess, job: _Job) -> tuple[bool, Any] | None:
        """The process's answer to ``job`` (the oldest it was handed), or None when it did
        not answer in time or died (it is killed and reaped)."""
        try:
            answer = await asyncio.wait_for(drawer.answer(), self.timeout)
            drawer.drawn += 1
            return answer
        except TimeoutError:
            log.warning(
                "drawing process %d took over %.1f s for a %s; replacing it",
                drawer.pid,
                self.timeout,
                job.kind,
            )
        except (OSError, EOFError, asyncio.IncompleteReadError, pickle.UnpicklingError):
            log.warning("drawing process %d died; replacing it", drawer.pid, exc_info=True)
        await drawer.kill()
        return None

    async def _in_thread(self, job: _Job) -> tuple[bool, Any]:
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="drawing")
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(self._thread, render, job.kind, job.args, job.kwargs)
        try:
            return True, await asyncio.wait_for(work, self.timeout)
        except TimeoutError:
            return False, f"not drawn within {self.timeout:.1f} s"
        except Exception as exc:
            return False, f"{type(exc).__name__}: {exc}"

    async def _settle(self, slot: int, job: _Job, answer: tuple[bool, Any]) -> None:
        self._active.pop(slot, None)
        ok, value = answer
        if job.future.done():  # the caller gave up meanwhile
            return
        if ok:
            self.counts[job.lane] += 1
            job.future.set_result(value)
        else:
            job.future.set_exception(DrawingFailed(f"drawing {job.kind} failed: {value}"))

    async def close(self) -> None:
        """Drop the queued drawings (their callers see CancelledError), let those being drawn
        or handed to a process finish (up to 10 s), and end every process."""
        self._closed = True
        for queues in self._lanes.values():
            for jobs in queues:
                for job in jobs:
                    job.future.cancel()
                jobs.clear()
        self._queued.clear()
        self._work.set()
        for slot, task in enumerate(self._workers):
            if slot not in self._active and not self._settled[slot].is_set():
                task.cancel()  # still starting its process, nothing to finish: killed now
        if self._workers:
            try:
                _, pending = await asyncio.wait(self._workers, timeout=10)
            except asyncio.CancelledError:
                # The caller's time ran out first (the bot's shut-down gives 2 s): what is
                # still drawing is killed, and the workers stop at once, or they outlive the
                # event loop, still waiting, and are torn down half-way when it is gone.
                for drawer in self._drawers.values():
                    if drawer is not None:
                        drawer.signal_kill()
                await self._stop_workers(0.5)
                raise
            if pending:
                await self._stop_workers(5)
        self._workers.clear()
        try:
            if self._retiring:
                await asyncio.wait(list(self._retiring), timeout=10)
        except asyncio.CancelledError:  # the caller's time ran out (as above)
            for retired in self._retiring.values():
                retired.signal_kill()
            raise
        finally:
            if self._thread is not None:
                self._thread.shutdown(wait=False, cancel_futures=True)
                self._thread = None

    async def _stop_workers(self, seconds: float) -> None:
        pending = [task for task in self._workers if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=seconds)


def serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """The drawing process: answer each request until the bot closes its end (or is gone)."""

    def send(ok: bool, value: Any) -> bool:
        try:
            answers.write(_frame(_dumps((ok, value))))
            answers.flush()
        except (BrokenPipeError, ConnectionError):
            return False
        return True

    if not send(True, _READY):
        return
    while True:
        head = requests.read(_LENGTH.size)
        if len(head) < _LENGTH.size:
            return
        (size,) = _LENGTH.unpack(head)
        payload = requests.read(size)
        if len(payload) < size:
            return
        try:
            kind, args, kwargs = pickle.loads(payload)
            answer = (True, render(kind, args, kwargs))
        except Exception as exc:  # the bot logs it; the process goes on drawing
            answer = (False, f"{type(exc).__name__}: {exc}")
        if not send(*answer):
            return


def batch_scheduling() -> None:
    """Ask Linux to treat this process as batch work (``SCHED_BATCH``: its fair share of the
    CPU, but it never preempts another task when it wakes). Woken by each job the bot wrote,
    a drawing process took the core from the bot's event loop on the spot: py-spy placed 6 %
    of the loop's samples at 200 tables in the pipe write that handed a job over, and every
    click waiting in the loop waited with it.

    It also runs a little less favoured (:data:`NICENESS`): when both want the core, the
    bot's loop (a click to answer) comes before a picture. At 200 tables, side by side
    (2026-11-28), acks' p50 fell from 20-26 to 12.5 ms and their max from 344-364 to
    181-229 ms, their p99 and the DMs' staleness within the runs' spread."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None:  # not Linux
        return
    with contextlib.suppress(OSError):
        os.sched_setscheduler(0, policy, os.sched_param(0))
    with contextlib.suppress(OSError):
        os.nice(NICENESS)


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group; the bot decides when this ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    batch_scheduling()
    import renderer  # noqa: F401  (loaded before saying ready)

    answers = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the answers
    try:
        serve(sys.stdin.buffer, answers)
    finally:
        # An answer the bot never read stays buffered; flushing it at exit would fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), answers.fileno())


if __name__ == "__main__":
    main()
