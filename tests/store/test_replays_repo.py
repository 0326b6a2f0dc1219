"""ReplaysRepository on both backends: a table with its events in one read, seed hashes kept
and found by server and prefix (migration 0007), tables with finished hands but no hash yet,
and a member's last finished hand; and the replay service opening a stored hand by code."""

from __future__ import annotations

import pytest

from bot.service.replays import ReplayError, ReplayService, replay_code, table_hash
from bot.store.backend import Database
from bot.store.replays_repo import ReplaysRepository
from bot.store.tables_repo import SeatRow, TablesRepository
from tests.service.test_replays import play
from tests.store.helpers import FakeClock


async def stored_game(tables: TablesRepository, *, guild: int, channel: int, seed: str) -> int:
    """A finished one-hand game of alice (101) and three computers, as the service stores it."""
    _row, events = play(seed, hands=1)
    table = await tables.create(
        guild_id=guild, channel_id=channel, host_id=101, ruleset="pung-chow", hands_planned=1
    )
    for seq, (kind, payload) in enumerate(events, 1):
        await tables.append_event(table, seq, kind, payload)
    await tables.set_seats(
        table,
        [SeatRow(0, 101, "alice"), *(SeatRow(i, None, f"Computer {i}") for i in (1, 2, 3))],
    )
    await tables.set_status(table, "finished")
    await tables.add_hand(table, 1, ruleset="pung-chow")
    return table


async def test_codes_and_last_hands_are_found_by_server(db: Database, clock: FakeClock) -> None:
    tables = TablesRepository(db, clock=clock)
    repo = ReplaysRepository(db, clock=clock)
    first = await stored_game(tables, guild=1, channel=10, seed="seed-one")
    clock.advance(60)
    second = await stored_game(tables, guild=1, channel=11, seed="seed-two")
    elsewhere = await stored_game(tables, guild=2, channel=20, seed="seed-three")

    row, events = await repo.table(first) or ({}, [])
    assert row["guild_id"] == 1 and row["hands"] == 1 and row["seed_hash"] is None
    assert events[4] == ("start", {"seed": "seed-one"})
    assert await repo.table(999) is None

    assert await repo.unhashed(1) == [(first, "seed-one"), (second, "seed-two")]
    assert await repo.unhashed(None) == [
        (first, "seed-one"),
        (second, "seed-two"),
        (elsewhere, "seed-three"),
    ]
    await repo.set_seed_hash(first, table_hash("seed-one"))
    await repo.set_seed_hash(first, "f" * 64)  # kept once written
    assert await repo.by_seed_hash(1, table_hash("seed-one")[:8]) == [first]
    assert await repo.by_seed_hash(2, table_hash("seed-one")[:8]) == []
    assert await repo.by_seed_hash(None, table_hash("seed-one")[:6]) == [first]
    assert await repo.unhashed(1) == [(second, "seed-two")]

    assert await repo.last_hand(1, 101) == (second, 1)
    assert await repo.last_hand(2, 101) == (elsewhere, 1)
    assert await repo.last_hand(1, 555) is None

    service = ReplayService(repo)
    replay = await service.open_code(1, replay_code("seed-two", 1))
    assert replay.table_id == second and replay.steps[-1].state.results
    assert await repo.by_seed_hash(1, table_hash("seed-two")[:8]) == [second]
    with pytest.raises(ReplayError, match="No table on this server"):
        await service.open_code(1, replay_code("seed-three", 1))
    assert (await service.last_of(2, 101)).table_id == elsewhere
