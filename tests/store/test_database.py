"""The schema: migrating from empty, re-opening, the constraints that keep the data honest,
units of work (rollback, nesting, isolation between tasks) and the group commit."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

import pytest

from bot.store.backend import Conflict, Database, StoreError
from bot.store.database import open_database
from bot.store.migrations import BACKENDS, migrations
from tests.store.helpers import execute, rows, scalar

TABLES = {
    "guild_settings",
    "tables",
    "seats",
    "events",
    "hands",
    "settlements",
    "settlement_parties",
    "ledger",
    "accounts",
    "player_results",
    "player_names",
    "schema_migrations",
}
INDEXES = {
    "tables_one_open_per_channel",
    "ledger_by_payer",
    "ledger_by_payee",
    "player_results_by_user",
    "player_results_by_time",
    "accounts_by_net",
}


async def names(db: Database, kind: str) -> set[str]:
    if db.kind == "sqlite":
        found = await rows(db, "SELECT name FROM sqlite_master WHERE type = ?", (kind,))
    elif kind == "table":
        found = await rows(db, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    else:
        found = await rows(db, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")
    return {r[0] for r in found}


def test_every_backend_has_the_same_migrations() -> None:
    """A migration is written for each backend, under the same number and name."""
    sqlite, postgres = ([m.name for m in migrations(b)] for b in BACKENDS)
    assert sqlite == postgres
    assert len(sqlite) >= 2


async def test_a_migration_landing_after_a_higher_number_is_still_applied(
    empty_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Numbers are reserved and land in any order: a database that already has a higher
    number applies a lower one it has not recorded."""
    import bot.store.postgres
    import bot.store.sqlite

    module = bot.store.postgres if empty_target.startswith("postgresql") else bot.store.sqlite
    kind = "postgres" if module is bot.store.postgres else "sqlite"
    everything = migrations(kind)
    assert everything[1].name == "0002_sets_planned.sql"
    monkeypatch.setattr(module, "migrations", lambda _: [everything[0], *everything[2:]])
    db = await open_database(empty_target)
    try:
        versions = [r[0] for r in await rows(db, "SELECT version FROM schema_migrations")]
        assert 2 not in versions and len(versions) == len(everything) - 1
    finally:
        await db.close()
    monkeypatch.setattr(module, "migrations", lambda _: everything)
    db = await open_database(empty_target)
    try:
        recorded = await rows(db, "SELECT version FROM schema_migrations ORDER BY version")
        assert [r[0] for r in recorded] == [m.version for m in everything]
        await execute(
            db,
            "INSERT INTO tables (guild_id, channel_id, host_id, ruleset, created_at, "
            "sets_planned) VALUES (1, 10, 100, 'pung-chow', 0, 2)",
        )
    finally:
        await db.close()


async def test_migrated_from_empty_with_every_table_and_index(db: Database) -> None:
    assert await names(db, "table") >= TABLES
    assert await names(db, "index") >= INDEXES
    recorded = await rows(db, "SELECT * FROM schema_migrations ORDER BY version")
    assert [r[:2] for r in recorded] == [(m.version, m.name) for m in migrations(db.kind)]
    again = await open_database(db.target)  # opening an up-to-date store changes nothing
    try:
        assert await rows(again, "SELECT * FROM schema_migrations ORDER BY version") == recorded
    finally:
        await again.close()


async def test_reopening_changes_nothing(db_path: Path) -> None:
    db = await open_database(db_path)
    try:
        assert await scalar(db, "PRAGMA journal_mode") == "wal"
        assert await scalar(db, "PRAGMA user_version") == migrations("sqlite")[-1].version
        await execute(db, "INSERT INTO guild_settings (guild_id, updated_at) VALUES (1, 0)")
        first = await rows(db, "SELECT * FROM schema_migrations")
    finally:
        await db.close()
    again = await open_database(db_path)
    try:
        assert await rows(again, "SELECT * FROM schema_migrations") == first
        assert await scalar(again, "SELECT starting_chips FROM guild_settings") == 1000
    finally:
        await again.close()


