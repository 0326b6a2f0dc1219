"""Table leases between processes: two "processes" are two stores opened on one database (two
SQLite connections to the file, or two PostgreSQL pools) with their own repositories, sharing
the test's clock so a lease can be made to expire."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from bot.store.backend import Database, StoreError
from bot.store.database import open_database
from bot.store.leases_repo import Fenced, LeasesRepository
from bot.store.tables_repo import TablesRepository
from tests.store.helpers import FakeClock

TTL = 10.0


@dataclass
class Process:
    name: str
    db: Database
    leases: LeasesRepository
    tables: TablesRepository


@pytest.fixture
async def processes(db: Database, clock: FakeClock) -> AsyncIterator[tuple[Process, Process]]:
    other = await open_database(db.target)
    try:
        yield tuple(  # type: ignore[misc]
            Process(name, store, LeasesRepository(store, clock=clock), TablesRepository(store))
            for name, store in (("first", db), ("second", other))
        )
    finally:
        await other.close()


async def new_table(p: Process, channel: int = 10) -> int:
    return await p.tables.create(guild_id=1, channel_id=channel, host_id=1, ruleset="pung-chow")


async def test_one_owner_at_a_time_and_a_stale_owner_is_fenced(
    processes: tuple[Process, Process], clock: FakeClock
) -> None:
    first, second = processes
    table = await new_table(first)
    mine = await first.leases.acquire(table, first.name, TTL)
    assert mine is not None and mine.generation == 1
    assert await second.leases.acquire(table, second.name, TTL) is None  # live: not yours
    await first.tables.append_event(table, 1, "join", {}, lease=mine)

    clock.advance(TTL)  # the first process stalls past its lease
    assert await first.leases.claimable() == [table]
    theirs = await second.leases.acquire(table, second.name, TTL)
    assert theirs is not None and theirs.generation == 2
    assert await first.leases.renew(first.name, TTL) == {}  # the heartbeat says: lost

    with pytest.raises(Fenced):  # the stale owner cannot write, even the next seq
        await first.tables.append_event(table, 2, "move", {"by": "first"}, lease=mine)
    await second.tables.append_event(table, 2, "move", {"by": "second"}, lease=theirs)
    with pytest.raises(StoreError):  # the new owner is still held to the log's order
        await second.tables.append_event(table, 2, "move", {}, lease=theirs)
    events = await first.tables.events(table)
    assert [(e.seq, e.payload.get("by")) for e in events] == [(1, None), (2, "second")]
    with pytest.raises(Fenced):  # nor close the table
        await first.tables.set_status(table, "cancelled", lease=mine)
    await second.tables.set_status(table, "playing", lease=theirs)
    row = await first.tables.get(table)
    assert row is not None and row["status"] == "playing"
    with pytest.raises(StoreError, match="used for table"):
        await second.tables.append_event(table + 1, 1, "join", {}, lease=theirs)
    holder = await first.leases.holder(table)
    assert holder is not None and (holder.owner, holder.generation) == ("second", 2)


async def test_heartbeat_release_and_generations_never_reused(
    processes: tuple[Process, Process], clock: FakeClock
) -> None:
    first, second = processes
    tables = [await new_table(first, channel) for channel in (10, 11, 12)]
    held = [await first.leases.acquire(t, first.name, TTL) for t in tables]
    assert all(held)
    assert await second.leases.claimable() == []
    for _ in range(3):  # renewed in time, the leases never lapse
        clock.advance(TTL * 0.6)
        renewed = await first.leases.renew(first.name, TTL)
        assert sorted(renewed) == tables
        assert all(renewed[t].generation == 1 for t in tables)
    assert await second.leases.acquire(tables[0], second.name, TTL) is None
    assert held[1] is not None and await first.leases.release(held[1])
    assert not await first.leases.release(held[1])  # a lease is given up once
    assert await second.leases.claimable() == [tables[1]]
    taken = await second.leases.acquire(tables[1], second.name, TTL)
    assert taken is not None and taken.generation == 2  # the row was kept: no generation reuse
    renewed = await first.leases.renew(first.name, TTL)
    assert sorted(renewed) == [tables[0], tables[2]]
    await first.tables.cancel(tables[2])
    clock.advance(TTL)
    # A closed table whose lease ran out unreleased: its process died while closing it, so
    # its end is to be shown again by whoever claims it (bot/cluster/ownership.py).
    assert await second.leases.claimable() == [tables[0], tables[1], tables[2]]
    clock.advance(-TTL)
    assert await first.leases.release(renewed[tables[2]])  # closed and released
    clock.advance(TTL)
    assert await second.leases.claimable() == [tables[0], tables[1]]  # nobody's work


async def test_two_processes_racing_for_a_table_one_wins(
    processes: tuple[Process, Process], clock: FakeClock
) -> None:
    first, second = processes
    tables = [await new_table(first, channel) for channel in range(10, 30)]
    for round_ in range(2):  # free tables, then the same tables expired
        results = []
        for table in tables:
            results.append(
                await asyncio.gather(
                    first.leases.acquire(table, first.name, TTL),
                    second.leases.acquire(table, second.name, TTL),
                )
            )
        for won in results:
            assert sum(lease is not None for lease in won) == 1, won
            assert next(lease for lease in won if lease).generation == round_ + 1
        clock.advance(TTL)


async def test_a_takeover_in_the_middle_of_appends_splits_the_log_cleanly(
    processes: tuple[Process, Process], clock: FakeClock
) -> None:
    """The old owner keeps appending while the new owner takes over and carries on from the
    log's end: every event the old owner had accepted comes before every event of the new
    owner, no seq is written twice, and after the takeover the old owner writes nothing."""
    first, second = processes
    table = await new_table(first)
    old = await first.leases.acquire(table, first.name, TTL)
    assert old is not None
    accepted: list[int] = []
    fenced = asyncio.Event()

    async def old_owner() -> None:
        seq = 1
        while True:
            try:
                await first.tables.append_event(table, seq, "move", {"by": "old"}, lease=old)
            except Fenced:
                fenced.set()
                return
            accepted.append(seq)
            seq += 1
            await asyncio.sleep(0)

    async def new_owner() -> None:
        while len(accepted) < 5:
            await asyncio.sleep(0.001)
        clock.advance(TTL)
        lease = await second.leases.acquire(table, second.name, TTL)
        assert lease is not None
        last = (await second.tables.events(table))[-1].seq
        for seq in range(last + 1, last + 11):
            await second.tables.append_event(table, seq, "move", {"by": "new"}, lease=lease)

    await asyncio.wait_for(asyncio.gather(old_owner(), new_owner()), 60)
    assert fenced.is_set()
    events = await first.tables.events(table)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    owners = [e.payload["by"] for e in events]
    assert owners == ["old"] * len(accepted) + ["new"] * 10


async def test_lease_keepers_take_over_a_dead_process_s_tables_within_15_s(
    processes: tuple[Process, Process], clock: FakeClock
) -> None:
    """Two keepers, one per process, ticking every TTL / 3 on the test's clock: the first
    claims the open tables, the second none; the first stops ticking (it died), and the
    second takes every table over at most TTL + TTL / 3 after the first's last heartbeat. When
    the first comes back its tick tells it the tables are lost, and its writes are fenced."""
    from bot.store.lease_keeper import LeaseKeeper

    first, second = processes
    tables = [await new_table(first, channel) for channel in (10, 11, 12)]
    got: dict[str, list[int]] = {"first": [], "second": []}
    lost: list[int] = []

    def keeper(p: Process) -> LeaseKeeper:
        async def acquired(lease) -> None:
            got[p.name].append(lease.table_id)

        async def gone(table_id: int) -> None:
            lost.append(table_id)

        return LeaseKeeper(p.leases, owner=p.name, ttl=9.0, on_acquired=acquired, on_lost=gone)

    a, b = keeper(first), keeper(second)
    await a.tick()
    await b.tick()
    assert got == {"first": tables, "second": []}
    last_heartbeat = clock.t
    for _ in range(10):  # the first process is dead: only the second ticks
        clock.advance(b.ttl / 3)
        await b.tick()
        if got["second"]:
            break
    assert sorted(got["second"]) == tables
    assert clock.t - last_heartbeat <= b.ttl + b.ttl / 3 <= 15
    stale = a.lease(tables[0])
    assert stale is not None
    with pytest.raises(Fenced):
        await first.tables.append_event(tables[0], 1, "join", {}, lease=stale)
    await a.tick()  # back from the dead: it learns it lost them, and claims nothing
    assert sorted(lost) == tables and a.leases == {}
    lease = b.lease(tables[0])
    assert lease is not None
    await second.tables.append_event(tables[0], 1, "join", {}, lease=lease)
    await b.stop()  # a clean stop gives the tables up at once
    await a.tick()
    assert sorted(got["first"]) == sorted(tables * 2)


async def test_a_lease_taken_while_a_heartbeat_renews_is_not_taken_for_lost(
    processes: tuple[Process, Process],
) -> None:
    """A heartbeat's renewal answers with the leases it extended. A lease the process took
    while that answer was on its way (a table it just opened, a press's claim) is not in the
    answer, yet it is not lost: it was not held when the renewal ran. (It was taken for lost,
    its table dropped, and the process answered "moved" for a table it held.)"""
    from bot.store.lease_keeper import LeaseKeeper

    first, _ = processes
    table = await new_table(first)
    lost: list[int] = []

    async def gone(table_id: int) -> None:
        lost.append(table_id)

    keeper = LeaseKeeper(first.leases, owner=first.name, ttl=TTL, on_lost=gone)
    renew, renewed, gate = first.leases.renew, asyncio.Event(), asyncio.Event()

    async def slow_renew(owner: str, ttl: float):
        held = await renew(owner, ttl)  # the database answered: nothing of the table's yet
        renewed.set()
        await gate.wait()
        return held

    first.leases.renew = slow_renew  # type: ignore[method-assign]
    ticking = asyncio.create_task(keeper.tick())
    await renewed.wait()
    assert await keeper.acquire(table) is not None
    gate.set()
    await ticking
    assert lost == [] and keeper.lease(table) is not None
    await keeper.tick()  # the next heartbeat renews it
    assert lost == [] and keeper.lease(table) is not None


async def test_a_new_table_s_lease_comes_and_goes_with_the_transaction_inserting_it(
    processes: tuple[Process, Process],
) -> None:
    """``LeaseKeeper.take_new``: the lease is written in the transaction inserting the table,
    so the other process never sees the table unleased; it is held once that transaction
    committed, and an undone transaction leaves neither table nor lease. On its own (outside
    a transaction) it is refused: the table would be open and unleased in between."""
    from bot.store.lease_keeper import LeaseKeeper

    first, second = processes
    keeper = LeaseKeeper(first.leases, owner=first.name, ttl=TTL)
    unleased = await new_table(first, channel=9)
    with pytest.raises(StoreError, match="in the transaction inserting it"):
        await keeper.take_new(unleased)

    async with first.tables.transaction():
        table = await new_table(first)
        lease = await keeper.take_new(table)
        assert keeper.lease(table) is None  # not held before the commit
    keeper.hold(lease)
    assert keeper.lease(table) == lease and lease.generation == 1
    assert await second.leases.acquire(table, second.name, TTL) is None

    with pytest.raises(RuntimeError):
        async with first.tables.transaction():
            undone = await new_table(first, channel=11)
            await keeper.take_new(undone)
            raise RuntimeError("the insert's transaction fails")
    assert await first.tables.get(undone) is None and await first.leases.holder(undone) is None
    assert keeper.lease(undone) is None
    assert await second.leases.claimable() == [unleased]  # the one inserted on its own
