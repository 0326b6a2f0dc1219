"""TableService when Discord takes a table's place away, when permissions come and go, when
nobody plays any more, when writes fail, and members' own settings: on the in-memory fakes."""

from __future__ import annotations

import asyncio

import pytest

from bot.rules.game import CLAIM, Chow, Pass, legal_actions, pending_seats
from bot.service.tables import MemberSettings, TableError, TableService, control_of
from tests.tables.fakes import MemoryLedger, MemoryMembers, MemoryStore, RecordingNotifier, Settings
from tests.tables.test_table_service import ALICE, BOB, open_table, settle

SEED = "0123456789abcdef0123456789abcdef"

CAROL = 103


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def clocked(store=None, clock=None, members=None, **settings) -> TableService:
    service = TableService(
        None,
        store or MemoryStore(),
        MemoryLedger(),
        Settings(**settings),
        clock=clock or Clock(),
        members=members,
    )
    service.notifier = RecordingNotifier()
    service.computer_delay = 0
    service.next_hand_delay = 0
    service.retry_delay = 0.001
    service.place_wait = 0.01
    return service


async def threaded(service, channel=10, host=ALICE, name="alice", thread=500, **more):
    table = await open_table(
        service, channel_id=channel, host_id=host, host_name=name, thread=True, **more
    )
    await service.place_in_thread(table.id, thread, summary_message_id=thread + 1)
    return table


# -- threads ----------------------------------------------------------------------------------


async def test_tables_in_threads_share_a_channel_and_are_found_by_their_thread() -> None:
    store = MemoryStore()
    service = clocked(store)
    first = await threaded(service, thread=500)
    second = await threaded(service, host=BOB, name="bob", thread=600)
    assert (first.channel_id, first.home_channel_id, first.summary_message_id) == (500, 10, 501)
    assert service.in_channel(500) is first and service.in_channel(600) is second
    assert service.in_channel(10) is None  # the channel itself is free
    assert {t.id for t in service.tables_in(10)} == {first.id, second.id}
    row = store.rows[first.id]
    assert (row["channel_id"], row["home_channel_id"], row["summary_message_id"]) == (500, 10, 501)
    # and a restart finds them where they were
    restarted = clocked(store)
    await restarted.start()
    again = restarted.in_channel(500)
    assert again is not None and (again.home_channel_id, again.summary_message_id) == (10, 501)
    await restarted.stop()


async def test_without_a_thread_the_table_plays_in_its_channel_unless_one_plays_there() -> None:
    service = clocked()
    plain = await open_table(service, channel_id=10)
    pending = await open_table(service, channel_id=10, host_id=BOB, host_name="bob", thread=True)
    with pytest.raises(TableError, match="could not open a thread"):
        await service.play_in_channel(pending.id)
    assert pending.status == "cancelled" and service.in_channel(10) is plain
    other = await open_table(service, channel_id=11, host_id=BOB, host_name="bob", thread=True)
    await service.play_in_channel(other.id)
    assert service.in_channel(11) is other and other.home_channel_id is None


async def test_a_table_waiting_for_its_thread_cannot_start_in_the_channel() -> None:
    service = clocked()
    table = await open_table(service, channel_id=10, thread=True)
    with pytest.raises(TableError, match="thread"):
        await service.start_game(table.id, ALICE, can_manage=False)


async def test_hints_off_is_a_table_option_kept_across_a_restart() -> None:
    store = MemoryStore()
    service = clocked(store)
    table = await service.open_table(
        guild_id=1,
        channel_id=10,
        host_id=ALICE,
        host_name="alice",
        ruleset="pung-chow",
        options={"hints": "off"},
        computer_players=1,
        turn_seconds=0,
        claim_seconds=15,
        hands=1,
    )
    assert table.hints is False and "hints" not in table.options
    restarted = clocked(store)
    await restarted.start()
    assert restarted.get(table.id).hints is False
    await restarted.stop()
    with pytest.raises(TableError, match="hints is on or off"):
        await service.open_table(
            guild_id=1,
            channel_id=11,
            host_id=BOB,
            host_name="bob",
            ruleset="pung-chow",
            options={"hints": "maybe"},
            computer_players=1,
            turn_seconds=0,
            claim_seconds=15,
            hands=1,
        )


