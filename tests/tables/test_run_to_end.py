"""``run_to_end``: a move's write and its taking by the table happen both or neither, even
when the caller is cancelled; and a write that does not wait costs no turn of the loop."""

from __future__ import annotations

import asyncio
import contextvars

import pytest

from bot.service.tables.service import run_to_end


async def test_work_that_never_waits_ends_without_a_turn_of_the_loop() -> None:
    ran: list[str] = []

    async def work() -> int:
        return 7

    other = asyncio.get_running_loop().call_soon(ran.append, "other")
    assert await run_to_end(work()) == 7
    assert ran == []  # nothing else ran meanwhile
    other.cancel()


async def test_work_that_waits_goes_on_where_it_waited() -> None:
    gate: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    steps: list[str] = []

    async def work() -> str:
        steps.append("before")
        await asyncio.sleep(0)  # a bare yield to the loop
        steps.append("after sleep")
        got = await gate  # a future
        steps.append(got)
        return got.upper()

    task = asyncio.create_task(run_to_end(work()))
    for _ in range(5):
        await asyncio.sleep(0)
    assert steps == ["before", "after sleep"] and not task.done()
    gate.set_result("opened")
    assert await task == "OPENED"
    assert steps == ["before", "after sleep", "opened"]


async def test_a_caller_cancelled_while_the_work_waits_lets_it_finish_first() -> None:
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    done: list[str] = []

    async def work() -> None:
        await gate
        done.append("stored and taken")

    task = asyncio.create_task(run_to_end(work()))
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.sleep(0)
    assert not task.done() and done == []  # still waiting for the work
    gate.set_result(None)
    with pytest.raises(asyncio.CancelledError):
        await task
    assert done == ["stored and taken"]


async def test_an_error_after_a_wait_reaches_the_caller() -> None:
    async def work() -> None:
        await asyncio.sleep(0)
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        await run_to_end(work())


async def test_an_error_before_any_wait_reaches_the_caller() -> None:
    async def work() -> None:
        raise ValueError("at once")

    with pytest.raises(ValueError, match="at once"):
        await run_to_end(work())


async def test_what_the_work_sets_stays_in_its_own_context_across_a_wait() -> None:
    """The store keeps its unit of work in a context variable: set before a wait and reset
    after it, it must be the same context both times (a task's), and the caller's must not
    see it. Run in the caller's context, the reset after the wait raised ValueError and the
    caller went on 'inside' a unit that had ended (a PostgreSQL CI failure)."""
    unit: contextvars.ContextVar[str | None] = contextvars.ContextVar("unit", default=None)

    async def work() -> str | None:
        token = unit.set("held")
        await asyncio.sleep(0)
        seen = unit.get()
        unit.reset(token)
        return seen

    assert await run_to_end(work()) == "held"
    assert unit.get() is None

    async def quick() -> None:
        unit.set("leaked?")

    await run_to_end(quick())
    assert unit.get() is None
