"""TableService without Discord: the lobby, moves committed before answers, stale and foreign
clicks, computer players, timers and take-over, settlement to the ledger, and the rebuild of
every open table from its event log."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest

from bot.players import decide
from bot.rules.game import GAME_OVER, HAND_OVER, legal_actions, pending_seats, view
from bot.rules.rulesets import get_ruleset
from bot.service.tables import TableError, TableService, control_of
from tests.tables.fakes import MemoryLedger, MemoryStore, RecordingNotifier, Settings

ALICE, BOB = 101, 102


def make_service(store: MemoryStore | None = None, ledger: MemoryLedger | None = None):
    service = TableService(None, store or MemoryStore(), ledger or MemoryLedger(), Settings())
    service.notifier = RecordingNotifier()
    service.computer_delay = 0
    service.next_hand_delay = 0
    return service


async def open_table(service, *, computers=3, hands=2, rules="pung-chow", turn=0, claim=15, **more):
    given = dict(channel_id=10, host_id=ALICE, host_name="alice") | more
    return await service.open_table(
        guild_id=1,
        ruleset=rules,
        options={},
        computer_players=computers,
        turn_seconds=turn,
        claim_seconds=claim,
        hands=hands,
        **given,
    )


async def settle(service, table) -> None:
    """Let the table's runner and timers run until it waits for a member."""
    for _ in range(200):
        await asyncio.sleep(0)
        running = table.runner is not None and not table.runner.done()
        if not running:
            return
    while table.runner is not None and not table.runner.done():
        await asyncio.sleep(0.001)


async def play_member(service, table, user_id: int, limit: int = 5000) -> None:
    """Play a member's seat with the computer player's policy, through service.act."""
    for _ in range(limit):
        await settle(service, table)
        state = table.state
        if state is None or state.phase == GAME_OVER or table.status != "playing":
            return
        seat = table.seat_of_user(user_id)
        legal = legal_actions(state, seat)
        if not legal or seat is None:
            await asyncio.sleep(0.001)
            continue
        choice = decide(view(state, seat), legal, get_ruleset(table.ruleset), state.config.options)
        verb, arg = control_of(choice)
        await service.act(table.id, user_id, verb, None if arg is None else str(arg), state.move)
    raise AssertionError("the game did not end")


async def test_a_game_with_one_member_and_three_computers_settles_every_hand() -> None:
    ledger = MemoryLedger()
    store = MemoryStore()
    service = make_service(store, ledger)
    table = await open_table(service, hands=2)
    assert [p.name for p in table.players] == ["alice", "Computer 1", "Computer 2", "Computer 3"]
    await service.start_game(table.id, ALICE, can_manage=False)
    await play_member(service, table, ALICE)
    assert table.status == "finished"
    assert table.state is not None and table.state.phase == GAME_OVER
    played = [r for r in table.state.results if r.kind != "washing"]
    assert len(played) == 2
    assert set(ledger.posted) == {f"table:{table.id}:hand:{r.number}" for r in table.state.results}
    for payments in ledger.posted.values():
        net = {}
        for payer, payee, amount in payments:
            net[payer] = net.get(payer, 0) - amount
            net[payee] = net.get(payee, 0) + amount
        assert sum(net.values()) == 0
    assert ledger.balance(ALICE) == table.state.net[table.seat_of_user(ALICE)]
    assert store.rows[table.id]["status"] == "finished"
    assert service.in_channel(10) is None


async def test_stale_foreign_and_illegal_clicks_change_nothing() -> None:
    service = make_service()
    table = await open_table(service, computers=2, hands=1)
    await service.join(table.id, BOB, "bob")
    await service.start_game(table.id, ALICE, can_manage=False)
    await settle(service, table)
    state = table.state
    events = len(service.store.events[table.id])
    with pytest.raises(TableError, match="not seated"):
        await service.act(table.id, 999, "pass", None, state.move)
    with pytest.raises(TableError, match="earlier move"):
        await service.act(table.id, ALICE, "pass", None, state.move + 5)
    seat = table.seat_of_user(ALICE)
    if seat not in (state.turn,):
        with pytest.raises(TableError):
            await service.act(table.id, ALICE, "discard", "0", state.move)
    with pytest.raises(TableError):
        await service.act(table.id, ALICE, "discard", "999", state.move)
    assert table.state is state
    assert len(service.store.events[table.id]) == events


async def test_lobby_rules() -> None:
    service = make_service()
    table = await open_table(service, computers=0)
    with pytest.raises(TableError, match="already has a table"):
        await open_table(service)
    with pytest.raises(TableError, match="at least two"):
        await service.start_game(table.id, ALICE, can_manage=False)
    await service.join(table.id, BOB, "bob")
    with pytest.raises(TableError, match="already at this table"):
        await service.join(table.id, BOB, "bob")
    with pytest.raises(TableError, match="Only the host"):
        await service.start_game(table.id, BOB, can_manage=False)
    await service.cancel(table.id, BOB, can_manage=True)
    assert service.in_channel(10) is None


