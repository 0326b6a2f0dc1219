"""The Discord application: the bot object, its start-up and shut-down.

Start-up (``run``): take the database's lock (one bot process per database file), open and
migrate the database before anything connects (a failure is one line and exit status 1),
then log in. ``setup_hook`` starts the drawing processes (:mod:`bot.drawing`) in the
background, builds the services, loads the cogs, syncs the slash commands (to
``MAHJONG_DEV_GUILD`` at once when set, globally otherwise) and reads every open table;
the bot then connects while the tables are rebuilt from their events in the background (a
table asked for first is rebuilt on the spot), after which what start-up built is frozen out
of the garbage collector's way (``gc.freeze``), and its full passes come on a clock
(:mod:`bot.collector`); the tile emojis are uploaded in the
background. On the first READY the bot
logs one block a newcomer can act on (:func:`ready_report`).

Shut-down: SIGTERM (``docker stop``) and SIGINT (Ctrl-C) close the bot gracefully: the
tables' timers and runners stop, the gateway and HTTP session close, the drawing processes
end and the database is closed, in that order, well within Docker's 10 s.

While connected the bot touches a heartbeat file next to the database every
:data:`HEARTBEAT_SECONDS`; ``mahjong-bot health`` (the Docker HEALTHCHECK) reads its age.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot import allocator, collector
from bot.config import Settings, is_url
from bot.drawing import Drawing
from bot.event_loop import loop_factory
from bot.i18n.commands import CatalogueTranslator
from bot.i18n.locales import MemberLocales
from bot.permissions import invite_url
from bot.process_lock import DatabaseLock, LockError
from bot.schema import schema_version
from bot.store.database import open_database

log = logging.getLogger(__name__)

COGS = ("cogs.scoring", "cogs.ledger", "cogs.table", "cogs.replay", "cogs.help", "cogs.lifecycle")
#: How often the bot touches its heartbeat file while connected; ``health`` allows three.
HEARTBEAT_SECONDS = 20.0
#: Shut-down budget (Docker sends SIGKILL 10 s after SIGTERM; the goal is 5 s): the queued
#: Discord updates, then the drawing processes.
FLUSH_SECONDS = 1.5
DRAWING_CLOSE_SECONDS = 2.0


SERVER_CONTEXTS = app_commands.AppCommandContext(
    guild=True, dm_channel=False, private_channel=False
)
SERVER_INSTALLS = app_commands.AppInstallationType(guild=True, user=False)


# Seconds an idle connection to Discord's API is kept for the next request (see ``login``)
KEEP_ALIVE = 60.0


class StartupError(RuntimeError):
    """The bot cannot start; the message is the one line the operator reads."""


class MahjongBot(commands.Bot):
    """The bot. Services hang off ``bot.services``; cogs stay thin and call them."""

    def __init__(self, settings: Settings, db: Any = None, **kwargs: Any) -> None:
        # The bot has no voice: discord.py's two warnings about voice libraries would only
        # worry a newcomer reading the start-up log.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        # No privileged intents: slash commands and components need none.
        intents = discord.Intents.none()
        intents.guilds = True
        # MESSAGE_CREATE in a table's channel (not its content: no privileged intent) tells
        # the notifier something was posted below the table, which it then brings back down.
        intents.guild_messages = True
        # Names are shown as typed: a nickname such as "@everyone" must not ping anyone. The
        # few messages meant to ping a member say so themselves.
        kwargs.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # discord.py keeps the last 1,000 messages it saw (each with its embeds, components
        # and author) for message edit and delete events this bot does not listen to.
        kwargs.setdefault("max_messages", None)
        # Where the commands are offered (issue 16.4): every command works on a server's data
        # (its tables, ledger and rule settings), so all of them are declared for servers
        # only, installed with the bot to a server, never to a user's account. The tree's
        # defaults reach the synced payload of every top-level command, the /mahjong group
        # included (a subcommand's own guild_only never does: Discord reads contexts only on
        # top-level commands). A command may still widen its own (the tree merges them).
        kwargs.setdefault("allowed_contexts", SERVER_CONTEXTS)
        kwargs.setdefault("allowed_installs", SERVER_INSTALLS)
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents, help_command=None, **kwargs
        )
        self.settings = settings
        self.db: Any = db
        self.services: Any = None
        self.drawing = Drawing(settings.drawing_processes)
        self.synced: list[Any] = []
        self.forwarding: Any = None  # bot/cluster/forwarding.py, on PostgreSQL
        self.reported_ready = False
        self.translator = CatalogueTranslator()
        self.member_locales = MemberLocales()  # each member's last locale, for their DMs
        self._background: set[asyncio.Task[Any]] = set()
        self._shutdown: asyncio.Task[None] | None = None
        # Only a bot that has its process to itself (``serve``): in the tests' process a
        # frozen object is never collected, whatever test made it.
        self.freezes_after_restore = False

    async def login(self, token: str) -> None:
        # discord.py's own connector lets a connection idle 15 s before closing it. Acks go
        # on whatever connection is idle: when none was (a burst of picture uploads had
        # them all), a new one cost 86-111 ms at 200 tables, 2.6 % of acks (aiohttp's
        # traces), which made the acks' p99. Connections kept a minute stay ready for the
        # next burst (against Discord a new connection also costs a TLS handshake).
        if getattr(self.http, "connector", None) is discord.utils.MISSING:
            self.http.connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=KEEP_ALIVE)
        await super().login(token)

    async def setup_hook(self) -> None:
        from bot.services import build_services

        self.drawing.start()
        if self.db is None:
            self.db = await open_database(self.settings.database)
        self.services = build_services(self, self.db)
        for name in COGS:
            try:
                await self.load_extension(name)
            except commands.ExtensionNotFound:
                log.warning("cog %s is not available yet", name)
        self._share_global_budget()
        # Command names and descriptions in each shipped language (bot/i18n/commands.py).
        await self.tree.set_translator(self.translator)
        await self.sync_commands()
        # Several processes on PostgreSQL: presses for a table another process runs go to it.
        from bot.cluster.forwarding import start_forwarding

        self.forwarding = await start_forwarding(self)
        # Connect first, rebuild the tables after (issue 12: 1,000 open tables kept the bot
        # offline for 25 s): the open tables are read now, replayed in the background, and a
        # table asked for before its turn is rebuilt on the spot (TableService.load).
        await self.services.load()
        # Members' languages, for the DMs sent before their next click (bot/i18n/locales.py).
        from bot.store.member_settings_repo import MemberSettingsRepository

        await self.member_locales.load(MemberSettingsRepository(self.db))
        self.spawn(self._restore(), "restore-tables")
        self.spawn(self._heartbeat(), "heartbeat")
        self.spawn(self._give_back_memory(), "give-back-memory")

    def _share_global_budget(self) -> None:
        """``MAHJONG_GLOBAL_RATE``: this process's share of Discord's global request budget,
        which belongs to the bot's token, not to a process (docs/scaling.md). The notifier's
        pacer is scaled from its default rate to the share (a scaled pacer stays scaled: the
        tests run it at 24 times Discord's pace)."""
        share = self.settings.global_rate
        pacer = getattr(
            getattr(getattr(self.services, "tables", None), "notifier", None), "pacer", None
        )
        if share is None or pacer is None:
            return
        import inspect

        from cogs.notify.pacing import Pacer

        default = inspect.signature(Pacer).parameters["global_rate"].default
        pacer.global_rate *= share / default
        log.info("this process paces itself to %g Discord requests a second", share)

    async def _restore(self) -> None:
        await self.services.restore()
        if self.freezes_after_restore:
            # What start-up built (the modules: 57,000 objects before any table; the
            # restored tables; the rule tables) lives as long as the bot: the collector's full
            # passes need not walk it again. They grew with every open table (150 ms at 100
            # tables, 200-500 ms at 400, up to 1.3 s on a loaded machine; issue 12).
            # Collected first so no garbage is kept for ever.
            gc.collect()
            gc.freeze()
            log.info("%d objects left out of the collector's passes", gc.get_freeze_count())
            self.spawn(collector.full_passes(self.is_closed), "full-passes")

    async def sync_commands(self) -> None:
        if self.settings.dev_guild:
            guild = discord.Object(self.settings.dev_guild)
            self.tree.copy_global_to(guild=guild)
            self.synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(self.synced), self.settings.dev_guild)
        else:
            self.synced = await self.tree.sync()
            log.info("synced %d global commands", len(self.synced))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        # A DM is no interaction: the language of a member's DMs is that of their last click.
        await self.member_locales.remember(interaction.user.id, interaction.locale)

    async def on_ready(self) -> None:
        if self.reported_ready:
            return  # a RESUME or re-IDENTIFY: said once is enough
        self.reported_ready = True
        log.info("%s", await ready_report(self))

    def spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
        """Run a background task, keeping a reference and logging its failure."""
        task = asyncio.create_task(coro, name=name)
        self._background.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._background.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("background task %s failed", name, exc_info=t.exception())

        task.add_done_callback(done)
        return task

    async def _heartbeat(self) -> None:
        """Touch the heartbeat file while the gateway is connected (``mahjong-bot health``)."""
        path = self.settings.heartbeat
        await self.wait_until_ready()
        while not self.is_closed():
            if self.is_ready() and self.gateway_open():
                with contextlib.suppress(OSError):
                    path.write_text(f"{os.getpid()} {time.time():.0f}\n")
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def _give_back_memory(self) -> None:
        """Every minute, the memory freed meanwhile goes back to the system
        (``bot/allocator.py``): resident memory stays flat over an evening."""
        while not self.is_closed():
            await asyncio.sleep(allocator.EVERY_SECONDS)
            await asyncio.to_thread(allocator.give_back)

    def gateway_open(self) -> bool:
        return self.ws is not None and self.ws.open

    async def close(self) -> None:
        """Shut down once, in order; a second call waits for the first."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._close_in_order())
        await asyncio.shield(self._shutdown)

    async def _close_in_order(self) -> None:
        """Stop the tables (no move is taken any more; a move being written finishes or rolls
        back whole), let the last updates reach Discord for a moment, then close the gateway
        and HTTP session, the drawing processes and the database."""
        if self.forwarding is not None:
            await self.forwarding.stop()  # presses sent here now go to the tables' next owner
        if self.services is not None:
            await self.services.stop()
            await self._flush_notifier(FLUSH_SECONDS)
        for task in list(self._background):
            task.cancel()
        await super().close()
        try:
            await asyncio.wait_for(self.drawing.close(), DRAWING_CLOSE_SECONDS)
        except TimeoutError:  # cancelled: the processes still drawing were killed
            log.info("stopped the drawing processes that were still drawing")
        if self.db is not None:
            await self.db.close()
            self.db = None
        with contextlib.suppress(OSError):
            self.settings.heartbeat.unlink(missing_ok=True)

    async def _flush_notifier(self, seconds: float) -> None:
        """Give the table messages and DMs queued for Discord ``seconds`` to be sent; what is
        left then is cancelled. Players see the latest state again when the bot comes back
        ("The bot restarted; the table resumes."). The tile emoji upload (the notifier's task
        named ``tile-emojis``) is no player's update: it stops at once and goes on at the next
        start, where it skips the emojis already uploaded."""
        for task in asyncio.all_tasks():
            if task.get_name() == "tile-emojis":
                task.cancel()
        notifier = getattr(getattr(self.services, "tables", None), "notifier", None)
        drain = getattr(notifier, "drain", None)
        if drain is None:
            return
        try:
            await asyncio.wait_for(drain(), seconds)  # on timeout this cancels what is left
        except TimeoutError:
            log.info("stopped the updates still queued for Discord")
        pacer = getattr(notifier, "pacer", None)
        if pacer is not None:  # what still runs now meets a closed drawing or session
            pacer.shutting_down = True


class ShardedMahjongBot(MahjongBot, commands.AutoShardedBot):
    """The bot running some of the bot's shards in this process (``--shards 0-3
    --shard-count 8``, issue 15): discord.py's ``AutoShardedBot`` with ``shard_ids``. Other
    processes run the other shards on the same PostgreSQL database (docs/scaling.md)."""

    def gateway_open(self) -> bool:
        return bool(self.shards) and not any(s.is_closed() for s in self.shards.values())

    @property
    def uploads_emojis(self) -> bool:
        """The tile emojis are uploaded by shard 0's process; the others wait for them (the
        notifier), or two processes would race for each emoji's name."""
        return 0 in (self.shard_ids or [0])


