"""/chips, /history, /stats and /leaderboard through the fake Discord."""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import CommandError

DAY = 86400


async def post(bot, guild: int, key: str, winner: int, losers: dict[int, int]) -> None:
    ledger = bot.services.ledger
    payments = [(loser, winner, amount) for loser, amount in losers.items()]
    results = [(winner, True, max(losers.values()), sum(losers.values()))]
    await ledger.post_settlement(
        guild, "hand", payments, source_key=key, ruleset="pung-chow", results=results
    )


async def test_chips_of_someone_without_history_are_the_starting_chips(
    discord_world, start_bot
) -> None:
    w = discord_world
    bot = await start_bot()
    mine = await (await w.alice.slash(w.channel, "chips")).reply()
    assert mine.embeds[0]["title"] == "alice: 1,000 chips"
    await bot.services.guild_settings.update(w.guild.id, starting_chips=250)
    bobs = await (await w.alice.slash(w.channel, "chips", member=w.bob)).reply()
    assert bobs.embeds[0]["title"] == "bob: 250 chips"
    assert "started with 250 and is +0" in bobs.embeds[0]["description"]
    with pytest.raises(CommandError, match="cannot use /chips"):
        await w.alice.slash(w.alice.dm(), "chips")


async def test_history_and_stats(discord_world, start_bot, clock) -> None:
    w = discord_world
    bot = await start_bot()
    empty = await (await w.bob.slash(w.channel, "history")).reply()
    assert "No hands yet" in empty.embeds[0]["description"]
    g = w.guild.id
    await post(bot, g, "t:1:h:1", w.bob.id, {w.alice.id: 44, -3: 22})
    clock.advance(60)
    await post(bot, g, "t:1:h:2", w.bob.id, {w.alice.id: 30})
    clock.advance(60)
    await post(bot, g, "t:1:h:3", w.alice.id, {w.bob.id: 8})
    history = await (await w.alice.slash(w.channel, "history", member=w.bob)).reply()
    lines = history.embeds[0]["description"].splitlines()
    assert len(lines) == 3
    assert lines[0].endswith("**-8**") and "won with 44" in lines[2]
    stats = await (await w.bob.slash(w.channel, "stats")).reply()
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields["Hands"] == "3" and fields["Wins"] == "2" and fields["Win rate"] == "67%"
    assert fields["Biggest hand"] == "44" and fields["Best streak"] == "2 wins in a row"
    assert fields["Current streak"] == "0" and fields["Balance"] == "1,088"


async def test_leaderboard(discord_world, start_bot, clock) -> None:
    w = discord_world
    bot = await start_bot()
    g = w.guild.id
    empty = await (await w.alice.slash(w.channel, "leaderboard")).reply()
    assert empty.embeds[0]["description"] == "Nobody is ranked yet."
    rate = await (await w.alice.slash(w.channel, "leaderboard", metric="win-rate")).reply()
    assert "at least 5 hands" in rate.embeds[0]["description"]
    await w.carol.slash(w.channel, "chips")  # carol's name is remembered
    await post(bot, g, "old", w.carol.id, {w.dave.id: 500, -2: 500})
    clock.advance(40 * DAY)
    await post(bot, g, "new", w.alice.id, {w.bob.id: 40, w.dave.id: 40})

    board = await (await w.alice.slash(w.channel, "leaderboard")).reply()
    assert board.embeds[0]["title"] == "Leaderboard: chips, all time"
    lines = board.embeds[0]["description"].splitlines()
    assert lines[0] == "**1.** carol · 2,000 chips"
    assert lines[1].startswith("**2.** alice · 1,080 chips")
    assert len(lines) == 4  # the computer player is not ranked
    week = await (await w.alice.slash(w.channel, "leaderboard", period="week")).reply()
    assert week.embeds[0]["description"].splitlines()[0] == "**1.** alice · +80"
    assert "carol" not in week.embeds[0]["description"]
    wins = await (
        await w.alice.slash(w.channel, "leaderboard", metric="wins", period="month")
    ).reply()
    assert wins.embeds[0]["description"] == "**1.** alice · 1 win in 1 hand"
    big = await (await w.alice.slash(w.channel, "leaderboard", metric="biggest-hand")).reply()
    assert big.embeds[0]["description"].splitlines()[0] == "**1.** carol · 500 points"
    with pytest.raises(CommandError, match="must be one of"):
        await w.alice.slash(w.channel, "leaderboard", metric="luck")


async def test_ratings_in_stats_and_the_leaderboard(discord_world, start_bot, clock) -> None:
    from bot.service.ratings import PROVISIONAL_GAMES
    from tests.service.ratings_helpers import finished_game

    w = discord_world
    bot = await start_bot()
    g = w.guild.id
    none_yet = await (await w.carol.slash(w.channel, "stats")).reply()
    fields = {f["name"]: f["value"] for f in none_yet.embeds[0]["fields"]}
    assert fields["Rating"] == "- (no rated game yet)"

    a, b, c = w.alice.id, w.bob.id, w.carol.id
    # Finished tables: alice first, bob second, carol third, twice; a computer played too.
    for _ in range(2):
        await finished_game(
            bot.db, bot.services.ledger, clock, {a: 40, b: 5, c: -25, -4: -20}, guild=g
        )
    stats = await (await w.bob.slash(w.channel, "stats")).reply()
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields["Rating"].startswith("1,") and "last game)" in fields["Rating"]
    assert f"provisional: 2 of {PROVISIONAL_GAMES} games" in fields["Rating"]

    await (await w.alice.slash(w.channel, "chips")).reply()  # her name is remembered
    # ... once answered (the cog stores the names it saw after its answer): wait for it.
    for _ in range(3000):  # up to 30 s on a loaded machine
        if len(await bot.services.ledger.names(g, [a, b, c])) == 3:
            break
        await asyncio.sleep(0.01)
    assert len(await bot.services.ledger.names(g, [a, b, c])) == 3, "names never stored"
    board = await (await w.carol.slash(w.channel, "leaderboard", metric="rating")).reply()
    text = board.embeds[0]["description"]
    assert board.embeds[0]["title"] == "Leaderboard: rating, all time"
    assert "Nobody is ranked yet" in text and "**Provisional**" in text
    order = [text.index(name) for name in ("alice", "bob", "carol")]
    assert order == sorted(order)

    for _ in range(PROVISIONAL_GAMES - 2):
        await finished_game(bot.db, bot.services.ledger, clock, {c: 30, a: -30}, guild=g)
    board = await (await w.carol.slash(w.channel, "leaderboard", metric="rating")).reply()
    text = board.embeds[0]["description"]
    ranked, _, provisional = text.partition("**Provisional**")
    assert "**1.** " in ranked and "alice" in ranked and "carol" in ranked
    assert "bob" in provisional  # two games only
    # A period asked for is not silently dropped: ratings are all time, and the board says so.
    weekly = await (
        await w.carol.slash(w.channel, "leaderboard", metric="rating", period="week")
    ).reply()
    assert weekly.embeds[0]["title"] == "Leaderboard: rating, all time"
    assert weekly.embeds[0]["description"].startswith(
        "-# A rating sums up every game, not only those of the last 7 days: this board is all time."
    )
