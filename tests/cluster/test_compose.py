"""``docker-compose.yml`` checked without Docker (issue 15 item 4): read as Compose reads it
(tests/cluster/compose.py), each bot service's command and environment must be what the bot
itself accepts (``mahjong-bot``'s flags, ``Settings.from_env``): the database at the compose
file's PostgreSQL service, every shard run by exactly one process, the shares of Discord's
budget within it, a restart policy, a health check the image can run, its heartbeat on the
service's volume. Its processes are also started exactly so (the same command, the same
environment) against a real PostgreSQL and the fake Discord: tests/e2e/test_failover.py,
``test_the_compose_processes_answer_commands_for_a_table_taken_over``."""

from __future__ import annotations

import os
import re
from urllib.parse import urlparse

import pytest

from bot.__main__ import SHARD_FLAGS, _shard_flags
from bot.config import Settings
from tests.cluster.compose import ROOT, ComposeError, bot_services, read_yaml, services

SECRETS = {"DISCORD_TOKEN": "a-token-from-dot-env", "POSTGRES_PASSWORD": "from-dot-env"}


def test_the_reader_takes_anchors_merges_and_flow_lists() -> None:
    text = (
        "x-base: &base  # a comment\n"
        "  restart: always\n"
        '  test: ["CMD", "a b", plain]\n'
        "services:\n"
        "  one:\n"
        "    <<: *base\n"
        '    restart: "no"\n'
        "    volumes:\n"
        "      - data:/data  # kept\n"
    )
    one = read_yaml(text)["services"]["one"]
    assert one == {"restart": "no", "test": ["CMD", "a b", "plain"], "volumes": ["data:/data"]}
    with pytest.raises(ComposeError, match="not read here"):
        read_yaml("a: {b: 1}\n")
    with pytest.raises(ComposeError, match="no anchor"):
        read_yaml("a: *nothing\n")


def test_the_compose_file_needs_its_secrets() -> None:
    with pytest.raises(
        ComposeError, match=re.escape("DISCORD_TOKEN: put DISCORD_TOKEN=... in .env")
    ):
        bot_services({"POSTGRES_PASSWORD": "x"})


def test_each_bot_service_runs_the_bot_as_its_command_line_says(tmp_path, environment) -> None:
    database = services()["db"]
    user = database["environment"]["POSTGRES_USER"]
    name = database["environment"]["POSTGRES_DB"]
    assert database["restart"] in ("always", "unless-stopped")
    assert database["healthcheck"]["test"] == [
        "CMD-SHELL",
        f"pg_isready -U {user} -d {name}",
    ]
    bots = bot_services(SECRETS)
    assert len(bots) >= 2
    shards: list[int] = []
    counts, rates = set(), 0.0
    for bot in bots:
        entry = bot.entry
        # A process that dies is started again; until then its shards get no events (and
        # shard 0's process holds every DM: docs/scaling.md).
        assert entry["restart"] in ("always", "unless-stopped", "on-failure"), bot.name
        assert entry["depends_on"] == {"db": {"condition": "service_healthy"}}, bot.name
        assert entry["healthcheck"]["test"] == ["CMD", "mahjong-bot", "health"], bot.name
        assert "/data" in [v.split(":")[1].split()[0] for v in entry["volumes"]], bot.name
        assert bot.command[0] == "mahjong-bot", bot.name

        # The process's settings, as mahjong-bot reads them in the container.
        os.environ.clear()
        os.environ.update(bot.environment)
        os.environ["MAHJONG_DATA_DIR"] = str(tmp_path / bot.name)  # the image's /data
        assert _shard_flags(bot.command[1:]) == [], f"{bot.name}: {bot.command}"
        assert set(SHARD_FLAGS.values()) <= set(os.environ), bot.name
        settings = Settings.from_env(cwd=tmp_path)
        assert settings.token == SECRETS["DISCORD_TOKEN"]
        url = urlparse(str(settings.database))
        assert (url.scheme, url.hostname, url.port) == ("postgresql", "db", 5432), bot.name
        assert (url.username, url.password, url.path) == (
            user,
            SECRETS["POSTGRES_PASSWORD"],
            f"/{name}",
        ), bot.name
        assert settings.shard_ids and settings.shard_count, bot.name
        shards += settings.shard_ids
        counts.add(settings.shard_count)
        assert settings.global_rate is not None, f"{bot.name}: its share of Discord's budget"
        rates += settings.global_rate
        assert settings.heartbeat.parent == tmp_path / bot.name  # on its volume
    [count] = counts
    assert sorted(shards) == list(range(count)), "every shard run by exactly one process"
    assert rates <= 45, "the processes' shares add up to more than the notifier's 45/s"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "MAHJONG_DATA_DIR=/data" in dockerfile
    assert 'ENTRYPOINT ["/usr/bin/tini", "--"]' in dockerfile
    # The command the services name is the one the image installs.
    assert 'mahjong-bot = "bot.__main__:main"' in (ROOT / "pyproject.toml").read_text()
