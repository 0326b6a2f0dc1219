"""End-to-end tests of the fake Discord server against the real discord.py.

Each test runs a small real ``commands.Bot`` (default intents, no privileged ones) against the
fake on 127.0.0.1 and checks both sides: what the bot's code observed and what the fake, acting
as Discord, stored and shows to each simulated user.
"""

from __future__ import annotations

import asyncio
import io
import struct
import zlib
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands
from fakediscord import CommandError, FakeDiscord, World
from fakediscord.runner import BotRunner


def tiny_png(width: int, height: int) -> bytes:
    """A valid RGB PNG, built by hand so the tests need no image library."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(tag + data)
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

    rows = b"".join(b"\x00" + b"\x20\x80\x40" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


BOARD_PNG = tiny_png(6, 4)
RULES = [
    app_commands.Choice(name="Pung Chow", value="pung-chow"),
    app_commands.Choice(name="Singapore", value="singapore"),
]
WINDS = ["east", "south", "west", "north"]


class TestBot(commands.Bot):
    """A commands.Bot that remembers what its callbacks saw."""

    __test__ = False  # not a pytest test class

    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.guild_id = guild_id
        self.seen: list[tuple[Any, ...]] = []
        self.synced_global: list[app_commands.AppCommand] = []
        self.synced_guild: list[app_commands.AppCommand] = []
        self.resumed = 0
        add_commands(self)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(TileButton, SeatSelect)
        self.synced_global = await self.tree.sync()
        self.synced_guild = await self.tree.sync(guild=discord.Object(self.guild_id))

    async def on_resumed(self) -> None:
        self.resumed += 1


def bot_of(interaction: discord.Interaction) -> TestBot:
    client = interaction.client
    assert isinstance(client, TestBot)
    return client


class TileButton(discord.ui.DynamicItem[discord.ui.Button], template=r"tile:(?P<n>\d+)"):
    """A persistent-style button whose state lives in its custom_id."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Tile {n}", custom_id=f"tile:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any
    ) -> TileButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot_of(interaction).seen.append(("tile", self.n, interaction.user.id))
        await interaction.response.edit_message(content=f"discarded tile {self.n}")


class SeatSelect(discord.ui.DynamicItem[discord.ui.Select], template=r"seat:(?P<table>\d+)"):
    """A dynamic select menu: pick a seat at table N."""

    def __init__(self, table: int) -> None:
        options = [discord.SelectOption(label=w.title(), value=w) for w in WINDS]
        super().__init__(discord.ui.Select(custom_id=f"seat:{table}", options=options))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Select, match: Any
    ) -> SeatSelect:
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        seat = self.item.values[0]
        bot_of(interaction).seen.append(("seat", self.table, seat))
        await interaction.response.edit_message(content=f"table {self.table}: {seat}")