def make_bot(settings: Settings, db: Any = None, **kwargs: Any) -> MahjongBot:
    """The bot for these settings: sharded when a shard count is set, plain otherwise (one
    process, every guild, no shard in IDENTIFY: the default stays as it always was)."""
    if settings.shard_count is None:
        return MahjongBot(settings, db=db, **kwargs)
    shard_ids = list(settings.shard_ids or range(settings.shard_count))
    return ShardedMahjongBot(
        settings, db=db, shard_ids=shard_ids, shard_count=settings.shard_count, **kwargs
    )


async def ready_report(bot: MahjongBot) -> str:
    """The block logged on the first READY: who the bot is, where it is, where its data is,
    what it restored, and how to invite it."""
    user = bot.user
    guilds = sorted(bot.guilds, key=lambda g: g.name.casefold())
    shown = ", ".join(f"{g.name} ({g.id})" for g in guilds[:10])
    if len(guilds) > 10:
        shown += f" and {len(guilds) - 10} more"
    servers = f"{len(guilds)}: {shown}" if guilds else "none yet: open the invite link below"
    database = bot.settings.database
    if not is_url(database):
        database = Path(database).resolve()
    try:
        version = await asyncio.to_thread(schema_version, database)
    except sqlite3.Error:
        version = None
    tables = restored_tables(bot)
    if bot.settings.dev_guild:
        commands_line = (
            f"{len(bot.synced)} synced to server {bot.settings.dev_guild} (they show at once)"
        )
    else:
        commands_line = (
            f"{len(bot.synced)} synced globally (a Discord client may need a reload, Ctrl-R, "
            "to show new ones)"
        )
    app_id = bot.application_id or (user.id if user else 0)
    lines = [
        "mahjong-bot is ready",
        f"  logged in as  {user} (id {user.id if user else '?'})",
        f"  servers       {servers}",
        *_shards_line(bot),
        f"  database      {database} (version {'?' if version is None else version})",
        f"  tables        {tables}",
        f"  commands      {commands_line}",
        "  tile emojis   uploaded to the application in the background (the first time)",
        f"  invite        {invite_url(app_id)}",
        "  stop          Ctrl-C or SIGTERM (docker stop); tables resume at the next start",
    ]
    return "\n".join(lines)


