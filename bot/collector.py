"""The garbage collector's pace in the bot's own process (issue 12).

A full pass of CPython's collector walks every object the bot keeps and stops it meanwhile:
at 200 tables about 100,000 objects, 80-160 ms of a core. With CPython's thresholds
(700, 10, 10) one came every 8 s there, about 1.5 % of the time, so about 1.5 % of the
acknowledgements waited for one: they were the acks' p99. What the bot makes at every click
and picture is freed by reference counting (``tests/test_cycles.py``), so those passes found
nearly nothing.

So a full pass comes on a clock instead, once every :data:`FULL_PASS_SECONDS` (the rarer
cycles of commands, lobbies and closed tables wait at most that long), and the thresholds
only start one after 1,000 passes of the middle generation (:data:`THRESHOLDS`; about a
minute at 200 tables) instead of 10. The young generations are collected as before.

Only the bot's own process (``bot.app.serve``) paces its collector: the tests' process keeps
CPython's.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable

THRESHOLDS = (700, 10, 1000)
FULL_PASS_SECONDS = 60.0


def pace() -> None:
    """Full passes only on the clock (:func:`full_passes`) or after 1,000 middle ones."""
    gc.set_threshold(*THRESHOLDS)


async def full_passes(closed: Callable[[], bool], every: float = FULL_PASS_SECONDS) -> None:
    """One full pass every ``every`` seconds until ``closed()``."""
    while not closed():
        await asyncio.sleep(every)
        gc.collect()