async def test_the_seating_line_names_the_players() -> None:
    service = clocked()
    table = await open_table(service, computers=1)
    await service.join(table.id, BOB, "bob")
    await service.start_game(table.id, ALICE, can_manage=False)
    begins = next(
        line for kind, line in service.notifier.calls if kind == "table" and "begins" in line
    )
    assert "is the first East" in begins and "player " not in begins
    assert any(name in begins for name in ("alice", "bob", "Computer 1"))
    await service.end(table.id, ALICE, can_manage=False)


# -- Discord taking the place away ------------------------------------------------------------


async def test_a_deleted_thread_ends_its_table_keeping_settled_hands() -> None:
    store = MemoryStore()
    service = clocked(store)
    table = await threaded(service, hands=3)
    await service.start_game(table.id, ALICE, can_manage=False)
    # let a hand or more be played by the computers for the member
    seat = table.seat_of_user(ALICE)
    async with table.lock:
        await service._set_away(table, seat, True)
    service._kick(table)
    while not table.state.results:
        await asyncio.sleep(0.001)
    ended = await service.channel_deleted(500)
    assert ended == [table] and table.status == "finished"
    assert service.notifier.of("closed") == ["its thread was deleted"]
    assert store.rows[table.id]["status"] == "finished"
    assert service.in_channel(500) is None and table.id not in service.tables
    settled = set(service.ledger.posted)
    assert settled == {
        f"table:{table.id}:hand:{r.number}" for r in table.state.results[: table.settled]
    }
    move = table.state.move
    await asyncio.sleep(0.02)
    assert table.state.move == move  # nothing moves on after the end
    kinds = [kind for _, kind, _ in store.events[table.id]]
    assert (
        kinds[-1] == "end" and store.events[table.id][-1][2]["reason"] == "its thread was deleted"
    )


async def test_deleting_the_home_channel_ends_its_thread_tables_and_removal_ends_all() -> None:
    service = clocked()
    first = await threaded(service, thread=500)
    await threaded(service, host=BOB, name="bob", thread=600)
    elsewhere = await open_table(service, channel_id=20, host_id=CAROL, host_name="carol")
    ended = await service.channel_deleted(10)
    assert {t.id for t in ended} == {first.id, first.id + 1}
    assert service.notifier.of("closed") == ["its channel was deleted"] * 2
    assert [t.id for t in await service.guild_removed(1)] == [elsewhere.id]
    assert service.tables == {}


async def test_an_archived_thread_is_taken_back_unless_a_moderator_locked_it() -> None:
    service = clocked()
    table = await threaded(service)
    assert await service.thread_archived(500, locked=False) is table
    assert table.status == "lobby"
    assert await service.thread_archived(500, locked=True) is None
    assert table.status == "cancelled"
    assert service.notifier.of("closed") == ["its thread was locked by a moderator"]


async def test_a_lost_permission_pauses_the_table_until_it_returns() -> None:
    store = MemoryStore()
    service = clocked(store)
    table = await threaded(service, computers=3, turn=1, claim=1)
    table.turn_seconds, table.claim_seconds = 0.02, 0.02
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = table.seat_of_user(ALICE)
    while seat not in pending_seats(table.state):
        await asyncio.sleep(0.001)
    await service.permissions_lost(table.id, ["Attach Files"])
    await service.permissions_lost(table.id, ["Attach Files"])  # told once
    assert table.paused and service.notifier.of("paused") == [("Attach Files",)]
    assert store.rows[table.id]["paused"] is True
    move = table.state.move
    await asyncio.sleep(0.1)  # five times her turn's time: no timer runs down
    assert table.state.move == move and not table.timers
    with pytest.raises(TableError, match="paused"):
        await service.act(table.id, ALICE, "pass", None, move)
    await service.permissions_checked(table.id, ["Attach Files"])  # still missing
    assert table.paused
    await service.permissions_checked(table.id, [])
    assert not table.paused and service.notifier.of("resumed") == [table.id]
    assert store.rows[table.id]["paused"] is False
    while table.state.move == move:  # her timer runs again, from a full turn
        await asyncio.sleep(0.005)
    await service.end(table.id, ALICE, can_manage=False)


