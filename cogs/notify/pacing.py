"""One pacing mechanism for every request the notifier sends to Discord.

Discord limits a bot in two ways that matter here: about five messages or edits per five
seconds in one channel (a DM is a channel too), and 50 requests a second for the whole bot
outside interaction callbacks and interaction-token webhooks. A table sends far more changes
than that allows, so every update goes through a :class:`Pacer`:

- **Coalescing.** An update is a job with a key (a table message, a seat's DM). Asking again
  while the job waits replaces nothing but marks it dirty: when its turn comes it draws the
  newest state, so ten moves in a second make one edit, never ten stale ones.
- **Per-channel budget.** At most ``per_channel`` requests in any ``window`` seconds per
  channel; ordinary work leaves the last slot free for urgent work, so a claim prompt is not
  queued behind the table's own edits.
- **The global budget.** At most ``global_rate`` requests (below Discord's 50) in any
  ``global_window`` (one second), every channel together, counted like a channel's budget
  (a sliding window, not a token bucket: a full bucket plus its refill lets twice the rate
  through in one second, and Discord counts any second); when it runs short the waiting
  requests are served by priority (a claim prompt, then the acting player's turn, then
  ordinary DM and table updates, then clean-up such as deleting an old prompt). While jobs
  wait they coalesce further, so the bot slows its table edits by itself as the number of
  tables grows and stays under the budget.

A request's slot is counted from when it is granted until it has been answered
(``async with pacer.request(...)``): Discord counts a request when it arrives, which can be
well after its turn on a busy machine, so only the answer bounds it from above.

Interaction answers (``answer_click``, the private "My hand") use the interaction's own token
and are not counted against the global budget, as on Discord; their per-message pace is still
kept through the same per-channel budget (keyed by the token).

Every background task is supervised: an exception is logged with its cause and never lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

URGENT = 0  # a claim prompt: the window is short
TURN = 1  # the seat to play
NORMAL = 2  # DM and table updates
LOW = 3  # deleting an old prompt, other clean-up

Work = Callable[[], Awaitable[None]]


@dataclass(order=True)
class _Waiter:
    priority: int
    seq: int
    channel: Hashable = field(compare=False)
    counted: bool = field(compare=False)
    future: asyncio.Future[None] = field(compare=False)
    stamp: list[float] = field(compare=False, default_factory=lambda: [0.0])


@dataclass
class _Job:
    work: Work
    gap: float
    task: asyncio.Task[None] | None = None
    dirty: bool = False
    last: float = -1e9


class Pacer:
    """Turns for requests: ``async with pacer.request(channel, priority):`` around each request, and
    ``pacer.coalesce(key, work)`` for updates that only ever need the newest state."""

    def __init__(
        self,
        *,
        per_channel: int = 5,
        window: float = 5.0,
        global_rate: float = 45.0,
    ) -> None:
        self.per_channel = per_channel
        self.window = window
        self.global_rate = global_rate
        self.global_window = 1.0
        self.margin = 0.25
        self.global_margin = 0.05
        # Per bucket, one [time] a request: granted, then moved to when it was answered.
        self._sent: dict[Hashable, deque[list[float]]] = {}
        self._global: deque[list[float]] = deque()
        self._waiting: list[_Waiter] = []
        self._seq = itertools.count()
        self._wake: asyncio.Event | None = None
        self._dispatcher: asyncio.Task[None] | None = None
        self._jobs: dict[Hashable, _Job] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.counts: Counter[str] = Counter()  # requests granted, "global" and "interaction"

    # -- turns -------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def request(
        self,
        channel: Hashable,
        priority: int = NORMAL,
        *,
        route: str = "send",
        counted: bool = True,
    ) -> AsyncIterator[None]:
        """``async with pacer.request(channel):`` around one request to Discord: waits for
        its turn, and counts it against the channel until it has been answered."""
        stamp = await self.turn(channel, priority, route=route, counted=counted)
        try:
            yield
        finally:
            stamp[0] = max(stamp[0], asyncio.get_running_loop().time())

    async def turn(
        self,
        channel: Hashable,
        priority: int = NORMAL,
        *,
        route: str = "send",
        counted: bool = True,
    ) -> list[float]:
        """Wait until one request to ``channel`` fits both budgets; returns the request's
        stamp (``request`` moves it to when the answer came). ``route`` is the kind of
        request: sends and edits of messages share a channel's bucket (``per_channel`` per
        ``window``), deletes have their own, five times as quick (Discord: 5 per 1 s).
        ``counted`` False: an interaction-token request, outside the global budget."""
        loop = asyncio.get_running_loop()
        bucket = (channel, "delete" if route == "delete" else "message")
        waiter = _Waiter(priority, next(self._seq), bucket, counted, loop.create_future())
        heapq.heappush(self._waiting, waiter)
        self._ensure_dispatcher()
        assert self._wake is not None
        self._wake.set()
        try:
            await waiter.future
        except asyncio.CancelledError:
            if not waiter.future.done():
                waiter.future.cancel()
            raise
        return waiter.stamp

    def _ensure_dispatcher(self) -> None:
        if self._dispatcher is None or self._dispatcher.done():
            self._wake = asyncio.Event()
            self._dispatcher = asyncio.create_task(self._dispatch(), name="pacer")

    def _channel_wait(self, channel: Hashable, priority: int, now: float) -> float:
        sent = self._sent.get(channel)
        if not sent:
            return 0.0
        window = self.window
        if isinstance(channel, tuple) and channel[-1:] == ("delete",):
            window /= 5
        recent = [stamp for stamp in sent if stamp[0] > now - window - self.margin]
        if len(recent) < len(sent):
            sent.clear()
            sent.extend(recent)
        allowed = self.per_channel if priority == URGENT else max(1, self.per_channel - 1)
        if len(recent) < allowed:
            return 0.0
        times = sorted(stamp[0] for stamp in recent)
        # A margin beyond the answer's time: clocks and Discord's own bookkeeping differ.
        return times[len(times) - allowed] + window + self.margin - now

    def _global_room(self, now: float) -> tuple[int, float]:
        """How many more requests the global budget takes now, and (when none) how long
        until it takes one."""
        span = self.global_window + self.global_margin
        recent = [stamp for stamp in self._global if stamp[0] > now - span]
        if len(recent) < len(self._global):
            self._global = deque(recent)
        allowed = max(1, int(self.global_rate * self.global_window))
        if len(recent) < allowed:
            return allowed - len(recent), 0.0
        times = sorted(stamp[0] for stamp in recent)
        return 0, times[len(times) - allowed] + span - now

    async def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        assert self._wake is not None
        while True:
            self._wake.clear()
            now = loop.time()
            room, global_wait = self._global_room(now)
            sleep = None
            blocked_globally = False
            kept: list[_Waiter] = []
            for waiter in sorted(self._waiting):
                if waiter.future.done():  # cancelled while waiting
                    continue
                wait = self._channel_wait(waiter.channel, waiter.priority, now)
                if wait <= 0 and waiter.counted and (blocked_globally or room < 1):
                    # Served in priority order: nobody behind overtakes for a global slot.
                    if not blocked_globally:
                        blocked_globally = True
                        room, global_wait = self._global_room(now)
                    wait = max(global_wait, 0.001)
                if wait > 0:
                    kept.append(waiter)
                    sleep = wait if sleep is None else min(sleep, wait)
                    continue
                waiter.stamp[0] = now
                if waiter.counted:
                    room -= 1
                    self._global.append(waiter.stamp)
                    self.counts["global"] += 1
                else:
                    self.counts["interaction"] += 1
                self._sent.setdefault(waiter.channel, deque()).append(waiter.stamp)
                waiter.future.set_result(None)
            self._waiting = kept
            heapq.heapify(self._waiting)
            self._forget_quiet_channels(now)
            if not self._waiting:
                await self._wake.wait()
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(sleep or 0.0, 0.001))

    def _forget_quiet_channels(self, now: float) -> None:
        if len(self._sent) < 256:
            return
        quiet = now - self.window - self.margin
        for channel in [c for c, s in self._sent.items() if all(t[0] <= quiet for t in s)]:
            del self._sent[channel]

    # -- coalesced jobs ----------------------------------------------------------------------
    def coalesce(self, key: Hashable, work: Work, *, gap: float = 0.0) -> None:
        """Run ``work()`` soon, once, for the newest state, no more often than every ``gap``
        seconds; asking again while it waits changes nothing but the work to run."""
        job = self._jobs.get(key)
        if job is None:
            job = self._jobs[key] = _Job(work, gap)
        job.work, job.gap, job.dirty = work, gap, True
        if job.task is None or job.task.done():
            job.task = self.spawn(self._run_job(key, job), f"notify-{key}")

    async def _run_job(self, key: Hashable, job: _Job) -> None:
        loop = asyncio.get_running_loop()
        while job.dirty:
            wait = job.last + job.gap - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            job.dirty = False
            job.last = loop.time()
            try:
                await job.work()
            except Exception:
                log.exception("updating %s failed", key)
        if self._jobs.get(key) is job and not job.dirty:
            del self._jobs[key]

    def forget(self, prefix: Hashable) -> None:
        """Drop the waiting jobs whose key starts with ``prefix`` (a table that closed)."""
        for key in [k for k in self._jobs if isinstance(k, tuple) and k[: len(prefix)] == prefix]:  # type: ignore[arg-type]
            job = self._jobs.pop(key)
            job.dirty = False

    # -- supervised tasks --------------------------------------------------------------------
    def spawn(self, coro: Awaitable[Any], name: str) -> asyncio.Task[Any]:
        """A background task whose exception is logged, never dropped."""
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("%s failed: %s", task.get_name(), exc, exc_info=exc)

    async def drain(self) -> None:
        """Wait for every job and task (tests; shutdown)."""
        while True:
            pending = [t for t in self._tasks if not t.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def close(self) -> None:
        for task in [*self._tasks, *([self._dispatcher] if self._dispatcher else [])]:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
