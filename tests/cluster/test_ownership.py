"""Table ownership in the table service (issue 15): two "processes" (two table services, each
on its own connection to one database, with its own lease keeper) share the tables. A table
runs in the process holding its lease; when that process stalls past its lease, the other
takes the table over, rebuilt from its events, and the stale one can no longer write a single
event. On both backends (SQLite: two connections to one file stand in for two processes)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from bot.cluster.ownership import TableOwnership
from bot.service.tables import TableError, TableService
from bot.service.tables.ownership import MOVED
from bot.services import build_services
from bot.store.backend import Database
from bot.store.database import open_database
from bot.store.leases_repo import LeasesRepository
from bot.store.tables_repo import TablesRepository
from tests.store.helpers import FakeClock
from tests.tables.fakes import MemoryLedger, RecordingNotifier, Settings
from tests.tables.test_table_service import ALICE, open_table, play_member, settle

TTL = 9.0


@dataclass
class Process:
    service: TableService
    ownership: TableOwnership
    tables: TablesRepository


def process(db: Database, clock: FakeClock, ledger: MemoryLedger) -> Process:
    tables = TablesRepository(db, clock=clock)
    service = TableService(None, tables, ledger, Settings())
    service.notifier = RecordingNotifier()
    service.computer_delay = 0
    service.next_hand_delay = 0
    ownership = TableOwnership(LeasesRepository(db, clock=clock), ttl=TTL)
    ownership.attach(service)
    return Process(service, ownership, tables)


@pytest.fixture
async def two(db: Database) -> AsyncIterator[tuple[Process, Process, FakeClock]]:
    clock, ledger = FakeClock(), MemoryLedger()
    other = await open_database(db.target)
    first, second = process(db, clock, ledger), process(other, clock, ledger)
    try:
        yield first, second, clock
    finally:
        for p in (first, second):
            await p.service.stop()
        await other.close()


async def died_with_a_table(two: tuple[Process, Process, FakeClock], channel_id: int) -> Any:
    """The first process opens a table and dies (its lease runs out, unreleased): the second
    may take the table over."""
    first, second, clock = two
    await first.service.load()
    await second.service.load()
    table = await open_table(first.service, hands=1, computers=3, channel_id=channel_id)
    await first.ownership.keeper.stop(release=False)
    clock.advance(TTL + 1)
    return table


async def resumed(p: Process, table_id: int):
    if p.service._resuming:
        await asyncio.gather(*p.service._resuming)
    table = p.service.tables[table_id]
    await settle(p.service, table)
    return table


async def test_a_stalled_owner_loses_its_table_and_cannot_write_to_it(two, monkeypatch) -> None:
    monkeypatch.setattr("bot.cluster.ownership.CLOSING_SECONDS", 3600)
    first, second, clock = two
    await first.service.load()
    await second.service.load()
    table = await open_table(first.service, hands=1, computers=3)
    await first.service.start_game(table.id, ALICE, can_manage=False)
    await settle(first.service, table)
    assert first.ownership.owns(table.id)
    await second.ownership.keeper.tick()  # the lease is live: not the second's to take
    assert second.service.tables == {}

    clock.advance(TTL + 1)  # the first process stalls past its lease (a long pause)
    await second.ownership.keeper.tick()
    taken = await resumed(second, table.id)
    assert second.ownership.owns(table.id)
    assert (taken.seq, taken.state) == (table.seq, table.state)  # rebuilt from its events

    # The stale owner still believes it runs the table: its first write is refused by the
    # store (fenced), it drops the table, and the member is told to press again.
    state = table.state
    seat = table.seat_of_user(ALICE)
    assert state is not None and seat is not None
    from bot.rules.game import legal_actions
    from bot.service.tables import control_of

    verb, arg = control_of(legal_actions(state, seat)[0])
    with pytest.raises(TableError) as refused:
        await first.service.act(
            table.id, ALICE, verb, None if arg is None else str(arg), state.move
        )
    assert str(refused.value) == MOVED
    assert table.id not in first.service.tables and not first.ownership.owns(table.id)
    assert len(await first.tables.events(table.id)) == taken.seq  # nothing written

    # The new owner plays the game to its end; the log is one unbroken sequence.
    await play_member(second.service, taken, ALICE)
    assert taken.status == "finished"
    seqs = [e.seq for e in await second.tables.events(table.id)]
    assert seqs == list(range(1, len(seqs) + 1))
    row = await second.tables.get(table.id)
    assert row is not None and row["status"] == "finished"
    # The closed table's lease is kept while its final messages go out: the second process
    # dies now, before releasing it. Its lease runs out and the first process, claiming it,
    # closes the table again: the end is shown (once more), nothing is written twice.
    assert second.ownership.owns(table.id)
    events = await second.tables.events(table.id)
    await second.ownership.keeper.stop(release=False)
    for task in second.ownership._releasing:
        task.cancel()
    monkeypatch.setattr("bot.cluster.ownership.CLOSING_SECONDS", 0.01)
    clock.advance(TTL + 1)
    shown = first.service.notifier.of("game").count(table.id)
    await first.ownership.keeper.tick()
    if first.service._resuming:
        await asyncio.gather(*first.service._resuming)
    assert first.service.notifier.of("game").count(table.id) == shown + 1
    assert await first.tables.events(table.id) == events
    assert table.id not in first.service.tables
    await asyncio.gather(*first.ownership._releasing)  # CLOSING_SECONDS, then released
    lease = await first.ownership.leases.holder(table.id)
    assert lease is not None and lease.expires_at == 0
    await first.ownership.keeper.tick()
    assert not first.ownership.owns(table.id)  # done: not claimed again


async def test_a_process_only_runs_what_it_leases(two) -> None:
    first, second, _ = two
    await first.service.load()
    lobby = await open_table(first.service, computers=1, channel_id=20)
    # The second process, starting now, reads no table: the first runs it.
    await second.service.load()
    await second.ownership.keeper.tick()
    assert second.service.tables == {} and second.service.in_channel(20) is None
    # A stopping process gives its tables up at once; the next heartbeat elsewhere takes them.
    await first.service.stop()
    await first.ownership.stop()
    await second.ownership.keeper.tick()
    assert second.ownership.owns(lobby.id)
    assert second.service.in_channel(20) is not None
    assert (await second.ownership.leases.holder(lobby.id)).generation == 2


async def test_a_new_table_is_never_claimable_by_another_process(two) -> None:
    """The flake of test_failover (``/mahjong new`` answered "This table has just moved"
    before anything died): the creating process wrote the table's row and took its lease only
    afterwards, and on a loaded host another process's heartbeat claimed the table in between
    (once the 10 s it left new tables to their creator were over). Here the creator stalls
    for a minute right after writing the row, and the other process's claim pass runs at that
    moment: it finds nothing to take, since the lease is written with the row."""
    first, second, clock = two
    await first.service.load()
    await second.service.load()
    create_capped = first.tables.create_capped
    claimed: list[int] = []

    async def stalling_create(table: Any, host_name: str, caps: dict[str, int]) -> int:
        table_id = await create_capped(table, host_name, caps)  # the row is written
        clock.advance(60)  # a loaded host: the creator goes on a minute later
        claimed.extend(await claim_pass(second))
        return table_id

    first.tables.create_capped = stalling_create  # type: ignore[method-assign]
    table = await open_table(first.service, computers=1, channel_id=30)
    assert claimed == []
    assert first.ownership.owns(table.id) and not second.ownership.owns(table.id)
    assert [p.name for p in table.players] == ["alice", "Computer 1"]
    await second.ownership.keeper.tick()  # nor does a whole heartbeat afterwards
    assert second.service.tables == {} and not second.ownership.owns(table.id)


async def claim_pass(p: Process) -> list[int]:
    """The claiming half of a heartbeat (``LeaseKeeper.tick``): every table ``p`` may claim,
    claimed; returns them. Without the renewal, a write, which on SQLite would wait for the
    creator's transaction while the creator waits for this."""
    keeper = p.ownership.keeper
    taken = []
    for table_id in await keeper.repo.claimable(keeper.claim_batch):
        if await keeper.claim(table_id) is not None:
            taken.append(table_id)
    return taken


