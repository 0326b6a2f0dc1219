"""The whole bot on PostgreSQL (``MAHJONG_DB=postgresql://...``): four members play a game
over the fake Discord, the bot is stopped after the first hand and a new one takes the table
over from the database, the members go on pressing the buttons they have, and the game ends
with every hand settled once and every ledger balanced."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.app import MahjongBot
from bot.config import Settings
from tests.e2e.harness import FAST_TIME_SCALE, fast, open_table, standings_posted, titles
from tests.e2e.players import SimPlayer, pause, play_all, resume

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def new_bot(url: str) -> MahjongBot:
    return MahjongBot(Settings(token="test-token", database=url, dev_guild=None, log_level="INFO"))


async def test_a_game_on_postgresql_survives_a_restart(
    fake_discord, discord_world, run_bot, postgres_url
) -> None:
    w = discord_world
    bot = fast(await run_bot.start(new_bot(postgres_url)))
    # The fake's rate-limit windows at fast()'s time scale, as start_bot sets them: at
    # Discord's real windows this game took 90 s instead of 20.
    run_bot.server.rate_limits.time_scale = FAST_TIME_SCALE
    opened = await open_table(w, w.alice, [w.bob, w.carol, w.dave], rules="pung-chow", hands=2)
    place = opened.place  # the table's thread
    players = [SimPlayer(u, place) for u in w.players]
    game = asyncio.create_task(
        play_all(players, lambda: standings_posted(w.alice, place), timeout=240)
    )
    for _ in range(9000):  # the first hand's reveal, then a restart
        if game.done() or any(t.startswith("Hand 1:") for t in titles(w.alice, place)):
            break
        await asyncio.sleep(0.02)
    assert not game.done(), "the game ended before the restart"
    # Between two presses (a press into a bot that is down is another test's subject,
    # tests/e2e/test_restart.py): the new bot must rebuild the table from PostgreSQL and take
    # the buttons the members already have.
    await pause(players)
    await bot.close()
    fast(await run_bot.start(new_bot(postgres_url)))
    resume(players)
    await game

    db = await asyncpg.connect(postgres_url)
    try:
        status = await db.fetchval("SELECT status FROM tables WHERE id = $1", opened.table_id)
        assert status == "finished"
        seqs = [
            r["seq"]
            for r in await db.fetch(
                "SELECT seq FROM events WHERE table_id = $1 ORDER BY seq", opened.table_id
            )
        ]
        assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 20
        hands = await db.fetchval("SELECT COUNT(*) FROM hands WHERE table_id = $1", opened.table_id)
        posted = await db.fetch(
            "SELECT source_key FROM settlements WHERE table_id = $1 AND status = 'posted'",
            opened.table_id,
        )
        assert hands == 2 and sorted(r["source_key"] for r in posted) == [
            f"table:{opened.table_id}:hand:1",
            f"table:{opened.table_id}:hand:2",
        ]
        assert (
            await db.fetchval(
                "SELECT COALESCE(SUM(net), 0) FROM accounts WHERE guild_id = $1", w.guild.id
            )
            == 0
        )
        ledger = await db.fetchval(
            "SELECT COALESCE(SUM(CASE WHEN payee_id = $2 THEN amount ELSE -amount END), 0) "
            "FROM ledger WHERE guild_id = $1 AND $2 IN (payer_id, payee_id)",
            w.guild.id,
            w.alice.id,
        )
        account = await db.fetchval(
            "SELECT net FROM accounts WHERE guild_id = $1 AND user_id = $2", w.guild.id, w.alice.id
        )
        assert ledger == (account or 0)
    finally:
        await db.close()
    for p in players:
        assert p.accepted, f"{p.user} never played"
