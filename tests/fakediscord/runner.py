"""Starting and stopping real discord.py clients against the fake server.

Tests hand over a ``commands.Bot`` (or any ``discord.Client``); the runner logs it in with the
fake token, runs ``connect()`` in a task, waits for ``on_ready`` and, at teardown, closes the
bot and waits for its task so nothing outlives the test's event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, TypeVar

import discord

from .server import FakeDiscordTimeout

if TYPE_CHECKING:
    from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)


class BotRunner:
    """Runs bots against one fake server and shuts them all down cleanly."""

    def __init__(self, server: FakeDiscord) -> None:
        self.server = server
        self.bots: list[tuple[discord.Client, asyncio.Task[None] | None]] = []

    async def start(
        self,
        bot: ClientT,
        *,
        wait_ready: bool = True,
        timeout: float = 10.0,
        guild_ready_timeout: float | None = 0.2,
    ) -> ClientT:
        """Log in, connect in the background and (by default) wait for on_ready.

        discord.py waits `guild_ready_timeout` (2 s by default) after the last GUILD_CREATE
        before firing on_ready; the fake sends every guild right after READY, so the runner
        shortens it unless told otherwise (pass None to keep the bot's own value).
        """
        if guild_ready_timeout is not None:
            bot._connection.guild_ready_timeout = guild_ready_timeout
        entry_index = len(self.bots)
        self.bots.append((bot, None))
        await bot.login(self.server.token)
        task = asyncio.create_task(bot.connect(reconnect=True), name=f"fakediscord-bot-{id(bot)}")
        self.bots[entry_index] = (bot, task)
        if wait_ready:
            ready = asyncio.create_task(bot.wait_until_ready())
            done, _ = await asyncio.wait(
                {ready, task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if ready not in done:
                ready.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await ready
                if task in done:
                    task.result()  # re-raise why connect() ended
                    raise AssertionError("the bot's connect() returned before on_ready")
                raise FakeDiscordTimeout(
                    f"bot not ready after {timeout:g}s\n" + self.server.describe_recent()
                )
        return bot

    async def close_all(self) -> None:
        """Close every bot (newest first) and wait for its connect task to end."""
        errors: list[BaseException] = []
        while self.bots:
            bot, task = self.bots.pop()
            await bot.close()
            _stop_views(bot)
            if task is None:
                continue
            try:
                await asyncio.wait_for(task, timeout=5.0)
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]


def _stop_views(bot: discord.Client) -> None:
    """Stop views still listening, so their timeout tasks don't outlive the event loop."""
    store = bot._connection._view_store
    views = {item.view for items in store._views.values() for item in items.values() if item.view}
    views |= set(store._synced_message_views.values()) | set(store._modals.values())
    for view in views:
        view.stop()