class BoardView(discord.ui.View):
    """A normal view with a button and a select, plus the two dynamic items."""

    def __init__(self) -> None:
        super().__init__(timeout=60)
        self.add_item(TileButton(5))
        self.add_item(SeatSelect(1))

    @discord.ui.button(label="Draw", custom_id="draw", style=discord.ButtonStyle.primary)
    async def draw(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        bot_of(interaction).seen.append(("draw", interaction.user.id))
        button.disabled = True
        await interaction.response.edit_message(content="drew a tile", view=self)

    @discord.ui.select(
        custom_id="meld",
        placeholder="Declare a meld",
        options=[discord.SelectOption(label=m, value=m) for m in ("pung", "chow", "kong")],
    )
    async def meld(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        bot_of(interaction).seen.append(("meld", tuple(select.values)))
        await interaction.response.edit_message(content=f"declared {select.values[0]}")


class DMView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=60)

    @discord.ui.button(label="Got it", custom_id="dm-ack")
    async def ack(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        bot_of(interaction).seen.append(("dm-ack", type(interaction.user).__name__))
        await interaction.response.send_message("noted")


class RenameModal(discord.ui.Modal, title="Rename table"):
    name: discord.ui.TextInput = discord.ui.TextInput(label="New name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        bot_of(interaction).seen.append(("renamed", self.name.value))
        await interaction.response.send_message(f"renamed to {self.name.value}")


def add_commands(bot: TestBot) -> None:
    """The slash commands of the test bot (one global group, one guild command)."""
    mahjong = app_commands.Group(name="mahjong", description="Play mahjong")
    table = app_commands.Group(name="table", description="Manage tables", parent=mahjong)

    @table.command(name="new", description="Open a table")
    @app_commands.describe(rules="Rule set", seats="Players", rival="Who you want to beat")
    @app_commands.choices(rules=RULES)
    async def table_new(
        interaction: discord.Interaction,
        rules: app_commands.Choice[str],
        seats: app_commands.Range[int, 3, 4] = 4,
        rival: discord.Member | None = None,
    ) -> None:
        assert interaction.command is not None
        bot.seen.append(
            (
                interaction.command.qualified_name,
                rules.value,
                seats,
                rival.display_name if rival else None,
                interaction.permissions.manage_guild,
                interaction.app_permissions.attach_files,
                str(interaction.locale),
            )
        )
        embed = discord.Embed(title="New table", description=f"Rules: {rules.name}")
        embed.set_image(url="attachment://board.png")
        file = discord.File(io.BytesIO(BOARD_PNG), "board.png", description="An empty board")
        await interaction.response.send_message(embed=embed, file=file)

    @mahjong.command(name="new", description="Start a game")
    async def new(interaction: discord.Interaction, rules: str) -> None:
        await interaction.response.send_message(f"new {rules} game")

    @mahjong.command(name="score", description="Score a hand (slow)")
    async def score(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("counting fan: 3")
        await interaction.followup.send("payments settled")
        await interaction.edit_original_response(content="counting fan: 5")
        original = await interaction.original_response()
        scratch = await interaction.followup.send("scratch work", wait=True)
        await scratch.delete()
        bot.seen.append(("score done", original.content))

    @mahjong.command(name="hand", description="Show your hand privately")
    async def hand(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your tiles: 1m 2m 3m", ephemeral=True)

    @mahjong.command(name="board", description="Show the board")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("the board", view=BoardView())

    @mahjong.command(name="rename", description="Rename the table")
    async def rename(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(RenameModal())

    @mahjong.command(name="ping", description="Are you there?")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong")

    @mahjong.command(name="lookup", description="Look up a rule set")
    async def lookup(interaction: discord.Interaction, ruleset: str) -> None:
        await interaction.response.send_message(f"rules: {ruleset}")

    @lookup.autocomplete("ruleset")
    async def lookup_complete(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [c for c in RULES if c.value.startswith(current)]

    @app_commands.command(name="setup", description="Configure the club")
    @app_commands.default_permissions(manage_guild=True)
    async def setup(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("configured", ephemeral=True)

    bot.tree.add_command(mahjong)
    bot.tree.add_command(setup, guild=discord.Object(bot.guild_id))


async def start(run_bot: BotRunner, world: World) -> TestBot:
    return await run_bot.start(TestBot(world.guild.id))


# -- 1. connect, READY, GUILD_CREATE, command sync ------------------------------------------------


async def test_connects_caches_guild_and_syncs_commands(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)

    guild = bot.get_guild(w.guild.id)
    assert guild is not None and guild.name == "Mahjong Club"
    assert [c.name for c in guild.text_channels] == ["mahjong"]
    assert guild.me.display_name == "Mahjong Bot"
    assert [r.name for r in guild.me.roles] == ["@everyone", "Mahjong Bot"]
    assert guild.me.guild_permissions.attach_files and not guild.me.guild_permissions.administrator
    # Default intents have no GUILD_MEMBERS: like Discord, GUILD_CREATE only carried the bot...
    assert guild.member_count == 6 and guild.get_member(w.alice.id) is None
    # ...and the REST route fills the gap, with roles and permissions.
    alice = await guild.fetch_member(w.alice.id)
    assert [r.name for r in alice.roles] == ["@everyone", "Table Manager"]
    assert alice.guild_permissions.manage_guild
    bob = await guild.fetch_member(w.bob.id)
    assert not bob.guild_permissions.manage_guild

    assert [c["name"] for c in fake_discord.commands()] == ["mahjong"]
    assert [c["name"] for c in fake_discord.commands(w.guild)] == ["setup"]
    stored = fake_discord.commands()[0]
    assert {int(stored["id"])} == {c.id for c in bot.synced_global}
    subcommands = [o["name"] for o in stored["options"]]
    assert subcommands == ["table", "new", "score", "hand", "board", "rename", "ping", "lookup"]
    assert fake_discord.commands(w.guild)[0]["default_member_permissions"] == "32"
    assert fake_discord.gateway.count("identify") == 1
    assert fake_discord.gateway.connections[0].heartbeats >= 1  # sent right after HELLO
    assert fake_discord.auth_failures == []


async def test_plain_text_gateway_frames_and_autosharded_bot(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    fake_discord.gateway.compress = False  # ignore compress=zlib-stream, send text frames
    bot = commands.AutoShardedBot(command_prefix="!", intents=discord.Intents.default())
    await run_bot.start(bot)

    guild = bot.get_guild(discord_world.guild.id)
    assert guild is not None and guild.shard_id == 0 and bot.shard_count == 1
    assert fake_discord.requests_to("GET", "/gateway/bot")


async def test_login_with_wrong_token_is_rejected(fake_discord: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())
    try:
        with pytest.raises(discord.LoginFailure):
            await client.login("not-the-token")
    finally:
        await client.close()
    assert fake_discord.auth_failures == ["GET /users/@me"]


# -- 2. slash command with a subcommand group, embed + PNG with alt text -----------------------


async def test_slash_subcommand_group_replies_with_embed_and_png(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    w.alice.record.locale = "en-GB"
    bot = await start(run_bot, w)

    handle = await w.alice.slash(
        w.channel, "mahjong table new", rules="pung-chow", seats=3, rival=w.bob
    )
    reply = await handle.reply()

    assert bot.seen == [("mahjong table new", "pung-chow", 3, "bob", True, True, "en-GB")]
    assert handle.callback_type == 4
    assert reply.embeds[0]["title"] == "New table"
    assert reply.embeds[0]["description"] == "Rules: Pung Chow"
    [png] = reply.attachments
    assert (png.filename, png.content_type, png.description) == (
        "board.png",
        "image/png",
        "An empty board",
    )
    assert png.data == BOARD_PNG and (png.width, png.height) == (6, 4)
    assert reply.embeds[0]["image"]["url"] == png.url  # attachment:// resolved like Discord
    assert reply.interaction_metadata is not None
    assert reply.interaction_metadata["user"]["id"] == str(w.alice.id)
    # Everyone in the channel sees it, and the bytes are downloadable from the attachment URL.
    assert w.alice.last_message(w.channel) is reply
    assert w.bob.last_message(w.channel) is reply
    message = await bot.get_partial_messageable(w.channel.id).fetch_message(reply.id)
    assert await message.attachments[0].read() == BOARD_PNG
    assert message.attachments[0].description == "An empty board"


async def test_simulated_users_only_send_what_the_client_allows(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    await start(run_bot, w)
    with pytest.raises(CommandError, match="must be one of"):
        await w.alice.slash(w.channel, "mahjong table new", rules="riichi")
    with pytest.raises(CommandError, match="between 3 and 4"):
        await w.alice.slash(w.channel, "mahjong table new", rules="pung-chow", seats=5)
    with pytest.raises(CommandError, match="missing required option 'rules'"):
        await w.alice.slash(w.channel, "mahjong table new")
    with pytest.raises(CommandError, match="needs a subcommand"):
        await w.alice.slash(w.channel, "mahjong table")
    # /setup needs Manage Server: alice (Table Manager) sees it, bob does not.
    with pytest.raises(CommandError, match="cannot use /setup"):
        await w.bob.slash(w.channel, "setup")
    handle = await w.alice.slash(w.channel, "setup")
    assert (await handle.reply()).content == "configured"


# -- 3. deferred reply, follow-ups, editing the original; ephemeral visibility ----------------


async def test_defer_followup_and_edit_original(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)

    handle = await w.carol.slash(w.channel, "mahjong score")
    [second] = await handle.followups(1)
    await fake_discord.wait_for(lambda: bot.seen, what="the bot to finish")
    original = await handle.reply()

    assert handle.callback_type == 5
    assert original.content == "counting fan: 5"
    # The first follow-up filled the "thinking..." message; the edit replaced that content.
    assert [v.content for v in original.history] == ["counting fan: 3"]
    assert second.content == "payments settled"
    assert bot.seen == [("score done", "counting fan: 5")]  # GET @original
    assert [m.content for m in w.dave.messages(w.channel)] == [
        "counting fan: 5",
        "payments settled",
    ]
    scratch = handle.messages[-1]
    assert scratch.content == "scratch work" and scratch.deleted


async def test_ephemeral_reply_is_visible_only_to_the_invoker(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    await start(run_bot, w)

    reply = await (await w.bob.slash(w.channel, "mahjong hand")).reply()

    assert reply.ephemeral and reply.content == "your tiles: 1m 2m 3m"
    assert w.bob.messages(w.channel) == [reply]
    assert w.bob.ephemeral_messages() == [reply]
    assert w.alice.messages(w.channel) == []
    assert fake_discord.channel_messages(w.channel, visible_to=w.carol) == []
    assert fake_discord.channel_messages(w.channel) == [reply]  # the all-seeing view


# -- 4. buttons and selects on a View and on DynamicItems ------------------------------------


async def test_view_and_dynamic_item_components_reach_callbacks(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)
    board = await (await w.alice.slash(w.channel, "mahjong board")).reply()
    assert set(board.custom_ids()) == {"draw", "tile:5", "meld", "seat:1"}

    draw = await w.bob.click(board, "draw")
    assert (await draw.reply()).content == "drew a tile"
    assert board.component("draw")["disabled"] is True
    meld = await w.carol.select(board, "meld", ["chow"])
    assert (await meld.reply()).content == "declared chow"
    tile = await w.dave.click(board, "tile:5")
    assert (await tile.reply()).content == "discarded tile 5"
    seat = await w.alice.select(board, "seat:1", ["west"])
    assert (await seat.reply()).content == "table 1: west"

    assert bot.seen == [
        ("draw", w.bob.id),
        ("meld", ("chow",)),
        ("tile", 5, w.dave.id),
        ("seat", 1, "west"),
    ]
    assert [h.callback_type for h in (draw, meld, tile, seat)] == [7, 7, 7, 7]
    assert [v.content for v in board.history] == [
        "the board",
        "drew a tile",
        "declared chow",
        "discarded tile 5",
    ]
    assert [v.replaced_by_interaction_id for v in board.history] == [
        draw.id,
        meld.id,
        tile.id,
        seat.id,
    ]
    # Simulated users can only use what the bot actually posted, and not disabled buttons.
    with pytest.raises(AssertionError, match="no such component"):
        await w.bob.click(board, "tile:6")
    with pytest.raises(AssertionError, match="disabled"):
        await w.bob.click(board, "draw")
    with pytest.raises(AssertionError, match="no options"):
        await w.bob.select(board, "meld", ["riichi"])


async def test_modal_and_autocomplete(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)

    opened = await w.alice.slash(w.channel, "mahjong rename")
    modal = await opened.modal()
    assert modal["title"] == "Rename table"
    submitted = await w.alice.submit_modal(opened, {"name": "East Wind Table"})
    assert (await submitted.reply()).content == "renamed to East Wind Table"
    assert ("renamed", "East Wind Table") in bot.seen

    typing = await w.bob.autocomplete(w.channel, "mahjong lookup", focused="ruleset", ruleset="s")
    assert await typing.choices() == [{"name": "Singapore", "value": "singapore"}]


# -- 5. DMs: file + components, clicks from a DM, closed DMs ---------------------------------


async def test_dm_with_file_and_components_and_closed_dms(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)
    alice = await bot.fetch_user(w.alice.id)

    sent = await alice.send(
        "your hand",
        file=discord.File(io.BytesIO(BOARD_PNG), "hand.png", description="Your 13 tiles"),
        view=DMView(),
    )

    [dm] = w.alice.dm_messages()
    assert dm.id == sent.id and dm.content == "your hand"
    assert dm.attachment("hand.png").description == "Your 13 tiles"
    assert dm.custom_ids() == ["dm-ack"]
    assert w.bob.dm_messages() == []
    with pytest.raises(AssertionError, match="cannot see channel"):
        w.bob.messages(w.alice.dm())

    ack = await w.alice.click(dm, "dm-ack")
    reply = await ack.reply()
    assert reply.content == "noted" and reply.channel_id == dm.channel_id
    assert bot.seen == [("dm-ack", "User")]  # a User, not a Member: no guild in DMs

    fake_discord.close_dms(w.alice)
    with pytest.raises(discord.Forbidden) as excinfo:
        await alice.send("are you there?")
    assert excinfo.value.code == 50007
    assert len(w.alice.dm_messages()) == 2


# -- 6. rate limits and server errors are retried by discord.py -------------------------------


async def test_429_and_500_are_retried_and_delivered_once(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)
    channel = bot.get_channel(w.channel.id)
    assert isinstance(channel, discord.TextChannel)
    path = rf"/channels/{w.channel.id}/messages"

    limited = fake_discord.fail_next("POST", path, status=429, retry_after=0.05)
    await channel.send("after a rate limit")
    broken = fake_discord.fail_next("POST", path, status=500)
    await channel.send("after a server error")  # discord.py waits 1 s before this retry

    assert (limited.hits, broken.hits) == (1, 1)
    assert [r.status for r in fake_discord.requests_to("POST", path)] == [429, 200, 500, 200]
    contents = [m.content for m in fake_discord.channel_messages(w.channel)]
    assert contents == ["after a rate limit", "after a server error"]


# -- 7. gateway drop: RESUME and replay ----------------------------------------------------------


@pytest.mark.parametrize("close_code", [None, 4000], ids=["abrupt", "close-4000"])
async def test_dropped_gateway_resumes_and_replays(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner, close_code: int | None
) -> None:
    w = discord_world
    bot = await start(run_bot, w)

    await fake_discord.drop_gateway(close_code)
    # Sent while the bot is disconnected: buffered and replayed after RESUME.
    during = await w.alice.slash(w.channel, "mahjong ping")
    assert (await during.reply()).content == "pong"
    await fake_discord.wait_for(lambda: bot.resumed == 1, what="on_resumed")
    after = await w.bob.slash(w.channel, "mahjong ping")
    assert (await after.reply()).content == "pong"

    gateway = fake_discord.gateway
    assert gateway.count("identify") == 1 and gateway.count("resume") == 1
    [resume] = [entry for entry in gateway.log if entry[0] == "resume"]
    assert resume[3] >= 1  # at least the INTERACTION_CREATE was replayed
    assert ("connect", "/resume-gateway") in gateway.log


async def test_invalid_session_makes_the_bot_identify_again(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = TestBot(w.guild.id)

    async def no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s before re-identifying; not needed against the fake."""

    bot.before_identify_hook = no_identify_delay  # type: ignore[method-assign]
    await run_bot.start(bot)

    await fake_discord.invalidate_session()
    await fake_discord.wait_for(
        lambda: fake_discord.gateway.count("identify") == 2, what="a second IDENTIFY"
    )
    await fake_discord.gateway.wait_connected()
    handle = await w.alice.slash(w.channel, "mahjong ping")
    assert (await handle.reply()).content == "pong"
    assert fake_discord.gateway.count("invalid_session") == 1


async def test_without_history_a_resume_from_before_the_kept_events_identifies_again(
    fake_discord: FakeDiscord,
    discord_world: World,
    run_bot: BotRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long benchmark's fake keeps only a session's last events for RESUME
    (`gateway.RESUME_BUFFER`); a bot that missed more is told to identify again, as Discord
    tells one it can no longer replay to, and gets nothing half-replayed."""
    from fakediscord import gateway

    monkeypatch.setattr(gateway, "RESUME_BUFFER", 1)
    w = discord_world
    bot = TestBot(w.guild.id)

    async def no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s before re-identifying; not needed against the fake."""

    bot.before_identify_hook = no_identify_delay  # type: ignore[method-assign]
    await run_bot.start(bot)
    fake_discord.forget_history()

    await fake_discord.drop_gateway(None)
    for n in range(3):  # missed while disconnected: more than the session keeps
        await w.alice.say(w.channel, f"missed {n}")
    await fake_discord.wait_for(
        lambda: fake_discord.gateway.count("identify") == 2, what="a second IDENTIFY"
    )
    await fake_discord.gateway.wait_connected()
    assert fake_discord.gateway.count("invalid_session") == 1
    assert fake_discord.gateway.count("resume") == 0
    handle = await w.alice.slash(w.channel, "mahjong ping")
    assert (await handle.reply()).content == "pong"


async def test_answering_too_late_is_a_problem(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    await start(run_bot, w)
    fake_discord.interaction_timeout = 0.0  # every answer is now later than Discord allows

    handle = await w.alice.slash(w.channel, "mahjong ping")
    await fake_discord.wait_for(lambda: fake_discord.problems, what="a problem")

    assert handle.callback_type is None
    [problem] = fake_discord.take_problems()
    assert "This interaction failed" in problem


# -- 8. unknown routes fail the test ----------------------------------------------------------


def assert_unknown_routes(server: FakeDiscord, expected: list[str]) -> None:
    """The fixture would fail this test at teardown; check that, then clear it."""
    assert server.unknown_routes == expected
    with pytest.raises(AssertionError, match="unknown route"):
        server.check()
    server.take_problems()
    server.check()


async def test_unknown_route_is_recorded_for_the_fixture_to_fail(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)
    route = discord.http.Route("GET", "/guilds/{guild_id}/bans", guild_id=w.guild.id)
    with pytest.raises(discord.NotFound, match="unknown route"):
        await bot.http.request(route)
    assert_unknown_routes(fake_discord, [f"GET /guilds/{w.guild.id}/bans"])


async def test_requests_discord_would_reject_are_problems(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)
    channel = bot.get_channel(w.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException, match="2001 characters"):
        await channel.send("x" * 2001)
    assert fake_discord.take_problems() == [
        f"POST /channels/{w.channel.id}/messages -> 400: content: 2001 characters, "
        "the limit is 2000"
    ]


async def test_a_client_gone_in_the_middle_of_an_upload_is_no_fault_of_the_fake(
    fake_discord: FakeDiscord,
) -> None:
    """A bot process SIGKILLed while it uploads a picture leaves its request half sent: the
    fake records it as abandoned, not as a crash of its own (which fails the test)."""
    path = "/channels/1/messages"
    _, writer = await asyncio.open_connection("127.0.0.1", fake_discord.port)
    boundary = "cut-short"
    writer.write(
        (
            f"POST /api/v10{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bot {fake_discord.token}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
            "Content-Length: 100000\r\n\r\n"
            f'--{boundary}\r\nContent-Disposition: form-data; name="files[0]"\r\n'
        ).encode()
    )
    await writer.drain()
    await fake_discord.wait_for(
        lambda: any(r.path == path for r in fake_discord.requests), what="the request read"
    )
    writer.close()
    record = await fake_discord.wait_for(
        lambda: next((r for r in fake_discord.requests if r.abandoned), None),
        timeout=30,
        what="the request abandoned",
    )
    assert record.path == path and record.status == 0
    fake_discord.check()  # no problem recorded


# -- 9. application emojis -----------------------------------------------------------------------


async def test_application_emoji_upload_and_listing(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    bot = await start(run_bot, discord_world)

    emoji = await bot.create_application_emoji(name="red_dragon", image=BOARD_PNG)
    listed = await bot.fetch_application_emojis()

    assert [e.name for e in listed] == ["red_dragon"] and listed[0].id == emoji.id
    [stored] = fake_discord.emojis
    assert stored.data == BOARD_PNG and stored.content_type == "image/png"
    assert await emoji.read() == BOARD_PNG  # served by the fake CDN, not the internet
    with pytest.raises(discord.HTTPException, match="ALREADY_TAKEN"):
        await bot.create_application_emoji(name="red_dragon", image=BOARD_PNG)
    assert len(fake_discord.take_problems()) == 1


# -- extras: threads, reactions, plain messages --------------------------------------------------


async def test_threads_reactions_and_user_messages(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot, w)
    received: asyncio.Queue[discord.Message] = asyncio.Queue()
    bot.add_listener(received.put, "on_message")

    said = await w.alice.say(w.channel, f"{bot.user.mention if bot.user else ''} deal me in")
    message = await asyncio.wait_for(received.get(), 2)
    assert message.id == said.id and "deal me in" in message.content  # mentioned: content kept

    await message.add_reaction("🀄")
    thread = await message.create_thread(name="Game 1")
    dealt = await thread.send("first hand")
    await dealt.edit(content="first hand (dealt)")
    oops = await thread.send("oops")
    await oops.delete()

    assert said.reactions == {"🀄": {fake_discord.bot_user.id}}
    game = fake_discord.thread(w.channel, "Game 1")
    assert game.id == said.id
    [seen] = w.bob.messages(game)
    assert seen.content == "first hand (dealt)"
    assert [v.content for v in seen.history] == ["first hand"]


async def test_a_member_waiting_for_their_dms_wakes_for_them_only(
    fake_discord: FakeDiscord, discord_world: World
) -> None:
    """``place_changed``: what simulated members wait on instead of polling (benchmarks)."""
    w = discord_world
    bot_user = fake_discord.bot_user
    alice_dm = fake_discord.state.dm_channel(w.alice.record, create=True)
    alice_waits = asyncio.create_task(
        fake_discord.place_changed([("dm", w.alice.id), w.channel.id], 30)
    )
    bob_waits = asyncio.create_task(
        fake_discord.place_changed([("dm", w.bob.id), w.channel.id], 0.5)
    )
    await asyncio.sleep(0)  # both are waiting
    body = {"content": "your turn"}
    await fake_discord.create_message(alice_dm, author=bot_user, body=body, uploads={})
    assert await alice_waits is True
    assert await bob_waits is False  # alice's DM is not bob's
    # A change in the channel they both watch wakes a member too; nothing is left waiting.
    bob_again = asyncio.create_task(fake_discord.place_changed([w.channel.id], 30))
    await asyncio.sleep(0)
    await fake_discord.create_message(w.channel, author=bot_user, body=body, uploads={})
    assert await bob_again is True
    assert fake_discord._place_waiters == {}


def test_the_fakes_multipart_reading_takes_what_aiohttp_writes_and_refuses_a_broken_body() -> None:
    """The fake reads multipart bodies itself (aiohttp's reader was a quarter of its CPU under
    load): what aiohttp's ``FormData`` writes (as discord.py sends files) comes back part for
    part, a non-ASCII file name as aiohttp quotes it (percent-encoded, as its own reader
    gave it); a body cut short is a 400, not a crash."""
    from aiohttp import FormData
    from aiohttp.test_utils import make_mocked_request
    from fakediscord.rest import ApiError, split_multipart

    form = FormData()
    form.add_field("payload_json", '{"content": "hi"}', content_type="application/json")
    form.add_field("files[0]", b"\x89PNG\r\n--x\r\n", filename='t\u00e9 "1".png')
    form.add_field("files[1]", b"", filename="empty.png", content_type="image/png")
    writer = form()
    chunks: list[bytes] = []

    class Sink:
        async def write(self, data: bytes) -> None:
            chunks.append(bytes(data))

    asyncio.run(writer.write(Sink()))  # type: ignore[arg-type]
    raw = b"".join(chunks)
    request = make_mocked_request("POST", "/", headers={"Content-Type": writer.content_type})

    parts = split_multipart(request, raw)

    assert [(name, filename, data) for name, filename, _, data in parts] == [
        ("payload_json", None, b'{"content": "hi"}'),
        ("files[0]", "t%C3%A9%20%221%22.png", b"\x89PNG\r\n--x\r\n"),
        ("files[1]", "empty.png", b""),
    ]
    assert parts[2][2] == "image/png"
    with pytest.raises(ApiError, match="not closed"):
        split_multipart(request, raw[: len(raw) // 2])
    # As discord.py writes them (``quote_fields=False``): the name as it is, quotes escaped.
    form = FormData(quote_fields=False)
    form.add_field("files[0]", b"x", filename='t\u00e9 "1".png')
    writer = form()
    chunks.clear()
    asyncio.run(writer.write(Sink()))  # type: ignore[arg-type]
    request = make_mocked_request("POST", "/", headers={"Content-Type": writer.content_type})
    [(name, filename, _, data)] = split_multipart(request, b"".join(chunks))
    assert (name, filename, data) == ("files[0]", 't\u00e9 "1".png', b"x")
    # RFC 5987's extended form, with a language tag.
    boundary = "b"
    extended = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files[0]"; '
        f"filename*=UTF-8'en'%E2%82%AC.png\r\n\r\ny\r\n--{boundary}--\r\n"
    ).encode()
    request = make_mocked_request(
        "POST", "/", headers={"Content-Type": f"multipart/form-data; boundary={boundary}"}
    )
    assert split_multipart(request, extended)[0][1] == "\u20ac.png"
    bare = make_mocked_request("POST", "/", headers={"Content-Type": "multipart/form-data"})
    with pytest.raises(ApiError, match="boundary"):
        split_multipart(bare, raw)
