"""The home channel's one line for a table (cogs/notify/channel.py ``_edit_summary``): the
same line asked for twice while the first edit waits in the pacer is sent once (the e2e
privacy check fails an edit that changes nothing: it tells its readers something moved)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

from cogs.notify.channel import TableChannel


class Gate:
    """A pacer whose requests wait until the test opens it."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.waiting = 0

    @contextlib.asynccontextmanager
    async def request(
        self, key: Any, priority: int, route: str = "", **options: Any
    ) -> AsyncIterator[None]:
        self.waiting += 1
        await self.open.wait()
        yield


class Summary:
    def __init__(self) -> None:
        self.edits: list[str] = []

    async def edit(self, **kwargs: Any) -> None:
        self.edits.append(kwargs["content"])


async def test_the_same_line_asked_twice_while_waiting_is_sent_once() -> None:
    summary = Summary()
    channel = SimpleNamespace(get_partial_message=lambda message_id: summary)
    bot = SimpleNamespace(get_channel=lambda channel_id: channel)
    gate = Gate()
    notifier = TableChannel(bot, None, None, gate)  # type: ignore[arg-type]
    table = SimpleNamespace(id=1, paused=False)
    line = "**Table 1** (pung-chow): playing hand 1 of 2 in <#5>."

    def edit(content: str) -> Any:
        return notifier._edit_summary(table, 9, 77, content=content, embed=None, view=None)

    first = asyncio.create_task(edit(line))
    second = asyncio.create_task(edit(line))
    while gate.waiting < 1 and not first.done():  # a failed edit fails the test, never hangs it
        await asyncio.sleep(0)
    assert not first.done(), first.exception()
    await asyncio.sleep(0)
    gate.open.set()
    await asyncio.gather(first, second)
    assert summary.edits == [line]
    await edit(line)  # shown already: nothing
    await edit(line.replace("hand 1", "hand 2"))
    assert summary.edits == [line, line.replace("hand 1", "hand 2")]
