"""The bot process's event loop (bot/event_loop.py): uvloop's unless told otherwise, and the
tests' network guard holds on it as on asyncio's."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import aiohttp
import pytest

import bot.app
from bot.config import ConfigError, Settings
from bot.event_loop import loop_factory
from tests.fakediscord.sandbox import network_guard

uvloop = pytest.importorskip("uvloop")


def test_the_choice_of_loop() -> None:
    assert loop_factory("uvloop") is uvloop.new_event_loop
    assert loop_factory("asyncio") is None


def test_the_bot_runs_on_uvloop_unless_told_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def serve(settings: Settings) -> int:
        loops.append(asyncio.get_running_loop())
        return 0

    monkeypatch.setattr(bot.app, "serve", serve)
    settings = Settings(
        token="x", database=tmp_path / "db.sqlite3", dev_guild=None, log_level="INFO"
    )
    assert bot.app.run(settings) == 0
    assert bot.app.run(dataclasses.replace(settings, event_loop="asyncio")) == 0
    assert isinstance(loops[0], uvloop.Loop)
    assert not isinstance(loops[1], uvloop.Loop)


def test_the_setting_reads_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MAHJONG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DISCORD_TOKEN", "abc")
    monkeypatch.delenv("MAHJONG_EVENT_LOOP", raising=False)
    assert Settings.from_env().event_loop == "uvloop"
    monkeypatch.setenv("MAHJONG_EVENT_LOOP", " AsyncIO ")
    assert Settings.from_env().event_loop == "asyncio"
    monkeypatch.setenv("MAHJONG_EVENT_LOOP", "trio")
    with pytest.raises(ConfigError, match="MAHJONG_EVENT_LOOP must be uvloop or asyncio"):
        Settings.from_env()


def test_the_network_guard_holds_on_uvloop() -> None:
    """uvloop resolves names and connects in C, not through ``socket.getaddrinfo`` and
    ``socket.socket.connect``: the guard covers its loop's own look-ups and connections
    too, by name or by number, stream or datagram, and puts uvloop's methods back after."""
    problems: list[str] = []

    async def reach_out() -> list[str]:
        failed = []
        timeout = aiohttp.ClientTimeout(total=5)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            for url in ("http://discord.com/api/v10/gateway", "http://10.255.255.1:9/"):
                with pytest.raises(aiohttp.ClientError):
                    await session.get(url)
                failed.append(url)
        return failed

    async def connect_raw() -> int:
        loop = asyncio.get_running_loop()
        refused = 0
        for host in ("1.1.1.1", "example.com"):
            with pytest.raises(OSError):
                await loop.create_connection(asyncio.Protocol, host, 80)
            refused += 1
        with pytest.raises(OSError):
            await asyncio.open_connection("10.255.255.2", 80)
        with pytest.raises(OSError):
            await loop.create_datagram_endpoint(
                asyncio.DatagramProtocol, remote_addr=("9.9.9.9", 53)
            )
        return refused + 2

    with (
        network_guard(problems.append),
        asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner,
    ):
        assert len(runner.run(reach_out())) == 2
        assert runner.run(connect_raw()) == 4
    for blocked in ("'discord.com'", "10.255.255.1", "1.1.1.1", "example.com", "10.255.255.2"):
        assert any(blocked in p for p in problems), (blocked, problems)
    assert any("9.9.9.9" in p for p in problems), problems
    for name in ("getaddrinfo", "create_connection", "create_datagram_endpoint"):
        assert name not in vars(uvloop.Loop)  # put back: uvloop's own again
