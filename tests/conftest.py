"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pathlib import Path

    from fakediscord import FakeDiscord, World
    from fakediscord.runner import BotRunner

    from bot.store.backend import Database

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
# Stores: ``db`` is a fresh, migrated store for one test, on each backend.
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "mahjong.sqlite3"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    from bot.store.database import open_database

    store = await open_database(db_path)
    try:
        yield store
    finally:
        await store.close()
