"""/mahjong through the fake Discord with the real bot: every command's bad input is answered
privately with the reason and changes nothing; options given as name=value reach the table
and the server's settings."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tests.e2e.harness import open_table, start_bot


async def private(handle: Any, user: Any, *words: str) -> str:
    reply = await handle.reply()
    assert reply.ephemeral and reply.visible_to == user.id, reply
    for word in words:
        assert word.lower() in reply.content.lower(), reply.content
    return reply.content


def stored(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return [tuple(r) for r in conn.execute(sql)]


def current(user: Any, channel: Any, message_id: int) -> Any:
    return next(m for m in user.messages(channel) if m.id == message_id)


async def test_table_commands_without_a_table_say_so(
    discord_world, run_bot, tmp_path: Path
) -> None:
    w = discord_world
    await start_bot(run_bot, tmp_path)
    for command in ("mahjong hand", "mahjong table", "mahjong leave", "mahjong end"):
        await private(await w.bob.slash(w.channel, command), w.bob, "no table in this channel")
    assert stored(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM tables") == [(0,)]


async def test_new_with_bad_options_is_refused_and_opens_nothing(
    discord_world, run_bot, tmp_path: Path
) -> None:
    w = discord_world
    await start_bot(run_bot, tmp_path)
    for options, words in (
        ("bogus=1", ("unknown option 'bogus'", "mahjong_bonus")),
        ("washing", ("name=value",)),
        ("mahjong_bonus=15", ("mahjong_bonus",)),
    ):
        handle = await w.alice.slash(
            w.channel, "mahjong new", rules="pung-chow-limit", options=options
        )
        await private(handle, w.alice, *words)
    assert stored(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM tables") == [(0,)]


async def test_limit_0_is_none_where_the_rules_allow_none_and_refused_where_not(
    discord_world, run_bot, tmp_path: Path
) -> None:
    """limit:0 means no limit: Pung Chow Part I takes it; Part II always plays with one and
    Singapore with a maximum, so there it is refused, not read as the default (it was)."""
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    for rules, words in (
        ("pung-chow-limit", ("always play with a limit", "pung-chow rules")),
        ("singapore", ("always play with a maximum",)),
    ):
        handle = await w.alice.slash(w.channel, "mahjong new", rules=rules, limit=0)
        await private(handle, w.alice, *words)
        handle = await w.alice.slash(w.channel, "mahjong config", rules=rules, limit=0)
        await private(handle, w.alice, *words)
    assert stored(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM tables") == [(0,)]
    assert (await bot.services.guild_settings.get(w.guild.id)).ruleset == "pung-chow"
    opened = await open_table(w, w.bob, rules="pung-chow", limit=0, start=False)
    assert bot.services.tables.get(opened.table_id).options["limit"] is None


async def test_options_reach_the_table_and_the_servers_defaults(
    discord_world, run_bot, tmp_path: Path
) -> None:
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    opened = await open_table(
        w, w.bob, rules="pung-chow-limit", options="mahjong_bonus=20, washing=off", start=False
    )
    table = bot.services.tables.get(opened.table_id)
    assert (table.options["mahjong_bonus"], table.options["washing"]) == (20, False)

    handle = await w.carol.slash(w.channel, "mahjong config", options="washing=off")
    await private(handle, w.carol, "Manage Server")
    handle = await w.alice.slash(w.channel, "mahjong config", options="washing=maybe")
    await private(handle, w.alice, "washing")
    handle = await w.alice.slash(
        w.channel, "mahjong config", rules="pung-chow-limit", options="washing=off"
    )
    await handle.reply()
    settings = await bot.services.guild_settings.get(w.guild.id)
    assert (settings.ruleset, dict(settings.options)) == ("pung-chow-limit", {"washing": False})


async def test_leaving_and_ending_a_lobby(discord_world, run_bot, tmp_path: Path) -> None:
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    opened = await open_table(w, w.bob, [w.carol], start=False)
    tables = bot.services.tables

    await private(await w.carol.slash(w.channel, "mahjong leave"), w.carol, "you left the table.")
    assert [p.name for p in tables.get(opened.table_id).players] == ["bob"]
    await private(await w.carol.slash(w.channel, "mahjong end"), w.carol, "only the host")
    assert tables.in_channel(opened.place.id) is not None  # found by its thread

    await (await w.bob.slash(w.channel, "mahjong end")).reply()
    await tables.notifier.drain()
    assert not current(w.carol, w.channel, opened.lobby.id).custom_ids()  # no Join left
    await private(await w.bob.slash(w.channel, "mahjong end"), w.bob, "no table in this channel")
    ends = stored(
        tmp_path / "db.sqlite3",
        f"SELECT kind FROM events WHERE table_id = {opened.table_id} AND kind = 'end'",
    )
    assert len(ends) == 1


async def test_a_late_join_and_a_foreign_leave_are_refused(
    discord_world, run_bot, tmp_path: Path
) -> None:
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    opened = await open_table(w, w.bob, computer_players=3)
    await bot.services.tables.notifier.drain()
    before = stored(tmp_path / "db.sqlite3", "SELECT seq, kind FROM events ORDER BY id")
    await private(await w.carol.slash(w.channel, "mahjong leave"), w.carol, "not seated")
    await private(await w.carol.slash(w.channel, "mahjong hand"), w.carol, "not playing")
    assert stored(tmp_path / "db.sqlite3", "SELECT seq, kind FROM events ORDER BY id") == before

    # Bob leaves a playing table: a computer player takes his seat, the seats table says so.
    await private(await w.bob.slash(w.channel, "mahjong leave"), w.bob, "computer player")
    table = bot.services.tables.get(opened.table_id)
    assert not table.is_seated(w.bob.id)
    seats = stored(
        tmp_path / "db.sqlite3",
        f"SELECT user_id, is_computer FROM seats WHERE table_id = {opened.table_id}",
    )
    assert sorted(seats, key=str) == [(None, 1)] * 4


async def test_a_channel_where_the_bot_cannot_post_images_is_refused(
    fake_discord, discord_world, run_bot, tmp_path: Path
) -> None:
    from fakediscord.state import Perm
    from fakediscord.world import BOT_PERMISSIONS

    w = discord_world
    role = next(r for r in w.guild.roles.values() if r.permissions == BOT_PERMISSIONS)
    quiet = fake_discord.create_text_channel(
        w.guild,
        "no-files",
        overwrites=[{"id": role.id, "type": 0, "allow": "0", "deny": str(int(Perm.ATTACH_FILES))}],
    )
    await start_bot(run_bot, tmp_path)
    handle = await w.alice.slash(quiet, "mahjong new")
    await private(handle, w.alice, "Attach Files")
    assert stored(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM tables") == [(0,)]
