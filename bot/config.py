"""Settings from the environment (and an optional ``.env`` file beside the working directory)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


class ConfigError(RuntimeError):
    """A setting is missing or malformed; the message tells the operator what to set."""


def load_dotenv(path: Path = Path(".env")) -> None:
    """Read ``NAME=value`` lines into the environment, never overriding what is already set."""
    if not path.is_file():
        return
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        value = value.strip().strip('"').strip("'")
        os.environ.setdefault(name.strip().removeprefix("export "), value)


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
    database: Path | str  # a SQLite file, or a postgresql:// URL
    dev_guild: int | None
    log_level: str
    drawing_processes: int | None = None  # None: one per core (bot.drawing)

    @classmethod
    def from_env(cls, *, require_token: bool = True) -> Settings:
        load_dotenv()
        token = os.environ.get("DISCORD_TOKEN", "").strip()
        if require_token and not token:
            raise ConfigError(
                "DISCORD_TOKEN is not set. Create an application at "
                "https://discord.com/developers/applications, add a bot, copy its token and "
                "run: DISCORD_TOKEN=... mahjong-bot (or put DISCORD_TOKEN=... in a .env file)."
            )
        guild = os.environ.get("MAHJONG_DEV_GUILD", "").strip()
        if guild and not guild.isdigit():
            raise ConfigError(f"MAHJONG_DEV_GUILD must be a server id (digits), not {guild!r}")
        return cls(
            token=token,
            database=_database(os.environ.get("MAHJONG_DB", "./data/mahjong.sqlite3")),
            dev_guild=int(guild) if guild else None,
            log_level=os.environ.get("LOG_LEVEL", "INFO").upper(),
            drawing_processes=_count("MAHJONG_DRAWING_PROCESSES", None),
        )


def _count(name: str, default: int | None) -> int | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise ConfigError(f"{name} must be a whole number (0 or more), not {text!r}")
    return int(text)


def _database(value: str) -> Path | str:
    """``MAHJONG_DB``: a ``postgresql://`` URL stays text (a Path would fold its ``//``)."""
    if value.startswith(("postgresql://", "postgres://")):
        return value
    return Path(value)
