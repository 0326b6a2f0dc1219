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
    #: Sharding (issue 15): the shards this process runs and the bot's total; None: one
    #: process, unsharded (the default). See docs/scaling.md.
    shard_ids: tuple[int, ...] | None = None
    shard_count: int | None = None
    #: This process's share of Discord's global request budget (requests a second); None:
    #: the notifier's own default. Processes sharing one token must share the 50/s.
    global_rate: float | None = None
    #: The bot process's event loop: "uvloop" (the default, where installed) or "asyncio".
    event_loop: str = "uvloop"

    @property
    def sharded(self) -> bool:
        return self.shard_count is not None

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
        shard_ids, shard_count = shards_from(
            os.environ.get("MAHJONG_SHARDS", ""), os.environ.get("MAHJONG_SHARD_COUNT", "")
        )
        return cls(
            token=token,
            database=choice.path,
            dev_guild=int(guild) if guild else None,
            log_level=os.environ.get("LOG_LEVEL", "INFO").upper(),
            drawing_processes=_count("MAHJONG_DRAWING_PROCESSES", None),
            notes=tuple(notes),
            data_dir=folder,
            shard_ids=shard_ids,
            shard_count=shard_count,
            global_rate=_rate("MAHJONG_GLOBAL_RATE"),
            event_loop=event_loop_from(os.environ.get("MAHJONG_EVENT_LOOP", "")),
        )

    @property
    def heartbeat(self) -> Path:
        """The file the running bot touches while connected (``mahjong-bot health``): next to
        a SQLite database, in the data folder for a PostgreSQL one."""
        if is_url(self.database):
            return (self.data_dir or data_dir()) / "heartbeat"
        database = Path(self.database)
        return database.with_name(database.name + ".heartbeat")


def shards_from(shards: str, count: str) -> tuple[tuple[int, ...] | None, int | None]:
    """``MAHJONG_SHARDS`` (``0-3``, ``0,2,5`` or a mix) and ``MAHJONG_SHARD_COUNT`` as the
    shard ids this process runs and the total: both empty -> unsharded; only a count -> every
    shard in this process; shards without a count, or a shard outside ``0..count-1``, is a
    ``ConfigError`` saying what to set."""
    shards, count = shards.strip(), count.strip()
    if not shards and not count:
        return None, None
    if not count:
        raise ConfigError(
            f"MAHJONG_SHARDS={shards} needs MAHJONG_SHARD_COUNT (--shard-count): the number "
            "of shards of the whole bot, across every process"
        )
    if not count.isdigit() or int(count) < 1:
        raise ConfigError(f"MAHJONG_SHARD_COUNT must be a whole number from 1, not {count!r}")
    total = int(count)
    if not shards:
        return tuple(range(total)), total
    ids: set[int] = set()
    for part in shards.replace(" ", "").split(","):
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise ConfigError(
                f"MAHJONG_SHARDS must be shard ids such as 0-3 or 0,2,5, not {shards!r}"
            )
        low, high = int(first), int(last) if dash else int(first)
        if low > high:
            raise ConfigError(f"MAHJONG_SHARDS: the range {part} runs backwards")
        ids.update(range(low, high + 1))
    outside = sorted(i for i in ids if i >= total)
    if outside:
        raise ConfigError(
            f"MAHJONG_SHARDS: shard {outside[0]} does not exist with MAHJONG_SHARD_COUNT="
            f"{total} (shards are 0 to {total - 1})"
        )
    return tuple(sorted(ids)), total


def _rate(name: str) -> float | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1000:
        raise ConfigError(f"{name} must be requests a second (e.g. 20), not {text!r}")
    return value


def event_loop_from(text: str) -> str:
    """``MAHJONG_EVENT_LOOP``'s choice (``uvloop`` when empty), or a ``ConfigError``."""
    from bot.event_loop import CHOICES

    choice = text.strip().lower() or CHOICES[0]
    if choice not in CHOICES:
        raise ConfigError(f"MAHJONG_EVENT_LOOP must be uvloop or asyncio, not {text.strip()!r}")
    return choice


def _count(name: str, default: int | None) -> int | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise ConfigError(f"{name} must be a whole number (0 or more), not {text!r}")
    return int(text)
