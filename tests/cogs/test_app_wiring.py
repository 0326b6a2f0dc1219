"""The real bot (bot.app.MahjongBot, every cog) starts on an empty database and answers the
ledger and scoring commands: the services are wired as bot/services.py builds them."""

from __future__ import annotations

from bot.app import MahjongBot
from bot.config import Settings


async def test_the_real_bot_answers_ledger_and_scoring_commands(
    discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    settings = Settings(
        token="test-token", database=tmp_path / "db.sqlite3", dev_guild=None, log_level="INFO"
    )
    await run_bot.start(MahjongBot(settings))
    names = {c["name"] for c in w.server.commands()}
    assert {"score", "rules", "settle", "chips", "history", "stats", "leaderboard"} <= names
    chips = await (await w.alice.slash(w.channel, "chips")).reply()
    assert chips.embeds[0]["title"] == "alice: 1,000 chips"
    bad = await (await w.bob.slash(w.channel, "score", hand="12x")).reply()
    assert bad.ephemeral and "'12x'" in bad.content
