"""What Discord does to a table's place, heard from the gateway and told to the table service.

Thin: each listener finds the tables concerned and calls the service, which decides (see
:mod:`bot.service.tables.lifecycle`). Permissions are computed from discord.py's cache (the
gateway keeps it current), so checking every table after a role change costs no request:

- CHANNEL_DELETE / THREAD_DELETE: the tables playing there, or at home there, end.
- GUILD_DELETE (the bot removed, not an outage): every table of the server ends.
- THREAD_UPDATE archived: a table still open unarchives its thread (the bot may, as it may
  post there); locked by a moderator, the table ends.
- CHANNEL_UPDATE, THREAD_UPDATE, GUILD_ROLE_UPDATE, GUILD_MEMBER_UPDATE of the bot itself, and
  a (re)connection: the bot's permissions are computed again where each table plays; a table
  missing one pauses, and resumes once nothing is missing.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.ext import commands

from bot.permissions import PERMISSION_NAMES, missing_in
from bot.service.tables import LiveTable, TableError, TableService

log = logging.getLogger(__name__)

# A table playing in a channel (no thread of its own) needs no thread permission.
_THREAD_ONLY = frozenset(
    {PERMISSION_NAMES["create_public_threads"], PERMISSION_NAMES["send_messages_in_threads"]}
)


class TableLifecycleCog(commands.Cog):
    def __init__(self, bot: Any, service: TableService) -> None:
        self.bot = bot
        self.service = service

    # -- deletions -----------------------------------------------------------------------------
    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.service.channel_deleted(channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.service.channel_deleted(payload.thread_id)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.service.guild_removed(guild.id)

    # -- threads -------------------------------------------------------------------------------
    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        metadata = payload.data.get("thread_metadata", {})
        if metadata.get("archived"):
            table = await self.service.thread_archived(
                payload.thread_id, bool(metadata.get("locked"))
            )
            if table is not None:
                await self._unarchive(table, payload)
        for table in self.service.tables_in(payload.thread_id):
            await self.check(table)

    async def _unarchive(self, table: LiveTable, payload: discord.RawThreadUpdateEvent) -> None:
        """Take the table's thread back from the archive; if Discord refuses, the table's
        next post would fail the same way, so the table ends instead of failing on."""
        thread = payload.thread or self.bot.get_channel(payload.thread_id)
        try:
            if thread is None:
                thread = await self.bot.fetch_channel(payload.thread_id)
            await thread.edit(archived=False)
            log.info("table %s: unarchived its thread", table.id)
        except discord.NotFound:
            await self.service.channel_lost(table.id, "its thread was deleted")
        except discord.HTTPException as exc:
            log.warning("table %s: could not unarchive its thread (%s)", table.id, exc)
            await self.service.close_for(table, "its thread was archived and cannot be reopened")

    # -- permissions ---------------------------------------------------------------------------
    @commands.Cog.listener()
    async def on_guild_channel_update(
        self, before: discord.abc.GuildChannel, after: discord.abc.GuildChannel
    ) -> None:
        for table in self.service.live_tables():
            if (
                after.id in (table.channel_id, table.home_channel_id)
                or self._parent_of(table) == after.id
            ):
                await self.check(table)

    @commands.Cog.listener()
    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        await self.check_guild(after.guild.id)

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        if self.bot.user is not None and after.id == self.bot.user.id:
            await self.check_guild(after.guild.id)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """After a (re)start, a table paused before it, or paused while the bot was away,
        is resumed or paused from what Discord says now; a lobby whose thread was being
        opened when the bot stopped gets it."""
        for table in self.service.live_tables():
            if table.thread_pending and table.restored and table.summary_message_id:
                await self.open_thread(table)  # not one the cog is opening right now
            await self.check(table)

    async def open_thread(self, table: LiveTable) -> None:
        """The thread of a lobby posted before a stop: the one started from its message if
        Discord made it, else a new one; failing that, the table plays in its channel."""
        from cogs.table import THREAD_ARCHIVE_MINUTES, thread_name

        home = table.home_channel_id
        if home is None or table.summary_message_id is None:
            return
        try:
            channel = self.bot.get_channel(home) or await self.bot.fetch_channel(home)
            message = await channel.fetch_message(table.summary_message_id)
            thread = message.thread or await message.create_thread(
                name=thread_name(table), auto_archive_duration=THREAD_ARCHIVE_MINUTES
            )
            await self.service.place_in_thread(table.id, thread.id, message.id)
        except discord.HTTPException as exc:
            log.warning("table %s: could not open its thread after a restart (%s)", table.id, exc)
            try:
                await self.service.play_in_channel(table.id)
            except TableError as refused:
                log.info("table %s: %s", table.id, refused)

    async def check_guild(self, guild_id: int) -> None:
        for table in self.service.tables_of_guild(guild_id):
            await self.check(table)

    def _parent_of(self, table: LiveTable) -> int | None:
        channel = self.bot.get_channel(table.channel_id)
        return getattr(channel, "parent_id", None)

    async def check(self, table: LiveTable) -> None:
        """Compute the bot's permissions where the table plays and tell the service."""
        channel = self.bot.get_channel(table.channel_id)
        if channel is None:
            # Not in the cache (an archived thread after a restart, or gone): ask once.
            try:
                channel = await self.bot.fetch_channel(table.channel_id)
            except discord.NotFound:
                await self.service.channel_lost(table.id, "its channel or thread is gone")
                return
            except discord.Forbidden:
                await self.service.permissions_checked(table.id, [PERMISSION_NAMES["view_channel"]])
                return
            except discord.HTTPException as exc:
                log.warning("table %s: could not look up its channel (%s)", table.id, exc)
                return
        guild = getattr(channel, "guild", None)
        me = guild.me if guild is not None else None
        if me is None or not hasattr(channel, "permissions_for"):
            return
        in_thread = isinstance(channel, discord.Thread)
        missing = missing_in(channel.permissions_for(me), in_thread=in_thread)
        if not in_thread:
            missing = [name for name in missing if name not in _THREAD_ONLY]
        if in_thread and getattr(channel, "locked", False) and getattr(channel, "archived", False):
            await self.service.close_for(table, "its thread was locked by a moderator")
            return
        await self.service.permissions_checked(table.id, missing)


async def setup(bot: Any) -> None:
    await bot.add_cog(TableLifecycleCog(bot, bot.services.tables))