def _shards_line(bot: MahjongBot) -> list[str]:
    count = bot.settings.shard_count
    if count is None:
        return []
    ids = list(bot.settings.shard_ids or range(count))
    return [f"  shards        {', '.join(map(str, ids))} of {count} in this process"]


def restored_tables(bot: MahjongBot) -> str:
    """How many open tables the bot holds, by status, and how many it is still rebuilding
    from their events in the background (the table service's ``_unrestored``: read at
    start-up, rebuilt after the bot connected)."""
    service = getattr(bot.services, "tables", None)
    live = list(getattr(service, "tables", {}).values())
    waiting = len(getattr(service, "_unrestored", ()))
    playing = sum(1 for t in live if getattr(t, "status", None) == "playing")
    lobbies = sum(1 for t in live if getattr(t, "status", None) == "lobby")
    text = f"{len(live)} restored ({playing} playing, {lobbies} in the lobby)" if live else ""
    if waiting:
        text += f"{', ' if text else ''}{waiting} still being restored in the background"
    return text or "0 restored"


# -- running the bot as a process ----------------------------------------------------------


def run(settings: Settings) -> int:
    """Run the bot until it is stopped; return the process's exit status (0 after a
    graceful stop, 1 when it cannot start; the cause is logged in one line)."""
    try:
        with (
            DatabaseLock.for_database(settings.database),
            asyncio.Runner(loop_factory=loop_factory(settings.event_loop)) as runner,
        ):
            return runner.run(serve(settings))
    except (StartupError, LockError) as exc:
        log.critical("%s", exc)
        return 1


