"""A turn's timer never starts before the prompt showing it reaches the player (issue 16 item
5): a DM that waited for a busy bot's request budget does not eat the member's time."""

from __future__ import annotations

import asyncio
import time

from bot.rules.game import pending_seats
from tests.tables.test_table_service import ALICE, make_service, open_table


async def _alices_turn(service, table) -> int:
    """Her turn to discard: only her move or her timer moves the table on then. (Asked to
    claim, she could see a computer's higher claim close the window before her time ran out,
    and the tests failed now and then under load, when the poll caught such a window.)"""
    seat = table.seat_of_user(ALICE)
    while table.state.phase != "play" or seat not in pending_seats(table.state):
        await asyncio.sleep(0.01)
    return seat


async def test_the_timer_counts_from_when_the_prompt_reached_the_member() -> None:
    service = make_service()
    table = await open_table(service, computers=3, turn=1, claim=1)
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = await _alices_turn(service, table)
    deadline = service.deadline(table, seat)
    assert deadline is not None
    move = table.state.move
    await asyncio.sleep(0.4)  # her prompt waited this long for the request budget
    shown = time.time()
    service.prompt_shown(table, seat, table.controls_move)
    service.prompt_shown(table, seat, table.controls_move)  # told twice: counted once
    while table.state.move == move:
        await asyncio.sleep(0.01)
    # Her whole second from when she saw it, not from when the bot first asked.
    assert time.time() >= shown + 1.0 - 0.02, (time.time() - shown, deadline - shown)
    await service.end(table.id, ALICE, can_manage=False)


async def test_a_prompt_shown_in_time_keeps_the_deadline_it_says() -> None:
    service = make_service()
    table = await open_table(service, computers=3, turn=1, claim=1)
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = await _alices_turn(service, table)
    deadline = service.deadline(table, seat)
    assert deadline is not None
    service.prompt_shown(table, seat, table.controls_move - 1)  # an older prompt: nothing
    move = table.state.move
    while table.state.move == move:
        await asyncio.sleep(0.01)
    assert time.time() >= deadline - 0.02
    await service.end(table.id, ALICE, can_manage=False)
