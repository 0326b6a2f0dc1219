"""The synced command payload carries each shipped language (issue 13.4), read from what the
real bot synced to the fake Discord: names, descriptions, options and choices, and nothing a
shipped catalogue lacks."""

from __future__ import annotations

from bot.app import MahjongBot
from bot.config import Settings


async def test_the_synced_payload_carries_the_localisations(
    discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    settings = Settings(
        token="test-token", database=tmp_path / "db.sqlite3", dev_guild=None, log_level="INFO"
    )
    bot = MahjongBot(settings)
    await run_bot.start(bot)
    synced = {c["name"]: c for c in w.server.commands()}
    mahjong = synced["mahjong"]
    assert mahjong["name_localizations"] == {"zh-TW": "麻將", "zh-CN": "麻将"}
    assert mahjong["description_localizations"]["zh-TW"] == "打麻將"
    new = next(o for o in mahjong["options"] if o["name"] == "new")
    assert new["name_localizations"]["zh-TW"] == "開桌"
    hands = next(o for o in new["options"] if o["name"] == "hands")
    assert hands["name_localizations"] == {"zh-TW": "局數", "zh-CN": "局数"}
    rules = next(o for o in new["options"] if o["name"] == "rules")
    assert {c["name_localizations"]["zh-CN"] for c in rules["choices"]} >= {"碰吃（pung-chow）"}
    for name, command in synced.items():
        assert set(command["name_localizations"]) == {"zh-TW", "zh-CN"}, name
        assert set(command["description_localizations"]) == {"zh-TW", "zh-CN"}, name
    assert bot.translator.missing == set()
    # Discord still sends the English names: a command typed in Chinese works as before.
    reply = await (await w.alice.slash(w.channel, "chips")).reply()
    assert reply.embeds
