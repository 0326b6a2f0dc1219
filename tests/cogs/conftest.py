"""A small real bot for the cog tests: the scoring and ledger cogs on real services over a
SQLite file, connected to the fake Discord (tests/fakediscord)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.app import SERVER_CONTEXTS, SERVER_INSTALLS
from bot.drawing import Drawing
from bot.services import build_services
from bot.store.database import open_database
from tests.store.helpers import FakeClock


class CogBot(commands.Bot):
    """Like the real bot (guilds intent only, the services on ``bot.services``), with just the
    cogs under test."""

    __test__ = False

    def __init__(self, database: Path, clock: FakeClock, cogs: tuple[str, ...]) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        # The real bot's defaults: commands are for servers, installed with the bot, unless a
        # command widens its own (bot/app.py).
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_contexts=SERVER_CONTEXTS,
            allowed_installs=SERVER_INSTALLS,
        )
        self.database = database
        self.clock = clock
        self.cog_names = cogs
        self.db: Any = None
        self.services: Any = None
        self.drawing = Drawing(processes=0)  # score cards, as the real bot draws them

    async def setup_hook(self) -> None:
        self.db = await open_database(self.database)
        self.services = build_services(self, self.db, clock=self.clock, tables=False)
        for name in self.cog_names:
            await self.load_extension(name)
        await self.tree.sync()

    async def close(self) -> None:
        await super().close()
        await self.drawing.close()
        if self.db is not None:
            await self.db.close()
            self.db = None


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def start_bot(run_bot: Any, tmp_path: Path, clock: FakeClock) -> Callable[..., Awaitable[CogBot]]:
    """``await start_bot()`` runs a bot with both cogs on ``tmp_path/db.sqlite3``; calling it
    again (after closing the first) is a restart on the same database."""

    async def start(cogs: tuple[str, ...] = ("cogs.scoring", "cogs.ledger")) -> CogBot:
        bot = CogBot(tmp_path / "db.sqlite3", clock, cogs)
        await run_bot.start(bot)
        return bot

    return start
