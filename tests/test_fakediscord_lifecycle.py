"""The fake Discord's threads and lifecycle helpers, seen from the real discord.py.

Each test changes the world the way Discord, time or a moderator would and checks both sides:
the gateway event reached the bot's cache, and later requests are answered as Discord answers
them (404 10003 for a deleted channel, 403 50001/50013 for lost permissions, 400 50083 in an
archived thread).
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest
from discord.ext import commands
from fakediscord import FakeDiscord, Perm, World
from fakediscord.runner import BotRunner
from fakediscord.state import ChannelType
from fakediscord.world import BOT_PERMISSIONS


class EventBot(commands.Bot):
    """A bot that queues the lifecycle events discord.py dispatches."""

    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    async def next_event(self, name: str, timeout: float = 3.0) -> Any:
        while True:
            got, value = await asyncio.wait_for(self.events.get(), timeout)
            if got == name:
                return value

    async def on_thread_create(self, thread: discord.Thread) -> None:
        await self.events.put(("thread_create", thread))

    async def on_thread_update(self, before: discord.Thread, after: discord.Thread) -> None:
        await self.events.put(("thread_update", after))

    async def on_thread_join(self, thread: discord.Thread) -> None:
        await self.events.put(("thread_join", thread))

    async def on_thread_delete(self, thread: discord.Thread) -> None:
        await self.events.put(("thread_delete", thread))

    async def on_guild_channel_delete(self, channel: Any) -> None:
        await self.events.put(("channel_delete", channel))

    async def on_guild_channel_update(self, before: Any, after: Any) -> None:
        await self.events.put(("channel_update", after))

    async def on_guild_role_update(self, before: discord.Role, after: discord.Role) -> None:
        await self.events.put(("role_update", after))

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.events.put(("guild_remove", guild))


async def start(run_bot: BotRunner) -> EventBot:
    return await run_bot.start(EventBot())


def text_channel(bot: EventBot, w: World) -> discord.TextChannel:
    channel = bot.get_channel(w.channel.id)
    assert isinstance(channel, discord.TextChannel)
    return channel


async def test_public_thread_without_a_message(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    thread = await text_channel(bot, w).create_thread(
        name="Pung-chow table 1", type=discord.ChannelType.public_thread, auto_archive_duration=60
    )
    created = await bot.next_event("thread_create")
    assert created.id == thread.id and bot.get_channel(thread.id) is not None
    assert thread.type is discord.ChannelType.public_thread and thread.auto_archive_duration == 60
    await thread.send("East deals")

    record = fake_discord.thread(w.channel, "Pung-chow table 1")
    assert [t.id for t in w.bob.threads(w.channel)] == [record.id]
    assert [m.content for m in w.bob.messages(record)] == ["East deals"]
    # Discord leaves a "started a thread" system message in the parent channel.
    [notice] = w.bob.messages(w.channel)
    assert notice.type == 18 and notice.content == "Pung-chow table 1"
    assert notice.message_reference == {
        "type": 0,
        "channel_id": str(record.id),
        "guild_id": str(w.guild.id),
    }
    said = await w.bob.say(record, "good luck")
    assert said.channel_id == record.id


async def test_thread_from_a_message_and_private_threads(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    channel = text_channel(bot, w)
    lobby = await channel.send("Table 1: lobby")
    thread = await lobby.create_thread(name="Table 1")
    assert thread.id == lobby.id  # a thread started from a message takes its id
    starter = fake_discord.message(lobby.id)
    assert starter.payload()["thread"]["id"] == str(thread.id)
    assert starter.payload()["flags"] & (1 << 5)  # HAS_THREAD
    assert (await channel.fetch_message(lobby.id)).thread is not None
    with pytest.raises(discord.HTTPException) as err:
        await lobby.create_thread(name="again")
    assert err.value.code == 160004

    # Without a type, Discord makes a private thread: only its members (and thread managers)
    # see it, and no system message is posted. The bot needs Create Private Threads for it.
    with pytest.raises(discord.Forbidden):
        await channel.create_thread(name="secret")
    perms = BOT_PERMISSIONS | Perm.CREATE_PRIVATE_THREADS
    await fake_discord.set_role_permissions(w.bot_role, perms)
    private = await channel.create_thread(name="secret")
    assert private.type is discord.ChannelType.private_thread
    record = fake_discord.channel(private.id)
    assert record.type == ChannelType.PRIVATE_THREAD
    assert record not in w.bob.threads(w.channel)
    assert [m.content for m in w.bob.messages(w.channel)] == ["Table 1: lobby"]


async def test_archived_threads(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    thread = await text_channel(bot, w).create_thread(
        name="table", type=discord.ChannelType.public_thread, auto_archive_duration=60
    )
    table = await thread.send("the table")
    record = fake_discord.channel(thread.id)

    await fake_discord.archive_thread(record)
    assert (await bot.next_event("thread_update")).archived
    with pytest.raises(discord.HTTPException) as err:
        await table.edit(content="an edit")
    assert err.value.status == 400 and err.value.code == 50083
    # Sending unarchives it, as on Discord; then edits work again. (discord.py forgets
    # archived threads, so it reports the THREAD_UPDATE as a join.)
    await thread.send("next hand")
    assert not (await bot.next_event("thread_join")).archived
    await table.edit(content="an edit")
    assert not record.archived

    # An hour without a message archives it (auto_archive_duration=60).
    await fake_discord.advance_clock(59 * 60)
    assert not record.archived
    await fake_discord.advance_clock(61)
    assert record.archived and (await bot.next_event("thread_update")).archived
    assert bot.get_channel(thread.id) is None
    # A member posting unarchives it too.
    await w.carol.say(record, "still there?")
    assert not record.archived

    # Locked: only Manage Threads may post; the bot loses it and is refused.
    await fake_discord.archive_thread(record, locked=True)
    await fake_discord.set_role_permissions(w.bot_role, BOT_PERMISSIONS & ~Perm.MANAGE_THREADS)
    with pytest.raises(discord.Forbidden) as forbidden:
        await thread.send("let me in")
    assert forbidden.value.code == 50013
    await fake_discord.set_role_permissions(w.bot_role, BOT_PERMISSIONS)
    unarchived = await thread.edit(archived=False, locked=False)
    assert not unarchived.archived and not record.locked


async def test_deleting_threads_and_channels(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    channel = text_channel(bot, w)
    thread = await channel.create_thread(name="t1", type=discord.ChannelType.public_thread)
    other = await channel.create_thread(name="t2", type=discord.ChannelType.public_thread)
    message = await thread.send("hello")

    await fake_discord.delete_channel(fake_discord.channel(thread.id))
    assert (await bot.next_event("thread_delete")).id == thread.id
    assert bot.get_channel(thread.id) is None
    for attempt in (thread.send("x"), message.edit(content="y")):
        with pytest.raises(discord.NotFound) as err:
            await attempt
        assert err.value.code == 10003
    assert fake_discord.message(message.id).content == "hello"  # the record stays readable

    # The bot itself can delete a thread it manages.
    await other.delete()
    assert fake_discord.channel(other.id).deleted
    assert fake_discord.threads(w.channel) == []

    # Deleting the channel: CHANNEL_DELETE, and its threads are gone too.
    third = await channel.create_thread(name="t3", type=discord.ChannelType.public_thread)
    await fake_discord.delete_channel(w.channel)
    assert (await bot.next_event("channel_delete")).id == w.channel.id
    assert bot.get_channel(w.channel.id) is None and bot.get_channel(third.id) is None
    for target in (channel, third):
        with pytest.raises(discord.NotFound) as err:
            await target.send("anyone?")
        assert err.value.code == 10003
    with pytest.raises(AssertionError, match="cannot see"):
        w.bob.messages(w.channel)


async def test_permission_changes_are_enforced(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    channel = text_channel(bot, w)
    table = await channel.send("table")

    await fake_discord.set_overwrite(w.channel, w.bot_role, deny=Perm.SEND_MESSAGES)
    updated = await bot.next_event("channel_update")
    assert not updated.permissions_for(updated.guild.me).send_messages
    with pytest.raises(discord.Forbidden) as err:
        await channel.send("x")
    assert err.value.code == 50013
    await table.edit(content="edits need no Send Messages")

    await fake_discord.set_overwrite(w.channel, w.bot_role, deny=Perm.VIEW_CHANNEL)
    await bot.next_event("channel_update")
    with pytest.raises(discord.Forbidden) as err:
        await table.edit(content="y")
    assert err.value.code == 50001

    await fake_discord.set_overwrite(w.channel, w.bot_role)  # removed: allowed again
    await bot.next_event("channel_update")
    await channel.send("back")

    # Attach Files comes from @everyone and the bot's role: take it from both.
    everyone = w.guild.everyone
    await fake_discord.set_role_permissions(everyone, everyone.permissions & ~Perm.ATTACH_FILES)
    await fake_discord.set_role_permissions(w.bot_role, BOT_PERMISSIONS & ~Perm.ATTACH_FILES)
    await bot.next_event("role_update")
    role = await bot.next_event("role_update")
    assert not role.permissions.attach_files
    assert not channel.permissions_for(channel.guild.me).attach_files
    with pytest.raises(discord.Forbidden) as err:
        await channel.send(file=discord.File(__file__))
    assert err.value.code == 50013
    await fake_discord.set_role_permissions(w.bot_role, BOT_PERMISSIONS)
    await channel.send(file=discord.File(__file__))

    # Users' interactions carry the recomputed permissions too.
    await fake_discord.set_overwrite(w.channel, w.guild, deny=Perm.VIEW_CHANNEL)
    with pytest.raises(AssertionError, match="cannot see"):
        w.bob.messages(w.channel)


async def test_bot_removed_from_guild(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    channel = text_channel(bot, w)
    await fake_discord.remove_bot(w.guild)
    assert (await bot.next_event("guild_remove")).id == w.guild.id
    assert bot.get_guild(w.guild.id) is None
    with pytest.raises(discord.Forbidden) as err:
        await channel.send("hello?")
    assert err.value.code == 50001
    with pytest.raises(discord.Forbidden):
        await bot.fetch_guild(w.guild.id)


async def test_interaction_tokens_expire_after_15_minutes(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    tree = bot.tree

    @tree.command(name="hand", description="your hand")
    async def hand(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your tiles", ephemeral=True)
        bot.last = interaction  # type: ignore[attr-defined]

    await tree.sync()
    await (await w.alice.slash(w.channel, "hand")).reply()
    interaction: discord.Interaction = bot.last  # type: ignore[attr-defined]
    await fake_discord.advance_clock(14 * 60)
    await interaction.edit_original_response(content="still yours")
    await fake_discord.advance_clock(61)
    with pytest.raises(discord.HTTPException) as err:
        await interaction.edit_original_response(content="too late")
    assert err.value.status == 401 and err.value.code == 50027


async def test_without_history_the_fake_keeps_only_what_discord_still_answers(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    """A long benchmark's fake (`forget_history`) drops earlier versions, deleted messages'
    pictures and expired interactions, and answers for them as Discord does."""
    import io

    w = discord_world
    bot = await start(run_bot)
    fake_discord.forget_history()
    channel = text_channel(bot, w)

    def picture(name: str) -> discord.File:
        return discord.File(io.BytesIO(b"\x89PNG" + name.encode()), f"{name}.png")

    sent = await channel.send("first", file=picture("a"))
    [first_picture] = fake_discord.message(sent.id).attachments
    await sent.edit(content="second", attachments=[picture("b")])
    record = fake_discord.message(sent.id)
    [second_picture] = record.attachments
    assert record.content == "second" and record.history == [] and record.edits == 1
    assert first_picture.id not in fake_discord.state.attachments
    assert second_picture.id in fake_discord.state.attachments

    gone = await channel.send("soon gone", file=picture("c"))
    [gone_picture] = fake_discord.message(gone.id).attachments
    await gone.delete()
    assert gone_picture.id not in fake_discord.state.attachments
    assert [m.id for m in fake_discord.state.channels[w.channel.id].messages] == [sent.id]
    assert fake_discord.timeline == []

    @bot.tree.command(name="hand", description="your hand")
    async def hand(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your tiles", ephemeral=True)
        bot.last = interaction  # type: ignore[attr-defined]

    await bot.tree.sync()
    await (await w.alice.slash(w.channel, "hand")).reply()
    old: discord.Interaction = bot.last  # type: ignore[attr-defined]
    await fake_discord.advance_clock(17 * 60)
    await (await w.alice.slash(w.channel, "hand")).reply()  # a new one: the old is forgotten
    assert old.id not in fake_discord.state.interactions
    assert bot.last.id in fake_discord.state.interactions  # type: ignore[attr-defined]
    with pytest.raises(discord.HTTPException) as err:
        await old.edit_original_response(content="too late")
    assert err.value.status == 401 and err.value.code == 50027
