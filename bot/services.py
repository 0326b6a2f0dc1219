"""The bot's services, built once at start-up and shared by the cogs.

This is the one place that builds repositories: every service receives the repositories it
needs on the store ``open_database`` returned (SQLite or PostgreSQL), never a connection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.store.backend import Database
from bot.store.base import Clock


@dataclass
class Services:
    """Every use case the cogs may call. Each service owns its locks and transactions."""

    guild_settings: Any
    ledger: Any
    scoring: Any
    tables: Any = None
    #: Several processes on one PostgreSQL database: the tables this one runs (bot/cluster).
    ownership: Any = None
    replays: Any = None
    ratings: Any = None

    async def start(self) -> None:
        """Restore open tables and start their timers (after the commands are synced)."""
        await self.load()
        await self.restore()

    async def load(self) -> None:
        """Read the open tables, replaying none yet (the bot does this before it connects)."""
        if self.tables is not None:
            await self.tables.load()

    async def restore(self) -> None:
        """Rebuild and resume the tables read by ``load`` (in the background once connected;
        a table asked for meanwhile is rebuilt on the spot)."""
        if self.tables is not None:
            await self.tables.restore_all()
        if self.ownership is not None:
            self.ownership.start()

    async def stop(self) -> None:
        if self.tables is not None:
            await self.tables.stop()
        if self.ownership is not None:
            # Every table given up at once: the other processes take them over now.
            await self.ownership.stop()


def build_services(
    bot: Any, db: Database, *, clock: Clock | None = None, tables: bool = True
) -> Services:
    """The services on ``db``; ``tables=False`` leaves the table service out (tests of the
    other cogs run without a bot to post tables)."""
    from bot.service.guild_settings import GuildSettingsService
    from bot.service.ledger import LedgerService
    from bot.service.ratings import RatingService
    from bot.service.replays import ReplayService
    from bot.service.scoring import ScoringService
    from bot.service.tables import TableService
    from bot.store.ledger_repo import LedgerRepository
    from bot.store.member_settings_repo import MemberSettingsRepository
    from bot.store.ratings_repo import RatingsRepository
    from bot.store.replays_repo import ReplaysRepository
    from bot.store.settings_repo import SettingsRepository
    from bot.store.stats_repo import StatsRepository
    from bot.store.tables_repo import TablesRepository

    guild_settings = GuildSettingsService(SettingsRepository(db, clock=clock))
    ledger = LedgerService(
        LedgerRepository(db, clock=clock), StatsRepository(db, clock=clock), guild_settings
    )
    scoring = ScoringService(ledger)
    ratings = RatingService(RatingsRepository(db, clock=clock))
    table_service = ownership = None
    if tables:
        table_service = TableService(
            bot,
            TablesRepository(db, clock=clock),
            ledger,
            guild_settings,
            members=MemberSettingsRepository(db, clock=clock),
        )
        table_service.ratings = ratings  # a finished game's rating changes, for its standings
        if db.kind == "postgres":
            # Any number of processes may share a PostgreSQL database: each runs the tables it
            # holds a lease on (docs/scaling.md). SQLite serves one process: no leases at all.
            from bot.cluster.ownership import TableOwnership
            from bot.store.leases_repo import LeasesRepository

            ownership = TableOwnership(LeasesRepository(db, clock=clock))
            ownership.attach(table_service)
    replays = ReplayService(ReplaysRepository(db, clock=clock))
    return Services(
        guild_settings, ledger, scoring, table_service, ownership, replays, ratings=ratings
    )