async def test_every_open_table_is_rebuilt_from_its_events() -> None:
    store, ledger = MemoryStore(), MemoryLedger()
    service = make_service(store, ledger)
    table = await open_table(service, hands=3)
    await service.start_game(table.id, ALICE, can_manage=False)
    # Play a while, then "kill" the service and start another on the same store.
    for _ in range(6):
        await settle(service, table)
        state = table.state
        seat = table.seat_of_user(ALICE)
        legal = legal_actions(state, seat)
        if legal:
            choice = decide(view(state, seat), legal, get_ruleset("pung-chow"), {})
            verb, arg = control_of(choice)
            await service.act(table.id, ALICE, verb, None if arg is None else str(arg), state.move)
    await settle(service, table)
    await service.stop()
    assert table.status == "playing"
    before = table.state
    restarted = make_service(store, ledger)
    await restarted.start()
    rebuilt = restarted.in_channel(10)
    assert rebuilt is not None and rebuilt.id == table.id
    assert rebuilt.state == before
    assert [p.name for p in rebuilt.players] == [p.name for p in table.players]
    await play_member(restarted, rebuilt, ALICE)
    assert rebuilt.status == "finished"
    await restarted.stop()


async def test_timeouts_hand_the_seat_to_a_computer_until_taken_back() -> None:
    service = make_service()
    service.computer_delay = 0.005  # the game may not run to its end before she is back
    table = await open_table(service, hands=3, turn=1, claim=1)
    table.turn_seconds = 0.02
    table.claim_seconds = 0.02
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = None
    for _ in range(400):
        await asyncio.sleep(0.01)
        seat = table.seat_of_user(ALICE)
        player = table.player_at(seat) if seat is not None else None
        if player is not None and player.away:
            break
    assert player is not None and player.away
    await service.take_back(table.id, ALICE)
    assert not table.player_at(seat).away
    kinds = [kind for _, kind, _ in service.store.events[table.id]]
    assert kinds.count("away") == 2
    await service.stop()


async def test_start_and_cancel_at_the_same_moment_do_not_both_happen() -> None:
    service = make_service()
    table = await open_table(service, computers=1)
    results = await asyncio.gather(
        service.start_game(table.id, ALICE, can_manage=False),
        service.cancel(table.id, ALICE, can_manage=False),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, TableError)]
    assert len(refused) == 1, results
    kinds = [kind for _, kind, _ in service.store.events[table.id]]
    assert kinds.count("start") + kinds.count("end") == 1, kinds


async def test_two_ends_at_the_same_moment_end_the_table_once() -> None:
    service = make_service()
    table = await open_table(service)
    await service.start_game(table.id, ALICE, can_manage=False)
    results = await asyncio.gather(
        service.end(table.id, ALICE, can_manage=False),
        service.end(table.id, BOB, can_manage=True),
        return_exceptions=True,
    )
    assert sum(isinstance(r, TableError) for r in results) == 1, results
    kinds = [kind for _, kind, _ in service.store.events[table.id]]
    assert kinds.count("end") == 1


async def test_a_seat_taken_back_is_not_played_by_the_computer_any_more() -> None:
    """The computer player was thinking for an away member when they took the seat back: it
    must not move for them after the take-back was answered."""
    service = make_service()
    service.computer_delay = 0.05
    table = await open_table(service, computers=3, turn=0)
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = table.seat_of_user(ALICE)
    await settle(service, table)
    while seat not in pending_seats(table.state):
        await asyncio.sleep(0.01)
    async with table.lock:
        await service._set_away(table, seat, True)
    service._kick(table)
    await asyncio.sleep(0.01)  # the runner is now thinking for her seat
    move = table.state.move
    await service.take_back(table.id, ALICE)
    await asyncio.sleep(0.15)
    assert table.state.move == move and seat in pending_seats(table.state)
    await service.end(table.id, ALICE, can_manage=False)


async def test_a_failed_write_does_not_wedge_the_table() -> None:
    service = make_service()
    table = await open_table(service, computers=2)
    store = service.store
    real = store.append_event

    async def busy(*args, **kwargs):
        raise OSError("database is locked")

    store.append_event = busy
    with pytest.raises(TableError, match="could not save"):
        await service.add_computer(table.id, ALICE)
    store.append_event = real
    await service.add_computer(table.id, ALICE)  # the next event takes the number in turn
    assert [seq for seq, _, _ in store.events[table.id]] == list(range(1, 5))


