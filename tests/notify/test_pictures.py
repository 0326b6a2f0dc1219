"""How long drawings take, as the table's edits plan with it (``Pictures.expected``)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from cogs.notify.pictures import SMOOTHING, Pictures
from cogs.notify.seat import Picture


async def test_the_expected_drawing_time_follows_the_lane_s_drawings() -> None:
    """Nothing drawn yet: no time expected. Then a moving average of each lane's drawings,
    from asking to the bytes (a queued drawing's wait included), lane by lane."""
    release: dict[str, asyncio.Event] = {}

    async def draw(kind: str, *args: Any, lane: str = "dm", key: Any = None, **kw: Any) -> bytes:
        await release[lane].wait()
        return b"png"

    pictures = Pictures(SimpleNamespace(draw=draw))
    assert pictures.expected("table") == 0.0
    loop = asyncio.get_running_loop()
    release["table"] = asyncio.Event()
    drawing = asyncio.ensure_future(
        pictures.drawn(Picture("table", (), {}, key=1), lane="table", owner=("table", 1))
    )
    loop.call_later(0.05, release["table"].set)
    assert await drawing == b"png"
    held = pictures.expected("table")
    assert held >= 0.05  # the first drawing's time: at least as long as it was held
    assert pictures.expected("dm") == 0.0  # another lane's drawings are not this one's
    # A drawing at once pulls the average down by its weight, no further.
    await pictures.drawn(Picture("table", (), {}, key=2), lane="table", owner=("table", 1))
    assert held * (1 - SMOOTHING) <= pictures.expected("table") < held