async def test_sqlite_runs_without_leases(db_path) -> None:
    db = await open_database(db_path)
    try:
        services = build_services(None, db)
        assert services.ownership is None and services.tables.ownership is None
        assert services.tables._fence(1) == {}
    finally:
        await db.close()


async def test_play_again_and_old_buttons_of_a_table_finished_elsewhere(two) -> None:
    """A table finished by one process; "Play again" (or any old button) reaches the other
    (the server's shard, or shard 0 for a DM). The other rebuilds the finished table for the
    rematch, and a press on it never claims it (which would show its end a second time)."""
    from bot.cluster.forwarding import PressForwarder

    first, second, _ = two
    await first.service.load()
    await second.service.load()
    table = await open_table(first.service, hands=1, computers=3, channel_id=70)
    await first.service.start_game(table.id, ALICE, can_manage=False)
    await settle(first.service, table)
    await play_member(first.service, table, ALICE)
    assert table.status == "finished"
    await first.ownership.keeper.forget(table.id)  # its closing seconds are over
    forwarder = PressForwarder(None, second.tables.db, second.ownership)
    assert await forwarder._runner_of(table.id) is None  # answered there, not claimed
    assert not second.ownership.owns(table.id)
    assert second.service.notifier.of("game") == []  # its end not shown again
    again = await second.service.rematch(table.id, ALICE)
    assert again.status == "lobby" and again.id != table.id
    assert (again.ruleset, again.hands, again.host_id) == (table.ruleset, 1, ALICE)
    assert second.ownership.owns(again.id)
    with pytest.raises(TableError, match="still open, or too old"):
        await second.service.rematch(again.id, ALICE)


