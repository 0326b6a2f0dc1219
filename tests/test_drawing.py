"""Drawing in a pool of processes (bot/drawing.py): the same pictures as drawn in the bot's own
process; the most urgent lane first; superseded work dropped; a process that hangs or dies is
replaced while its picture is drawn elsewhere; a caller that gives up or a drawing that fails
never leaves the next caller without its picture; no process outlives the pool or the bot."""

from __future__ import annotations

import asyncio
import io
import os
import pickle
import signal
from pathlib import Path
from typing import Any

import pytest

from bot.drawing import (
    DEPTH,
    LANES,
    NICENESS,
    PIPE_BYTES,
    SHARE,
    STUCK_AFTER,
    Drawing,
    DrawingFailed,
    DrawingProcess,
    Superseded,
    default_processes,
    render,
    serve,
    signature,
)
from bot.rules.game import new_game
from bot.rules.game.view import view
from tests.pictures import shows


def drawn(kind: str, *args: Any, **kwargs: Any) -> bytes:
    """What the picture ``render`` draws here, in the test's own process, shows (``shows``:
    pictures drawn in different processes are compared decoded)."""
    return shows(render(kind, args, kwargs))


@pytest.fixture(scope="module")
def table_view():
    state = new_game("pung-chow-limit", seed=5, hands=1)
    return view(state, None), view(state, 0)


async def test_a_process_draws_the_same_pictures_as_a_thread(table_view) -> None:
    public, own = table_view
    names = ["Ann", "Bo", "Cy", "Di"]
    drawing = Drawing(processes=1)
    drawing.start()
    try:
        table = await drawing.draw("table", public, names)
        hand = await drawing.draw("hand", own, marks=frozenset())
        assert len(drawing.pids()) == 1  # drawn by the process, not a thread
    finally:
        await drawing.close()
    assert shows(table) == drawn("table", public, names)
    assert shows(hand) == drawn("hand", own, marks=frozenset())


async def test_without_processes_it_draws_in_a_thread(table_view) -> None:
    public, _ = table_view
    drawing = Drawing(processes=0)
    drawing.start()
    png = await drawing.draw("table", public, ["a", "b", "c", "d"])
    assert png.startswith(b"\x89PNG")
    await drawing.close()


async def test_a_dead_process_is_replaced_and_the_picture_still_comes(table_view) -> None:
    public, _ = table_view
    names = ["a", "b", "c", "d"]
    drawing = Drawing(processes=1)
    drawing.start()
    try:
        first = shows(await drawing.draw("table", public, names))
        (dead,) = drawing.pids()
        os.kill(dead, signal.SIGKILL)
        assert shows(await drawing.draw("table", public, names)) == first
        await drawing.ready()
        (replacement,) = drawing.pids()
        assert replacement != dead and not alive(dead)
        assert shows(await drawing.draw("table", public, names)) == first
        assert drawing.counts["replaced"] == 1
    finally:
        await drawing.close()


async def test_a_process_is_recycled_after_its_drawings_and_no_picture_is_lost(
    table_view,
) -> None:
    """After ``recycle_after`` drawings a fresh process takes the slot (started first, the
    old one answering all it was given, then closed): the pictures keep coming, the same
    ones, and no process is left behind. Not a fault: nothing is drawn in the thread."""
    public, own = table_view
    names = ["a", "b", "c", "d"]
    drawing = Drawing(processes=1, recycle_after=3)
    drawing.start()
    seen: list[int] = []
    try:
        first = shows(await drawing.draw("table", public, names))
        async with asyncio.timeout(120):
            while drawing.counts["recycled"] < 3:
                seen += [pid for pid in drawing.pids() if pid not in seen]
                many = [drawing.draw("table", public, names) for _ in range(2)]
                many.append(drawing.draw("hand", own, marks=frozenset()))
                *tables, hand = await asyncio.gather(*many)
                assert [shows(table) for table in tables] == [first, first]
                assert shows(hand) == drawn("hand", own, marks=frozenset())
        seen += [pid for pid in drawing.pids() if pid not in seen]
        assert drawing.counts["replaced"] == 0 and len(seen) == 4
        retired = seen[:-1]  # the last is the one drawing now
        await until(lambda: not any(alive(pid) for pid in retired))
    finally:
        await drawing.close()
    assert drawing_children() == [] and not any(alive(pid) for pid in seen)


