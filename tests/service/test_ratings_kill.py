"""A bot process SIGKILLed while it rates a game (between two of the rating's writes) leaves
the game unrated, and the next process rates it exactly once (a real SQLite file, a real
kill)."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

from bot.service.ledger import LedgerService
from bot.services import build_services
from bot.store.database import open_database
from tests.service.ratings_helpers import GUILD, finished_game
from tests.store.helpers import FakeClock, scalar

KILLED_WHILE_RATING = """
import asyncio, os, signal, sys
from bot.services import build_services
from bot.store.database import open_database

async def main(path, table_id):
    db = await open_database(path)
    ratings = build_services(None, db, tables=False).ratings
    repo = ratings.repo
    save = repo.save_changes

    async def save_then_die(guild_id, changes):
        await save(guild_id, changes[:1])  # the claim and one member's rows are written
        os.kill(os.getpid(), signal.SIGKILL)

    repo.save_changes = save_then_die
    await ratings.rate_game(table_id)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def test_a_kill_between_writes_never_rates_twice(tmp_path: Path) -> None:
    path = tmp_path / "mahjong.sqlite3"
    clock = FakeClock()
    db = await open_database(path)
    ledger: LedgerService = build_services(None, db, clock=clock, tables=False).ledger
    game = await finished_game(db, ledger, clock, {11: 30, 12: 10, 13: -40})
    await db.close()

    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_WHILE_RATING, str(path), str(game)
    )
    assert await child.wait() == -signal.SIGKILL

    db = await open_database(path)
    try:
        for table in ("ratings", "rated_games", "rating_changes"):
            assert await scalar(db, f"SELECT COUNT(*) FROM {table}") == 0, table
        ratings = build_services(None, db, clock=clock, tables=False).ratings
        changes = await ratings.rate_game(game)
        assert [changes[u].place for u in (11, 12, 13)] == [1, 2, 3]
        assert await ratings.catch_up(GUILD) == 0
        assert await scalar(db, "SELECT COUNT(*) FROM rating_changes") == 3
        assert await scalar(db, "SELECT SUM(games) FROM ratings") == 3
    finally:
        await db.close()