async def test_a_paused_table_stays_paused_across_a_restart() -> None:
    store = MemoryStore()
    service = clocked(store)
    table = await threaded(service, computers=3)
    await service.start_game(table.id, ALICE, can_manage=False)
    await settle(service, table)
    await service.permissions_lost(table.id, ["View Channel"])
    await service.stop()
    restarted = clocked(store)
    await restarted.start()
    again = restarted.get(table.id)
    assert again.paused and again.pause_reason == "missing View Channel"
    assert again.runner is None
    await restarted.permissions_checked(table.id, [])
    assert not again.paused
    await restarted.stop()


# -- nothing lives forever --------------------------------------------------------------------


async def test_a_lobby_nobody_starts_expires() -> None:
    clock = Clock()
    service = clocked(clock=clock, lobby_minutes=10)
    table = await open_table(service)
    assert table.lobby_expires_at == clock.now + 600
    clock.now += 599
    await service.sweep()
    assert table.status == "lobby"
    clock.now += 1
    await service.sweep()
    assert table.status == "cancelled" and service.in_channel(10) is None
    (reason,) = service.notifier.of("closed")
    assert "expired" in reason and "10 minutes" in reason


async def test_a_table_nobody_plays_ends_after_the_idle_time() -> None:
    clock = Clock()
    store = MemoryStore()
    service = clocked(store, clock=clock, idle_minutes=5)
    service.computer_delay = 0.001
    table = await open_table(service, computers=3, hands=64)
    await service.start_game(table.id, ALICE, can_manage=False)
    await service.leave(table.id, ALICE)  # four computers now
    await service.sweep()
    assert table.unattended_since == clock.now and table.status == "playing"
    clock.now += 299
    await service.sweep()
    assert table.status == "playing"
    clock.now += 1
    await service.sweep()
    assert table.status == "finished" and store.rows[table.id]["status"] == "finished"
    (reason,) = service.notifier.of("closed")
    assert reason.startswith("abandoned")
    # a member coming back in time resets the count
    other = await open_table(service, channel_id=11, host_id=BOB, host_name="bob", computers=3)
    await service.start_game(other.id, BOB, can_manage=False)
    seat = other.seat_of_user(BOB)
    async with other.lock:
        await service._set_away(other, seat, True)
    await service.sweep()
    assert other.unattended_since is not None
    await service.take_back(other.id, BOB)
    await service.sweep()
    assert other.unattended_since is None
    await service.end(other.id, BOB, can_manage=False)


async def test_caps_on_open_tables_per_member_channel_and_server() -> None:
    service = clocked(max_tables_per_member=1, max_tables_per_channel=2, max_tables_per_guild=3)
    first = await threaded(service, thread=500, computers=0)
    with pytest.raises(TableError, match="already at 1 open tables"):
        await threaded(service, thread=501)
    await threaded(service, host=BOB, name="bob", thread=502)
    with pytest.raises(TableError, match="This channel already has 2 open tables"):
        await threaded(service, host=CAROL, name="carol", thread=503)
    await open_table(service, channel_id=20, host_id=CAROL, host_name="carol")
    with pytest.raises(TableError, match="This server already has 3"):
        await open_table(service, channel_id=21, host_id=104, host_name="dan")
    # joining counts too
    with pytest.raises(TableError, match="already at 1 open tables"):
        await service.join(first.id, BOB, "bob")


# -- failed writes ----------------------------------------------------------------------------


async def test_a_refused_write_changes_nothing_and_the_table_resumes_when_writes_work() -> None:
    store = MemoryStore()
    service = clocked(store)
    table = await open_table(service, computers=3, hands=1)
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = table.seat_of_user(ALICE)
    async with table.lock:
        await service._set_away(table, seat, True)
    store.full = True
    service._kick(table)
    for _ in range(1000):  # the runner tries, backs off, tries again
        if table.write_failures >= 2:
            break
        await asyncio.sleep(0.001)
    state, events = table.state, len(store.events[table.id])
    assert table.write_failures >= 2
    assert len(store.events[table.id]) == events
    with pytest.raises(TableError, match="could not save"):
        await service.take_back(table.id, ALICE)
    assert table.state is state and table.player_at(seat).away
    store.full = False
    for _ in range(2000):
        if table.status == "finished":
            break
        await asyncio.sleep(0.005)
    assert table.status == "finished" and table.write_failures == 0
    seqs = [seq for seq, _, _ in store.events[table.id]]
    assert seqs == list(range(1, len(seqs) + 1))


