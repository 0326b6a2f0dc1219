"""The real bot (discord.py, SQLite, renderer) against the fake Discord: one member plays a
hand against three computer players from /mahjong new to the final standings."""

from __future__ import annotations

from bot.app import MahjongBot
from bot.config import Settings
from tests.e2e.players import play_turns


def make_bot(tmp_path) -> MahjongBot:
    settings = Settings(
        token="test-token", database=tmp_path / "db.sqlite3", dev_guild=None, log_level="INFO"
    )
    return MahjongBot(settings)


async def test_one_member_plays_a_hand_with_three_computers(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    bot = await run_bot.start(make_bot(tmp_path))
    bot.services.tables.computer_delay = 0
    bot.services.tables.next_hand_delay = 0.05
    handle = await w.alice.slash(w.channel, "mahjong new", computer_players=3, hands=1)
    lobby = await handle.reply()
    start = next(cid for cid in lobby.custom_ids() if cid.endswith(":start"))
    await (await w.alice.click(lobby, start)).ack()

    def standings() -> bool:
        return any(
            e.get("title") == "Final standings"
            for m in w.alice.messages(w.channel)
            for e in m.embeds
        )

    pressed = await play_turns(w.alice, until=standings)
    assert pressed > 0
    titles = [e.get("title", "") for m in w.alice.messages(w.channel) for e in m.embeds]
    assert any(t.startswith("Hand 1:") for t in titles)
    assert titles.index("Final standings") > max(
        i for i, t in enumerate(titles) if t.startswith("Hand 1:")
    )
