"""Answers in the right language through the fake Discord (issue 13.4): bob reads zh-TW, the
server zh-CN. /chips, /stats and /score answered in the channel are public: the server's
language; /score in bob's DM is his; a private refusal is his too."""

from __future__ import annotations

EXAMPLE_1 = "123m 456m 789s 55s 22p win 2p from W"


async def test_public_answers_read_the_servers_language_private_ones_the_members(
    discord_world, start_bot
) -> None:
    w = discord_world
    w.guild.preferred_locale = "zh-CN"
    w.bob.record.locale = "zh-TW"
    await start_bot()

    chips = await (await w.bob.slash(w.channel, "chips")).reply()
    assert not chips.ephemeral and chips.embeds[0]["title"] == "bob：1,000 筹码"
    stats = await (await w.bob.slash(w.channel, "stats")).reply()
    assert {f["name"] for f in stats.embeds[0]["fields"]} >= {"手数", "胜率", "积分"}

    public = await (await w.bob.slash(w.channel, "score", hand=EXAMPLE_1, seat="S")).reply()
    assert public.embeds[0]["title"] == "胡牌：22 分"
    assert "二筒明刻" in public.embeds[0]["description"]
    assert "东付给南 **44**" in public.embeds[0]["fields"][0]["value"]  # simplified: the server's
    assert public.attachment("score.png").content_type == "image/png"

    private = await (await w.bob.slash(w.bob.dm(), "score", hand=EXAMPLE_1, seat="S")).reply()
    assert "東付給南 **44**" in private.embeds[0]["fields"][0]["value"]  # his own: traditional
    assert "南家，東圈" in private.embeds[0]["description"]

    english = await (await w.alice.slash(w.alice.dm(), "score", hand=EXAMPLE_1)).reply()
    assert english.embeds[0]["title"] == "Mah-Jongg: 22 points"

    refused = await (
        await w.bob.slash(w.channel, "settle", winner=w.alice, east=w.bob, south=w.carol)
    ).reply()
    assert refused.ephemeral and refused.content == "胡牌者必須是其中一位玩家"
