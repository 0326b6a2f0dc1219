"""Settings from the environment and from ``.env`` files, and where the bot keeps its data.

Where things live does not depend on the folder the bot is started from, so that a restart
from another folder never opens a fresh, empty database by accident (issue 14):

- The **data folder** is ``$MAHJONG_DATA_DIR`` when set (the Docker image sets ``/data``),
  otherwise ``$XDG_DATA_HOME/mahjong-bot``, which is ``~/.local/share/mahjong-bot`` when
  ``XDG_DATA_HOME`` is not set (the XDG base-directory convention; no extra dependency).
- The **database** is ``$MAHJONG_DB`` when set (a relative path is taken from the folder the
  bot starts in and logged as an absolute path), otherwise ``mahjong.sqlite3`` in the data
  folder. The location of earlier versions, ``./data/mahjong.sqlite3`` in the working folder,
  is still used when a database exists there and none exists in the data folder; the bot
  says so in its log and remembers it in ``<data folder>/database-location``, so that a start
  from any other folder finds that same file.
- **Settings** come from the environment, then from ``./.env`` in the working folder (the old
  place, still read), then from ``<data folder>/.env``; a variable set earlier wins.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DATABASE_NAME = "mahjong.sqlite3"
LEGACY_DATABASE = Path("data") / DATABASE_NAME
#: In the data folder: the absolute path of a database kept elsewhere (the legacy place).
LOCATION_FILE = "database-location"


class ConfigError(RuntimeError):
    """A setting is missing or malformed; the message tells the operator what to set."""


def load_dotenv(path: Path = Path(".env")) -> bool:
    """Read ``NAME=value`` lines into the environment, never overriding what is already set.
    Returns whether the file existed."""
    if not path.is_file():
        return False
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        value = value.strip().strip('"').strip("'")
        os.environ.setdefault(name.strip().removeprefix("export "), value)
    return True


def is_url(database: Path | str) -> bool:
    """``MAHJONG_DB`` names a PostgreSQL database rather than a SQLite file."""
    return str(database).startswith(("postgresql://", "postgres://"))


def data_dir() -> Path:
    """The data folder (absolute): ``$MAHJONG_DATA_DIR``, else the XDG data home's folder."""
    explicit = os.environ.get("MAHJONG_DATA_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser().resolve()
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else None
    if base is None:
        base = Path.home() / ".local" / "share"
    return (base / "mahjong-bot").resolve()


@dataclass(frozen=True, slots=True)
class DatabaseChoice:
    """Where the database is, and a sentence for the log when the choice is not the plain
    default (an explicit setting says nothing)."""

    path: Path | str  # a SQLite file, or a postgresql:// URL (the store helper's backend)
    note: str | None = None


def choose_database(folder: Path, cwd: Path | None = None) -> DatabaseChoice:
    """Apply the rules above (``folder``: the data folder; ``cwd``: the working folder)."""
    cwd = (cwd or Path.cwd()).resolve()
    explicit = os.environ.get("MAHJONG_DB", "").strip()
    if is_url(explicit):
        return DatabaseChoice(explicit)  # a Path would fold the URL's "//"
    if explicit:
        path = Path(explicit).expanduser()
        return DatabaseChoice(path if path.is_absolute() else (cwd / path).resolve())
    default = folder / DATABASE_NAME
    if default.exists():
        return DatabaseChoice(default)
    legacy = cwd / LEGACY_DATABASE
    if legacy.is_file():
        _remember(folder, legacy)
        return DatabaseChoice(
            legacy,
            f"using the database of an earlier version at {legacy} (found in the working "
            f"folder); the bot will find it from any folder now (recorded in "
            f"{folder / LOCATION_FILE}). To use the default place instead, stop the bot and "
            f"move the file (with its -wal and -shm files) to {default}.",
        )
    remembered = _remembered(folder)
    if remembered is not None:
        return DatabaseChoice(
            remembered,
            f"using the database at {remembered}, as recorded in {folder / LOCATION_FILE}",
        )
    return DatabaseChoice(default)


def _remember(folder: Path, database: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / LOCATION_FILE).write_text(f"{database}\n")
    except OSError:
        pass  # a read-only home: the note in the log still tells where the database is


def _remembered(folder: Path) -> Path | None:
    try:
        text = (folder / LOCATION_FILE).read_text().strip()
    except OSError:
        return None
    path = Path(text)
    return path if text and path.is_absolute() and path.is_file() else None


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
    database: Path | str  # a SQLite file (absolute when read from the environment), or a URL
    dev_guild: int | None
    log_level: str
    drawing_processes: int | None = None  # None: one per core (bot.drawing)
    #: Sentences for the start-up log: which files were read, which database was chosen.
    notes: tuple[str, ...] = field(default=())
    data_dir: Path | None = None

    @classmethod
    def from_env(cls, *, require_token: bool = True, cwd: Path | None = None) -> Settings:
        cwd = (cwd or Path.cwd()).resolve()
        notes = []
        if load_dotenv(cwd / ".env"):
            notes.append(f"read settings from {cwd / '.env'} (the working folder)")
        folder = data_dir()
        if load_dotenv(folder / ".env"):
            notes.append(f"read settings from {folder / '.env'}")
        token = os.environ.get("DISCORD_TOKEN", "").strip()
        if require_token and not token:
            raise ConfigError(
                "DISCORD_TOKEN is not set. Create an application at "
                "https://discord.com/developers/applications, add a bot, copy its token and "
                f"run: DISCORD_TOKEN=... mahjong-bot (or put DISCORD_TOKEN=... in "
                f"{folder / '.env'})."
            )
        guild = os.environ.get("MAHJONG_DEV_GUILD", "").strip()
        if guild and not guild.isdigit():
            raise ConfigError(f"MAHJONG_DEV_GUILD must be a server id (digits), not {guild!r}")
        choice = choose_database(folder, cwd)
        if choice.note:
            notes.append(choice.note)
        return cls(
            token=token,
            database=choice.path,
            dev_guild=int(guild) if guild else None,
            log_level=os.environ.get("LOG_LEVEL", "INFO").upper(),
            drawing_processes=_count("MAHJONG_DRAWING_PROCESSES", None),
            notes=tuple(notes),
            data_dir=folder,
        )

    @property
    def heartbeat(self) -> Path:
        """The file the running bot touches while connected (``mahjong-bot health``): next to
        a SQLite database, in the data folder for a PostgreSQL one."""
        if is_url(self.database):
            return (self.data_dir or data_dir()) / "heartbeat"
        database = Path(self.database)
        return database.with_name(database.name + ".heartbeat")


def _count(name: str, default: int | None) -> int | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise ConfigError(f"{name} must be a whole number (0 or more), not {text!r}")
    return int(text)
