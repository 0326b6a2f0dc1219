"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

    from fakediscord import FakeDiscord, World
    from fakediscord.runner import BotRunner

    from bot.store.backend import Database
    from tests.store.postgres_server import PostgresServer

# ---------------------------------------------------------------------------------------------
# Fake Discord server (tests/fakediscord): fixtures for end-to-end bot tests.
# See tests/fakediscord/README.md. Imports are inside the fixtures so that test runs that never
# use them do not pay for importing discord.py and aiohttp. Add other fixtures outside this
# section.
# ---------------------------------------------------------------------------------------------


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A fake Discord on 127.0.0.1 that discord.py is pointed at for the test.

    At teardown it fails the test if the fake recorded problems (unknown routes, requests
    Discord would reject, protocol errors, attempted internet access).
    """
    from fakediscord import FakeDiscord

    server = FakeDiscord()
    async with server.running():
        yield server
    server.check()


@pytest.fixture
def discord_world(fake_discord: FakeDiscord) -> World:
    """The standard guild/channel/roles/users (see fakediscord/world.py) on the fake."""
    from fakediscord import build_world

    return build_world(fake_discord)


@pytest.fixture
async def run_bot(fake_discord: FakeDiscord) -> AsyncIterator[BotRunner]:
    """`await run_bot.start(bot)` connects a discord.py client; teardown closes it."""
    from fakediscord.runner import BotRunner

    runner = BotRunner(fake_discord)
    try:
        yield runner
    finally:
        await runner.close_all()


# ------------------------------------------------------------------------ end of fake Discord


# ---------------------------------------------------------------------------------------------
# Stores: ``db`` is a fresh, migrated store for one test, on each backend (SQLite, PostgreSQL).
# PostgreSQL: one server per session (tests/store/postgres_server.py), started only when a
# test needs it; ``db`` tests share one migrated database emptied (TRUNCATE) before each test,
# tests that need their own get one copied from a migrated template. Tests on it carry the
# ``postgres`` marker (``-m "not postgres"`` leaves them out).
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "mahjong.sqlite3"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    from tests.store.postgres_server import HOW_TO_GET, PostgresServer, find_binaries

    binaries = find_binaries()
    if binaries is None:
        pytest.skip(HOW_TO_GET)
    server = PostgresServer(binaries)
    try:
        server.start()
        yield server
    finally:
        server.stop()


async def fresh_postgres_database(server: PostgresServer, *, migrated: bool = True) -> str:
    """A new database on ``server`` (migrated, or empty); returns its URL."""
    import asyncpg

    from bot.store.database import open_database
    from tests.store.postgres_server import TEMPLATE

    admin = await asyncpg.connect(server.url())
    try:
        if not getattr(server, "template_ready", False):
            await admin.execute(f"CREATE DATABASE {TEMPLATE}")
            await (await open_database(server.url(TEMPLATE))).close()
            server.template_ready = True
        name = server.next_name()
        template = TEMPLATE if migrated else "template0"
        await admin.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
    finally:
        await admin.close()
    return server.url(name)


async def drop_postgres_database(server: PostgresServer, url: str) -> None:
    import asyncpg

    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")
    finally:
        await admin.close()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def db(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[Database]:
    from bot.store.database import open_database

    if request.param == "sqlite":
        store = await open_database(db_path)
        try:
            yield store
        finally:
            await store.close()
        return
    server = request.getfixturevalue("postgres_server")
    url = await emptied_postgres_database(server)
    store = await open_database(url)
    try:
        yield store
    finally:
        await store.close()


async def emptied_postgres_database(server: PostgresServer) -> str:
    """One migrated database for the session's ``db`` tests, emptied before each (TRUNCATE
    with the identities restarted: much cheaper than a database per test)."""
    import asyncpg

    url = getattr(server, "shared_url", None)
    if url is None:
        url = server.shared_url = await fresh_postgres_database(server)
    conn = await asyncpg.connect(url)
    try:
        names = [
            r["tablename"]
            for r in await conn.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename <> 'schema_migrations'"
            )
        ]
        await conn.execute(f"TRUNCATE {', '.join(names)} RESTART IDENTITY CASCADE")
    finally:
        await conn.close()
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def empty_target(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[str]:
    """What ``open_database`` takes for a store that does not exist yet (no tables), on each
    backend: a SQLite path, or the URL of an empty PostgreSQL database."""
    if request.param == "sqlite":
        yield str(db_path)
        return
    server = request.getfixturevalue("postgres_server")
    url = await fresh_postgres_database(server, migrated=False)
    try:
        yield url
    finally:
        await drop_postgres_database(server, url)


@pytest.fixture
async def postgres_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """The URL of a fresh migrated PostgreSQL database (for a whole bot: end-to-end tests)."""
    server = request.getfixturevalue("postgres_server")
    url = await fresh_postgres_database(server)
    try:
        yield url
    finally:
        await drop_postgres_database(server, url)


# The bot's data folder (bot/config.py) defaults to ~/.local/share/mahjong-bot: no test may
# read or write the real one, and child processes inherit the same empty folder.
def pytest_configure(config: pytest.Config) -> None:
    import os
    import tempfile

    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="mahjong-test-xdg-")
    os.environ.pop("MAHJONG_DATA_DIR", None)


# The longest tests (CI's --durations), longest first. In a parallel run (pytest-xdist:
# ``pytest -n 3``) the slow tests start first, so no worker is left running one of them alone
# at the end while the others are idle; the quick ones fill the gaps. A serial run keeps the
# usual order. (-n 3 at load 8-10: 8 min 46 s instead of ~14 min, but it is not CI's command
# yet: with three tests at once, tests/e2e/test_process.py's SIGINT case logs "Session is
# closed" for a click answered while the bot shuts down, a race in the bot's shutdown.)
LONGEST_FIRST = (
    "tests/e2e/test_restart.py",
    "tests/e2e/test_what_members_see.py",
    "tests/game/test_properties.py::test_many_more_random_games",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    import os

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return

    def rank(item: pytest.Item) -> int:
        for n, prefix in enumerate(LONGEST_FIRST):
            if item.nodeid.startswith(prefix):
                return n
        return len(LONGEST_FIRST) if item.get_closest_marker("slow") else len(LONGEST_FIRST) + 1

    items.sort(key=rank)  # stable: the usual order within each rank
