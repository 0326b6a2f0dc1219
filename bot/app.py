"""The Discord application: the bot object, its start-up and shut-down.

Start-up (``setup_hook``): start the drawing processes (:mod:`bot.drawing`) in the
background, open and migrate the database, build the services, load the cogs,
sync the slash commands (to ``MAHJONG_DEV_GUILD`` at once when set, globally otherwise),
restore every open table from its events, then upload the tile emojis in the background.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
from discord.ext import commands

from bot.config import Settings
from bot.drawing import Drawing
from bot.store.database import open_database

log = logging.getLogger(__name__)

COGS = ("cogs.scoring", "cogs.ledger", "cogs.table")


class MahjongBot(commands.Bot):
    """The bot. Services hang off ``bot.services``; cogs stay thin and call them."""

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        # No privileged intents: slash commands and components need none.
        intents = discord.Intents.none()
        intents.guilds = True
        # Names are shown as typed: a nickname such as "@everyone" must not ping anyone. The
        # few messages meant to ping a member say so themselves.
        kwargs.setdefault("allowed_mentions", discord.AllowedMentions.none())
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents, help_command=None, **kwargs
        )
        self.settings = settings
        self.db: Any = None
        self.services: Any = None
        self.drawing = Drawing(settings.drawing_processes)
        self._background: set[asyncio.Task[Any]] = set()

    async def setup_hook(self) -> None:
        from bot.services import build_services

        self.drawing.start()
        self.db = await open_database(self.settings.database)
        self.services = build_services(self, self.db)
        for name in COGS:
            try:
                await self.load_extension(name)
            except commands.ExtensionNotFound:
                log.warning("cog %s is not available yet", name)
        await self.sync_commands()
        await self.services.start()

    async def sync_commands(self) -> None:
        if self.settings.dev_guild:
            guild = discord.Object(self.settings.dev_guild)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), self.settings.dev_guild)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))

    def spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference and logging its failure."""
        task = asyncio.create_task(coro, name=name)
        self._background.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._background.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("background task %s failed", name, exc_info=t.exception())

        task.add_done_callback(done)
        return task

    async def close(self) -> None:
        if self.services is not None:
            await self.services.stop()
        for task in list(self._background):
            task.cancel()
        await super().close()
        await self.drawing.close()
        if self.db is not None:
            await self.db.close()
            self.db = None


def run(settings: Settings) -> None:
    bot = MahjongBot(settings)
    bot.run(settings.token, log_handler=None)
