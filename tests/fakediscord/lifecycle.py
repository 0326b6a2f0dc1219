"""What time and moderators do to a guild: threads come and go, channels are deleted,
permissions change, the bot is removed.

Every change here is made to the records first and then announced with the gateway event
Discord sends for it, so the bot learns about it the way it would in production:

| change                                | event             | later requests                   |
|---------------------------------------|-------------------|----------------------------------|
| thread created (REST)                 | THREAD_CREATE     |                                  |
| thread archived / unarchived / locked | THREAD_UPDATE     | edit, delete, react: 400 50083   |
| thread deleted                        | THREAD_DELETE     | 404 10003 Unknown Channel        |
| channel deleted (its threads go too)  | CHANNEL_DELETE    | 404 10003 Unknown Channel        |
| channel overwrites changed            | CHANNEL_UPDATE    | 403 50001 / 50013 as computed    |
| role permissions changed              | GUILD_ROLE_UPDATE | 403 50001 / 50013 as computed    |
| bot removed from the guild            | GUILD_DELETE      | 403 50001 Missing Access         |

Discord sends no THREAD_DELETE for the threads of a deleted channel (discord.py drops them
itself on CHANNEL_DELETE); the fake does the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .gateway import Intent
from .state import ChannelRecord, ChannelType, GuildRecord, RoleRecord, UserRecord, iso_now

if TYPE_CHECKING:
    from .server import FakeDiscord

ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)  # minutes, the only values Discord accepts


class Lifecycle:
    """The operations behind FakeDiscord's lifecycle helpers (and the thread routes)."""

    def __init__(self, server: FakeDiscord) -> None:
        self.server = server
        self.state = server.state

    # -- threads --------------------------------------------------------------------------------

    async def create_thread(
        self,
        parent: ChannelRecord,
        name: str,
        *,
        owner: UserRecord,
        thread_type: int = ChannelType.PUBLIC_THREAD,
        auto_archive_duration: int = 4320,
        starter_id: int | None = None,
        invitable: bool = True,
    ) -> ChannelRecord:
        """A new thread under `parent`, with THREAD_CREATE; from a message, the thread takes
        the message's id. A public thread started without a message leaves a "started a
        thread" system message (type 18) in the parent, as Discord does."""
        guild = self.state.guild_of(parent)
        assert guild is not None
        thread = self.state.create_channel(
            guild,
            name,
            type=thread_type,
            parent_id=parent.id,
            owner_id=owner.id,
            channel_id=starter_id,
        )
        thread.auto_archive_duration = auto_archive_duration
        thread.invitable = invitable
        thread.last_active = self.server.now()
        thread.thread_members.add(owner.id)
        if starter_id is not None:
            self.state.messages[starter_id].thread = thread
        payload = thread.payload()
        await self.server.gateway.dispatch(
            "THREAD_CREATE", {**payload, "newly_created": True}, intent=Intent.GUILDS
        )
        if starter_id is None and thread_type == ChannelType.PUBLIC_THREAD:
            await self.server.create_message(
                parent,
                author=owner,
                body={"content": name},
                uploads={},
                msg_type=18,
                reference={
                    "type": 0,
                    "channel_id": str(thread.id),
                    "guild_id": str(guild.id),
                },
            )
        elif starter_id is not None:
            starter = self.state.messages[starter_id]
            await self.server.dispatch_message_update(starter)
        self.server.notify()
        return thread

    async def touch(self, thread: ChannelRecord, actor: UserRecord) -> None:
        """A message is posted in a thread: it counts as activity, and an archived thread
        is unarchived by it (the caller has checked the poster may do so)."""
        thread.last_active = self.server.now()
        thread.thread_members.add(actor.id)
        if thread.archived:
            await self.set_archived(thread, archived=False)

    async def set_archived(
        self, thread: ChannelRecord, *, archived: bool, locked: bool | None = None
    ) -> None:
        """Archive or unarchive (and lock or unlock) a thread, with THREAD_UPDATE."""
        thread.archived = archived
        if locked is not None:
            thread.locked = locked
        thread.archive_timestamp = iso_now()
        if not archived:
            thread.last_active = self.server.now()
        await self.update_thread(thread)

    async def update_thread(self, thread: ChannelRecord) -> None:
        await self.server.gateway.dispatch("THREAD_UPDATE", thread.payload(), intent=Intent.GUILDS)
        self.server.notify()

    async def auto_archive(self) -> list[ChannelRecord]:
        """Archive every thread idle for longer than its auto_archive_duration."""
        now = self.server.now()
        done = []
        for thread in list(self.state.channels.values()):
            if not thread.is_thread or thread.deleted or thread.archived:
                continue
            if now - thread.last_active >= thread.auto_archive_duration * 60:
                await self.set_archived(thread, archived=True)
                done.append(thread)
        return done

    # -- deleting -------------------------------------------------------------------------------

    async def delete_channel(self, channel: ChannelRecord) -> None:
        """Delete a channel (CHANNEL_DELETE, its threads silently) or a thread (THREAD_DELETE).

        The records stay, flagged `deleted`, so tests can still read what was there.
        """
        if channel.is_dm:
            raise AssertionError("DM channels cannot be deleted")
        if channel.deleted:
            raise AssertionError(f"channel {channel.name} is already deleted")
        guild = self.state.guilds[channel.guild_id] if channel.guild_id else None
        payload = channel.payload()
        channel.deleted = True
        if channel.is_thread:
            await self.server.gateway.dispatch(
                "THREAD_DELETE", channel.delete_payload(), intent=Intent.GUILDS
            )
        else:
            for thread in self.state.threads_of(channel):
                thread.deleted = True
            if guild is not None and channel.id in guild.channel_ids:
                guild.channel_ids.remove(channel.id)
            await self.server.gateway.dispatch("CHANNEL_DELETE", payload, intent=Intent.GUILDS)
        self.server.notify()

    # -- permissions ----------------------------------------------------------------------------

    async def set_overwrite(
        self, channel: ChannelRecord, target: Any, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Set (or with allow=deny=0, remove) one overwrite on a channel; CHANNEL_UPDATE."""
        if channel.is_thread or channel.is_dm:
            raise AssertionError("overwrites live on guild channels (threads use their parent's)")
        if isinstance(target, RoleRecord):
            target_id, kind = target.id, 0
        elif isinstance(target, GuildRecord):
            target_id, kind = target.id, 0  # @everyone
        else:
            target_id, kind = self.server.user_record(target).id, 1
        rest = [o for o in channel.overwrites if int(o["id"]) != target_id]
        if allow or deny:
            rest.append(
                {
                    "id": str(target_id),
                    "type": kind,
                    "allow": str(int(allow)),
                    "deny": str(int(deny)),
                }
            )
        await self.set_overwrites(channel, rest)

    async def set_overwrites(
        self, channel: ChannelRecord, overwrites: list[dict[str, Any]]
    ) -> None:
        """Replace a channel's permission overwrites; CHANNEL_UPDATE."""
        channel.overwrites = [
            {
                "id": str(o["id"]),
                "type": int(o.get("type", 0)),
                "allow": str(int(o.get("allow", 0))),
                "deny": str(int(o.get("deny", 0))),
            }
            for o in overwrites
        ]
        await self.server.gateway.dispatch(
            "CHANNEL_UPDATE", channel.payload(), intent=Intent.GUILDS
        )
        self.server.notify()

    async def set_role_permissions(self, role: RoleRecord, permissions: int) -> None:
        """Change what a role allows; GUILD_ROLE_UPDATE."""
        role.permissions = int(permissions)
        await self.server.gateway.dispatch(
            "GUILD_ROLE_UPDATE",
            {"guild_id": str(role.guild_id), "role": role.payload()},
            intent=Intent.GUILDS,
        )
        self.server.notify()

    # -- the bot leaves ---------------------------------------------------------------------------

    async def remove_bot(self, guild: GuildRecord) -> None:
        """Kick the bot from a guild: GUILD_DELETE (without `unavailable`), then every request
        for the guild or its channels is refused (403 50001 Missing Access)."""
        bot_id = self.state.bot_user.id
        if bot_id not in guild.members:
            raise AssertionError(f"the bot is not in {guild.name}")
        del guild.members[bot_id]
        await self.server.gateway.dispatch(
            "GUILD_DELETE", {"id": str(guild.id)}, intent=Intent.GUILDS
        )
        self.server.notify()
