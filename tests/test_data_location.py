"""Where the bot keeps its database and reads its .env (bot/config.py): the same place from
any working folder; the old ./data/mahjong.sqlite3 still used, said, and then found from any
folder too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import LOCATION_FILE, Settings, data_dir

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("DISCORD_TOKEN", "MAHJONG_DB", "MAHJONG_DATA_DIR", "MAHJONG_DEV_GUILD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
    return tmp_path


def test_two_working_folders_one_database(home: Path) -> None:
    one = Settings.from_env(require_token=False, cwd=home / "one")
    two = Settings.from_env(require_token=False, cwd=home / "two")
    assert one.database == two.database == home / "xdg" / "mahjong-bot" / "mahjong.sqlite3"
    assert data_dir() == home / "xdg" / "mahjong-bot"
    assert one.notes == two.notes == ()


def test_the_data_folder_and_the_database_can_be_set(home: Path, monkeypatch) -> None:
    monkeypatch.setenv("MAHJONG_DATA_DIR", str(home / "volume"))
    assert Settings.from_env(require_token=False, cwd=home / "one").database == (
        home / "volume" / "mahjong.sqlite3"
    )
    # A relative MAHJONG_DB is taken from where the bot starts, and made absolute.
    monkeypatch.setenv("MAHJONG_DB", "mine.sqlite3")
    assert Settings.from_env(require_token=False, cwd=home / "one").database == (
        home / "one" / "mine.sqlite3"
    )
    monkeypatch.setenv("MAHJONG_DB", "postgresql://bot:secret@db/mahjong")
    assert Settings.from_env(require_token=False).database == "postgresql://bot:secret@db/mahjong"


def test_the_old_place_is_used_said_and_then_found_from_any_folder(home: Path) -> None:
    legacy = home / "one" / "data" / "mahjong.sqlite3"
    legacy.parent.mkdir()
    legacy.write_bytes(b"")
    one = Settings.from_env(require_token=False, cwd=home / "one")
    assert one.database == legacy
    assert any(str(legacy) in n and "earlier version" in n for n in one.notes)
    # Started from another folder later, the bot finds that same file, and says why.
    two = Settings.from_env(require_token=False, cwd=home / "two")
    assert two.database == legacy
    assert any(LOCATION_FILE in n for n in two.notes)
    # Once the default place holds a database (moved there), it wins.
    default = home / "xdg" / "mahjong-bot" / "mahjong.sqlite3"
    legacy.rename(default)
    assert Settings.from_env(require_token=False, cwd=home / "one").database == default
    assert Settings.from_env(require_token=False, cwd=home / "two").database == default


def test_dotenv_in_the_data_folder_is_read_from_any_folder(home: Path) -> None:
    folder = home / "xdg" / "mahjong-bot"
    folder.mkdir(parents=True)
    (folder / ".env").write_text("DISCORD_TOKEN=from-data-folder\n")
    (home / "one" / ".env").write_text("DISCORD_TOKEN=from-working-folder\n")
    try:
        # The working folder's .env (the old place) is read first and wins.
        assert Settings.from_env(cwd=home / "one").token == "from-working-folder"
        del os.environ["DISCORD_TOKEN"]
        assert Settings.from_env(cwd=home / "two").token == "from-data-folder"
    finally:
        os.environ.pop("DISCORD_TOKEN", None)


def test_the_bot_started_from_two_folders_opens_one_database(home: Path) -> None:
    """The real entry point (``python -m bot doctor``), from two folders: the same file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "MAHJONG"))}
    env["PYTHONPATH"] = str(ROOT)
    seen = []
    for folder in ("one", "two"):
        result = subprocess.run(
            [sys.executable, "-m", "bot", "doctor", "--offline"],
            cwd=home / folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        line = next(x for x in result.stdout.splitlines() if "database file:" in x)
        seen.append(line.split("database file:")[1].strip())
    assert seen == [str(home / "xdg" / "mahjong-bot" / "mahjong.sqlite3")] * 2
