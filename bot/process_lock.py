"""One bot process per database file.

Two bots on one database would both restore and play the same tables, answer the same
buttons twice and fight over every write. ``DatabaseLock`` takes an exclusive ``flock`` on
``<database>.lock`` for as long as the bot runs; a second process is refused at start with
the first one's process id. The kernel drops the lock when the process ends, however it
ends (SIGKILL included), so a crash never leaves a stale lock behind; the file itself stays.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock, said in the docstring of acquire
    fcntl = None  # type: ignore[assignment]


class LockError(RuntimeError):
    """The database is in use by another bot process (or its lock file cannot be made)."""


def lock_path(database: Path) -> Path:
    return database.with_name(database.name + ".lock")


class DatabaseLock:
    """``with DatabaseLock(path):`` holds the database for this process."""

    def __init__(self, database: Path) -> None:
        self.database = Path(database).resolve()
        self.path = lock_path(self.database)
        self._fd: int | None = None

    @classmethod
    def for_database(cls, database: Path | str) -> contextlib.AbstractContextManager[Any]:
        """The lock of a SQLite file; nothing for a PostgreSQL URL (not a file here)."""
        if str(database).startswith(("postgresql://", "postgres://")):
            return contextlib.nullcontext()
        return cls(Path(database))

    def acquire(self) -> None:
        """Take the lock or raise :class:`LockError` (on systems without ``fcntl`` the lock
        is not taken: run one bot per database there yourself)."""
        if fcntl is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except (FileExistsError, NotADirectoryError) as exc:
            raise LockError(
                f"cannot use {self.database}: a part of its folder path is a file, not a "
                "folder (set MAHJONG_DB or MAHJONG_DATA_DIR to a folder path)"
            ) from exc
        except OSError as exc:
            raise LockError(
                f"cannot create {self.path}: {exc.strerror or exc} (check that the bot may "
                "write in the database's folder, or set MAHJONG_DB)"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise LockError(
                f"another mahjong-bot (process {holder}) is already running on "
                f"{self.database}; stop it first, or give this one its own MAHJONG_DB"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing drops the flock
        self._fd = None

    def __enter__(self) -> DatabaseLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
