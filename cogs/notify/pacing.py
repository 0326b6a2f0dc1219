"""One pacing mechanism for every request the notifier sends to Discord.

Discord limits a bot in two ways that matter here: about five messages or edits per five
seconds in one channel (a DM is a channel too), and 50 requests a second for the whole bot
outside interaction callbacks and interaction-token webhooks. A table sends far more changes
than that allows, so every update goes through a :class:`Pacer`:

- **Coalescing.** An update is a job with a key (a table message, a seat's DM). Asking again
  while the job waits replaces nothing but marks it dirty: when its turn comes it draws the
  newest state, so ten moves in a second make one edit, never ten stale ones.
- **Per-channel budget.** At most ``per_channel`` requests in any ``window`` seconds per
  channel and kind (new messages, edits, deletes: Discord counts each apart); each level
  leaves some of it free for the levels above (:data:`KEEP`), so a claim prompt is not
  queued behind the table's own edits nor a turn behind a DM update.
- **The global budget.** At most ``global_rate`` requests (below Discord's 50) in any
  ``global_window`` (one second), every channel together, counted like a channel's budget
  (a sliding window, not a token bucket: a full bucket plus its refill lets twice the rate
  through in one second, and Discord counts any second). When it runs short the waiting
  requests are served by priority, whatever their channel: what a member must act on first
  (a claim prompt, then a turn prompt), then what a member is told about their own seat
  (a hand's end, the reveal, notices), then the table images and the DM updates of seats
  that only watch (each one coalesced job, so they are served in turn, round-robin, each
  with its newest state), then cosmetic work (deleting a replaced prompt, the home
  channel's summary line). The lower levels also leave part of the second's budget unspent
  (:data:`RESERVE`): a table image is not sent when a tenth or less of the second's requests
  are left, cosmetic work not when a quarter or less are, so a prompt asked for a moment
  later still finds room. While jobs wait they coalesce further, so the bot slows its table
  edits by itself as the number of tables grows and stays under the budget.
- **Prepared as the turn nears.** A table image is drawn when its turn in the global
  budget is about a drawing's time away (``request(..., prepare=...)``), not before it
  waits: drawn first, it missed every move made during the wait (seconds at 200 tables).
  It keeps its place while it draws, and the requests behind it go meanwhile.
- **Giving way.** A coalesced job's request waiting for its turn with ``supersede=True``
  stops waiting when the job is asked again urgently (:class:`Superseded`): it runs again at once
  with the newest state, keeping its place in the queue, and what it would have sent (out
  of date) is never sent. A seat's DM update waiting at the table level is how a seat's
  turn prompt overtakes it.

A request's slot is counted from when it is granted until one global window after it has
been answered (``async with pacer.request(...)``): Discord counts a request when it arrives,
anywhere between its turn and its answer on a busy machine, so while it is in flight it
counts as sent *now*. (It used to count from its grant only: a request whose upload took
longer than the window left the window while still on its way, and the next second's budget
was granted beside it; 54 requests were measured in one second.)

Every request to Discord outside interaction tokens goes through here: inside
``pacer.request`` the context variable :data:`GRANTED` is set, so instrumentation
(``benchmarks/bot_process.py`` traces any request with the bot's token made outside it)
can tell a paced request from one that bypassed the budget.

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
import math
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

log = logging.getLogger(__name__)

URGENT = 0  # a claim prompt: the window is short
TURN = 1  # the seat to play
NORMAL = 2  # what a member sees of their seat (DM updates), the reveal, notices
TABLE = 3  # the table images: each table one coalesced job, served in turn
LOW = 4  # cosmetic: deleting a replaced prompt, the home channel's summary line
# The share of a second's global budget each level leaves unspent for the levels above it.
RESERVE = {URGENT: 0.0, TURN: 0.0, NORMAL: 0.0, TABLE: 0.1, LOW: 0.25}
# The slots of a channel's own budget (5 per 5 s) each level leaves free: a claim prompt may
# take them all, cosmetic work leaves two; ``keep=2`` for what a member only watches in the
# same channel as their prompts (a DM), so a turn still finds a slot.
KEEP = {URGENT: 0, TURN: 1, NORMAL: 1, TABLE: 1, LOW: 2}
# Seconds cosmetic work waits before it queues with the table images, in the order it asked:
# a budget kept full by table images (50 busy tables) never left a quarter of a second free,
# and the home channel's summary lines and deletes waited for ever, each holding its finished
# table (the 1-hour soak's memory grew with every game).
LOW_AGE = 15.0

# How often ``until_ready`` looks again while the channel's last request is still in flight.
IN_FLIGHT_POLL = 0.05

# The event loop's clock step: uvloop's time and timers count whole milliseconds, so a wait
# shorter than that ends at once and would be waited again and again until the clock moves.
CLOCK_STEP = 0.001

GRANTED: ContextVar[bool] = ContextVar("granted", default=False)


class Superseded(Exception):
    """A coalesced job's request gave way to a newer state while it waited for its turn: the
    job runs again at once, with the newest state and in the same place in the queue."""


Work = Callable[[], Awaitable[None]]
T = TypeVar("T")


@dataclass(order=True)
class _Waiter:
    priority: int
    seq: int
    channel: Hashable = field(compare=False)
    counted: bool = field(compare=False)
    hold: bool = field(compare=False)  # counted as in flight until ``request`` answers
    future: asyncio.Future[None] = field(compare=False)
    keep: int = field(compare=False, default=1)  # slots of the channel's budget left free
    since: float = field(compare=False, default=0.0)  # when it began to wait
    spread: bool = field(compare=False, default=False)  # evenly after the bucket's last request
    stamp: list[float] = field(compare=False, default_factory=lambda: [0.0])
    # With ``prepare``: set when its turn is ``ahead`` seconds away, and it keeps its place
    # but is not granted until ``ready`` (what it sends is being made).
    near: asyncio.Future[None] | None = field(compare=False, default=None)
    ahead: Callable[[], float] = field(compare=False, default=lambda: 0.0)
    ready: bool = field(compare=False, default=True)
    prepared: Any = field(compare=False, default=None)  # what ``prepare`` returned


Turn = _Waiter  # what ``request`` grants: ``give_back`` takes it


@dataclass
class _Job:
    work: Work
    gap: float
    task: asyncio.Task[None] | None = None
    dirty: bool = False
    last: float = -1e9
    asked: asyncio.Event = field(default_factory=asyncio.Event)  # set when asked again
    newer: asyncio.Event = field(default_factory=asyncio.Event)  # asked again, urgently
    seq: int | None = None  # its place in the queue, kept when it gave way to a newer state


_JOB: ContextVar[_Job | None] = ContextVar("job", default=None)
# A request's route -> the channel's bucket it counts against (see ``Pacer.turn``).
_BUCKETS = {"send": "message", "edit": "edit", "delete": "delete"}


def _budget(
    channel: Hashable, route: str, priority: int, keep: int | None
) -> tuple[tuple[Hashable, str], int]:
    """The channel budget a request counts against (its channel and kind) and the slots of
    it the request leaves free (:data:`KEEP` for its level unless given)."""
    bucket = (channel, _BUCKETS.get(route, "message"))
    return bucket, KEEP.get(priority, 1) if keep is None else keep


# An interaction token's edits go at a webhook's pace, 5 per 2 s (the fake's estimate;
# Discord does not document it), not a channel's 5 per 5 s: paced as a channel, a member
# playing in their DM (their updates through their last click's token) had their prompts
# wait for the token's window, p99 2.7 s at 20 tables.
TOKEN_PACE = 2 / 5


def _through_token(bucket: tuple[Any, ...]) -> bool:
    """Whether a bucket ``(channel, kind)`` is an interaction token's (``("token", id)``)."""
    channel = bucket[0]
    return isinstance(channel, tuple) and channel[:1] == ("token",)


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
        self.low_age = LOW_AGE
        # Per bucket, one [time] a request: granted, then moved to when it was answered.
        self._sent: dict[Hashable, deque[list[float]]] = {}
        self._global: deque[list[float]] = deque()
        self._waiting: list[_Waiter] = []
        self._seq = itertools.count()
        self._wake: asyncio.Event | None = None
        self._dispatcher: asyncio.Task[None] | None = None
        self._jobs: dict[Hashable, _Job] = {}
        self._next_forget = 0.0  # when quiet channels' buckets are next dropped
        self._tasks: set[asyncio.Task[Any]] = set()
        self.counts: Counter[str] = Counter()  # requests granted, "global" and "interaction"
        # Set by the bot's shut-down once the last updates had their moment: an update still
        # running then fails for want of the drawing or the session, which is no fault.
        self.shutting_down = False

    # -- turns -------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def request(
        self,
        channel: Hashable,
        priority: int = NORMAL,
        *,
        route: str = "send",
        counted: bool = True,
        supersede: bool = False,
        keep: int | None = None,
        spread: bool = False,
        prepare: Callable[[], Awaitable[Any]] | None = None,
        ahead: Callable[[], float] = lambda: 0.0,
    ) -> AsyncIterator[Turn]:
        """``async with pacer.request(channel) as turn:`` around one request to Discord:
        waits for its turn, and counts it against the channel until it has been answered
        (``give_back(turn)`` when nothing was sent after all).
        ``supersede``: inside a coalesced job, raise :class:`Superseded` instead of waiting
        on once the job is asked again urgently (what it would send is out of date; a prompt
        for the same seat must not queue behind it). ``keep``: slots of the channel's budget
        to leave free (default: the level's, :data:`KEEP`). ``spread``: no sooner after the
        bucket's last request than an even share of its window (see :meth:`_channel_wait`).
        ``prepare``: awaited once the turn is about ``ahead()`` seconds away (the picture
        the request sends, drawn then: it shows the newest state, and no turn is held while
        it is drawn), its result kept as the turn's ``prepared``; the request keeps its
        place meanwhile and is granted once it is done.
        How near a turn is, is reckoned while the global budget has room (when it has none
        the waiters are not looked at, see ``_dispatch``): at 200 tables a slot frees every
        few hundredths of a second; a request asked for in a second whose budget is spent
        is prepared when the next slot frees."""
        waiter = await self._turn(
            channel,
            priority,
            route,
            counted,
            hold=True,
            job=_JOB.get(),
            supersede=supersede,
            keep=keep,
            spread=spread,
            prepare=prepare,
            ahead=ahead,
        )
        stamp = waiter.stamp
        token = GRANTED.set(True)
        try:
            yield waiter
        finally:
            GRANTED.reset(token)
            if stamp[0] == math.inf:  # not given back (counts nowhere) nor answered already
                stamp[0] = asyncio.get_running_loop().time()
            if self._wake is not None:
                self._wake.set()  # a slot held in flight may free a waiter

    def answered(self, turn: Turn) -> None:
        """The request sent in ``turn`` was answered (before ``request``'s block ends): it
        counts from now, not as in flight while the block goes on."""
        if turn.stamp[0] == math.inf:
            turn.stamp[0] = asyncio.get_running_loop().time()
            if self._wake is not None:
                self._wake.set()

    def give_back(self, turn: Turn, *, keep_place: bool = False) -> None:
        """A turn granted by ``request`` that sent nothing (what it was for turned out not
        to need a request): it counts against no budget, and the next waiter may take it.
        A turn whose request was sent and answered (``answered``) counts as sent: giving it
        back changes nothing. ``keep_place``: the coalesced job running it asks again with
        the same place in the queue (it gave way to something that must go first; a new
        place would be behind every table)."""
        if turn.stamp[0] != math.inf:
            return  # sent (it counts), or given back already
        turn.stamp[0] = -math.inf
        job = _JOB.get()
        if keep_place and job is not None:
            job.seq = turn.seq
        if self._wake is not None:
            self._wake.set()

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
        request: a channel's new messages, its edits and its deletes each have a bucket of
        their own (``per_channel`` per ``window``; deletes five times as quick, Discord's 5
        per 1 s). Discord answers creates and edits with the same bucket header but counts
        them apart (discord/discord-api-docs#1442, #8073: each still had ``limit - 1`` left
        after the other); sharing one budget gave a busy DM half the room it has.
        ``counted`` False: an interaction-token request, outside the global budget."""
        return (await self._turn(channel, priority, route, counted, hold=False)).stamp

    async def _turn(
        self,
        channel: Hashable,
        priority: int,
        route: str,
        counted: bool,
        *,
        hold: bool,
        job: _Job | None = None,
        supersede: bool = False,
        keep: int | None = None,
        spread: bool = False,
        prepare: Callable[[], Awaitable[Any]] | None = None,
        ahead: Callable[[], float] = lambda: 0.0,
    ) -> _Waiter:
        loop = asyncio.get_running_loop()
        bucket, keep = _budget(channel, route, priority, keep)
        future = loop.create_future()
        # A kept place (``Superseded``, ``give_back(keep_place=True)``) goes to the job's next
        # request of the same kind: one that gives way, or one prepared (not a DM's look-up
        # of its channel, nor whatever a task spawned from the job asks for).
        keeps = job is not None and (supersede or prepare is not None)
        seq = job.seq if keeps and job.seq is not None else next(self._seq)
        waiter = _Waiter(
            priority,
            seq,
            bucket,
            counted,
            hold,
            future,
            keep=keep,
            since=loop.time(),
            spread=spread,
            near=None if prepare is None else loop.create_future(),
            ahead=ahead,
            ready=prepare is None,
        )
        heapq.heappush(self._waiting, waiter)
        self._ensure_dispatcher()
        assert self._wake is not None
        self._wake.set()
        try:
            if prepare is not None:
                assert waiter.near is not None
                await waiter.near
                waiter.prepared = await prepare()
                waiter.ready = True
                self._wake.set()
            if job is not None and supersede:
                newer = asyncio.ensure_future(job.newer.wait())
                try:
                    await asyncio.wait((future, newer), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    newer.cancel()
                if not future.done():
                    future.cancel()
                    job.seq = seq
                    raise Superseded
            await waiter.future
            if keeps and job is not None:
                job.seq = None  # its place is used
        except BaseException:  # cancelled, or ``prepare`` failed: the place is given up
            if not waiter.future.done():
                waiter.future.cancel()
            elif not waiter.future.cancelled():
                waiter.stamp[0] = loop.time()  # granted, never sent: no slot held forever
            raise
        return waiter

    async def until_ready(
        self,
        channel: Hashable,
        priority: int = NORMAL,
        *,
        route: str = "send",
        keep: int | None = None,
        spread: bool = False,
        ahead: float = 0.0,
    ) -> None:
        """Wait until a request to ``channel`` would fit the channel's own budget (or will in
        ``ahead`` seconds), without taking a slot (the global budget is not waited for: it
        changes by the moment). A coalesced job that draws what it sends waits here first
        and draws the newest state after: drawn first and then held for its channel's spread
        (1.3 s), a table's picture missed every move made meanwhile, and those waited for
        the next edit, 2.6 s in all (table staleness p99 2.6 s at 20 tables,
        ``benchmarks/bot.py``). ``ahead``: how long the drawing is expected to take, so that
        it is done when the turn comes rather than begun then. (The global budget's turn is
        waited for after, by ``request(..., prepare=...)``, which draws when it is near.)"""
        loop = asyncio.get_running_loop()
        bucket, keep = _budget(channel, route, priority, keep)
        while (wait := self._channel_wait(bucket, keep, loop.time(), spread)) > ahead:
            # ``inf``: a request still in flight; its answer sets the time to count from.
            await asyncio.sleep(IN_FLIGHT_POLL if wait == math.inf else wait - ahead)

    async def unless_newer(self, work: Awaitable[T]) -> T:
        """``await work`` (a drawing for the request a coalesced job is about to make), unless
        the job is asked again urgently meanwhile: then :class:`Superseded` (the job runs
        again at once). A seat's prompt does not wait for the drawing of an update it makes
        out of date (drawings of watching seats waited seconds in the pool's lower lane)."""
        job = _JOB.get()
        task = asyncio.ensure_future(work)
        if job is None:
            return await task
        newer = asyncio.ensure_future(job.newer.wait())
        try:
            await asyncio.wait((task, newer), return_when=asyncio.FIRST_COMPLETED)
        finally:
            newer.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            raise Superseded
        return task.result()

    def pressed(self) -> bool:
        """Whether the global budget runs short: half of it or more taken in the last
        second (a bot with a few tables takes a tenth)."""
        room, _ = self._global_room(asyncio.get_running_loop().time())
        return room < self._allowed() / 2

    def _ensure_dispatcher(self) -> None:
        if self._dispatcher is None or self._dispatcher.done():
            self._wake = asyncio.Event()
            self._dispatcher = asyncio.create_task(self._dispatch(), name="pacer")

    def _channel_wait(
        self, channel: Hashable, keep: int, now: float, spread: bool = False
    ) -> float:
        """How long a request to ``channel`` (a bucket) must wait for the channel's budget.

        ``spread``: also an even share of the window after the bucket's last request. A
        sliding window repeats the shape of its first burst for as long as it stays busy: a
        table changing every 0.8 s had its four edits in 2.4 s and then a 3 s gap, every 5 s,
        so a move in the gap showed 3 s late (table staleness p99 3.3 s at 20 tables). Spread
        out, the same four edits leave no gap longer than 1.3 s."""
        sent = self._sent.get(channel)
        if not sent:
            return 0.0
        window = self.window
        if isinstance(channel, tuple) and channel[-1:] == ("delete",):
            window /= 5
        elif _through_token(channel):
            window *= TOKEN_PACE
        recent = [stamp for stamp in sent if stamp[0] > now - window - self.margin]
        if len(recent) < len(sent):
            sent.clear()
            sent.extend(recent)
        allowed = max(1, self.per_channel - keep)
        even = 0.0
        if spread and recent:
            even = max(stamp[0] for stamp in recent) + (window + self.margin) / allowed - now
        if len(recent) < allowed:
            return even
        times = sorted(stamp[0] for stamp in recent)
        # A margin beyond the answer's time: clocks and Discord's own bookkeeping differ.
        # (Still in flight: ``inf``; its answer wakes the dispatcher.)
        return max(even, times[len(times) - allowed] + window + self.margin - now)

    def _allowed(self) -> int:
        """Requests in any ``global_window``: ``global_rate`` per window, whatever its length
        (tests shrink the window 24 times, as the fake shrinks Discord's: the same budget,
        sooner; the count was scaled down with it once, to 1 per window, 24 times stricter
        than the fake and, with requests in flight counted, slower than the tests' pace)."""
        return max(1, int(self.global_rate))

    def _global_room(self, now: float, need: int = 1) -> tuple[int, float]:
        """How many more requests the global budget takes now, and (when fewer than
        ``need``) how long until it takes ``need`` (``inf``: only once a request in flight
        is answered)."""
        span = self.global_window + self.global_margin
        recent = [stamp for stamp in self._global if stamp[0] > now - span]
        if len(recent) < len(self._global):
            self._global = deque(recent)
        allowed = self._allowed()
        room = allowed - len(recent)
        if room >= need:
            return room, 0.0
        times = sorted(stamp[0] for stamp in recent)
        index = len(times) - allowed + need - 1
        if index >= len(times):
            return room, math.inf
        return room, times[index] + span - now

    def _level(self, waiter: _Waiter, now: float) -> int:
        """The level a waiter is served at: its own, or the table images' once cosmetic work
        has waited ``low_age`` (it then keeps the table level's reserve and its own place
        among them, by when it asked: served within a round of the tables)."""
        if waiter.priority == LOW and now - waiter.since >= self.low_age:
            return TABLE
        return waiter.priority

    def _reserve(self, priority: int) -> int:
        """Global slots a request of ``priority`` leaves to those above it."""
        return int(self._allowed() * RESERVE.get(priority, 0.0))

    async def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        assert self._wake is not None
        while True:
            self._wake.clear()
            now = loop.time()
            room, _ = self._global_room(now)
            sleep = math.inf
            blocked_at: int | None = None  # the first level the global budget turned away
            # Once one counted request is turned away no other is granted in this pass, so
            # the global budget's wait for each need holds for the rest of it: worked out
            # once, not once per waiter (hundreds wait at 200 tables; it was a fifth of the
            # bot's time at 50, by py-spy).
            global_waits: dict[int, float] = {}
            queued = 0  # counted requests before this one in the order, waiting for the budget
            rate = self._allowed() / (self.global_window + self.global_margin)
            kept: list[_Waiter] = []
            candidates: list[_Waiter] = self._waiting
            if room <= 0:
                # The global budget is spent (most passes at 200 tables): no counted request
                # can go in this pass whatever its level, so only the uncounted ones are
                # looked at, and the rest sleep until the budget frees a slot (sorting and
                # checking hundreds of waiters in every pass was a tenth of the bot's time).
                candidates = [w for w in self._waiting if not w.counted]
                kept = [w for w in self._waiting if w.counted and not w.future.done()]
                if kept:
                    sleep = max(self._global_room(now)[1], 0.001)
            for waiter in sorted(candidates, key=lambda w: (self._level(w, now), w.seq)):
                if waiter.future.done():  # cancelled while waiting
                    continue
                reserve = self._reserve(self._level(waiter, now))
                if not waiter.ready:
                    # Being prepared, or to be once its turn is near: it keeps its place,
                    # and those after it go meanwhile. Its turn comes once the requests
                    # before it had theirs, at about the budget's rate.
                    kept.append(waiter)
                    queued += waiter.counted
                    near = waiter.near
                    if near is not None and not near.done():
                        eta = max(0, queued + reserve - room) / rate
                        ahead = waiter.ahead()
                        if eta <= ahead:  # its channel's wait only matters then (most are far)
                            wait = self._channel_wait(
                                waiter.channel, waiter.keep, now, waiter.spread
                            )
                            eta = max(wait, eta)
                        if eta > ahead:
                            sleep = min(sleep, max(eta - ahead, 0.001))
                        else:
                            near.set_result(None)
                    continue
                wait = self._channel_wait(waiter.channel, waiter.keep, now, waiter.spread)
                by_budget = False  # turned away by the global budget, not its channel's
                if wait <= 0 and waiter.counted and (blocked_at is not None or room <= reserve):
                    by_budget = True
                    # Served in priority order: nobody behind overtakes for a global slot,
                    # and a lower level leaves its reserve to the levels above it.
                    if blocked_at is None:
                        blocked_at = waiter.priority
                    global_wait = global_waits.get(reserve + 1)
                    if global_wait is None:
                        global_wait = self._global_room(now, need=reserve + 1)[1]
                        global_waits[reserve + 1] = global_wait
                    wait = max(global_wait, 0.001)
                if wait > 0:
                    kept.append(waiter)
                    sleep = min(sleep, wait)
                    queued += by_budget
                    continue
                waiter.stamp[0] = math.inf if waiter.hold else now
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
            if not self._waiting or sleep == math.inf:
                # Nothing waiting, or only for a request in flight: its answer wakes us.
                await self._wake.wait()
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=max(sleep, 0.001))

    def _forget_quiet_channels(self, now: float) -> None:
        """Drop the buckets of channels quiet for a window (at most once a window: each
        pass of the dispatcher scanning every channel was a tenth of the bot's time)."""
        if len(self._sent) < 256 or now < self._next_forget:
            return
        self._next_forget = now + self.window
        quiet = now - self.window - self.margin
        for channel in [c for c, s in self._sent.items() if all(t[0] <= quiet for t in s)]:
            del self._sent[channel]

    def snapshot(self) -> dict[str, Any]:
        """Where the budget stands (logs, benchmarks): requests waiting per level, in
        flight, and counted in the last second."""
        now = asyncio.get_running_loop().time()
        waiting = Counter(w.priority for w in self._waiting if not w.future.done())
        span = self.global_window + self.global_margin
        return {
            "waiting": dict(sorted(waiting.items())),
            "in_flight": sum(1 for stamp in self._global if stamp[0] == math.inf),
            "recent": sum(1 for stamp in self._global if stamp[0] > now - span),
            "jobs": len(self._jobs),
        }

    # -- coalesced jobs ----------------------------------------------------------------------
    def coalesce(
        self, key: Hashable, work: Work, *, gap: float = 0.0, urgent: bool = False
    ) -> None:
        """Run ``work()`` soon, once, for the newest state, no more often than every ``gap``
        seconds (the newest caller's gap); asking again while it waits changes nothing but
        the work to run and the gap. ``urgent``: the newest state must not wait behind the
        one being sent (a seat's prompt): a request of the job waiting with ``supersede``
        gives way (:class:`Superseded`)."""
        job = self._jobs.get(key)
        if job is None:
            job = self._jobs[key] = _Job(work, gap)
        job.work, job.gap, job.dirty = work, gap, True
        job.asked.set()
        if urgent:
            job.newer.set()
        if job.task is None or job.task.done():
            job.task = self.spawn(self._run_job(key, job), f"notify-{key}")

    async def _run_job(self, key: Hashable, job: _Job) -> None:
        loop = asyncio.get_running_loop()
        while job.dirty:
            # The gap is the newest caller's: a job waiting out a long gap (a seat that only
            # watches) goes at once when asked again with a short one (its turn came).
            while (wait := job.last + job.gap - loop.time()) > CLOCK_STEP:
                job.asked.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(job.asked.wait(), timeout=wait)
            job.dirty = False
            job.asked.clear()
            job.newer.clear()
            last, job.last = job.last, loop.time()
            token = _JOB.set(job)
            try:
                await job.work()
            except Superseded:
                job.last = last  # nothing was sent: the newer state goes without a gap
            except Exception as exc:
                if self.shutting_down:
                    log.info("updating %s stopped by the shut-down: %s", key, exc)
                else:
                    log.exception("updating %s failed", key)
            finally:
                _JOB.reset(token)
        if self._jobs.get(key) is job and not job.dirty:
            del self._jobs[key]

    def forget(self, prefix: tuple[Any, ...], *, running: bool = False) -> None:
        """Drop the waiting jobs whose key starts with ``prefix`` (a table that closed);
        ``running``: cancel those already running too (waiting for their turn, or mid-request:
        only for work nobody misses, such as deleting replaced prompts)."""
        for key in [k for k in self._jobs if isinstance(k, tuple) and k[: len(prefix)] == prefix]:
            job = self._jobs.pop(key)
            job.dirty = False
            if running and job.task is not None:
                job.task.cancel()

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
        if exc is not None and self.shutting_down:
            log.info("%s stopped by the shut-down: %s", task.get_name(), exc)
        elif exc is not None:
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
