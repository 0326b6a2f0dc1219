"""What a closed table leaves behind in the notifier: nothing, a minute after it closed.

Deleting replaced prompts is the notifier's lowest work: a bot at its request budget (50
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
from cogs.notify.let_go import LetGo
from cogs.notify.pacing import URGENT, Pacer
from cogs.notify.pictures import Pictures
from cogs.notify.seat import Picture

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
    pictures = SimpleNamespace(file=AsyncMock(return_value=None), kept=lambda picture, owner: None)
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


async def test_work_that_comes_after_its_table_was_let_go_brings_nothing_back() -> None:
    """A DM update or a drawing already on its way when the notifier let the table go (a
    minute after it closed) keeps nothing: no live DM made again, no picture bytes cached."""

    async def draw(kind: str, *args: Any, lane: str = "dm", key: Any = None, **kw: Any) -> bytes:
        return b"png" * 1000

    let_go = LetGo()
    pacer = Pacer(global_rate=1000)
    pictures = Pictures(SimpleNamespace(draw=draw), let_go)
    dms = SeatDMs(SimpleNamespace(), SimpleNamespace(), pictures, pacer, {}, MagicMock(), let_go)
    table = SimpleNamespace(
        id=1, state=SimpleNamespace(deal=1), player_at=lambda seat: SimpleNamespace(user_id=5)
    )
    picture = Picture("hand", (), {}, key="after the last move")
    assert await pictures.drawn(picture, owner=("dm", 2, 0))
    assert ("dm", 2, 0) in pictures._last  # an open table's picture is kept for re-use

    let_go.add(1)
    dms.release(1, set())
    await dms.update(table, 0)
    assert dms.live == {}
    assert await pictures.drawn(picture, owner=("dm", 1, 0)) == b"png" * 1000
    assert ("dm", 1, 0) not in pictures._last
    await pacer.close()


def test_the_tables_let_go_of_are_remembered_up_to_a_bound() -> None:
    let_go = LetGo(kept=3)
    for table_id in range(1, 6):
        let_go.add(table_id)
    assert [t for t in range(1, 6) if t in let_go] == [3, 4, 5]
