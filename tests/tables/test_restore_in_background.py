"""A restarted bot reads its open tables, connects, and rebuilds them in the background
(TableService.load / restore_all): a table asked for first is rebuilt on the spot, exactly as
a full restore would, and resumed once."""

from __future__ import annotations

import asyncio

from tests.tables.fakes import MemoryLedger, MemoryStore
from tests.tables.test_table_service import (
    ALICE,
    BOB,
    make_service,
    open_table,
    play_member,
    settle,
)


async def two_tables(store: MemoryStore, ledger: MemoryLedger) -> tuple[int, int, int]:
    service = make_service(store, ledger)
    first = await open_table(service, hands=2, channel_id=10)
    second = await open_table(service, hands=2, channel_id=11, host_id=BOB, host_name="bob")
    lobby = await open_table(service, channel_id=12, host_id=303, host_name="cy")
    for table in (first, second):
        await service.start_game(table.id, table.host_id, can_manage=False)
        await settle(service, table)
    await service.stop()
    return first.id, second.id, lobby.id


async def test_a_table_asked_for_before_the_restore_is_rebuilt_on_the_spot() -> None:
    store, ledger = MemoryStore(), MemoryLedger()
    first, second, lobby = await two_tables(store, ledger)
    reference = make_service(store, ledger)
    await reference.load()
    await reference.restore_all()
    expected = {t: reference.get(t).state for t in (first, second)}
    await reference.stop()

    service = make_service(store, ledger)
    await service.load()
    assert service.tables == {}  # nothing replayed yet
    table = service.get(second)  # a press on the second table, before any restore
    assert table.state == expected[second] and set(service.tables) == {second}
    assert service.in_channel(10).state == expected[first]  # a command in the first's channel
    assert [t.id for t in service.tables_of_user(303)] == [lobby]
    await asyncio.sleep(0)
    await service.restore_all()  # the background pass: nothing left but to wait for them
    assert set(service.tables) == {first, second, lobby}
    assert service.get(first).state == expected[first]
    # Each table was resumed once: one "restarted" notice each, on the two playing tables.
    notices = [
        call
        for call in service.notifier.calls
        if call[0] == "table" and call[1] == "The bot restarted; the table resumes."
    ]
    assert len(notices) == 2
    await service.stop()


async def test_a_restored_table_plays_on() -> None:
    store, ledger = MemoryStore(), MemoryLedger()
    first, _, _ = await two_tables(store, ledger)
    service = make_service(store, ledger)
    await service.load()
    table = service.in_channel(10)
    assert table is not None and table.id == first and table.is_seated(ALICE)
    await play_member(service, table, ALICE)
    assert table.status == "finished"
    await service.stop()
