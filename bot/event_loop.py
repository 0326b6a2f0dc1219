"""The bot process's event loop: uvloop's where it is installed, asyncio's otherwise.

Every click's acknowledgement waits for the loop to read the gateway's frame and to write the
callback, behind whatever else the loop is doing. At 200 tables the loop is busy four fifths
of the time (the moves, the DMs' edits through the clicks' tokens, the table pictures'
uploads), and much of that is socket and transport work, which uvloop does in C. Measured
side by side at 200 tables, with orjson (three runs each; docs/performance.md, 2026-11-29):
the acknowledgements' p50 fell from 22-25 ms to 14-18 ms; the DMs' staleness p99 and the
acks' p99 moved within the machine's noise (73-118 ms before, 65-164 ms after).

``MAHJONG_EVENT_LOOP=asyncio`` keeps asyncio's own loop (a profiler or
``benchmarks/bot_process.py``'s slow-callback trace hooks into it). Only the bot's own
process chooses: the tests' process and the fake Discord keep asyncio's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

CHOICES = ("uvloop", "asyncio")


def loop_factory(choice: str = "uvloop") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What ``asyncio.Runner(loop_factory=...)`` should make: uvloop's loop when ``choice``
    is ``"uvloop"`` and it is installed (not on Windows), else None (asyncio's default)."""
    if choice != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:
        log.info("uvloop is not installed: running on asyncio's own event loop")
        return None
    return uvloop.new_event_loop
