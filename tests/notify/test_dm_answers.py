"""A click answered in its own DM message: the member sees what their move did at once (text
and controls, through the click's token), and a picture the drawing pool has not finished
follows in a second edit instead of holding the answer, and the DM, meanwhile."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock

from cogs.notify.dm import SeatDMs
from cogs.notify.pacing import Pacer
from cogs.notify.pictures import Pictures
from cogs.notify.seat import Picture, SeatContent
from tests.notify.test_dm_races import Channel


class Drawing:
    """The drawing pool: each picture's drawing waits for its gate, if it has one."""

    def __init__(self) -> None:
        self.gates: dict[int, asyncio.Event] = {}
        self.lanes: list[str] = []

    async def draw(self, kind: str, move: int, *, lane: str = "lookup", key: Any = None) -> bytes:
        self.lanes.append(lane)
        gate = self.gates.get(move)
        if gate is not None:
            await gate.wait()
        return b"png of move %d" % move


class Click:
    """A click on ``message``; every edit of its answer is recorded."""

    def __init__(self, message: Any) -> None:
        self.message = message
        self.id = 7
        self.edits: list[dict[str, Any]] = []

    async def edit_original_response(self, **kwargs: Any) -> None:
        self.edits.append(kwargs)
        await self.message.edit(**kwargs)


def _content(move: int) -> SeatContent:
    picture = Picture("seat_table", (move,), {}, ("picture", move), "seat.png")
    return SeatContent(
        text=f"move {move}", wall="", view=None, picture=picture, deal=1, prompt_id=(1, move)
    )


async def _seat(drawing: Drawing) -> tuple[SeatDMs, Pacer, dict[str, int], Any, Channel]:
    channel = Channel()
    pacer = Pacer(global_rate=1000)
    bot = SimpleNamespace(get_partial_messageable=lambda channel_id, **_: channel)
    dms = SeatDMs(bot, SimpleNamespace(), Pictures(drawing), pacer, {}, MagicMock())
    shown = {"move": 1}
    dms.content = lambda table, seat: _content(shown["move"])  # type: ignore[method-assign]

    async def dm_channel(user_id: int) -> Channel:
        return channel

    dms._dm_channel = dm_channel  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1, state=SimpleNamespace(deal=1), player_at=lambda seat: SimpleNamespace(user_id=5)
    )
    await dms.update(table, 0)  # the DM's message, showing move 1
    return dms, pacer, shown, table, channel


async def test_a_clicks_answer_does_not_wait_for_a_slow_picture() -> None:
    drawing = Drawing()
    dms, pacer, shown, table, channel = await _seat(drawing)
    [message] = channel.messages
    drawing.gates[2] = asyncio.Event()  # the pool is busy: move 2's picture takes a while
    shown["move"] = 2
    click = Click(message)
    answer = asyncio.ensure_future(dms.answer(click, table, 0))  # type: ignore[arg-type]
    done, _ = await asyncio.wait({answer}, timeout=30)
    assert done, "the answer waited for the picture"
    # Answered while the picture is still being drawn: the text and controls of move 2.
    [first] = click.edits
    assert first["content"] == "move 2" and "attachments" not in first
    assert not dms.live[(1, 0)].lock.locked()  # a prompt of the seat need not wait
    drawing.gates[2].set()
    await pacer.drain()
    [_, second] = click.edits
    assert [file.filename for file in second["attachments"]] == ["seat.png"]
    assert set(second) == {"attachments"}
    assert dms.live[(1, 0)].picture_key == ("picture", 2)
    assert drawing.lanes[-1] == "answer"  # after prompts in the pool, before table images
    await pacer.close()


async def test_a_picture_drawn_in_time_goes_with_the_answer() -> None:
    dms, pacer, shown, table, channel = await _seat(Drawing())
    [message] = channel.messages
    shown["move"] = 2
    click = Click(message)
    await dms.answer(click, table, 0)  # type: ignore[arg-type]
    await pacer.drain()
    [only] = click.edits  # one edit: text, controls and picture together
    assert only["content"] == "move 2" and len(only["attachments"]) == 1
    await pacer.close()


async def test_a_picture_outdated_by_a_newer_update_is_not_sent() -> None:
    drawing = Drawing()
    dms, pacer, shown, table, channel = await _seat(drawing)
    [message] = channel.messages
    drawing.gates[2] = asyncio.Event()
    shown["move"] = 2
    click = Click(message)
    await dms.answer(click, table, 0)  # type: ignore[arg-type]
    shown["move"] = 3  # the table moved on: the DM's update shows move 3, its picture with it
    await dms.update(table, 0)
    drawing.gates[2].set()
    await pacer.drain()
    assert len(click.edits) == 1  # move 2's picture was never put over move 3
    assert dms.live[(1, 0)].picture_key == ("picture", 3)
    await pacer.close()
