"""A table's picture held while its computer players answer, only while the budget is short
(``cogs.notify.bursts``). Times are the loop's, checked as lower bounds or by order of
events (no assertion on how long the test took)."""

from __future__ import annotations

import asyncio

from cogs.notify.bursts import BurstHold


async def test_a_quiet_bot_shows_the_move_at_once() -> None:
    hold = BurstHold()
    hold.moved(1)
    await asyncio.wait_for(
        hold.until_answered(1, longest=60, answering=lambda: True, pressed=lambda: False), 5
    )


async def test_nothing_unshown_is_nothing_to_hold() -> None:
    hold = BurstHold()
    await asyncio.wait_for(
        hold.until_answered(1, longest=60, answering=lambda: True, pressed=lambda: True), 5
    )


async def test_under_load_the_picture_waits_for_the_computers_answers_and_no_longer() -> None:
    hold = BurstHold()
    computers_to_move = [2]
    hold.moved(7)  # a member's discard
    waiting = asyncio.create_task(
        hold.until_answered(
            7, longest=60, answering=lambda: computers_to_move[0] > 0, pressed=lambda: True
        )
    )
    for _ in range(2):
        await asyncio.sleep(0.01)
        assert not waiting.done()  # a computer still to answer
        computers_to_move[0] -= 1
        hold.moved(7)
    await asyncio.wait_for(waiting, 5)  # the last answer made: drawn now, not at 60 s


async def test_a_computer_that_takes_long_holds_the_picture_only_so_long() -> None:
    loop = asyncio.get_running_loop()
    hold = BurstHold()
    hold.moved(3)
    first = loop.time()
    await asyncio.wait_for(
        hold.until_answered(3, longest=0.2, answering=lambda: True, pressed=lambda: True), 5
    )
    assert loop.time() >= first + 0.2 - 0.01
    # The moves it waited for are the picture's: the next one holds from its own first move.
    await asyncio.wait_for(
        hold.until_answered(3, longest=60, answering=lambda: True, pressed=lambda: True), 5
    )


async def test_the_limit_counts_from_the_first_move_not_shown_not_from_the_latest() -> None:
    """Moves keep coming while the picture waits for its turn: the hold's limit still counts
    from the first of them (counted from each new move, a table whose computers kept moving
    was held for as long as they did)."""
    hold = BurstHold()
    hold.moved(5)
    await asyncio.sleep(0.2)
    hold.moved(5)  # a computer's answer, later
    waiting = asyncio.create_task(
        hold.until_answered(5, longest=0.2, answering=lambda: True, pressed=lambda: True)
    )
    await asyncio.sleep(0)
    assert waiting.done()  # 0.2 s after the first move: drawn at once, not 0.2 s after the last


async def test_a_hold_cancelled_leaves_nothing_behind() -> None:
    """A table let go of (its update cancelled) while held: the next hold counts from its
    own first move, not from the cancelled one's."""
    hold = BurstHold()
    hold.moved(9)
    waiting = asyncio.create_task(
        hold.until_answered(9, longest=60, answering=lambda: True, pressed=lambda: True)
    )
    while not hold._moved:  # the hold has begun
        await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert not hold._first and not hold._moved