async def test_a_caller_that_gives_up_does_not_leave_its_answer_to_the_next(table_view) -> None:
    public, own = table_view
    drawing = Drawing(processes=1)
    drawing.start()
    try:
        given_up = asyncio.create_task(drawing.draw("table", public, ["a", "b", "c", "d"]))
        await asyncio.sleep(0.05)
        given_up.cancel()
        hand = await drawing.draw("hand", own, marks=frozenset())
        assert shows(hand) == drawn("hand", own, marks=frozenset())
    finally:
        await drawing.close()


async def test_a_failed_drawing_is_reported_and_the_process_goes_on(table_view) -> None:
    _, own = table_view
    drawing = Drawing(processes=1)
    drawing.start()
    try:
        with pytest.raises(DrawingFailed, match="drawing hand failed"):
            await drawing.draw("hand", "not a view")
        with pytest.raises(ValueError, match="no such drawing"):
            await drawing.draw("__class__", own)
        with pytest.raises(ValueError, match="no such lane"):
            await drawing.draw("hand", own, lane="urgent")
        assert (await drawing.draw("hand", own)).startswith(b"\x89PNG")
        assert len(drawing.pids()) == 1 and drawing.counts["replaced"] == 0
    finally:
        await drawing.close()


async def test_close_ends_the_processes(table_view) -> None:
    drawing = Drawing(processes=2)
    drawing.start()
    await drawing.draw("hand", table_view[1])
    await drawing.ready()
    pids = drawing.pids()
    assert len(pids) == 2 and set(pids) == set(drawing_children())
    await drawing.close()
    assert drawing_children() == [] and not any(alive(p) for p in pids)
    assert drawing.pids() == []


async def test_closing_while_the_processes_start_stops_them_at_once(monkeypatch) -> None:
    """A bot stopped right after it started (its drawing processes still importing) does not
    wait for them to be ready: it waited 10 s (its shut-down gave up after 2 s, and the
    workers outlived the event loop)."""
    started: list[bool] = []
    both_starting = asyncio.Event()
    cancelled: list[bool] = []

    async def never_ready(cls: type) -> None:
        started.append(True)
        if len(started) == 2:
            both_starting.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)  # the real one kills its half-started process here
            raise

    monkeypatch.setattr(DrawingProcess, "start", classmethod(never_ready))
    drawing = Drawing(processes=2)
    drawing.start()
    await both_starting.wait()
    await asyncio.wait_for(drawing.close(), 5)  # well under the 10 s it would wait
    assert cancelled == [True, True]


def test_the_process_ends_when_the_bot_closes_its_end() -> None:
    """A killed bot closes the pipe: the drawing process says it is ready, finds the end of
    its input and returns, whatever was half sent."""
    for requests in (b"", b"\x00\x00", b"\x00\x00\x01\x00partial"):
        answers = io.BytesIO()
        serve(io.BytesIO(requests), answers)
        data = answers.getvalue()
        assert int.from_bytes(data[:4], "big") == len(data) - 4  # one answer only
        assert pickle.loads(data[4:]) == (True, b"ready")


