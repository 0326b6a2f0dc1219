"""A real PostgreSQL server for the tests, started from Debian's binaries in a temporary folder.

One server per test session (``initdb`` + ``pg_ctl`` on a free port of 127.0.0.1, torn down
at the end); the ``db`` tests share one migrated database emptied before each test, and a
test that needs a database of its own gets one copied from a migrated template. PostgreSQL
refuses to run as root, so as root (CI) the server runs as the ``postgres`` user the package
creates (``runuser``), its folder owned by that user.

The server trades durability for speed (``fsync=off``): it holds test data only. A watchdog
process stops it and removes its folder if the test run dies without tearing down (killed,
timed out), so no server outlives its run.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

HOW_TO_GET = (
    "PostgreSQL binaries (initdb, pg_ctl) not found: install them with "
    "`apt-get install -y postgresql` (Debian/Ubuntu) or put their folder on PATH; "
    ".ci/run installs them"
)
TEMPLATE = "mahjong_template"


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (Debian's, newest first, then PATH)."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).parent
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """A running server: ``url(database)`` to connect, ``stop()`` to tear it down."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="mahjong-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.as_user: list[str] = []
        self._names = itertools.count(1)
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self.as_user, *args], capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stdout}\n{done.stderr}")

    def start(self) -> None:
        self._run(
            str(self.binaries / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200"
        )
        self._run(
            str(self.binaries / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )

        self._watchdog = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _WATCHDOG,
                str(os.getpid()),
                *self.as_user,
                str(self.binaries / "pg_ctl"),
                str(self.data),
                str(self.folder),
            ],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def next_name(self) -> str:
        return f"test_{os.getpid()}_{next(self._names)}"

    def stop(self) -> None:
        if getattr(self, "_watchdog", None) is not None:
            self._watchdog.kill()
            self._watchdog.wait()
        try:
            self._run(
                str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"
            )
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


# Waits for the test run (argv[1]) to end; if the server is still there, stops it and removes
# its folder. argv: pid, [runuser -u postgres --], pg_ctl, data folder, folder.
_WATCHDOG = """
import os, shutil, subprocess, sys, time
pid, *command, pg_ctl, data, folder = sys.argv[1:]
while True:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        break
    time.sleep(1)
subprocess.run([*command, pg_ctl, '-D', data, '-m', 'immediate', 'stop'], capture_output=True)
shutil.rmtree(folder, ignore_errors=True)
"""
