"""``mahjong-bot migrate-db``: a SQLite store with tables, events, hands and a ledger copied into
an empty store of each backend, verified by counts and ledger sums; the copy keeps working
(new rows get new ids) and refuses a target that is not empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.services import build_services
from bot.store.backend import Database, StoreError
from bot.store.copy import copy_store, main
from bot.store.database import open_database
from bot.store.tables_repo import SeatRow, TablesRepository
from tests.store.helpers import FakeClock, rows

ALICE, BOB, CAROL = 101, 102, 103


async def fill(db: Database) -> None:
    """A bit of everything: settings, two tables with seats and events (one finished with a
    hand), hands posted to the ledger of two servers, a pending /settle."""
    clock = FakeClock()
    services = build_services(None, db, clock=clock, tables=False)
    await services.guild_settings.update(1, starting_chips=500, allowed_channels=[10, 11])
    tables = TablesRepository(db, clock=clock)
    for channel in (10, 11):
        table = await tables.create(
            guild_id=1, channel_id=channel, host_id=ALICE, ruleset="pung-chow"
        )
        await tables.set_seats(table, [SeatRow(0, ALICE, "alice"), SeatRow(1, None, "Computer 1")])
        for seq in range(1, 31):
            await tables.append_event(table, seq, "move", {"n": seq, "text": "東 'quoted'"})
    await tables.add_hand(table, 1, ruleset="pung-chow", winner_seat=0, winner_id=ALICE)
    await tables.finish(table)
    for guild in (1, 2):
        for n in range(5):
            clock.advance(60)
            await services.ledger.post_settlement(
                guild,
                "hand",
                [(BOB, ALICE, 10 + n), (CAROL, ALICE, 5), (-2, BOB, 3)],
                source_key=f"table:{guild}:hand:{n}",
                ruleset="pung-chow",
                names={ALICE: "alice", BOB: "bob"},
            )


async def test_a_sqlite_store_is_copied_and_verified(tmp_path: Path, empty_target: str) -> None:
    source = await open_database(tmp_path / "source.sqlite3")
    target = await open_database(empty_target)
    try:
        await fill(source)
        report = await copy_store(source, target)
        assert report.ok, report.problems
        assert report.rows["events"] == (60, 60) and report.rows["ledger"] == (30, 30)
        assert set(report.ledgers) == {1, 2}
        assert "verified: counts and ledgers equal" in report.lines()
        for sql in (
            "SELECT table_id, seq, kind, payload FROM events ORDER BY table_id, seq",
            "SELECT guild_id, user_id, net FROM accounts ORDER BY guild_id, user_id",
            "SELECT id, status, source_key FROM settlements ORDER BY id",
        ):
            assert await rows(target, sql) == await rows(source, sql)
        moved = build_services(None, target, tables=False)
        assert await moved.ledger.balance(1, ALICE) == 500 + 5 * 5 + sum(10 + n for n in range(5))
        assert (await moved.guild_settings.get(1)).allowed_channels == (10, 11)
        # The copy goes on: new rows take new ids (PostgreSQL's identities were moved on).
        tables = TablesRepository(target)
        fresh = await tables.create(guild_id=1, channel_id=12, host_id=BOB, ruleset="pung-chow")
        assert fresh == 3
        await tables.append_event(fresh, 1, "join", {})
        with pytest.raises(StoreError, match="not empty"):  # a second copy is refused
            await copy_store(source, target)
    finally:
        await source.close()
        await target.close()


async def test_the_command_copies_and_says_so(
    tmp_path: Path, empty_target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source_path = tmp_path / "source.sqlite3"
    source = await open_database(source_path)
    try:
        await fill(source)
    finally:
        await source.close()
    assert await _main(["--from", str(source_path), "--to", empty_target]) == 0
    out = capsys.readouterr().out
    assert "verified" in out and "events" in out
    assert await _main(["--from", str(source_path), "--to", empty_target]) == 1
    assert "not empty" in capsys.readouterr().out


async def _main(argv: list[str]) -> int:
    import asyncio

    # The command runs its own event loop: give it a thread of its own.
    return await asyncio.to_thread(main, argv)
