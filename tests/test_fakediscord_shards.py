"""Sharding on the fake Discord: each process (here: each client) holds some shards, gets its
guilds' events, and only shard 0 gets DMs, as on Discord."""

from __future__ import annotations

import asyncio

import discord
import pytest
from fakediscord import FakeDiscord, World
from fakediscord.runner import BotRunner


class ShardBot(discord.Client):
    """Records the guilds it was given and the interactions it received."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(intents=discord.Intents.default(), **kwargs)  # type: ignore[arg-type]
        self.seen: asyncio.Queue[discord.Interaction] = asyncio.Queue()
        self.tree = discord.app_commands.CommandTree(self)

        @self.tree.command(name="ping", description="ping")
        async def ping(interaction: discord.Interaction) -> None:
            await self.seen.put(interaction)
            await interaction.response.send_message(f"pong from shard {self.shard_id}")

    async def setup_hook(self) -> None:
        if self.shard_id in (None, 0):
            await self.tree.sync()


class QuickAutoSharded(discord.AutoShardedClient):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No 5 s wait between shards: the fake has no identify concurrency limit."""


def guild_on_shard(server: FakeDiscord, w: World, shard: int, count: int) -> discord.Object:
    """A guild (with a channel, alice and bob) whose id falls on `shard` of `count`."""
    while True:
        guild = server.create_guild(f"Guild on {shard}", owner=w.owner)
        if (guild.id >> 22) % count == shard:
            server.add_member(guild, server.bot_user, [])
            server.add_member(guild, w.alice)
            server.create_text_channel(guild, "play")
            return guild
        del server.state.guilds[guild.id]


async def test_two_processes_each_hold_one_shard(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    del fake_discord.state.guilds[w.guild.id]  # only guilds placed on a known shard
    fake_discord.gateway.shard_count = 2
    guilds = [guild_on_shard(fake_discord, w, n, 2) for n in (0, 1)]
    first = await run_bot.start(ShardBot(shard_id=0, shard_count=2))
    second = await run_bot.start(ShardBot(shard_id=1, shard_count=2))
    assert [g.id for g in first.guilds] == [guilds[0].id]
    assert [g.id for g in second.guilds] == [guilds[1].id]
    assert fake_discord.gateway.connected
    ready = [e for e in fake_discord.gateway.log if e[0] == "identify"]
    assert len(ready) == 2

    # A guild's interaction goes to its shard's process; a DM interaction to shard 0's.
    for guild, bot in zip(guilds, (first, second), strict=True):
        channel = fake_discord.state.channels[fake_discord.state.guilds[guild.id].channel_ids[0]]
        reply = await (await w.alice.slash(channel, "ping")).reply()
        assert reply.content == f"pong from shard {bot.shard_id}"
    reply = await (await w.alice.slash(w.alice.dm(), "ping")).reply()
    assert reply.content == "pong from shard 0"
    assert first.seen.qsize() == 2 and second.seen.qsize() == 1

    # Each shard resumes on its own.
    await fake_discord.drop_gateway(shard=1)
    await fake_discord.gateway.wait_connected()
    assert fake_discord.gateway.count("resume") == 1


async def test_auto_sharded_client_and_sharding_required(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    fake_discord.gateway.shard_count = 2
    # Without `shard` Discord refuses a bot that needs sharding (close code 4011).
    plain = ShardBot()
    await plain.login(fake_discord.token)
    with pytest.raises(discord.ConnectionClosed) as closed:
        await plain.connect(reconnect=False)
    assert closed.value.code == 4011
    await plain.close()

    auto = QuickAutoSharded(intents=discord.Intents.default())
    await run_bot.start(auto)
    assert auto.shard_count == 2 and sorted(auto.shards) == [0, 1]
    assert {e[0] for e in fake_discord.gateway.log} >= {"identify"}
    assert len(fake_discord.gateway.shards) == 2
    assert [g.id for g in auto.guilds] == [discord_world.guild.id]
