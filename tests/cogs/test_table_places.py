"""Where ``/mahjong new`` puts a table, with the real bot on the fake Discord: a public thread
of its own opened from the lobby (several tables share a channel, one summary message each),
the thread it is used in, or the channel itself when the bot may not open threads (said once);
and the member-facing commands around a table: help, settings, verify, Cancel asked privately,
Play again. No game is played except for Play again (one hand against computer players)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from fakediscord.state import Perm

from tests.e2e.harness import lobby_id, open_table, standings_posted, start_bot, wait_until
from tests.e2e.players import SimPlayer

NO_THREADS = "cannot open threads here"


def row(db: Path, table_id: int) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return dict(conn.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone())


def count_tables(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM tables").fetchone()[0]


async def private(handle: Any, user: Any, *words: str) -> Any:
    reply = await handle.reply()
    assert reply.ephemeral and reply.visible_to == user.id, reply
    text = reply.content + " ".join(str(e) for e in reply.embeds)
    for word in words:
        assert word.lower() in text.lower(), text
    return reply


async def test_two_tables_share_a_channel_each_in_its_own_thread(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w, db = discord_world, tmp_path / "db.sqlite3"
    await start_bot(run_bot, tmp_path)
    first = await open_table(w, w.alice, start=False)
    second = await open_table(w, w.bob, start=False)
    for opened in (first, second):
        assert opened.place.id == opened.lobby.id  # opened from the lobby message
        assert opened.place.parent_id == w.channel.id
        assert opened.place.name == f"pung-chow table {opened.table_id}"
        await wait_until(
            lambda o=opened: row(db, o.table_id)["channel_id"] == o.place.id, 10, "stored"
        )
        stored = row(db, opened.table_id)
        assert stored["home_channel_id"] == w.channel.id
        assert stored["summary_message_id"] == opened.lobby.id
    # The channel shows the two lobbies and nothing else (no "started a thread" messages).
    assert [m.id for m in w.carol.messages(w.channel)] == [first.lobby.id, second.lobby.id]
    assert not [m for m in w.alice.ephemeral_messages(w.channel) if NO_THREADS in m.content]
    # Joining one lobby changes only that table.
    await (await w.carol.click(second.lobby, lobby_id(second.lobby, "join"))).ack()
    await wait_until(
        lambda: "carol" in str(fake_discord.message(second.lobby.id).embeds), 10, "carol seated"
    )
    assert "carol" not in str(fake_discord.message(first.lobby.id).embeds)


async def test_inside_a_thread_the_table_plays_in_that_thread(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w, db = discord_world, tmp_path / "db.sqlite3"
    await start_bot(run_bot, tmp_path)
    chat = await fake_discord.lifecycle.create_thread(w.channel, "chat", owner=w.alice.record)
    opened = await open_table(w, w.alice, channel=chat, thread=False, start=False)
    assert opened.lobby.channel_id == chat.id
    assert fake_discord.threads(w.channel) == [chat]  # no thread of its own
    stored = row(db, opened.table_id)
    assert stored["channel_id"] == chat.id and stored["home_channel_id"] is None
    # One table per thread: a second one there is refused and stores nothing.
    await private(await w.bob.slash(chat, "mahjong new"), w.bob, "already")
    assert count_tables(db) == 1


async def test_without_thread_permissions_the_table_plays_in_the_channel_said_once(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w, db = discord_world, tmp_path / "db.sqlite3"
    await start_bot(run_bot, tmp_path)
    await fake_discord.set_overwrite(
        w.channel, fake_discord.bot_user, deny=int(Perm.CREATE_PUBLIC_THREADS)
    )
    for _ in range(2):
        opened = await open_table(w, w.alice, thread=False, start=False)
        stored = row(db, opened.table_id)
        assert stored["channel_id"] == w.channel.id and stored["home_channel_id"] is None
        await wait_until(lambda o=opened: row(db, o.table_id)["message_id"], 10, "its message")
        assert row(db, opened.table_id)["message_id"] == opened.lobby.id
        assert fake_discord.threads(w.channel) == []
        await (await w.alice.slash(w.channel, "mahjong end")).reply()
    told = [m for m in w.alice.ephemeral_messages(w.channel) if NO_THREADS in m.content]
    assert len(told) == 1, "the channel without threads is told once"
    assert "Create Public Threads" in told[0].content


async def test_cancel_is_asked_privately_and_changes_nothing_until_confirmed(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w, db = discord_world, tmp_path / "db.sqlite3"
    bot = await start_bot(run_bot, tmp_path)
    opened = await open_table(w, w.alice, [w.bob], start=False)
    lobby = opened.lobby
    before = fake_discord.message(lobby.id).custom_ids()
    question = await private(
        await w.alice.click(lobby, lobby_id(lobby, "cancel")), w.alice, "Cancel this table"
    )
    assert [c.rsplit(":", 1)[1] for c in question.custom_ids()] == ["cancel-yes", "cancel-no"]
    assert fake_discord.message(lobby.id).custom_ids() == before  # bob sees the same lobby
    # Bob (not the host) is refused without a question.
    await private(await w.bob.click(lobby, lobby_id(lobby, "cancel")), w.bob, "host")
    no = next(c for c in question.custom_ids() if c.endswith("cancel-no"))
    await (await w.alice.click(question, no)).ack()
    assert row(db, opened.table_id)["status"] == "lobby"
    question = await (await w.alice.click(lobby, lobby_id(lobby, "cancel"))).reply()
    yes = next(c for c in question.custom_ids() if c.endswith("cancel-yes"))
    await (await w.alice.click(question, yes)).ack()
    assert row(db, opened.table_id)["status"] == "cancelled"
    await wait_until(
        lambda: "cancelled" in str(fake_discord.message(lobby.id).embeds), 10, "lobby closed"
    )
    assert fake_discord.message(lobby.id).custom_ids() == []
    # Every control is a dynamic item: discord.py keeps none of the views sent (while the
    # lobby's help button was a plain one it kept every lobby ever opened, for good).
    store = bot._connection._view_store
    assert store._views == {} and store._synced_message_views == {}


async def test_help_settings_and_verify_answer_privately(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w, db = discord_world, tmp_path / "db.sqlite3"
    bot = await start_bot(run_bot, tmp_path)
    reply = await private(await w.bob.slash(w.channel, "mahjong help"), w.bob)
    assert reply.embeds[0]["title"] == "How to play here"
    await private(
        await w.bob.slash(w.channel, "mahjong settings"), w.bob, "auto_pass_chows: **off**"
    )
    await private(
        await w.bob.slash(w.channel, "mahjong settings", auto_pass_chows=True),
        w.bob,
        "Saved",
        "auto_pass_chows: **on**",
    )
    with sqlite3.connect(db) as conn:
        assert conn.execute(
            "SELECT auto_pass_chows FROM member_settings WHERE user_id = ?", (w.bob.id,)
        ).fetchone() == (1,)
    await private(await w.bob.slash(w.channel, "mahjong verify"), w.bob, "once its game")
    opened = await open_table(w, w.alice, computer_players=3, turn_seconds=0, hands=1)
    await wait_until(lambda: row(db, opened.table_id)["status"] == "playing", 10, "the start")
    seed_hash = bot.services.tables.get(opened.table_id).state.seed_hash
    await private(await w.alice.slash(opened.place, "mahjong verify"), w.alice, seed_hash)


async def test_play_again_opens_a_new_lobby_and_thread_beside_the_finished_one(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w, db = discord_world, tmp_path / "db.sqlite3"
    bot = await start_bot(run_bot, tmp_path)
    bot.services.tables.notifier.release_after = 0.2
    opened = await open_table(w, w.alice, computer_players=3, hands=1)
    await SimPlayer(w.alice, opened.place).play(
        lambda: standings_posted(w.alice, opened.place), timeout=60
    )
    await bot.services.tables.notifier.drain()
    # Its thread is archived once its last post went: out of the server's active threads and
    # out of discord.py's cache, and the bot does not take it back as it would an open table's.
    thread = fake_discord.channel(opened.place.id)
    await wait_until(lambda: thread.archived, 10, "the finished table's thread archived")
    guild = bot.get_guild(w.guild.id)
    await wait_until(lambda: guild.get_thread(thread.id) is None, 10, "the thread uncached")
    await bot.services.tables.notifier.drain()
    assert thread.archived and not thread.locked
    # The channel's one line for the table: finished, with a link to its thread.
    summary = fake_discord.message(opened.lobby.id)
    assert "finished" in summary.content and f"<#{opened.place.id}>" in summary.content
    standings = next(
        m
        for m in w.alice.messages(opened.place)
        if any(e.get("title") == "Final standings" for e in m.embeds)
    )
    again = next(c for c in standings.custom_ids() if c.endswith(":seat:again"))
    handle = await w.alice.click(standings, again)
    (told,) = await handle.followups()
    assert told.ephemeral and "A new table is open" in told.content
    new_id = opened.table_id + 1
    await wait_until(lambda: count_tables(db) == 2, 10, "the new table stored")
    await wait_until(lambda: row(db, new_id)["home_channel_id"] == w.channel.id, 10, "its thread")
    stored = row(db, new_id)
    assert stored["status"] == "lobby" and stored["channel_id"] != opened.place.id
    lobby = fake_discord.message(stored["summary_message_id"])
    assert lobby.channel_id == w.channel.id and lobby.thread is not None
    assert "(computer)" in str(lobby.embeds)  # the computer players kept, the members not