async def test_a_killed_bot_leaves_no_drawing_process(tmp_path) -> None:
    """The drawing process's parent is SIGKILLed: the child finds its stdin closed and ends."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import asyncio, os, sys\n"
        "from bot.drawing import Drawing\n"
        "async def main():\n"
        "    d = Drawing(1); await d.ready()\n"
        "    (p,) = d.pids()\n"
        "    print(p, flush=True)\n"
        "    os.kill(os.getpid(), 9)\n"
        "asyncio.run(main())\n"
    )
    parent = await asyncio.create_subprocess_exec(
        os.sys.executable, str(script), stdout=asyncio.subprocess.PIPE, cwd=os.getcwd()
    )
    out, _ = await asyncio.wait_for(parent.communicate(), 60)
    child = int(out.split()[0])
    for _ in range(200):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{child}/stat") as stat:
            if stat.read().split()[2] == "Z":  # ended, waiting to be reaped by init
                return
        await asyncio.sleep(0.05)
    raise AssertionError("the drawing process outlived its bot")


async def until(condition: Any, seconds: float = 30.0) -> None:
    """Wait for ``condition()`` to hold (it is checked every 20 ms), failing after
    ``seconds``."""
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.02)


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (a killed child the pool forgot to reap shows as
    a zombie: that counts as alive here, so a forgotten one fails the test)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def drawing_children(parent: int | None = None) -> list[int]:
    """Every ``python -m bot.drawing`` child of ``parent`` (this process by default), zombies
    included."""
    parent = os.getpid() if parent is None else parent
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"bot.drawing" in cmdline:
            found.append(int(entry.name))
    return found


async def test_default_pool_is_one_process_per_core() -> None:
    assert Drawing().processes == default_processes() == min(os.cpu_count() or 1, 8)
    assert Drawing(0).processes == 0


async def test_a_dm_asked_for_after_twenty_table_images_is_drawn_before_them(table_view) -> None:
    public, own = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    finished: list[str] = []

    async def draw(lane: str, *args, **kwargs) -> None:
        await drawing.draw(*args, lane=lane, **kwargs)
        finished.append(lane)

    try:
        tables = [
            asyncio.create_task(draw("table", "table", public, ["a", "b", "c", "d"]))
            for _ in range(20)
        ]
        dm = asyncio.create_task(draw("dm", "hand", own, marks=frozenset()))
        await asyncio.gather(*tables, dm)
    finally:
        await drawing.close()
    # One process: at most the first table image had started when the DM came.
    assert finished.index("dm") <= 1
    assert finished.count("table") == 20


async def test_every_lane_is_served_in_its_order_with_a_share_for_the_oldest(table_view) -> None:
    _, own = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    finished: list[str] = []

    async def draw(lane: str) -> None:
        await drawing.draw("hand", own, lane=lane)
        finished.append(lane)

    try:
        # The one process is kept busy while every lane fills, least urgent first.
        busy = asyncio.create_task(drawing.draw("table", table_view[0], ["a", "b", "c", "d"]))
        await asyncio.sleep(0)
        await asyncio.gather(*(draw(lane) for lane in reversed(LANES)), busy)
    finally:
        await drawing.close()
    # The most urgent tier first (the claim prompt and the DM share it: the claim was asked
    # for first); after SHARE - 1 such starts while others waited, the oldest job waiting
    # (the look-up, asked for first), then the most urgent again.
    assert SHARE == 4
    assert finished == ["claim", "dm", "table", "lookup", "reveal"]
    assert sum(drawing.counts[lane] for lane in LANES) == len(LANES) + 1


async def test_a_process_takes_its_own_tables_drawings_first_and_others_when_it_has_none(
    table_view,
) -> None:
    """``home``: a table's drawings go to one process (its caches hold its last pictures'
    parts), unless that would leave another idle or put a less urgent lane first. The pool's
    choice (``_pick``) for each slot, with no process running: tables 0 and 2 are slot 0's,
    1 and 3 slot 1's."""
    _, own = table_view
    drawing = Drawing(processes=2)
    drawing.start = lambda: None  # type: ignore[method-assign]  # nothing takes the jobs
    drawing._drawers = {0: object(), 1: object()}  # type: ignore[dict-item]  # both running
    homes: dict[int, Any] = {}

    def ask(lane: str, home: Any) -> None:
        task = asyncio.create_task(drawing.draw("hand", own, lane=lane, home=home))
        homes[id(task)] = home
        asked.append(task)

    def picked(slot: int) -> tuple[str, Any]:
        job = drawing._pick(slot)
        assert job is not None
        return job.lane, order[job.order]

    asked: list[asyncio.Task[bytes]] = []
    try:
        for lane, home in [("table", 1), ("table", 0), ("table", 3), ("table", 2)]:
            ask(lane, home)
        await asyncio.sleep(0)
        order = [homes[id(t)] for t in asked]  # job.order is the order asked
        # Each slot takes the oldest of its own tables' first.
        assert picked(0) == ("table", 0)
        assert picked(1) == ("table", 1)
        assert picked(1) == ("table", 3)
        # Slot 1 has none of its own left: it takes slot 0's rather than idle.
        assert picked(1) == ("table", 2)
        assert drawing._pick(0) is None
        # A more urgent lane comes first whoever's it is; a drawing of no table is anyone's.
        for lane, home in [("table", 0), ("dm", 1), ("claim", None), ("table", 2)]:
            ask(lane, home)
        await asyncio.sleep(0)
        order = [homes[id(t)] for t in asked]
        assert picked(0) == ("claim", None)  # its own tier-0 job (no home): the oldest own
        assert picked(0) == ("dm", 1)  # slot 1's DM before its own table images
        assert picked(0) == ("table", 0)
        assert picked(0) == ("table", 2)
        # Slot 1's process is being replaced: its tables' drawings are anyone's, oldest first.
        for lane, home in [("table", 1), ("table", 3), ("table", 0)]:
            ask(lane, home)
        await asyncio.sleep(0)
        order = [homes[id(t)] for t in asked]
        drawing._drawers[1] = None
        assert picked(0) == ("table", 1)
        drawing._drawers[1] = object()  # type: ignore[assignment]
        # Back, but stuck on one drawing for longer than STUCK_AFTER: the same.
        drawing._active[1] = drawing._lanes["table"][1][0]
        drawing._since[1] = asyncio.get_running_loop().time() - STUCK_AFTER - 0.1
        assert picked(0) == ("table", 3)
        assert picked(0) == ("table", 0)
        drawing._active.clear()
    finally:
        for task in asked:
            task.cancel()
        await asyncio.gather(*asked, return_exceptions=True)
        await drawing.close()


