"""The services on a real store per test (``db``: each backend, see tests/conftest.py), with a
clock the test moves."""

from __future__ import annotations

import pytest

from bot.service.guild_settings import GuildSettingsService
from bot.service.ledger import LedgerService
from bot.service.scoring import ScoringService
from bot.services import Services, build_services
from bot.store.backend import Database
from tests.store.helpers import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def services(db: Database, clock: FakeClock) -> Services:
    return build_services(None, db, clock=clock, tables=False)


@pytest.fixture
def settings(services: Services) -> GuildSettingsService:
    return services.guild_settings


@pytest.fixture
def ledger(services: Services) -> LedgerService:
    return services.ledger


@pytest.fixture
def scoring(services: Services) -> ScoringService:
    return services.scoring