@pytest.mark.parametrize("legacy", [1, 2])
async def test_a_database_versioned_by_user_version_is_upgraded_keeping_its_rows(
    db_path: Path, legacy: int
) -> None:
    """Databases from before ``schema_migrations`` recorded their version in
    ``PRAGMA user_version``: their migrations count as applied, later ones run."""
    known = migrations("sqlite")
    with sqlite3.connect(db_path) as old:
        for m in known[:legacy]:
            old.executescript(m.sql)
        old.execute(f"PRAGMA user_version = {legacy}")
        old.execute(
            "INSERT INTO tables (guild_id, channel_id, host_id, ruleset, created_at) "
            "VALUES (1, 10, 100, 'pung-chow', 0)"
        )
        old.execute(
            "INSERT INTO guild_settings (guild_id, starting_chips, updated_at) VALUES (1, 5, 0)"
        )
    old.close()
    db = await open_database(db_path)
    try:
        recorded = await rows(db, "SELECT version, name FROM schema_migrations ORDER BY version")
        assert recorded == [(m.version, m.name) for m in known]
        assert await scalar(db, "PRAGMA user_version") == known[-1].version
        assert await rows(db, "SELECT channel_id, sets_planned FROM tables") == [(10, None)]
        assert await scalar(db, "SELECT starting_chips FROM guild_settings") == 5
    finally:
        await db.close()


async def test_defaults_of_guild_settings(db: Database) -> None:
    await execute(db, "INSERT INTO guild_settings (guild_id, updated_at) VALUES (7, 0)")
    async with db.reading() as unit:
        row = dict(await unit.fetchone("SELECT * FROM guild_settings WHERE guild_id = 7"))
    assert row["ruleset"] == "pung-chow"
    assert (row["starting_chips"], row["turn_seconds"], row["claim_seconds"]) == (1000, 60, 15)
    assert row["allowed_channels"] == "[]" and row["options"] == "{}"


async def _table(db: Database, channel: int, status: str = "lobby") -> int:
    finished = None if status in ("lobby", "playing") else 5
    result = await execute(
        db,
        "INSERT INTO tables (guild_id, channel_id, host_id, ruleset, status, created_at, "
        "finished_at) VALUES (1, ?, 1, 'pung-chow', ?, 0, ?) RETURNING id",
        (channel, status, finished),
    )
    return result.lastrowid


async def test_one_open_table_per_channel(db: Database) -> None:
    await _table(db, 10, "finished")
    await _table(db, 10, "cancelled")
    await _table(db, 10, "playing")
    with pytest.raises(Conflict, match="channel_id"):
        await _table(db, 10, "lobby")
    await _table(db, 11, "lobby")


async def test_events_are_unique_per_table_and_sequence(db: Database) -> None:
    table = await _table(db, 10)
    sql = "INSERT INTO events (table_id, seq, kind, created_at) VALUES (?, ?, 'join', 0)"
    await execute(db, sql, (table, 1))
    with pytest.raises(Conflict):
        await execute(db, sql, (table, 1))
    with pytest.raises(Conflict):
        await execute(db, sql, (999, 1))  # no such table: the foreign key refuses it


async def test_ledger_rows_are_positive_unique_and_between_two_players(db: Database) -> None:
    settlement = await execute(
        db,
        "INSERT INTO settlements (guild_id, kind, ruleset, source_key, created_at) "
        "VALUES (1, 'manual', 'pung-chow', 'k1', 0) RETURNING id",
    )
    sql = (
        "INSERT INTO ledger (settlement_id, guild_id, payer_id, payee_id, amount, created_at) "
        f"VALUES ({settlement.lastrowid}, 1, ?, ?, ?, 0)"
    )
    await execute(db, sql, (1, 2, 10))
    for bad in ((1, 2, 5), (3, 4, 0), (3, 4, -5), (3, 3, 5)):
        with pytest.raises(Conflict):
            await execute(db, sql, bad)
    with pytest.raises(Conflict):  # the same source key twice
        await execute(
            db,
            "INSERT INTO settlements (guild_id, kind, ruleset, source_key, created_at) "
            "VALUES (1, 'hand', 'pung-chow', 'k1', 0)",
        )
    with pytest.raises(Conflict):  # kinds are a closed list
        await execute(
            db,
            "INSERT INTO settlements (guild_id, kind, ruleset, source_key, created_at) "
            "VALUES (1, 'gift', 'pung-chow', 'k2', 0)",
        )
    assert await scalar(db, "SELECT COUNT(*) FROM ledger") == 1