async def test_a_drawing_with_nothing_to_draw_does_not_use_up_its_lane_s_share(
    table_view,
) -> None:
    """A table image found unchanged when its turn came (``draw_newest`` with nothing to
    draw) drew nothing: the share it took goes to the next table image, not to the DMs."""
    _, own = table_view
    drawing = Drawing(processes=1)
    drawing.start = lambda: None  # type: ignore[method-assign]  # nothing takes the jobs
    drawing._drawers = {0: object()}  # type: ignore[dict-item]
    asked = [
        asyncio.create_task(drawing.draw_newest(lambda: None, lane="table")),
        asyncio.create_task(drawing.draw("hand", own, lane="table")),
        *(asyncio.create_task(drawing.draw("hand", own, lane="dm")) for _ in range(8)),
    ]
    await asyncio.sleep(0)
    try:
        lanes = []
        for _ in range(5):
            job = drawing._next(0)
            assert job is not None
            lanes.append(job.lane)
        assert lanes == ["dm", "dm", "dm", "table", "dm"]
        assert await asked[0] is None  # answered: nothing to draw
    finally:
        for task in asked:
            task.cancel()
        await asyncio.gather(*asked, return_exceptions=True)
        await drawing.close()


async def test_a_steady_stream_of_dms_does_not_starve_the_table_images(table_view) -> None:
    public, own = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    finished: list[str] = []

    async def draw(lane: str, *args, **kwargs) -> None:
        await drawing.draw(*args, lane=lane, **kwargs)
        finished.append(lane)

    try:
        tables = [
            asyncio.create_task(draw("table", "table", public, ["a", "b", "c", "d"]))
            for _ in range(5)
        ]
        # Twenty more urgent DMs come while the table images wait: the DM lane stays full.
        dms = []
        for _ in range(20):
            dms.append(asyncio.create_task(draw("dm", "hand", own, marks=frozenset())))
            await asyncio.sleep(0)
        await asyncio.gather(*tables, *dms)
    finally:
        await drawing.close()
    # Every table image came out while DMs still waited, at least one of every SHARE starts.
    last_table = len(finished) - 1 - finished[::-1].index("table")
    assert finished[last_table + 1 :].count("dm") > 0
    assert last_table < 5 * SHARE + 1, finished
    assert finished.count("dm") == 20 and finished.count("table") == 5


async def test_a_queued_drawing_is_superseded_by_a_newer_one_with_its_key(table_view) -> None:
    public, own = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    try:
        busy = asyncio.create_task(drawing.draw("table", public, ["a", "b", "c", "d"]))
        older = asyncio.create_task(drawing.draw("hand", own, lane="dm", key=("hand", 1, 0)))
        other = asyncio.create_task(drawing.draw("hand", own, lane="dm", key=("hand", 1, 1)))
        newer = asyncio.create_task(
            drawing.draw(
                "hand",
                own,
                marks=frozenset({own.seats[0].concealed[0]}),
                lane="dm",
                key=("hand", 1, 0),
            )
        )
        with pytest.raises(Superseded):
            await older
        marked = frozenset({own.seats[0].concealed[0]})
        assert shows(await newer) == drawn("hand", own, marks=marked)
        assert shows(await other) == drawn("hand", own)
        await busy
        assert drawing.counts["superseded"] == 1 and drawing.counts["dm"] == 2
    finally:
        await drawing.close()


