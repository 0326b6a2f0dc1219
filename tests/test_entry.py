"""mahjong-bot's entry point: a clear message without a token, settings from the environment
and from an optional .env file, the tool sub-commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, Settings


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "MAHJONG"))}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_token_is_a_clear_message_not_a_traceback(tmp_path: Path) -> None:
    result = run([], tmp_path, {})
    assert result.returncode == 2
    assert "DISCORD_TOKEN is not set" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_sub_command_prints_usage(tmp_path: Path) -> None:
    result = run(["fly"], tmp_path, {})
    assert result.returncode == 2
    assert "usage: mahjong-bot" in result.stderr


def test_simulate_and_render_demo_sub_commands(tmp_path: Path) -> None:
    result = run(["simulate", "--rules", "pung-chow", "--hands", "2", "--seed", "1"], tmp_path, {})
    assert result.returncode == 0, result.stderr
    assert "hands/s" in result.stdout
    result = run(["render-demo", "--out", str(tmp_path / "demo")], tmp_path, {})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "demo" / "table_4p.png").stat().st_size > 1000


def test_settings_from_env_and_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("DISCORD_TOKEN", "MAHJONG_DB", "MAHJONG_DEV_GUILD", "LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MAHJONG_DATA_DIR", str(tmp_path / "data-home"))
    (tmp_path / ".env").write_text('DISCORD_TOKEN="abc"\nMAHJONG_DEV_GUILD=123\n# comment\n')
    settings = Settings.from_env()
    assert settings.token == "abc"
    assert settings.dev_guild == 123
    assert settings.database == tmp_path / "data-home" / "mahjong.sqlite3"
    monkeypatch.setenv("DISCORD_TOKEN", "from-env")
    assert Settings.from_env().token == "from-env"
    monkeypatch.setenv("MAHJONG_DEV_GUILD", "my server")
    with pytest.raises(ConfigError, match="server id"):
        Settings.from_env()