async def serve(settings: Settings) -> int:
    for note in settings.notes:
        log.info("%s", note)
    _check_shards(settings)
    db = await open_checked(settings.database)
    bot = make_bot(settings, db=db)
    bot.freezes_after_restore = True
    collector.pace()
    allocator.map_large_blocks()
    stopping = _stop_on_signals(bot)
    try:
        async with bot:
            try:
                await bot.start(settings.token)
            except discord.LoginFailure as exc:
                raise StartupError(
                    "Discord refused the token (401 Unauthorized): copy it again from the "
                    "Developer Portal (Bot > Reset Token) into DISCORD_TOKEN"
                ) from exc
            except (aiohttp.ClientConnectionError, TimeoutError) as exc:
                if stopping.is_set():
                    return 0
                raise StartupError(f"cannot reach Discord: {exc}") from exc
            except discord.HTTPException as exc:
                if bot.reported_ready:
                    raise  # not a start-up failure: a bug, with its traceback
                log.debug("start-up request refused", exc_info=exc)
                raise StartupError(
                    f"Discord refused a start-up request ({exc.status}): {exc.text or exc} "
                    "(LOG_LEVEL=DEBUG shows the request)"
                ) from exc
    finally:
        # The whole shut-down, to its end: leaving ``async with`` waits only for
        # discord.py's part, and asyncio.run would cancel the rest (the database's close).
        await bot.close()
        _restore_signals()
    log.info("mahjong-bot stopped")
    return 0


