"""A member playing in their DM, on a bot short of budget: their seat's updates, prompts too,
go into the message they clicked through the click's interaction token (instant, outside
Discord's global budget); with budget to spare, and for a member who has not clicked for a
while, the bot's own requests (each prompt a new message: it pings); a token Discord no
longer takes falls back to the bot's own edit."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any
from unittest.mock import AsyncMock, MagicMock

from cogs.notify.dm import PLAYING_FOR, LiveDM, SeatDMs
from cogs.notify.pacing import Pacer
from cogs.notify.seat import SeatContent
from tests.notify.dm_fakes import Channel, Click, Message, bot_for, turn_prompt


def _seat() -> tuple[SeatDMs, Channel, Pacer, dict[str, int], Any]:
    channel = Channel()
    pacer = Pacer(global_rate=1000)
    pictures = SimpleNamespace(file=AsyncMock(return_value=None), kept=lambda *a, **k: None)
    dms = SeatDMs(bot_for(channel), SimpleNamespace(), pictures, pacer, {}, MagicMock())
    move = {"now": 1}

    def content(table: Any, seat: int) -> SeatContent:
        return turn_prompt(move["now"])

    async def dm_channel(user_id: int) -> Channel:
        return channel

    dms.content = content  # type: ignore[method-assign]
    dms._dm_channel = dm_channel  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1, state=SimpleNamespace(deal=1), player_at=lambda seat: SimpleNamespace(user_id=5)
    )
    return dms, channel, pacer, move, table


async def _clicked(dms: SeatDMs, channel: Channel, pacer: Pacer, table: Any) -> tuple[Any, Click]:
    """The seat's first prompt (a new message), and the member's click on it, answered."""
    await dms.update(table, 0)
    [first] = channel.messages
    click = Click(first)
    await dms.answer(click, table, 0)  # type: ignore[arg-type]
    await pacer.drain()
    return first, click


async def test_a_prompt_for_a_member_playing_in_the_dm_goes_through_their_clicks_token() -> None:
    """With the global budget running short (many tables): pings cost a request each."""
    dms, channel, pacer, move, table = _seat()
    pacer.pressed = lambda: True  # type: ignore[method-assign]
    first, click = await _clicked(dms, channel, pacer, table)
    sent_before = pacer.counts["global"]

    move["now"] = 2  # the seat's next prompt, a moment later
    await dms.update(table, 0)
    assert channel.messages == [first]  # no new message: the member is looking at this one
    assert first.content == "your turn (move 2)" and click.token_edits == 1
    assert first.edits == 0 and pacer.counts["global"] == sent_before  # outside the budget
    await pacer.close()


async def test_a_member_who_stopped_clicking_gets_the_prompt_as_a_new_message() -> None:
    dms, channel, pacer, move, table = _seat()
    first, click = await _clicked(dms, channel, pacer, table)
    dms.live[(1, 0)].clicked_at = time.monotonic() - PLAYING_FOR - 1  # a while ago

    move["now"] = 2
    await dms.update(table, 0)
    await pacer.drain()
    assert [m.content for m in channel.messages] == ["your turn (move 1)", "your turn (move 2)"]
    assert click.token_edits == 0
    assert first.deleted  # the replaced prompt goes, as ever
    await pacer.close()


async def test_a_token_discord_no_longer_takes_falls_back_to_the_bots_own_edit() -> None:
    dms, channel, pacer, move, table = _seat()
    pacer.pressed = lambda: True  # type: ignore[method-assign]
    first = Message("your turn (move 1)", channel)
    live = dms.live[(1, 0)] = LiveDM(5, message=first, deal=1, key=("old",), prompt_id=(1, 2))
    live.click, live.clicked_at = Click(first, refused=True), time.monotonic()  # type: ignore[assignment]
    move["now"] = 2  # same prompt as shown (an edit, not a new message)
    await dms.update(table, 0)
    assert first.edits == 1 and first.content == "your turn (move 2)"
    assert live.click is None  # not tried again
    await pacer.close()


async def test_with_budget_to_spare_a_playing_members_prompt_is_still_a_new_message() -> None:
    """A few tables: a new message pings, and the budget has room for it."""
    dms, channel, pacer, move, table = _seat()
    _first, click = await _clicked(dms, channel, pacer, table)
    assert not pacer.pressed()

    move["now"] = 2
    await dms.update(table, 0)
    await pacer.drain()
    assert [m.content for m in channel.messages][-1] == "your turn (move 2)"
    assert len(channel.messages) == 2 and click.token_edits == 0
    await pacer.close()


async def test_with_budget_to_spare_a_playing_members_update_is_the_bots_own_edit() -> None:
    """A few tables: the token's own budget (5 edits per 2 s) is kept for its answers; an
    update of the same prompt goes as the bot's edit, which has room."""
    dms, channel, pacer, _move, table = _seat()
    first, click = await _clicked(dms, channel, pacer, table)
    assert not pacer.pressed()
    live = dms.live[(1, 0)]
    live.key = ("shown before",)  # the same prompt, something else in it changed

    await dms.update(table, 0)
    assert channel.messages == [first] and first.edits == 1
    assert click.token_edits == 0
    await pacer.close()
