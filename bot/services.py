"""The bot's services, built once at start-up and shared by the cogs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiosqlite


@dataclass
class Services:
    """Every use case the cogs may call. Each service owns its locks and transactions."""

    guild_settings: Any
    ledger: Any
    scoring: Any
    tables: Any = None

    async def start(self) -> None:
        """Restore open tables and start their timers (after the commands are synced)."""
        if self.tables is not None:
            await self.tables.start()

    async def stop(self) -> None:
        if self.tables is not None:
            await self.tables.stop()


def build_services(bot: Any, db: aiosqlite.Connection) -> Services:
    from bot.service.guild_settings import GuildSettingsService
    from bot.service.ledger import LedgerService
    from bot.service.scoring import ScoringService
    from bot.service.tables import TableService
    from bot.store.tables_repo import TablesRepository

    guild_settings = GuildSettingsService(db)
    ledger = LedgerService(db, guild_settings)
    scoring = ScoringService(db, ledger)
    tables = TableService(bot, TablesRepository(db), ledger, guild_settings)
    return Services(guild_settings, ledger, scoring, tables)
