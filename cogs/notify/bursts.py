"""A table's picture held while its computer players answer a move, when the budget is short.

A member's discard is followed by the computer players' moves, ``computer_delay`` (0.6 s)
apart: three or four moves in a second and a half, then a member's thinking. Edited as soon
as its turn comes, a busy bot's table picture showed the member's move, then a computer's,
each an edit of Discord's global budget. Held until the computers have answered (the bot
knows: it makes their moves), one edit shows them all.

With the budget spent by table edits at 100 tables (a member's pace), the tables' staleness
p99 was 2.1-9.5 s though 22 edits a second could show every move within 2.5 s, and 35-36 were
made (``benchmarks/bot.py`` prints the least any schedule needs, from the run's own moves);
held, 2.0-2.2 s with 29 (docs/performance-log.md, tenth session).

Waited for as the table's turn nears, keeping its place in the queue (``Pacer.request``'s
``prepare``): waited for before queueing, each table went a whole round of the tables later
at 200 tables (p99 13-14 s against 8-9 s). Only while the budget is pressed
(:meth:`~cogs.notify.pacing.Pacer.pressed`): a quiet bot shows every move as it comes. Never
longer than ``longest`` after the first move the picture does not show yet.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from cogs.notify.pacing import CLOCK_STEP


class BurstHold:
    """``moved(table_id)`` on each move; ``await until_answered(...)`` before drawing the
    table's picture in its turn."""

    def __init__(self) -> None:
        self._first: dict[int, float] = {}  # the first move since the picture's last drawing
        self._moved: dict[int, asyncio.Event] = {}

    def moved(self, table_id: int) -> None:
        self._first.setdefault(table_id, asyncio.get_running_loop().time())
        event = self._moved.get(table_id)
        if event is not None:
            event.set()

    async def until_answered(
        self,
        table_id: int,
        *,
        longest: float,
        answering: Callable[[], bool],
        pressed: Callable[[], bool],
    ) -> None:
        """Wait while ``pressed()`` and ``answering()`` (the table's next move is a computer
        player's), at most until ``longest`` seconds after the first move not shown yet. The moves
        made meanwhile are the picture's to show: the next one counts from after them."""
        loop = asyncio.get_running_loop()
        first = self._first.get(table_id)
        try:
            if first is None:
                return
            deadline = first + longest
            while pressed() and answering() and (left := deadline - loop.time()) > CLOCK_STEP:
                event = self._moved.setdefault(table_id, asyncio.Event())
                event.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), timeout=left)
        finally:  # cancelled too: the next hold counts from its own first move
            self.forget(table_id)

    def forget(self, table_id: int) -> None:
        """A table let go of, or its picture about to be drawn."""
        self._first.pop(table_id, None)
        self._moved.pop(table_id, None)