async def test_a_press_during_a_takeover_waits_for_the_table_to_be_rebuilt(two) -> None:
    """The new owner holds the lease from the moment it acquires it, before the table is read
    and rebuilt: a press arriving in between waits for the table instead of being told "That
    table is closed" (the member would never press that move again)."""

    _, second, _ = two
    table = await died_with_a_table(two, channel_id=90)
    gate, entered = asyncio.Event(), asyncio.Event()
    adopt = second.service.adopt

    async def slow_adopt(table_id: int) -> bool:  # a slow read of the table's events
        entered.set()
        await gate.wait()
        return await adopt(table_id)

    second.service.adopt = slow_adopt
    claiming = asyncio.create_task(second.ownership.claim(table.id))
    await entered.wait()
    assert second.ownership.owns(table.id) and table.id not in second.service.tables
    await a_press_waits_until(gate, second, table.id)
    assert await claiming is not None
    assert second.service.get(table.id).id == table.id


async def test_a_press_for_a_leased_table_whose_adoption_failed_reads_it_first(two) -> None:
    """The new owner took the lease but could not read the table (its adoption raised, say a
    slow database): a press for it reads the table then, instead of answering "That table is
    closed" for a table that is playing (CI run 22: a member told so never pressed again)."""
    from bot.cluster.forwarding import PressForwarder

    _, second, _ = two
    table = await died_with_a_table(two, channel_id=91)
    adopt = second.service.adopt

    async def failing_adopt(table_id: int) -> bool:
        raise OSError("the database is slow")

    second.service.adopt = failing_adopt
    with pytest.raises(OSError):
        await second.ownership.claim(table.id)
    assert second.ownership.owns(table.id) and not second.service.holds(table.id)
    with pytest.raises(TableError, match="closed"):
        second.service.get(table.id)
    second.service.adopt = adopt
    forwarder = PressForwarder(None, second.tables.db, second.ownership)
    assert await forwarder._runner_of(table.id) is None  # run here, now that it is read
    assert second.service.get(table.id).id == table.id


async def test_a_press_for_a_table_that_moved_away_says_to_press_again(two) -> None:
    """A process that handed a table to another (its write fenced, or its lease lost) tells a
    press still reaching it that the table moved and to press again, never that it closed."""
    first, _, _ = two
    await first.service.load()
    table = await open_table(first.service, hands=1, computers=3, channel_id=92)
    first.service.drop(table.id)
    with pytest.raises(TableError) as refused:
        first.service.get(table.id)
    assert str(refused.value) == MOVED
    with pytest.raises(TableError, match="moved to another"):
        await first.service.act(table.id, ALICE, "discard", "0", 0)
    assert await first.service.adopt(table.id)  # it comes back: the notice is forgotten
    assert first.service.get(table.id).id == table.id


async def test_a_press_handed_over_as_the_lease_reaches_the_database_waits_for_the_table(
    two,
) -> None:
    """The race of CI run 22: the second process's heartbeat claims a dead process's table;
    the database already names it while the lease has not reached its keeper yet. A press
    handed to it at that moment (by a process that read the new owner from the database) was
    run at once and told "That table is closed" (nothing in memory yet, no warning logged).
    It waits for the table instead."""

    _, second, _ = two
    table = await died_with_a_table(two, channel_id=93)
    repo = second.ownership.keeper.repo
    written, gate = asyncio.Event(), asyncio.Event()
    acquire = repo.acquire

    async def slow_acquire(table_id: int, owner: str, ttl: float):
        lease = await acquire(table_id, owner, ttl)  # in the database now
        written.set()
        await gate.wait()  # ... and not yet in the keeper
        return lease

    repo.acquire = slow_acquire
    claiming = asyncio.create_task(second.ownership.claim(table.id))
    await written.wait()
    assert not second.ownership.owns(table.id)
    assert await second.ownership.owner_of(table.id) == second.ownership.owner
    await a_press_waits_until(gate, second, table.id)
    assert await claiming
    assert second.service.get(table.id).id == table.id


async def a_press_waits_until(gate: asyncio.Event, process: Process, table_id: int) -> None:
    """A press for ``table_id`` reaching ``process`` now is held until ``gate`` opens, then
    run there (``_runner_of`` None: not handed on, not refused)."""
    from bot.cluster.forwarding import PressForwarder

    forwarder = PressForwarder(None, process.tables.db, process.ownership)
    routed = asyncio.create_task(forwarder._runner_of(table_id))
    for _ in range(50):
        await asyncio.sleep(0)
    assert not routed.done()  # waits for the table
    gate.set()
    assert await routed is None
