"""``mahjong-bot doctor``: check a set-up and say what is wrong and how to fix it.

Each check gives a :class:`Finding`: ``ok``, a ``problem`` (with the fix), or a ``note``
(something to know that needs no fix, or a check that was skipped). The exit status is 1 when
there is a problem, 0 otherwise, so ``doctor`` can gate a deployment script.

The checks, in the order a newcomer meets them: the token's format (without the network),
the database (it opens, read-only, and its schema version is one this code can run), the
drawing process starts and answers, the bundled fonts load and a tile draws; then, with a
token and unless ``--offline``, a short gateway session that lists the servers the bot is in
and its permissions in each (:mod:`bot.permissions`), as the running bot will see them.

``mahjong-bot health`` is the Docker HEALTHCHECK: exit 0 when the running bot touched its
heartbeat file (:attr:`bot.config.Settings.heartbeat`) within the last minute.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import os
import re
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.config import ConfigError, Settings, is_url
from bot.permissions import PERMISSIONS_INTEGER, invite_url, missing_in
from bot.process_lock import lock_path
from bot.schema import schema_state, shipped_versions

#: How stale the heartbeat may be before ``health`` says the bot is not connected (the bot
#: touches it every ``bot.app.HEARTBEAT_SECONDS``, 20 s).
HEALTHY_WITHIN = 60.0
#: How long the online check may take (connect, READY and every GUILD_CREATE).
ONLINE_TIMEOUT = 30.0

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{17,40}\.[A-Za-z0-9_-]{4,12}\.[A-Za-z0-9_-]{20,}$")
_PORTAL = "https://discord.com/developers/applications"


@dataclass(frozen=True, slots=True)
class Finding:
    status: Literal["ok", "problem", "note"]
    what: str
    fix: str = ""


def ok(what: str) -> Finding:
    return Finding("ok", what)


def problem(what: str, fix: str) -> Finding:
    return Finding("problem", what, fix)


def note(what: str, fix: str = "") -> Finding:
    return Finding("note", what, fix)


# -- the token -------------------------------------------------------------------------------


def bot_id_of(token: str) -> int | None:
    """The bot's user id, which a bot token starts with (base64 of the decimal id)."""
    first = token.split(".", 1)[0]
    try:
        text = base64.urlsafe_b64decode(first + "=" * (-len(first) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(text) if text.isdigit() and 15 <= len(text) <= 21 else None


def check_token(token: str) -> Finding:
    """The token's shape: the mistakes people make when copying it, named."""
    if not token:
        return problem(
            "DISCORD_TOKEN is not set",
            f"open {_PORTAL}, your application, Bot, Reset Token; put the token in "
            "DISCORD_TOKEN (or DISCORD_TOKEN=... in the .env file of the data folder)",
        )
    if token.lower().startswith("bot "):
        return problem(
            "DISCORD_TOKEN starts with 'Bot '", "give the token alone, without 'Bot ' before it"
        )
    if token != token.strip().strip("'\""):
        return problem("DISCORD_TOKEN has quotes or spaces around it", "remove them")
    if token.isdigit():
        return problem(
            "DISCORD_TOKEN is a number: that is the application id, not the token",
            f"copy the token from {_PORTAL} > your application > Bot > Reset Token",
        )
    if re.fullmatch(r"[0-9a-f]{64}", token):
        return problem(
            "DISCORD_TOKEN is the application's public key, not the bot token",
            f"copy the token from {_PORTAL} > your application > Bot > Reset Token",
        )
    if "." not in token and len(token) == 32:
        return problem(
            "DISCORD_TOKEN looks like the OAuth2 client secret, not the bot token",
            f"copy the token from {_PORTAL} > your application > Bot > Reset Token",
        )
    if not _TOKEN.match(token) or bot_id_of(token) is None:
        return problem(
            "DISCORD_TOKEN does not look like a bot token (three parts separated by dots, "
            "the first one the bot's id)",
            f"copy it again from {_PORTAL} > your application > Bot > Reset Token",
        )
    return ok(f"DISCORD_TOKEN looks like a bot token (bot id {bot_id_of(token)})")


# -- the database ----------------------------------------------------------------------------


def check_database(database: Path | str) -> list[Finding]:
    """Read-only: the file opens as SQLite and its version is one this code runs (older is
    fine: the bot migrates it at start, after a backup you make)."""
    if is_url(database):
        return [note(f"database: a PostgreSQL URL; not checked here ({_redact(database)})")]
    path = Path(database).resolve()
    found = [note(f"database file: {path}")]
    latest = max(shipped_versions(), default=0)
    if not path.exists():
        folder = _existing_parent(path)
        if not os.access(folder, os.W_OK):
            found.append(
                problem(
                    f"the database does not exist yet and {folder} is not writable",
                    "create the folder and let the bot's user write there, or set MAHJONG_DB "
                    "(or MAHJONG_DATA_DIR) to a place it may write",
                )
            )
        else:
            found.append(ok(f"the database will be created at the first start (version {latest})"))
        return found
    try:
        state = schema_state(path)
    except sqlite3.DatabaseError as exc:
        found.append(
            problem(
                f"the database cannot be read: {exc}",
                "is MAHJONG_DB the right file? Restore it from a backup (see the README's "
                "Backups), or move it away to start afresh",
            )
        )
        return found
    if state is None or state.unknown:
        found.append(
            problem(
                f"the database has migrations this code does not know "
                f"({', '.join(map(str, state.unknown)) if state else '?'})",
                "it was made by a newer mahjong-bot: update the code (git pull, pip install .)",
            )
        )
    elif state.pending:
        found.append(
            note(
                f"the database is at version {state.version}; the bot applies migration"
                f"{'s' if len(state.pending) > 1 else ''} "
                f"{', '.join(map(str, state.pending))} at its next start by itself",
                f'back it up first: sqlite3 "{path}" ".backup \'backup.sqlite3\'"',
            )
        )
    else:
        found.append(ok(f"the database opens and is at the latest version ({state.version})"))
    holder = _lock_holder(path)
    if holder:
        found.append(note(f"a bot is running on this database (process {holder})"))
    return found


def _existing_parent(path: Path) -> Path:
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _lock_holder(database: Path) -> str | None:
    """The process id in the lock file when a bot holds it (the lock is taken, not stale)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    path = lock_path(database)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _redact(url: Path | str) -> str:
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", str(url))


# -- drawing and fonts -----------------------------------------------------------------------


async def check_drawing() -> Finding:
    """A drawing process starts and says it is ready (the bot draws in one by default)."""
    from bot.drawing import DrawingProcess

    try:
        drawer = await asyncio.wait_for(DrawingProcess.start(), timeout=60)
    except (OSError, EOFError, asyncio.IncompleteReadError, TimeoutError) as exc:
        return problem(
            f"the drawing process does not start: {exc or type(exc).__name__}",
            "run `python -m bot.drawing < /dev/null` to see its error; reinstall with "
            "`pip install .`, or set MAHJONG_DRAWING_PROCESSES=0 to draw in the bot's process",
        )
    await drawer.close()
    return ok("a drawing process starts and answers")


def check_fonts() -> Finding:
    """The bundled fonts load and a tile draws (a broken install lacks renderer/assets)."""
    try:
        from renderer import fonts
        from renderer.emoji import render_tile_emoji

        for name in (fonts.CJK, fonts.BOLD, fonts.REGULAR, fonts.CONDENSED):
            fonts.font(name, 20)
        png = render_tile_emoji(0)
    except (OSError, ImportError, ValueError) as exc:
        return problem(
            f"the bundled fonts do not load: {exc}",
            "reinstall the package (`pip install .`): renderer/assets must be installed too",
        )
    if not png.startswith(b"\x89PNG"):
        return problem("drawing a tile gave no PNG", "reinstall the package (`pip install .`)")
    return ok("the bundled fonts load and a tile draws")


# -- the bot's servers (online) --------------------------------------------------------------


async def check_servers(token: str) -> list[Finding]:
    """Connect once (guilds intent, as the bot does) and read the bot's permissions in every
    server from the GUILD_CREATEs; disconnect."""
    import aiohttp
    import discord

    intents = discord.Intents.none()
    intents.guilds = True
    client = discord.Client(intents=intents)
    found: list[Finding] = []

    @client.event
    async def on_ready() -> None:
        try:
            found.extend(_servers_report(client))
        finally:
            await client.close()

    try:
        async with client:
            await asyncio.wait_for(client.start(token, reconnect=False), timeout=ONLINE_TIMEOUT)
    except discord.LoginFailure:
        return [
            problem(
                "Discord refused the token (401 Unauthorized)",
                f"the token was reset or mistyped: {_PORTAL} > your application > Bot > "
                "Reset Token, then put the new one in DISCORD_TOKEN",
            )
        ]
    except discord.PrivilegedIntentsRequired:  # pragma: no cover - the bot asks for none
        return [problem("Discord refused the intents", "no privileged intent is needed")]
    except (aiohttp.ClientError, OSError, TimeoutError, discord.GatewayNotFound) as exc:
        return [
            note(
                f"could not reach Discord ({exc or type(exc).__name__}): the servers and "
                "permissions were not checked",
                "run doctor again where the network reaches discord.com",
            )
        ]
    return found or [note("Discord did not answer READY: the servers were not checked")]


def _servers_report(client: object) -> list[Finding]:
    import discord

    assert isinstance(client, discord.Client)
    user = client.user
    app_id = client.application_id or (user.id if user else 0)
    found = [ok(f"logged in to Discord as {user}")]
    if not client.guilds:
        found.append(
            problem(
                "the bot is in no server",
                f"open the invite link and add it to your server: {invite_url(app_id)}",
            )
        )
        return found
    for guild in sorted(client.guilds, key=lambda g: g.name.casefold()):
        me = guild.me
        if me is None:
            found.append(note(f"{guild.name}: the bot's member was not sent; not checked"))
            continue
        missing = missing_in(me.guild_permissions)
        if missing:
            found.append(
                problem(
                    f"{guild.name}: the bot's roles lack " + ", ".join(missing),
                    "Server Settings > Roles > the bot's role: tick them, or invite it again "
                    f"with {invite_url(app_id)} (permissions={PERMISSIONS_INTEGER})",
                )
            )
            continue
        text = [c for c in guild.text_channels if c.permissions_for(me).view_channel]
        blocked = [f"#{c.name}" for c in text if missing_in(c.permissions_for(me))]
        if blocked:
            more = f" and {len(blocked) - 5} more" if len(blocked) > 5 else ""
            shown = ", ".join(blocked[:5]) + more
            found.append(
                note(
                    f"{guild.name}: every permission granted, but a channel's settings take "
                    f"some away in {shown}; tables cannot open there",
                    "Edit Channel > Permissions > the bot's role, if tables should open there",
                )
            )
        else:
            found.append(ok(f"{guild.name}: every needed permission in {len(text)} channels"))
    return found


# -- the command -----------------------------------------------------------------------------


async def diagnose(settings: Settings, *, online: bool = True) -> list[Finding]:
    found = [check_token(settings.token)]
    found += check_database(settings.database)
    found.append(await check_drawing())
    found.append(await asyncio.to_thread(check_fonts))
    if not online:
        found.append(note("--offline: the servers and permissions were not checked"))
    elif found[0].status != "ok":
        found.append(note("no usable token: the servers and permissions were not checked"))
    else:
        found += await check_servers(settings.token)
    return found


def report(found: Sequence[Finding]) -> str:
    marks = {"ok": "ok  ", "problem": "FAIL", "note": "note"}
    lines = ["mahjong-bot doctor"]
    for finding in found:
        lines.append(f"  {marks[finding.status]}  {finding.what}")
        if finding.fix:
            lines.append(f"        fix: {finding.fix}")
    problems = sum(1 for f in found if f.status == "problem")
    lines.append(
        f"{problems} problem{'s' if problems != 1 else ''} found."
        if problems
        else "Everything needed is in place."
    )
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="mahjong-bot doctor", description="Check the set-up and say how to fix it."
    )
    parser.add_argument(
        "--offline", action="store_true", help="do not connect to Discord (no server checks)"
    )
    options = parser.parse_args(list(argv))
    try:
        settings = Settings.from_env(require_token=False)
    except ConfigError as exc:
        print(report([problem(str(exc), "fix the variable in the environment or .env")]))
        return 1
    for line in settings.notes:
        print(f"  note  {line}")
    found = asyncio.run(diagnose(settings, online=not options.offline))
    print(report(found))
    return 1 if any(f.status == "problem" for f in found) else 0


def health() -> int:
    """Exit 0 when the running bot touched its heartbeat within :data:`HEALTHY_WITHIN`."""
    try:
        settings = Settings.from_env(require_token=False)
        age = time.time() - settings.heartbeat.stat().st_mtime
    except (ConfigError, OSError) as exc:
        print(f"unhealthy: no heartbeat ({exc})", file=sys.stderr)
        return 1
    if age > HEALTHY_WITHIN:
        print(f"unhealthy: the last heartbeat is {age:.0f} s old", file=sys.stderr)
        return 1
    print(f"healthy: heartbeat {age:.0f} s ago")
    return 0
