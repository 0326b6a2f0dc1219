"""``mahjong-bot --shards 0-3 --shard-count 8`` (and MAHJONG_SHARDS / MAHJONG_SHARD_COUNT):
the shards this process runs, checked before anything starts, and the bot running exactly
those shards against the sharded fake Discord (issue 15 item 2)."""

from __future__ import annotations

import os

import pytest

from bot.__main__ import main
from bot.app import MahjongBot, ShardedMahjongBot, StartupError, _check_shards, make_bot
from bot.config import ConfigError, Settings, shards_from
from tests.e2e.harness import fast


@pytest.mark.parametrize(
    ("shards", "count", "expected"),
    [
        ("", "", (None, None)),
        ("0-3", "8", ((0, 1, 2, 3), 8)),
        ("0,2, 5", "8", ((0, 2, 5), 8)),
        ("4-5,1", "6", ((1, 4, 5), 6)),
        ("", "3", ((0, 1, 2), 3)),
        ("2", "3", ((2,), 3)),
    ],
)
def test_shard_settings(shards: str, count: str, expected: tuple) -> None:
    assert shards_from(shards, count) == expected


@pytest.mark.parametrize(
    ("shards", "count", "words"),
    [
        ("0-3", "", "needs MAHJONG_SHARD_COUNT"),
        ("0-8", "8", "shard 8 does not exist"),
        ("3-1", "8", "runs backwards"),
        ("a-b", "8", "shard ids such as 0-3"),
        ("0-", "8", "shard ids such as 0-3"),
        ("", "0", "whole number from 1"),
        ("", "x", "whole number from 1"),
    ],
)
def test_bad_shard_settings_say_what_to_set(shards: str, count: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        shards_from(shards, count)


def test_the_command_line_flags_reach_the_settings(monkeypatch, tmp_path, environment) -> None:
    seen: list[Settings] = []
    os.environ["DISCORD_TOKEN"] = "x" * 20
    os.environ["MAHJONG_DATA_DIR"] = str(tmp_path)
    os.environ.pop("MAHJONG_SHARDS", None)
    os.environ.pop("MAHJONG_SHARD_COUNT", None)
    monkeypatch.setattr("bot.app.run", lambda settings: seen.append(settings) or 0)
    assert main(["--shards", "0-3", "--shard-count=8"]) == 0
    assert seen[-1].shard_ids == (0, 1, 2, 3) and seen[-1].shard_count == 8
    del os.environ["MAHJONG_SHARDS"]
    assert main(["run", "--shard-count", "2"]) == 0
    assert seen[-1].shard_ids == (0, 1) and seen[-1].shard_count == 2
    assert main(["--shards"]) == 2  # no value
    assert main(["doctor", "--shards", "1"]) == 2  # flags only for running the bot
    assert len(seen) == 2


def test_some_shards_need_a_shared_database(tmp_path) -> None:
    def settings(database, shards, count):
        return Settings("t", database, None, "INFO", shard_ids=shards, shard_count=count)

    with pytest.raises(StartupError, match="SQLite database serves one process"):
        _check_shards(settings(tmp_path / "db.sqlite3", (0, 1), 4))
    _check_shards(settings(tmp_path / "db.sqlite3", (0, 1, 2, 3), 4))  # all here: fine
    _check_shards(settings("postgresql://u@h/db", (0, 1), 4))
    plain = make_bot(settings(tmp_path / "db.sqlite3", None, None))
    assert type(plain) is MahjongBot
    sharded = make_bot(settings("postgresql://u@h/db", (1, 3), 4))
    assert isinstance(sharded, ShardedMahjongBot)
    assert sharded.shard_ids == [1, 3] and sharded.shard_count == 4


async def test_a_process_runs_only_its_shards_guilds(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    from tests.test_fakediscord_shards import guild_on_shard

    w = discord_world
    del fake_discord.state.guilds[w.guild.id]
    fake_discord.gateway.shard_count = 2
    guilds = [guild_on_shard(fake_discord, w, n, 2) for n in (0, 1)]
    settings = Settings(
        "test-token", tmp_path / "db.sqlite3", None, "INFO", shard_ids=(1,), shard_count=2
    )
    bot = fast(await run_bot.start(make_bot(settings)))
    assert isinstance(bot, ShardedMahjongBot)
    assert [g.id for g in bot.guilds] == [guilds[1].id]
    assert bot.gateway_open()
    assert fake_discord.gateway.shards.keys() == {1}