async def test_a_drawing_already_started_is_not_superseded(table_view) -> None:
    public, _ = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    names = ["a", "b", "c", "d"]
    try:
        first = asyncio.create_task(drawing.draw("table", public, names, lane="table", key=7))
        while drawing.drawing_now() != ["table"]:  # wait until the process has taken it
            await asyncio.sleep(0)
        second = asyncio.create_task(drawing.draw("table", public, names, lane="table", key=7))
        assert shows(await first) == shows(await second) == drawn("table", public, names)
        assert drawing.counts["superseded"] == 0
    finally:
        await drawing.close()


async def test_a_hung_process_is_replaced_and_the_picture_still_comes(table_view) -> None:
    """A SIGSTOPped process never answers: after the timeout it is killed (and reaped), the
    picture is drawn in the thread, and a new process draws the next ones."""
    public, _ = table_view
    names = ["a", "b", "c", "d"]
    expected = drawn("table", public, names)
    drawing = Drawing(processes=1, timeout=2.0)
    try:
        assert shows(await drawing.draw("table", public, names)) == expected
        (hung,) = drawing.pids()
        os.kill(hung, signal.SIGSTOP)
        assert shows(await drawing.draw("table", public, names, lane="dm")) == expected
        assert drawing.counts["replaced"] >= 1 and not alive(hung)
        await drawing.ready()
        (replacement,) = drawing.pids()
        assert replacement != hung and drawing_children() == [replacement]
        assert shows(await drawing.draw("table", public, names)) == expected
    finally:
        await drawing.close()
    assert drawing_children() == []


async def test_close_drops_queued_drawings_and_refuses_new_ones(table_view) -> None:
    public, own = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    busy = asyncio.create_task(drawing.draw("table", public, ["a", "b", "c", "d"], lane="table"))
    # The process is handed DEPTH drawings at once: the next ones are already its to draw.
    handed = [
        asyncio.create_task(drawing.draw("hand", own, lane="table")) for _ in range(DEPTH - 1)
    ]
    queued = asyncio.create_task(drawing.draw("hand", own, lane="lookup"))
    while drawing.drawing_now() != ["table"]:
        await asyncio.sleep(0)
    assert drawing.queued()["lookup"] == 1
    await drawing.close()
    assert (await busy).startswith(b"\x89PNG")  # the one being drawn is finished
    for picture in await asyncio.gather(*handed):  # and those handed to its process
        assert picture.startswith(b"\x89PNG")
    with pytest.raises(asyncio.CancelledError):
        await queued
    with pytest.raises(DrawingFailed, match="closed"):
        await drawing.draw("hand", own)
    assert drawing_children() == []


async def test_a_newest_drawing_draws_what_its_source_says_when_a_process_starts_on_it(
    table_view,
) -> None:
    """``draw_newest`` asks what to draw when the pool hands the job to a process, not when
    asked: a table that moved on while its drawing waited is drawn as it stands then."""
    public, own = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    names = ["a", "b", "c", "d"]
    asked: list[list[str]] = []

    def source() -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        asked.append(list(names))
        return "table", (public, list(names)), {}

    try:
        # Twice what the process holds at once is ahead of it in its lane.
        ahead = [
            asyncio.create_task(drawing.draw("hand", own, lane="table")) for _ in range(2 * DEPTH)
        ]
        newest = asyncio.create_task(drawing.draw_newest(source, lane="table"))
        while drawing.queued("table")["table"] < DEPTH:  # all queued, the process busy
            await asyncio.sleep(0)
        assert asked == []  # not yet asked what to draw
        names[0] = "Ann"  # the table moves on while the drawing waits
        png = await newest
        assert asked == [["Ann", "b", "c", "d"]]
        assert png is not None and shows(png) == drawn("table", public, ["Ann", "b", "c", "d"])
        await asyncio.gather(*ahead)
    finally:
        await drawing.close()