def _check_shards(settings: Settings) -> None:
    """Some shards in this process and the rest elsewhere needs a database several processes
    share: a SQLite file serves one process (its lock refuses a second)."""
    count = settings.shard_count
    if count is None or is_url(settings.database):
        return
    if settings.shard_ids is not None and len(settings.shard_ids) < count:
        raise StartupError(
            f"--shards {','.join(map(str, settings.shard_ids))} of {count} leaves the other "
            "shards to other processes, and a SQLite database serves one process: run every "
            f"shard here (--shard-count {count} alone) or use PostgreSQL (MAHJONG_DB="
            "postgresql://..., see docs/scaling.md)"
        )


async def open_checked(path: Path | str) -> Any:
    """Open and migrate the database, or say in one line why not."""
    where = path if is_url(path) else Path(path).resolve()
    try:
        return await open_database(path)
    except sqlite3.DatabaseError as exc:
        raise StartupError(
            f"the database {where} cannot be opened or brought up to date: {exc} (is it a "
            "mahjong-bot database? restore it from a backup, or point MAHJONG_DB at the right "
            "file)"
        ) from exc
    except OSError as exc:
        raise StartupError(
            f"the database {where} cannot be opened: {exc.strerror or exc}"
            " (check the folder exists and the bot may write there, or set MAHJONG_DB)"
        ) from exc
    except RuntimeError as exc:
        raise StartupError(f"the database {where} cannot be migrated: {exc}") from exc


_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _stop_on_signals(bot: MahjongBot) -> asyncio.Event:
    """SIGTERM and SIGINT close the bot (the first one; a second is ignored while closing)."""
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    closing: set[asyncio.Future[None]] = set()  # a reference, so the task is not collected

    def stop(name: str) -> None:
        if stopping.is_set():
            return
        stopping.set()
        log.info("%s received: closing the tables, the gateway and the database", name)
        closing.add(asyncio.ensure_future(bot.close()))

    for sig in _SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows
            loop.add_signal_handler(sig, stop, sig.name)
    return stopping


def _restore_signals() -> None:
    loop = asyncio.get_running_loop()
    for sig in _SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(sig)
