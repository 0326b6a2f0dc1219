"""A bot too busy to answer within Discord's 3 s (a burst of ``/mahjong new`` on a loaded
machine): a slow command shows "thinking…" first and fills it, a slow move press is
acknowledged first and its DM updated after, and a lobby whose answer Discord refused anyway
is closed at once, so its host is not blocked by a table nobody can see."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.harness import lobby_id, start_bot
from tests.e2e.players import move_buttons

# Longer than Discord's 3 s: without a deferral first, each of these answers would come late.
TOO_SLOW = 3.3


def slowed(method: Any, seconds: float) -> Any:
    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(seconds)
        return await method(*args, **kwargs)

    return slow


async def alices_turn_to_discard(w: Any) -> tuple[Any, Any]:
    """Alice opens a table with three computer players, starts it and waits for her turn:
    her DM offering discards, and its first discard button."""
    handle = await w.alice.slash(w.channel, "mahjong new", computer_players=3, turn_seconds=0)
    lobby = await handle.reply(timeout=10)
    assert await (await w.alice.click(lobby, lobby_id(lobby, "start"))).ack(timeout=10) == 6

    def her_turn() -> Any:
        dms = [m for m in w.alice.dm_messages() if move_buttons(m)]
        if dms and any(b[1] == "discard" for b in move_buttons(dms[-1])):
            return dms[-1]
        return None

    dm = await w.server.wait_for(her_turn, timeout=60, what="alice's turn to discard")
    return dm, next(b for b in move_buttons(dm) if b[1] == "discard")


@pytest.fixture
def answer_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cogs defer after 0.1 s of work instead of 1.5 s (the tests' work is slowed on
    purpose; the deferral must come well inside the 3 s on a loaded machine too)."""
    monkeypatch.setattr("cogs.common.ANSWER_BY", 0.1)


async def test_a_slow_new_table_shows_thinking_then_its_lobby(
    fake_discord, discord_world, run_bot, tmp_path, monkeypatch, answer_at_once
) -> None:
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    service = bot.services.tables
    monkeypatch.setattr(service, "_create", slowed(service._create, TOO_SLOW))
    handle = await w.alice.slash(w.channel, "mahjong new", computer_players=3)
    assert await handle.ack(timeout=10) == 5  # "thinking…", within the 3 s
    lobby = await handle.reply(timeout=30)
    table_id = int(lobby_id(lobby, "join").split(":")[1])
    assert lobby.embeds and not lobby.ephemeral
    assert service.tables[table_id].status == "lobby"
    # The lobby filled the deferred message: one message, which opens the table's thread.
    assert [m.id for m in handle.messages] == [lobby.id]
    await fake_discord.wait_for(
        lambda: fake_discord.message(lobby.id).thread, timeout=10, what="the table's thread"
    )


async def test_a_slow_move_is_acknowledged_first_and_its_dm_updated_after(
    fake_discord, discord_world, run_bot, tmp_path, monkeypatch, answer_at_once
) -> None:
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    service = bot.services.tables
    dm, discard = await alices_turn_to_discard(w)
    table_id = int(discard[0].split(":")[1])
    move = service.tables[table_id].state.move
    monkeypatch.setattr(service, "act", slowed(service.act, TOO_SLOW))
    press = await w.alice.click(dm, discard[0])
    assert await press.ack(timeout=10) == 6  # acknowledged while the move is still saved
    updated = await press.reply(timeout=30)  # then the pressed DM shows the move made
    assert updated.id == dm.id
    assert service.tables[table_id].state.move > move
    assert discard[0] not in updated.custom_ids()


async def test_a_lobby_discord_never_showed_is_closed_and_its_host_may_open_again(
    fake_discord, discord_world, run_bot, tmp_path, monkeypatch
) -> None:
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    service = bot.services.tables
    create = service._create
    # Too busy even to defer in time: the answer reaches Discord after it gave up.
    monkeypatch.setattr("cogs.common.ANSWER_BY", 60.0)
    monkeypatch.setattr(fake_discord, "interaction_timeout", 1.0)
    monkeypatch.setattr(service, "_create", slowed(create, 1.5))
    handle = await w.alice.slash(w.channel, "mahjong new", computer_players=3)

    def closed() -> bool:
        return bool(service.finished) and not service.tables

    await fake_discord.wait_for(closed, timeout=30, what="the unseen lobby closed")
    (table,) = service.finished.values()
    assert table.status == "cancelled"
    assert handle.callback_type is None and not handle.messages
    late = [p for p in fake_discord.problems if "Unknown interaction" in p]
    # Answered once: the error handler does not answer an interaction Discord forgot again.
    assert len(late) == 1, late
    fake_discord.problems.remove(late[0])  # the late answer this test provoked
    told = await fake_discord.wait_for(
        lambda: [m for m in w.alice.dm_messages() if f"Table {table.id}" in m.content],
        timeout=10,
        what="alice told her table ended",
    )
    assert "lobby message could not be posted" in told[0].content

    monkeypatch.setattr(fake_discord, "interaction_timeout", 3.0)
    monkeypatch.setattr(service, "_create", create)
    again = await w.alice.slash(w.channel, "mahjong new", computer_players=3)
    lobby = await again.reply(timeout=10)
    assert lobby_id(lobby, "join")


async def test_a_press_answered_too_late_is_not_answered_again(
    fake_discord, discord_world, run_bot, tmp_path, monkeypatch, caplog
) -> None:
    """A stalled bot answers a press after Discord gave up: one 404, not a second one for the
    error reply (each counts against the bot's invalid requests), and the move stands."""
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    service = bot.services.tables
    dm, discard = await alices_turn_to_discard(w)
    table = service.tables[int(discard[0].split(":")[1])]
    move = table.state.move
    monkeypatch.setattr("cogs.common.ANSWER_BY", 60.0)
    monkeypatch.setattr(fake_discord, "interaction_timeout", 1.0)
    monkeypatch.setattr(service, "act", slowed(service.act, 1.5))
    await w.alice.click(dm, discard[0])

    def late() -> list[str]:
        return [p for p in fake_discord.problems if "Unknown interaction" in p]

    await fake_discord.wait_for(late, timeout=30, what="the late answer")
    await fake_discord.wait_for(lambda: table.state.move > move, timeout=30, what="the move")
    await fake_discord.wait_for(  # the press's handler has finished: no answer to come
        lambda: any("answered too late" in r.getMessage() for r in caplog.records),
        timeout=30,
        what="the late answer logged",
    )
    assert len(late()) == 1, late()
    for problem in late():
        fake_discord.problems.remove(problem)  # the late answer this test provoked