@pytest.mark.parametrize("processes", [1, 0])
async def test_a_newest_drawing_with_nothing_to_draw_is_none_and_a_failing_source_fails_alone(
    table_view, processes: int
) -> None:
    """A source that finds nothing to draw any more answers None without drawing; one that
    raises fails its own drawing (``DrawingFailed``), and the pool draws the next."""
    public, _ = table_view
    drawing = Drawing(processes=processes)
    await drawing.ready()

    def broken() -> None:
        raise KeyError("table 7")

    try:
        assert await drawing.draw_newest(lambda: None, lane="table") is None
        with pytest.raises(DrawingFailed, match="KeyError"):
            await drawing.draw_newest(broken, lane="table")
        png = await drawing.draw_newest(lambda: ("table", (public, ["a", "b"]), {}), lane="table")
        assert png is not None and shows(png) == drawn("table", public, ["a", "b"])
        assert drawing.counts["unchanged"] == 1 and drawing.counts["table"] == 1
        with pytest.raises(DrawingFailed, match="no such drawing"):
            await drawing.draw_newest(lambda: ("sketch", (), {}), lane="table")
    finally:
        await drawing.close()


def test_equal_signatures_mean_equal_pictures() -> None:
    """Two views built apart from the same state sign alike and draw alike; a change in what
    a picture shows changes its signature."""
    state = new_game("pung-chow", seed=9, hands=1)
    names = ("Ann", "Bo", "Cy", "Di")
    first, again = view(state, None), view(state, None)
    assert first is not again
    assert signature("table", first, names) == signature("table", again, names)
    assert drawn("table", first, names) == drawn("table", again, names)
    assert signature("table", first, names) != signature("table", first, ("Ann", "Bo", "Cy", "Eve"))
    assert signature("table", first, names) != signature("table", view(state, 0), names)
    own = view(state, 0)
    tile = own.seats[0].concealed[0]
    assert signature("hand", own) != signature("hand", own, marks=frozenset({tile}))
    assert len(signature("hand", own)) == 16


async def test_a_process_is_handed_the_next_drawing_before_its_answer_is_read(
    table_view,
) -> None:
    """The bot's loop, busy at 200 tables, reads answers late: a process holds the next
    drawing meanwhile, and its answers' pipe holds a whole picture (one read, not three)."""
    import fcntl

    public, _ = table_view
    drawing = Drawing(processes=1)
    try:
        await drawing.ready()
        (drawer,) = (d for d in drawing._drawers.values() if d is not None)
        pipe = drawer.pipe.get_extra_info("pipe")
        assert fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_BYTES
        asked = [
            asyncio.create_task(
                drawing.draw("table", public, [f"p{n}", "b", "c", "d"], lane="table")
            )
            for n in range(DEPTH + 1)
        ]
        while drawing.drawing_now() != ["table"]:
            await asyncio.sleep(0)
        assert drawing.queued()["table"] == 1  # the rest wait for their turn
        pictures = await asyncio.gather(*asked)
        assert all(p.startswith(b"\x89PNG") for p in pictures)
        assert len(set(pictures)) == DEPTH + 1 and drawing.counts["table"] == DEPTH + 1
    finally:
        await drawing.close()


def test_on_uvloop_the_pool_draws_and_its_answers_pipe_holds_a_whole_picture(
    table_view,
) -> None:
    """The bot's process runs on uvloop (bot/event_loop.py), which gives a child's stdout a
    socket pair of its own: the pool makes the answers' pipe itself, so it is widened there
    too, and pictures come back through it."""
    import fcntl

    uvloop = pytest.importorskip("uvloop")
    public, _ = table_view

    async def draw() -> tuple[int, bytes]:
        drawing = Drawing(processes=1)
        try:
            await drawing.ready()
            (drawer,) = (d for d in drawing._drawers.values() if d is not None)
            pipe = drawer.pipe.get_extra_info("pipe")
            size = fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ)
            return size, await drawing.draw("table", public, ["a", "b", "c", "d"], lane="table")
        finally:
            await drawing.close()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        size, picture = runner.run(draw())
    assert size == PIPE_BYTES
    assert picture.startswith(b"\x89PNG") and len(picture) > 10_000


