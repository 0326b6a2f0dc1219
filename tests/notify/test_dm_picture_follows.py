"""A new prompt does not wait for a busy drawing pool: past ``picture_wait`` it goes with its
words and buttons only, and its picture follows in one edit of the same message as soon as
it is drawn (at 200 tables prompts waited 5-15 s for their pictures, benchmarks/bot.py)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock

from cogs.notify.dm import SeatDMs
from cogs.notify.pacing import Pacer
from cogs.notify.seat import Picture, SeatContent
from tests.notify.test_dm_races import Channel, Message, _bot


class Recorded(Message):
    """A DM message that remembers what it was sent with and each edit."""

    def __init__(self, content: str, channel: Channel, sent: dict[str, Any]) -> None:
        super().__init__(content, channel)
        self.sent = sent
        self.edits: list[dict[str, Any]] = []

    async def edit(self, **kwargs: Any) -> None:
        await super().edit(**kwargs)
        self.edits.append(kwargs)


class RecordingChannel(Channel):
    async def send(self, **kwargs: Any) -> Message:
        message = Recorded(kwargs.get("content", ""), self, kwargs)
        self.messages.append(message)
        return message


def _seat(channel: Channel, pictures: Any, pacer: Pacer) -> tuple[SeatDMs, Any]:
    dms = SeatDMs(_bot(channel), SimpleNamespace(), pictures, pacer, {}, MagicMock())
    dms.gap = 0
    dms.picture_wait = 0.05
    prompt = SeatContent(
        text="**Your turn:** discard a tile.",
        wall="",
        view=None,
        picture=Picture("seat_table", (), {}, key="hand after the draw"),
        deal=1,
        prompt="turn",
        prompt_id=(1, 9),
    )
    dms.content = lambda table, seat: prompt  # type: ignore[method-assign]

    async def dm_channel(user_id: int) -> Channel:
        return channel

    dms._dm_channel = dm_channel  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1,
        state=SimpleNamespace(deal=1, phase="play"),
        player_at=lambda seat: SimpleNamespace(user_id=5),
    )
    return dms, table


async def test_a_late_picture_follows_its_prompt_in_one_edit() -> None:
    channel, pacer, gate = RecordingChannel(), Pacer(global_rate=1000), asyncio.Event()
    drawn: list[str] = []

    async def file(picture: Picture, *, lane: str, owner: Any) -> str:
        await gate.wait()  # the pool is busy with other tables' pictures
        drawn.append(lane)
        return "PICTURE"

    dms, table = _seat(channel, SimpleNamespace(file=file), pacer)
    await asyncio.wait_for(dms.update(table, 0), 30)  # it waited for the picture for ever
    [prompt] = channel.messages
    assert prompt.sent["content"] == "**Your turn:** discard a tile." and "file" not in prompt.sent
    gate.set()

    async def edited() -> None:  # drawn, then the seat's update edits it in
        while not prompt.edits:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(edited(), 30)
    await pacer.drain()
    assert channel.messages == [prompt]  # the same message, not a second ping
    assert [e.get("attachments") for e in prompt.edits] == [["PICTURE"]]
    await dms.update(table, 0)  # nothing left to show
    assert len(prompt.edits) == 1
    await pacer.close()


async def test_a_picture_drawn_in_time_goes_with_its_prompt() -> None:
    channel, pacer = RecordingChannel(), Pacer(global_rate=1000)

    async def file(picture: Picture, *, lane: str, owner: Any) -> str:
        return "PICTURE"

    dms, table = _seat(channel, SimpleNamespace(file=file), pacer)
    await dms.update(table, 0)
    await pacer.drain()
    [prompt] = channel.messages
    assert prompt.sent["file"] == "PICTURE" and prompt.edits == []
    await pacer.close()