INSERT = "INSERT INTO guild_settings (guild_id, updated_at) VALUES (?, 0)"


async def test_transaction_rolls_back_and_nests(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with db.transaction() as unit:
            await unit.execute(INSERT, (1,))
            async with db.transaction() as inner:  # joins the outer one
                assert inner is unit
                await inner.execute(INSERT, (2,))
            await db.write(INSERT, (4,))  # a write of the task joins its transaction too
            raise RuntimeError("boom")
    assert await scalar(db, "SELECT COUNT(*) FROM guild_settings") == 0
    async with db.transaction() as unit:
        await unit.execute(INSERT, (3,))
    assert await rows(db, "SELECT guild_id FROM guild_settings") == [(3,)]


async def test_concurrent_tasks_never_share_a_transaction(db: Database) -> None:
    """A task that fails and rolls back must not take another task's write with it, and a
    task started inside a transaction is not part of it."""
    started = asyncio.Event()

    async def failing() -> None:
        async with db.transaction() as unit:
            await unit.execute(INSERT, (1,))
            started.set()
            await asyncio.sleep(0.01)
            raise RuntimeError("rolled back")

    async def writing() -> None:
        await started.wait()
        async with db.transaction() as unit:
            await unit.execute(INSERT, (2,))
        await db.write(INSERT, (3,))

    results = await asyncio.gather(failing(), writing(), return_exceptions=True)
    assert isinstance(results[0], RuntimeError) and results[1] is None
    assert await rows(db, "SELECT guild_id FROM guild_settings ORDER BY guild_id") == [(2,), (3,)]


async def test_a_read_sees_only_commits_and_does_not_wait_for_a_writer(db: Database) -> None:
    inside = asyncio.Event()
    finish = asyncio.Event()

    async def writer() -> None:
        async with db.transaction() as unit:
            await unit.execute(INSERT, (1,))
            inside.set()
            await finish.wait()

    task = asyncio.create_task(writer())
    await inside.wait()
    # The writer holds its transaction open: a read answers at once, without its row.
    assert await asyncio.wait_for(scalar(db, "SELECT COUNT(*) FROM guild_settings"), 10) == 0
    finish.set()
    await task
    assert await scalar(db, "SELECT COUNT(*) FROM guild_settings") == 1


async def test_group_commit_answers_each_write_with_its_own_result(db: Database) -> None:
    """Many writes at once, while a transaction holds the writer: each gets its own row
    count or its own error, a failing write takes no other with it, and every write is
    committed when its await returns."""
    await execute(db, INSERT, (0,))
    inside, finish = asyncio.Event(), asyncio.Event()

    async def transaction() -> None:
        async with db.transaction() as unit:
            await unit.execute("UPDATE guild_settings SET ruleset = ruleset WHERE guild_id = 0")
            inside.set()
            await finish.wait()

    holder = asyncio.create_task(transaction())
    await inside.wait()
    writes = [asyncio.ensure_future(db.write(INSERT, (i,))) for i in range(1, 200)]
    writes.insert(50, asyncio.ensure_future(db.write(INSERT, (0,))))  # a repeat: refused alone
    writes.insert(
        100,
        asyncio.ensure_future(
            db.write("UPDATE guild_settings SET ruleset = 'x' WHERE guild_id = -1")
        ),
    )
    groups = getattr(db, "groups", 0)
    finish.set()
    await holder
    results = await asyncio.gather(*writes, return_exceptions=True)
    assert isinstance(results[50], Conflict)
    assert results[100].rowcount == 0
    assert all(r.rowcount == 1 for i, r in enumerate(results) if i not in (50, 100))
    assert await scalar(db, "SELECT COUNT(*) FROM guild_settings") == 200
    if db.kind == "sqlite":
        assert db.groups - groups < 100  # they were grouped, not one commit each


async def test_a_statement_outside_a_unit_of_work_is_refused(db: Database) -> None:
    from bot.store.base import Repository

    with pytest.raises(StoreError, match="outside"):
        await Repository(db).execute(INSERT, (1,))
    async with db.reading():
        with pytest.raises(StoreError, match="inside reading"):
            async with db.transaction():
                pass


def test_mahjong_db_chooses_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import Settings
    from bot.store.database import is_postgres

    url = "postgresql://bot:secret@db.example:5432/mahjong"
    monkeypatch.setenv("MAHJONG_DB", url)
    settings = Settings.from_env(require_token=False)
    assert settings.database == url and is_postgres(settings.database)  # the // kept
    monkeypatch.setenv("MAHJONG_DB", "data/x.sqlite3")
    settings = Settings.from_env(require_token=False)
    # A relative path is taken from the working folder and made absolute (bot/config.py).
    assert settings.database == Path.cwd() / "data" / "x.sqlite3"
    assert not is_postgres(settings.database)


async def test_a_batch_commits_together_or_not_at_all(db: Database) -> None:
    from bot.store.backend import Refused, Statement

    rename = "UPDATE guild_settings SET ruleset = 'x' WHERE guild_id = ?"
    done = await db.batch([Statement(INSERT, (1,)), Statement(rename, (1,), guard=True)])
    assert [r.rowcount for r in done] == [1, 1]
    with pytest.raises(Refused) as refused:  # the guard changed nothing: the insert is undone
        await db.batch([Statement(INSERT, (2,)), Statement(rename, (99,), guard=True)])
    assert refused.value.index == 1
    with pytest.raises(Conflict):  # an error undoes the batch too
        await db.batch([Statement(INSERT, (5,)), Statement(INSERT, (1,))])
    async with db.transaction():  # inside a transaction a refused batch undoes only itself
        await db.write(INSERT, (3,))
        with pytest.raises(Refused):
            await db.batch([Statement(INSERT, (4,)), Statement(rename, (99,), guard=True)])
    assert await rows(db, "SELECT guild_id, ruleset FROM guild_settings ORDER BY guild_id") == [
        (1, "x"),
        (3, "pung-chow"),
    ]


def test_a_migration_left_in_the_old_folder_is_refused_not_skipped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Before the per-backend folders migrations sat in bot/store/migrations/ itself; one
    landed there now would never run, so the runner refuses to start and says what to do."""
    import shutil

    import bot.store.migrations as package

    copy = tmp_path / "migrations"
    shutil.copytree(Path(package.__file__).parent, copy)
    (copy / "0003_lifecycle.sql").write_text("CREATE TABLE x (id INTEGER)")

    class Files:
        @staticmethod
        def files(_name: str) -> Path:
            return copy

    monkeypatch.setattr(package, "resources", Files)
    with pytest.raises(RuntimeError, match="move each to sqlite/"):
        migrations("sqlite")
    (copy / "0003_lifecycle.sql").unlink()
    assert [m.name for m in migrations("sqlite")] == [m.name for m in migrations("postgres")]


async def test_a_write_whose_caller_is_cancelled_still_commits_whole(db: Database) -> None:
    """A move's task cancelled while its event is being committed (the bot shutting down):
    the write was handed over and commits or fails as a whole, never half."""
    task = asyncio.create_task(db.write(INSERT, (1,)))
    await asyncio.sleep(0)
    task.cancel()
    # Cancelled while in flight, or already done: SQLite commits on the spot when the
    # writer is free, so the write may have ended before the cancel came.
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for _ in range(500):  # wait for the group to end: a later write comes after it
        if await scalar(db, "SELECT COUNT(*) FROM guild_settings WHERE guild_id = 1"):
            break
        await db.write("UPDATE guild_settings SET ruleset = ruleset WHERE guild_id = 0")
    assert await scalar(db, "SELECT COUNT(*) FROM guild_settings WHERE guild_id = 1") == 1


def test_a_write_that_makes_sqlite_roll_the_whole_group_back_fails_them_all() -> None:
    """Some errors make SQLite roll the whole transaction back by itself (disk full, I/O
    error; here a trigger's RAISE(ROLLBACK)). Every write of the group was undone, so every
    caller must hear so, with the cause, and no later write of the group may run on its own
    outside the transaction (it would commit while its caller is told it failed)."""
    from bot.store.backend import Statement
    from bot.store.sqlite import _group

    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.execute(
        "CREATE TRIGGER no99 BEFORE INSERT ON t WHEN new.x = 99 "
        "BEGIN SELECT RAISE(ROLLBACK, 'the disk is full'); END"
    )
    insert = "INSERT INTO t (x) VALUES (?)"
    results = _group(
        conn, [[Statement(insert, (1,))], [Statement(insert, (99,))], [Statement(insert, (2,))]]
    )
    assert all(isinstance(r, BaseException) for r in results), results
    assert all("the disk is full" in str(r) for r in results), results
    assert conn.execute("SELECT x FROM t").fetchall() == []
    assert not conn.in_transaction
    # A batch (with its savepoint) keeps the cause too.
    results = _group(conn, [[Statement(insert, (3,)), Statement(insert, (99,))]])
    assert (
        "the disk is full" in str(results[0]) and conn.execute("SELECT x FROM t").fetchall() == []
    )


async def test_an_existing_sqlite_database_is_copied_before_it_is_migrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update's migrations run by themselves at start; the database as it was is kept
    beside it first, so a bad update can be undone. A new database is not copied."""
    import bot.store.sqlite
    from bot.store.migrations import Migration

    path = tmp_path / "mahjong.sqlite3"
    db = await open_database(path)
    await execute(
        db,
        "INSERT INTO tables (guild_id, channel_id, host_id, ruleset, created_at, "
        "sets_planned) VALUES (1, 10, 100, 'pung-chow', 0, 2)",
    )
    await db.close()
    assert not list(tmp_path.glob("*.before-*")), "a new database was copied"
    everything = migrations("sqlite")
    last = everything[-1].version
    later = Migration(last + 1, f"{last + 1:04d}_later.sql", "CREATE TABLE later (a INTEGER);")
    monkeypatch.setattr(bot.store.sqlite, "migrations", lambda _: [*everything, later])
    db = await open_database(path)
    try:
        assert await scalar(db, "PRAGMA user_version") == last + 1
    finally:
        await db.close()
    copy = tmp_path / f"mahjong.sqlite3.before-v{last}"
    with sqlite3.connect(copy) as old:
        assert old.execute("PRAGMA user_version").fetchone()[0] == last
        assert old.execute("SELECT COUNT(*) FROM tables").fetchone()[0] == 1
        assert not old.execute("SELECT name FROM sqlite_master WHERE name = 'later'").fetchall()


async def test_a_group_commit_does_not_stop_the_bot_while_another_process_writes(
    tmp_path: Path,
) -> None:
    """Group commits run on the event loop's thread; when another process holds the write
    lock (``mahjong-bot migrate-db``, a copy), the group waits on the writer thread instead,
    so the loop goes on meanwhile, and the write lands once the lock is free."""
    path = tmp_path / "locked.sqlite3"
    db = await open_database(path)
    try:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        write = asyncio.create_task(db.write(INSERT, (7,)))
        turns = 0
        for _ in range(20):  # the loop keeps turning: other tasks run while the write waits
            await asyncio.sleep(0)
            turns += 1
        assert turns == 20 and not write.done()
        other.execute("COMMIT")
        other.close()
        assert (await asyncio.wait_for(write, 30)).rowcount == 1
        assert await scalar(db, "SELECT COUNT(*) FROM guild_settings WHERE guild_id = 7") == 1
    finally:
        await db.close()


async def test_the_write_ahead_log_is_checkpointed_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer never checkpoints (a checkpoint fsyncs, and its commits run on the loop):
    a connection of its own copies the WAL into the database while writes go on, and once
    more when the database closes. Read with ``immutable=1`` (the file alone, not the WAL),
    the rows are there."""
    import bot.store.sqlite

    monkeypatch.setattr(bot.store.sqlite, "CHECKPOINT_EVERY", 0.01)
    path = tmp_path / "wal.sqlite3"

    def in_the_file() -> int:
        with contextlib.closing(sqlite3.connect(f"file:{path}?immutable=1", uri=True)) as f:
            try:
                return f.execute("SELECT COUNT(*) FROM guild_settings").fetchone()[0]
            except sqlite3.OperationalError:  # not even the schema is in the file yet
                return -1

    db = await open_database(path)
    try:
        writer = db._writer.conn  # type: ignore[attr-defined]
        assert writer.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        # ``immutable=1`` takes no lock, so a read while a checkpoint writes pages can see a
        # torn file ("malformed"). Read on the checkpointer's own thread, between its
        # checkpoints: nothing else writes the file while the database is open.
        checkpointer = db._checkpointer  # type: ignore[attr-defined]
        await asyncio.gather(*(db.write(INSERT, (i,)) for i in range(50)))
        for _ in range(3000):  # a checkpoint comes within about 10 ms; generous for load
            if await checkpointer.call(in_the_file) == 50:
                break
            await asyncio.sleep(0.01)
        assert await checkpointer.call(in_the_file) == 50
        await db.write(INSERT, (50,))
    finally:
        await db.close()
    assert in_the_file() == 51


async def test_a_write_with_the_writer_free_is_committed_without_a_turn_of_the_loop(
    tmp_path: Path,
) -> None:
    """With nothing else waiting for the writer, a write commits on the spot: its await
    returns without the loop running anything else meanwhile (each turn of a loop busy with
    200 tables was tens of milliseconds added to answering a click)."""
    db = await open_database(tmp_path / "now.sqlite3")
    try:
        ran: list[str] = []
        other = asyncio.get_running_loop().call_soon(ran.append, "other")
        result = await db.write(INSERT, (1,))
        assert result.rowcount == 1 and ran == []  # the callback queued first has not run
        other.cancel()
        # ... and it is committed: another connection sees it.
        with contextlib.closing(sqlite3.connect(tmp_path / "now.sqlite3")) as conn:
            assert conn.execute("SELECT COUNT(*) FROM guild_settings").fetchone()[0] == 1
    finally:
        await db.close()


async def test_a_transaction_runs_on_the_loop_and_waits_off_it_for_another_process(
    tmp_path: Path,
) -> None:
    """A transaction's statements run without a turn of the loop; its BEGIN, when another
    process holds the write lock, waits on the writer thread while the loop goes on."""
    path = tmp_path / "unit.sqlite3"
    db = await open_database(path)
    try:
        ran: list[str] = []
        other_callback = asyncio.get_running_loop().call_soon(ran.append, "other")
        async with db.transaction() as unit:
            await unit.execute(INSERT, (1,))
            await unit.execute(INSERT, (2,))
        assert ran == []  # two statements and a commit, and nothing else ran meanwhile
        other_callback.cancel()

        async def write_two() -> None:
            async with db.transaction() as unit:
                await unit.execute(INSERT, (3,))
                await unit.execute(INSERT, (4,))

        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        task = asyncio.create_task(write_two())
        for _ in range(20):
            await asyncio.sleep(0)
        assert not task.done()
        other.execute("COMMIT")
        other.close()
        await asyncio.wait_for(task, 30)
        assert await scalar(db, "SELECT COUNT(*) FROM guild_settings") == 4
    finally:
        await db.close()