async def test_a_steady_stream_of_turn_dms_does_not_hold_back_a_claim_prompt(table_view) -> None:
    """A claim prompt's window closes in seconds: it waits behind the DMs asked for before
    it, not behind every DM that keeps coming while older table images wait (at 200 tables
    the DM lane is never empty and the table lane always holds older work, which took every
    share of the pool the DMs left)."""
    public, own = table_view
    drawing = Drawing(processes=1)
    await drawing.ready()
    finished: list[str] = []

    async def draw(lane: str, *args: Any, **kwargs: Any) -> None:
        await drawing.draw(*args, lane=lane, **kwargs)
        finished.append(lane)

    try:
        tasks = [
            asyncio.create_task(draw("table", "table", public, ["a", "b", "c", "d"]))
            for _ in range(12)
        ]
        for n in range(24):
            tasks.append(asyncio.create_task(draw("dm", "hand", own, marks=frozenset())))
            if n == 3:
                tasks.append(asyncio.create_task(draw("claim", "hand", own, marks=frozenset())))
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
    finally:
        await drawing.close()
    # Before it: what the process held when it came (DEPTH), the four DMs asked for before
    # it, and a table image for every SHARE - 1 of those.
    assert finished.index("claim") <= DEPTH + 4 + 2, finished
    assert finished.count("dm") == 24 and finished.count("table") == 12


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux scheduling policies")
async def test_a_drawing_process_is_batch_work_for_the_scheduler() -> None:
    """It must not take the core from the bot's loop each time a job wakes it, nor when both
    want it."""
    drawing = Drawing(processes=1)
    await drawing.ready()
    try:
        [process] = drawing.pids()
        assert os.sched_getscheduler(process) == os.SCHED_BATCH
        # niceness, the 19th field of /proc/PID/stat (after the command's parenthesis)
        stat = Path(f"/proc/{process}/stat").read_text().rpartition(")")[2].split()
        assert int(stat[16]) == os.nice(0) + NICENESS
    finally:
        await drawing.close()


async def test_a_process_dying_while_its_successor_starts_is_replaced_by_that_successor(
    monkeypatch,
) -> None:
    """The fault path takes the successor already starting as its replacement: starting
    another (which may fail) and then closing the successor left the slot drawing in the
    thread for 30 s (found in review, with stand-in processes)."""
    starts: list[int] = []
    successor_may_start = asyncio.Event()

    class StandIn:
        def __init__(self, hangs_at: int | None) -> None:
            self.pid = 1000 + len(starts)
            self.drawn = 0
            self.answers: asyncio.Queue[tuple[bool, Any]] = asyncio.Queue()
            self.sent = 0
            self.hangs_at = hangs_at

        async def send(self, request: bytes) -> None:
            self.sent += 1
            if self.hangs_at is None or self.sent < self.hangs_at:
                await self.answers.put((True, b"png-%d" % self.pid))

        async def answer(self) -> tuple[bool, Any]:
            return await self.answers.get()

        def signal_kill(self) -> None:
            pass

        async def kill(self) -> None:
            pass

        async def close(self) -> None:
            pass

    async def start() -> StandIn:
        starts.append(len(starts))
        if len(starts) == 1:
            return StandIn(hangs_at=3)  # answers two, then hangs
        if len(starts) == 2:
            await successor_may_start.wait()  # the successor, slow to start
            return StandIn(hangs_at=None)
        raise OSError("no second replacement may be started")

    monkeypatch.setattr(DrawingProcess, "start", staticmethod(start))
    monkeypatch.setattr("bot.drawing.render", lambda kind, args, kwargs: b"thread")
    drawing = Drawing(processes=1, timeout=0.2, recycle_after=2)
    drawing.start()
    try:
        assert [await drawing.draw("hand") for _ in range(2)] == [b"png-1001"] * 2
        hung = asyncio.ensure_future(drawing.draw("hand"))  # the successor is starting
        await until(lambda: drawing.counts["replaced"] == 1)
        successor_may_start.set()
        assert await hung == b"thread"  # its picture still comes
        assert await drawing.draw("hand") == b"png-1002"  # from the successor, at once
        assert len(starts) == 2 and drawing.pids() == [1002]
    finally:
        await drawing.close()
