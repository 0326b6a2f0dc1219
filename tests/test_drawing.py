"""Drawing in a separate process (bot/drawing.py): the same pictures as drawn in the bot's own
process, and a process that dies, a caller that gives up or a drawing that fails never leaves
the next caller without its picture."""

from __future__ import annotations

import asyncio
import io
import os
import pickle

import pytest

from bot.drawing import Drawing, render, serve
from bot.rules.game import new_game
from bot.rules.game.view import view


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
        assert len(drawing._all) == 1  # drawn by the process, not a thread
    finally:
        await drawing.close()
    assert table == render("table", (public, names), {})
    assert hand == render("hand", (own,), {"marks": frozenset()})


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
        first = await drawing.draw("table", public, names)
        (dead,) = drawing._all
        dead.process.kill()
        await dead.process.wait()
        assert await drawing.draw("table", public, names) == first
        (replacement,) = drawing._all
        assert replacement is not dead and replacement.process.returncode is None
        assert await drawing.draw("table", public, names) == first
    finally:
        await drawing.close()


async def test_a_caller_that_gives_up_does_not_leave_its_answer_to_the_next(table_view) -> None:
    public, own = table_view
    drawing = Drawing(processes=1)
    drawing.start()
    try:
        given_up = asyncio.create_task(drawing.draw("table", public, ["a", "b", "c", "d"]))
        await asyncio.sleep(0.05)
        given_up.cancel()
        hand = await drawing.draw("hand", own, marks=frozenset())
        assert hand == render("hand", (own,), {"marks": frozenset()})
    finally:
        await drawing.close()


async def test_a_failed_drawing_is_reported_and_the_process_goes_on(table_view) -> None:
    _, own = table_view
    drawing = Drawing(processes=1)
    drawing.start()
    try:
        with pytest.raises(RuntimeError, match="drawing hand failed"):
            await drawing.draw("hand", "not a view")
        with pytest.raises(ValueError, match="no such drawing"):
            await drawing.draw("__class__", own)
        assert (await drawing.draw("hand", own)).startswith(b"\x89PNG")
        assert len(drawing._all) == 1
    finally:
        await drawing.close()


async def test_close_ends_the_processes(table_view) -> None:
    drawing = Drawing(processes=2)
    drawing.start()
    await drawing.draw("hand", table_view[1])
    processes = [d.process for d in drawing._all]
    assert len(processes) == 2
    await drawing.close()
    assert all(p.returncode == 0 for p in processes)


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
        "    d = Drawing(1); d.start(); await d._starting\n"
        "    (p,) = d._all\n"
        "    print(p.process.pid, flush=True)\n"
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