async def test_a_table_for_two_sets_plays_two_sets() -> None:
    service = make_service()
    table = await open_table(service, hands=None, sets=2)
    await service.start_game(table.id, ALICE, can_manage=False)
    assert (table.state.config.sets, table.state.config.hands) == (2, None)
    rebuilt = make_service(service.store)
    await rebuilt.start()
    assert rebuilt.get(table.id).state.config.sets == 2  # kept across a restart
    await rebuilt.stop()
    with pytest.raises(TableError, match="hands or of sets"):
        await open_table(service, hands=4, sets=1, channel_id=11, host_id=BOB)


async def test_the_countdown_shown_is_when_the_timer_runs_out() -> None:
    service = make_service()
    table = await open_table(service, computers=3, turn=1, claim=1)
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = table.seat_of_user(ALICE)
    while seat not in pending_seats(table.state):
        await asyncio.sleep(0.01)
    deadline = service.deadline(table, seat)
    assert deadline is not None and deadline == service.deadline(table, seat)
    move = table.state.move
    while table.state.move == move:
        await asyncio.sleep(0.01)
    assert abs(time.time() - deadline) < 0.3  # the move was made for her when it said
    assert service.deadline(table, (seat + 1) % 4) is None  # computer players have no timer
    await service.end(table.id, ALICE, can_manage=False)


async def test_a_move_cancelled_while_its_event_is_written_is_stored_and_taken() -> None:
    """A timer replaced or the bot stopping while a move's event is being written: the move
    is both in the log and in the table, so the next move follows it (it used to be stored
    but not taken, and every later move collided with it)."""
    service = make_service()
    table = await open_table(service, computers=3)
    await service.start_game(table.id, ALICE, can_manage=False)
    await settle(service, table)
    store = service.store
    real = store.append_event
    writing, release = asyncio.Event(), asyncio.Event()

    async def slow(*args, **kwargs):
        writing.set()
        await release.wait()
        await real(*args, **kwargs)

    seat = table.seat_of_user(ALICE)
    state = table.state
    action = decide(view(state, seat), legal_actions(state, seat), get_ruleset(table.ruleset))
    verb, arg = control_of(action)
    store.append_event = slow
    move = asyncio.create_task(
        service.act(table.id, ALICE, verb, None if arg is None else str(arg), table.controls_move)
    )
    await writing.wait()
    move.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await move
    store.append_event = real
    assert [seq for seq, _, _ in store.events[table.id]][-1] == table.seq
    assert table.state is not state and table.state.move == state.move + 1
    service._kick(table)  # what the cancelled answer would have done next
    await play_member(service, table, ALICE)  # later moves follow it in the log
    assert table.state.phase == GAME_OVER


async def test_the_service_says_whether_the_next_move_is_a_computer_players() -> None:
    """What the channel's picture waits for under load (``cogs.notify.bursts``): a computer
    player's move comes by itself; a member's does not, nor anything once the table ended."""
    service = make_service()
    service.computer_delay = 3600  # the computers think for ever: their moves stay pending
    table = await open_table(service, computers=3, turn=0)
    assert not service.moves_itself_next(table)  # the lobby
    await service.start_game(table.id, ALICE, can_manage=False)
    member = table.seat_of_user(ALICE)
    if pending_seats(table.state) == {member}:  # she deals: her discard first
        assert not service.moves_itself_next(table)
        state = table.state
        choice = decide(view(state, member), legal_actions(state, member), "pung-chow")
        verb, arg = control_of(choice)
        await service.act(table.id, ALICE, verb, None if arg is None else str(arg), state.move)
    assert member not in pending_seats(table.state)
    assert service.moves_itself_next(table)  # the computers answer
    playing = table.state
    table.state = dataclasses.replace(playing, phase=HAND_OVER)  # the reveal, then a pause
    assert not service.moves_itself_next(table)
    table.state = playing
    table.paused = True
    assert not service.moves_itself_next(table)
    table.paused = False
    await service.end(table.id, ALICE, can_manage=False)
    assert not service.moves_itself_next(table)


async def test_a_claim_window_a_member_is_asked_in_is_not_the_computers_to_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The computers' passes in a claim window a member is also asked in show nothing: the
    channel's next change waits for the member, so the picture does not wait for them."""
    from bot.service.tables import timers

    service = make_service()
    service.computer_delay = 3600
    table = await open_table(service, computers=3, turn=0)
    await service.start_game(table.id, ALICE, can_manage=False)
    member = table.seat_of_user(ALICE)
    computers = [seat for seat in range(4) if seat != member]
    for waiting, expected in (
        ({member, computers[0]}, False),
        (set(computers[:2]), True),
        (set(), False),
    ):
        monkeypatch.setattr(timers, "pending_seats", lambda state, w=waiting: frozenset(w))
        assert service.moves_itself_next(table) is expected, waiting
    monkeypatch.undo()
    await service.end(table.id, ALICE, can_manage=False)
