"""Deleting replaced prompts is the notifier's lowest work: a bot at its request budget (50
busy tables) may not get to it for the rest of the evening. What waits must then cost next to
nothing and end with its table: the 1-hour soak found each waiting delete holding a whole
``discord.Message`` (its components, author and channel), 2,000 objects a game, for good."""

from __future__ import annotations

import asyncio
import gc
import weakref
from types import SimpleNamespace
from typing import Any
from unittest.mock import AsyncMock, MagicMock

from cogs.notify.dm import LiveDM, SeatDMs
from cogs.notify.pacing import URGENT, Pacer

DM_CHANNEL = 55


class Prompt:
    """A replaced prompt as discord.py returns it: heavy, referring to its channel."""

    def __init__(self, message_id: int) -> None:
        self.id = message_id
        self.channel = SimpleNamespace(id=DM_CHANNEL)
        self.components = [object() for _ in range(20)]


def _bot(deleted: list[int]) -> Any:
    def get_partial_messageable(channel_id: int, **_: Any) -> Any:
        assert channel_id == DM_CHANNEL

        def get_partial_message(message_id: int) -> Any:
            async def delete() -> None:
                deleted.append(message_id)

            return SimpleNamespace(id=message_id, delete=delete)

        return SimpleNamespace(get_partial_message=get_partial_message)

    return SimpleNamespace(get_partial_messageable=get_partial_messageable)


async def _budget_used_up(pacer: Pacer) -> tuple[asyncio.Task[None], asyncio.Event]:
    """A request in flight holding the pacer's one global slot until the event is set."""
    granted, done = asyncio.Event(), asyncio.Event()

    async def busy() -> None:
        async with pacer.request(("channel", 9), URGENT):
            granted.set()
            await done.wait()

    task = asyncio.create_task(busy())
    await granted.wait()
    return task, done


def _dms(pacer: Pacer, deleted: list[int]) -> SeatDMs:
    pictures = SimpleNamespace(file=AsyncMock(return_value=None))
    return SeatDMs(_bot(deleted), SimpleNamespace(), pictures, pacer, {}, MagicMock())


async def test_waiting_deletes_keep_no_message_and_end_with_their_table() -> None:
    pacer = Pacer(global_rate=1)
    busy, done = await _budget_used_up(pacer)
    deleted: list[int] = []
    dms = _dms(pacer, deleted)
    table = SimpleNamespace(id=1)
    live = dms.live[(1, 0)] = LiveDM(5)
    prompts = [Prompt(100 + i) for i in range(30)]
    for prompt in prompts:
        dms._replaced(table, 0, live, prompt)
    await asyncio.sleep(0.05)
    assert deleted == []  # the budget is used up: nothing deleted yet
    held = [weakref.ref(p) for p in prompts]
    del prompts, prompt
    gc.collect()
    assert [r for r in held if r() is not None] == []  # only ids wait
    assert len(live.replaced) == 29  # the first is waiting for its turn

    # A minute after the table closed the notifier lets it go: its waiting deletes too.
    job = pacer._jobs[("dm-delete", 1, 0)]
    pacer.forget(("dm-delete", 1), running=True)
    assert job.task is not None
    await asyncio.gather(job.task, return_exceptions=True)
    await asyncio.sleep(0)  # its done callback
    assert job.task.cancelled()
    assert ("dm-delete", 1, 0) not in pacer._jobs
    assert not any("dm-delete" in t.get_name() for t in pacer._tasks)
    kept = weakref.ref(live)
    del dms.live[(1, 0)], live, job
    gc.collect()
    assert kept() is None  # nothing of the table's DM is left waiting
    done.set()
    await busy
    await asyncio.sleep(0.05)
    assert deleted == []  # dropped, not sent late
    await pacer.close()


async def test_waiting_deletes_are_sent_once_the_budget_has_room() -> None:
    pacer = Pacer(global_rate=1)
    busy, done = await _budget_used_up(pacer)
    deleted: list[int] = []
    dms = _dms(pacer, deleted)
    live = dms.live[(1, 0)] = LiveDM(5)
    for message_id in (100, 101, 102):
        dms._replaced(SimpleNamespace(id=1), 0, live, Prompt(message_id))
    done.set()
    await busy

    async def all_deleted() -> None:
        while len(deleted) < 3:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(all_deleted(), 30)  # one a second: the budget of the test pacer
    assert deleted == [100, 101, 102]
    await pacer.close()