async def test_an_end_that_cannot_be_written_is_finished_by_the_sweep() -> None:
    store = MemoryStore()
    service = clocked(store)
    table = await threaded(service)
    store.full = True
    await service.channel_deleted(500)
    assert table.status == "lobby" and table.closing and table.paused
    await service.sweep()
    assert table.status == "lobby"
    store.full = False
    await service.sweep()
    assert table.status == "cancelled" and store.rows[table.id]["status"] == "cancelled"
    assert service.notifier.of("closed") == ["its thread was deleted"]


# -- member settings --------------------------------------------------------------------------


async def test_member_settings_are_stored_cached_and_validated() -> None:
    members = MemoryMembers()
    service = clocked(members=members)
    assert service.member_settings(ALICE) == MemberSettings()
    changed = await service.set_member_settings(ALICE, auto_pass_chows=True, pings=False)
    assert changed == MemberSettings(pings=False, auto_pass_chows=True)
    assert members.rows[ALICE]["auto_pass_chows"] is True
    with pytest.raises(TableError, match="Unknown setting"):
        await service.set_member_settings(ALICE, colour=True)
    restarted = clocked(members=members)
    await restarted.start()
    assert restarted.member_settings(ALICE) == changed
    await restarted.stop()


async def test_auto_pass_chows_passes_a_chow_only_window_at_once(monkeypatch) -> None:
    service = clocked(members=MemoryMembers())
    await service.set_member_settings(ALICE, auto_pass_chows=True)
    table = await open_table(service, computers=3, hands=4, turn=0, claim=60)
    # A seed whose hands give her chow-only windows (on a random one a game may have none).
    monkeypatch.setattr("bot.service.tables.lobby.secrets.token_hex", lambda _: SEED)
    await service.start_game(table.id, ALICE, can_manage=False)
    assert table.seed == SEED
    seat = table.seat_of_user(ALICE)
    by_hand = 0
    for _ in range(3000):
        await settle(service, table)
        state = table.state
        if table.status != "playing":
            break
        legal = legal_actions(state, seat)
        if not legal:
            await asyncio.sleep(0.001)
            continue
        if state.phase == CLAIM:
            # a window for her that is not chow-only: answered by hand
            assert not all(isinstance(a, Chow | Pass) for a in legal)
            await service.act(table.id, ALICE, "pass", None, table.controls_move)
            by_hand += 1
        else:
            verb, arg = control_of(legal[-1])
            await service.act(table.id, ALICE, verb, None if arg is None else str(arg), state.move)
    passes = [
        p
        for _, kind, p in service.store.events[table.id]
        if kind == "action" and p["type"] == "Pass" and p["seat"] == seat
    ]
    assert table.status == "finished"
    assert len(passes) > by_hand  # chow-only windows were passed for her


async def test_discard_on_timeout_follows_the_members_setting() -> None:
    service = clocked(members=MemoryMembers())
    table = await open_table(service, computers=3, hands=1, turn=1, claim=1)
    await service.start_game(table.id, ALICE, can_manage=False)
    seat = table.seat_of_user(ALICE)
    while table.state.turn != seat or seat not in pending_seats(table.state):
        await asyncio.sleep(0.001)
    drawn = table.state.seats[seat].drawn
    if drawn is not None:
        assert service.timeout_move(table, seat).tile == drawn
    await service.set_member_settings(ALICE, discard_drawn_on_timeout=False)
    move = service.timeout_move(table, seat)
    assert type(move).__name__ == "Discard" and move.seat == seat
    await service.end(table.id, ALICE, can_manage=False)


# -- rematch ----------------------------------------------------------------------------------


async def test_play_again_opens_a_new_lobby_in_the_same_place_with_the_same_options() -> None:
    service = clocked()
    table = await threaded(service, computers=2, hands=1)
    await service.join(table.id, BOB, "bob")
    await service.end(table.id, ALICE, can_manage=False)
    with pytest.raises(TableError, match="Only the players"):
        await service.rematch(table.id, CAROL)
    again = await service.rematch(table.id, BOB)
    assert again.id != table.id and again.status == "lobby"
    assert again.home_channel_id == 10 and again.thread_pending
    assert (again.ruleset, again.options, again.hands) == (
        table.ruleset,
        table.options,
        table.hands,
    )
    assert [p.name for p in again.players] == ["bob", "Computer 1", "Computer 2"]
    assert again.host_id == BOB
