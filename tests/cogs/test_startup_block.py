"""The block the real bot logs on its first READY (issue 14): its name, its servers, the
absolute path of its database, the tables it restored, and its invite URL with exactly the
permissions of bot/permissions.py."""

from __future__ import annotations

import gc
import logging
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from bot.app import MahjongBot
from bot.config import Settings
from bot.permissions import PERMISSIONS_INTEGER
from tests.e2e.harness import fast, lobby_id, wait_until


def ready_blocks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("mahjong-bot is")]


def field(block: str, name: str) -> str:
    line = next(line for line in block.splitlines() if line.strip().startswith(name))
    return line.strip()[len(name) :].strip()


async def start(run_bot, database: Path, caplog: pytest.LogCaptureFixture) -> tuple[Any, str]:
    before = len(ready_blocks(caplog))
    settings = Settings(token="test-token", database=database, dev_guild=None, log_level="INFO")
    bot = fast(await run_bot.start(MahjongBot(settings)))
    blocks = await wait_until(
        lambda: ready_blocks(caplog)[before:], 10, "the ready block in the log"
    )
    assert len(blocks) == 1, blocks
    return bot, blocks[0]


async def test_the_ready_block_says_who_where_what_and_how_to_invite(
    discord_world, run_bot, tmp_path, caplog, monkeypatch
) -> None:
    w = discord_world
    caplog.set_level(logging.INFO, logger="bot.app")
    monkeypatch.chdir(tmp_path)
    bot, block = await start(run_bot, Path("data") / "db.sqlite3", caplog)

    assert field(block, "logged in as").startswith(f"{bot.user} (id {bot.user.id})")
    assert field(block, "servers") == f"1: Mahjong Club ({w.guild.id})"
    database = field(block, "database")
    assert database.startswith(str(tmp_path / "data" / "db.sqlite3") + " (version ")
    assert Path(database.split(" (")[0]).is_absolute()
    assert field(block, "tables") == "0 restored"
    assert field(block, "commands").startswith(f"{len(w.server.commands())} synced globally")
    invite = urlparse(field(block, "invite"))
    query = parse_qs(invite.query)
    assert query["client_id"] == [str(bot.application_id)]
    assert query["permissions"] == [str(PERMISSIONS_INTEGER)]
    assert query["scope"] == ["bot applications.commands"]
    assert "Ctrl-C" in field(block, "stop")

    # A lobby left open is restored by the next start, and the block counts it.
    handle = await w.alice.slash(w.channel, "mahjong new")
    lobby = await handle.reply()
    assert lobby_id(lobby, "join")
    await run_bot.close_all()
    bot, block = await start(run_bot, tmp_path / "data" / "db.sqlite3", caplog)
    assert field(block, "tables") == "1 restored (0 playing, 1 in the lobby)"


async def test_a_reconnect_does_not_log_the_block_again(
    discord_world, run_bot, tmp_path, caplog
) -> None:
    w = discord_world
    caplog.set_level(logging.INFO, logger="bot.app")
    bot, _ = await start(run_bot, tmp_path / "db.sqlite3", caplog)
    readies: list[int] = []

    async def on_ready() -> None:
        readies.append(1)

    async def no_pause(shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py waits 5 s before identifying again

    bot.add_listener(on_ready)
    bot.before_identify_hook = no_pause
    await w.server.invalidate_session()
    await wait_until(lambda: readies, 10, "a second READY")
    assert len(ready_blocks(caplog)) == 1


def test_the_tables_line_counts_those_still_being_restored() -> None:
    from types import SimpleNamespace as NS

    from bot.app import restored_tables

    def bot(live: dict, waiting: dict) -> Any:
        return NS(services=NS(tables=NS(tables=live, _unrestored=waiting)))

    assert restored_tables(bot({}, {})) == "0 restored"
    playing, lobby = NS(status="playing"), NS(status="lobby")
    assert restored_tables(bot({1: playing, 2: lobby}, {3: ()})) == (
        "2 restored (1 playing, 1 in the lobby), 1 still being restored in the background"
    )
    assert restored_tables(bot({}, {3: (), 4: ()})) == "2 still being restored in the background"


async def test_a_bot_with_its_process_to_itself_freezes_what_start_up_built(
    discord_world, run_bot, tmp_path, caplog, monkeypatch
) -> None:
    """``serve`` (the bot's own process) leaves start-up's objects out of the collector's
    full passes once the tables are restored (issue 12: GC pauses grew with open tables).
    Not frozen for real here: in the tests' process that would keep other tests' garbage."""
    caplog.set_level(logging.INFO, logger="bot.app")
    calls: list[str] = []
    monkeypatch.setattr(gc, "collect", lambda *args: calls.append("collect") or 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "get_freeze_count", lambda: 57_000)
    settings = Settings(
        token="test-token", database=tmp_path / "db.sqlite3", dev_guild=None, log_level="INFO"
    )
    bot = MahjongBot(settings)
    bot.freezes_after_restore = True
    fast(await run_bot.start(bot))
    said = await wait_until(
        lambda: [
            r.getMessage()
            for r in caplog.records
            if "left out of the collector's passes" in r.getMessage()
        ],
        10,
        "the freeze",
    )
    assert said == ["57000 objects left out of the collector's passes"]
    assert calls == ["collect", "freeze"]  # garbage collected first: none kept for ever
