"""Caps on open tables (issue 16 item 9) and the commands' look-up, with several processes
(issue 15): each process holds only the tables it runs, so a cap counted in its memory would
let three processes together open three times the cap. Three table services on one database
(each with its own connection and lease keeper) open and join at the same moment; the
database counts, in the same transaction as the write, and no cap is exceeded. On both
backends (SQLite: three connections to one file)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.service.tables import TableError
from bot.store.backend import Database
from bot.store.database import open_database
from tests.cluster.test_ownership import Process, process
from tests.store.helpers import FakeClock
from tests.tables.fakes import MemoryLedger, Settings
from tests.tables.test_table_service import ALICE, BOB, open_table

CAPS = {"max_tables_per_member": 1, "max_tables_per_channel": 2, "max_tables_per_guild": 3}


@pytest.fixture
async def three(db: Database) -> AsyncIterator[list[Process]]:
    clock, ledger = FakeClock(), MemoryLedger()
    others = [await open_database(db.target) for _ in range(2)]
    processes = [process(d, clock, ledger) for d in (db, *others)]
    for p in processes:
        p.service.guild_settings = Settings(**CAPS)
        await p.service.load()
    try:
        yield processes
    finally:
        for p in processes:
            await p.service.stop()
        for d in others:
            await d.close()


async def attempts(*opening) -> tuple[list, list[str]]:
    """Run the openings at once: the tables opened and the refusals."""
    results = await asyncio.gather(*opening, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException) and not isinstance(r, TableError):
            raise r
    return [r for r in results if not isinstance(r, BaseException)], [
        str(r) for r in results if isinstance(r, TableError)
    ]


async def test_three_processes_opening_at_once_never_exceed_a_cap(three) -> None:
    # Six members open a table in one channel at the same moment, two on each process: the
    # channel's cap is 2.
    opened, refused = await attempts(
        *(
            open_table(p.service, computers=0, host_id=200 + i, host_name=f"m{i}", thread=True)
            for i, p in enumerate(three * 2)
        )
    )
    assert len(opened) == 2 and len(refused) == 4
    assert all("This channel already has 2 open tables (the most is 2)" in r for r in refused)
    # The server's cap (3) across channels and processes.
    opened, refused = await attempts(
        *(
            open_table(p.service, computers=0, channel_id=30 + i, host_id=300 + i, host_name="x")
            for i, p in enumerate(three)
        )
    )
    assert (
        len(opened) == 1
        and refused
        == [
            "This server already has 3 open tables (the most is "
            "3). Join one of them, or try again when one has "
            "finished."
        ]
        * 2
    )
    open_ids = [t for p in three for t in await p.tables.open_ids(guild_id=1)]
    assert len(set(open_ids)) == 3


async def test_a_member_joins_one_table_too_many_on_no_process(db: Database) -> None:
    clock, ledger = FakeClock(), MemoryLedger()
    others = [await open_database(db.target) for _ in range(2)]
    three = [process(d, clock, ledger) for d in (db, *others)]
    for p in three:
        p.service.guild_settings = Settings(max_tables_per_member=1)
        await p.service.load()
    try:
        lobbies = [
            await open_table(p.service, computers=0, channel_id=40 + i, host_id=400 + i)
            for i, p in enumerate(three)
        ]
        # Bob presses Join on the three lobbies (each run by another process) at once.
        joined, refused = await attempts(
            *(p.service.join(t.id, BOB, "bob") for p, t in zip(three, lobbies, strict=True))
        )
        assert len(joined) == 1
        assert (
            refused
            == [
                "You are already at 1 open tables, the most on this server. Finish or leave one "
                "first."
            ]
            * 2
        )
        assert len(await three[0].tables.open_ids(user_id=BOB)) == 1
        # The seats of the refused joins were never written: the lobbies hold their host only.
        for p, t in zip(three, lobbies, strict=True):
            seats = await p.tables.seats(t.id)
            assert [s.user_id for s in seats] == [u.user_id for u in t.players]
        # Leaving the one he joined frees him for another (on yet another process).
        mine = next(t for t in lobbies if t.is_seated(BOB))
        owner = three[lobbies.index(mine)]
        await owner.service.unjoin(mine.id, BOB)
        other = next(t for t in lobbies if t is not mine)
        await three[lobbies.index(other)].service.join(other.id, BOB, "bob")
        # And the host of a lobby may not open another on any process.
        with pytest.raises(TableError, match="already at 1 open tables"):
            await open_table(three[1].service, computers=0, channel_id=50, host_id=400)
    finally:
        for p in three:
            await p.service.stop()
        for d in others:
            await d.close()


async def test_a_command_finds_a_table_another_process_runs(three) -> None:
    first, second, _ = three
    table = await open_table(first.service, computers=3, channel_id=60)
    # The table plays in channel 60 and is run by the first process; the second finds it by
    # its channel and by its member (elsewhere), the way /mahjong hand looks it up.
    assert table.id not in second.service.tables
    assert await second.service.table_here(60, BOB) == table.id
    assert await second.service.table_here(999, ALICE) == table.id
    with pytest.raises(TableError, match="There is no table in this channel"):
        await second.service.table_here(999, BOB)
