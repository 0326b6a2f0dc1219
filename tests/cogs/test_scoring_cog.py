"""/score, /rules and /settle through the fake Discord: good answers, every kind of bad input
answered privately, and the settle buttons (foreign and double clicks, restarts)."""

from __future__ import annotations

import pytest
from discord import app_commands
from fakediscord import CommandError

from bot.rules.rulesets import RULESETS
from bot.service.ledger import PENDING_SECONDS
from cogs.common import DM_REFUSAL, GuildOnly, error_text

EXAMPLE_1 = "123m 456m 789s 55s 22p win 2p from W"


async def test_score_shows_the_itemised_lines_and_payments(discord_world, start_bot) -> None:
    w = discord_world
    await start_bot()
    reply = await (await w.alice.slash(w.channel, "score", hand=EXAMPLE_1, seat="S")).reply()
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"] == "Mah-Jongg: 22 points"
    assert "Mah-Jongg" in embed["description"] and "Pung Chow p.3" in embed["description"]
    assert "South seat, East round" in embed["description"]
    payments = embed["fields"][0]["value"]
    assert "East pays South **44**" in payments and "West pays South **22**" in payments
    card = reply.attachment("score.png")
    assert card.content_type == "image/png" and card.width > 100


async def test_score_takes_the_win_apart_and_options(discord_world, start_bot) -> None:
    w = discord_world
    await start_bot()
    handle = await w.alice.slash(
        w.channel,
        "score",
        hand="123m 456m 789s 55s 22p",
        win="2p from W",
        seat="S",
        options="mahjong_bonus=10",
    )
    reply = await handle.reply()
    assert reply.embeds[0]["title"] == "Mah-Jongg: 12 points"  # Example 1 with a bonus of 10
    for options, expected in (("bogus=1", "unknown option 'bogus'"), ("limit", "name=value")):
        handle = await w.bob.slash(w.channel, "score", hand=EXAMPLE_1, options=options)
        reply = await handle.reply()
        assert reply.ephemeral and expected in reply.content.lower()


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("123m 456x 789s 55s 22p win 2p", "'456x' is not a tile"),
        ("5555s 456m 789s 55s 22p win 2p", "copies of 5 Bamboo"),
        ("[555p 123m", "is not closed"),
    ],
)
async def test_score_bad_hands_get_a_private_reason(
    discord_world, start_bot, hand: str, expected: str
) -> None:
    w = discord_world
    await start_bot()
    reply = await (await w.bob.slash(w.channel, "score", hand=hand)).reply()
    assert reply.ephemeral and reply.visible_to == w.bob.id
    assert expected in reply.content
    assert not [m for m in w.alice.messages(w.channel) if m.interaction_id]  # nothing public


async def test_unknown_rules_and_dms_are_refused(discord_world, start_bot) -> None:
    w = discord_world
    bot = await start_bot()
    with pytest.raises(CommandError, match="must be one of"):
        await w.alice.slash(w.channel, "score", hand=EXAMPLE_1, rules="riichi")
    with pytest.raises(CommandError, match="cannot use /settle"):
        await w.alice.slash(w.alice.dm(), "settle", winner=w.alice, east=w.alice, south=w.bob)
    synced = {c["name"]: c for c in w.server.commands()}
    assert synced["settle"].get("contexts") == [0]
    assert all(synced[name].get("contexts") == [0, 1, 2] for name in ("score", "rules"))
    # Should a client send one anyway, the cog's check answers with a clear message.
    with pytest.raises(app_commands.NoPrivateMessage) as refused:
        await GuildOnly().interaction_check(type("DM", (), {"guild_id": None})())
    assert error_text(refused.value) == DM_REFUSAL
    assert bot.get_cog("SettleCog") is not None


async def test_rules_answers_privately_with_a_button_to_share(discord_world, start_bot) -> None:
    w = discord_world
    bot = await start_bot()
    listing = await (await w.alice.slash(w.channel, "rules")).reply()
    assert listing.ephemeral and listing.visible_to == w.alice.id
    assert "`washing`" in listing.embeds[0]["description"]
    washing = await (await w.alice.slash(w.channel, "rules", topic="washing")).reply()
    assert washing.ephemeral and washing.visible_to == w.alice.id
    assert (
        "p.61" in washing.embeds[0]["title"] and "13 heads: 200" in washing.embeds[0]["description"]
    )
    assert washing.custom_ids() == ["mj:rules:share:washing"]
    assert not [m for m in w.bob.messages(w.channel) if m.embeds]  # nobody else saw it
    shared = await (await w.alice.click(washing, "mj:rules:share:washing")).reply()
    assert not shared.ephemeral and shared.embeds[0]["title"] == washing.embeds[0]["title"]
    assert "Shared by alice" in shared.embeds[0]["footer"]["text"]
    assert shared in w.bob.messages(w.channel)
    topics = await (await w.alice.click(listing, "mj:rules:share:topics")).reply()
    assert not topics.ephemeral and "`washing`" in topics.embeds[0]["description"]
    # /rules options: a page per rule set, ◀ ▶ between them, each within Discord's embed
    # limits; the page shown is the one shared.
    options = await (await w.alice.slash(w.channel, "rules", topic="options")).reply()
    count = len(RULESETS)
    assert options.embeds[0]["title"] == f"Table options: pung-chow (1 of {count})"
    seen = []
    for number in range(1, count + 1):
        embed = options.embeds[0]
        assert len(embed["description"]) <= 4096 and len(embed["title"]) <= 256
        assert f"({number} of {count})" in embed["title"]
        seen.append(embed["description"])
        ahead = next(c for c in options.custom_ids() if c.startswith("mj:rules:page:"))
        assert options.component(ahead).get("disabled") == (number == 1)  # ◀
        if number < count:
            forward = options.custom_ids()[1]
            options = await (await w.alice.click(options, forward)).reply()
    assert all(f"**{name}**" in text for name, text in zip(RULESETS, seen, strict=True))
    share = next(c for c in options.custom_ids() if c.startswith("mj:rules:share:"))
    assert share == f"mj:rules:share:options:{count - 1}"
    shared = await (await w.alice.click(options, share)).reply()
    assert not shared.ephemeral and shared.embeds[0]["description"] == seen[-1]
    unknown = await (await w.alice.slash(w.channel, "rules", topic="poker")).reply()
    assert unknown.ephemeral and "No rules topic 'poker'" in unknown.content
    choices = await (
        await w.alice.autocomplete(w.channel, "rules", focused="topic", topic="lim")
    ).choices()
    assert {c["value"] for c in choices} >= {"limit-hands", "limit-scoring"}
    # Dynamic items only: discord.py keeps none of the answers' views (each page's ◀ ▶ as
    # plain buttons kept every /rules answer in memory for good).
    store = bot._connection._view_store
    assert store._views == {} and store._synced_message_views == {}


async def _propose(w, **options):
    return await (await _propose_handle(w, **options)).reply()


async def _propose_handle(w, **options):
    """Alice (East, 480) proposes a win over Bob (South, 64) and Carol (West, 272)."""
    return await w.alice.slash(
        w.channel,
        "settle",
        winner=w.alice,
        east=w.alice,
        east_score="480",
        south=w.bob,
        south_score="64",
        west=w.carol,
        west_score="272",
        **options,
    )


def _settlement_id(message) -> int:
    return int(message.embeds[0]["title"].split("#")[1].split(":")[0])


async def test_settle_counts_only_after_every_other_player_confirmed(
    discord_world, start_bot
) -> None:
    w = discord_world
    bot = await start_bot()
    handle = await _propose_handle(w)
    message = await handle.reply()
    [ping] = await handle.followups(1)
    assert w.bob.mention in ping.content and w.carol.mention in ping.content
    assert w.alice.mention not in ping.content and "expires <t:" in ping.content
    assert "waiting for confirmation" in message.embeds[0]["title"]
    assert "expires <t:" in message.embeds[0]["description"]
    settlement_id = _settlement_id(message)
    confirm = f"mj:settle:{settlement_id}:confirm"
    assert message.custom_ids() == [confirm, f"mj:settle:{settlement_id}:cancel"]
    ledger = bot.services.ledger
    guild = w.guild.id

    # A stranger and the proposer change nothing.
    stranger = await (await w.dave.click(message, confirm)).reply()
    assert stranger.ephemeral and "Only the players" in stranger.content
    own = await (await w.alice.click(message, confirm)).reply()
    assert own.ephemeral and "You proposed this settlement" in own.content
    assert await ledger.balance(guild, w.alice.id) == 1000

    after_bob = await (await w.bob.click(message, confirm)).reply()
    assert after_bob.id == message.id
    assert "✅ bob" in after_bob.embeds[0]["fields"][1]["value"]
    assert "⏳ carol" in after_bob.embeds[0]["fields"][1]["value"]
    again = await (await w.bob.click(message, confirm)).reply()
    assert again.ephemeral and "already confirmed" in again.content
    assert await ledger.balance(guild, w.alice.id) == 1000  # carol has not confirmed yet
    assert (await ledger.stats(guild, w.alice.id)).hands == 0

    handle = await w.carol.click(message, confirm)
    edited = await handle.reply()
    assert "posted to the ledger" in edited.embeds[0]["title"]
    assert edited.custom_ids() == []
    [note] = await handle.followups(1)
    assert "posted" in note.content
    # East won 480 and collects double from each: 2 x 960.
    assert await ledger.balance(guild, w.alice.id) == 1000 + 1920
    chips = await (await w.alice.slash(w.channel, "chips")).reply()
    assert chips.embeds[0]["title"] == "alice: 2,920 chips"


async def test_settle_expires_and_its_buttons_say_so(discord_world, start_bot, clock) -> None:
    w = discord_world
    bot = await start_bot()
    message = await _propose(w)
    confirm = f"mj:settle:{_settlement_id(message)}:confirm"
    await (await w.bob.click(message, confirm)).reply()
    clock.advance(PENDING_SECONDS)
    late = await (await w.carol.click(message, confirm)).reply()
    assert late.ephemeral and "expired" in late.content and "nothing was recorded" in late.content
    shown = await w.server.wait_for(
        lambda: (m := w.server.message(message.id)) and "expired" in m.embeds[0]["title"] and m,
        what="the settlement shown as expired",
    )
    assert shown.custom_ids() == []
    assert await bot.services.ledger.balance(w.guild.id, w.alice.id) == 1000
    assert (await bot.services.ledger.stats(w.guild.id, w.bob.id)).hands == 0


async def test_settle_cancel_and_bad_input(discord_world, start_bot) -> None:
    w = discord_world
    bot = await start_bot()
    message = await _propose(w, rules="pung-chow", round="S")
    cancel = f"mj:settle:{_settlement_id(message)}:cancel"
    refused = await (await w.dave.click(message, cancel)).reply()
    assert refused.ephemeral and "Only the players of this settlement" in refused.content
    done = await (await w.bob.click(message, cancel)).reply()  # a player declines
    assert "cancelled" in done.embeds[0]["title"] and done.custom_ids() == []
    assert await bot.services.ledger.balance(w.guild.id, w.alice.id) == 1000

    async def refusal(**options) -> str:
        reply = await (await w.alice.slash(w.channel, "settle", **options)).reply()
        assert reply.ephemeral and reply.visible_to == w.alice.id
        return reply.content

    before = len([m for m in w.bob.messages(w.channel) if m.interaction_id])
    assert "winner must be one of the players" in await refusal(
        winner=w.dave, east=w.alice, south=w.bob, south_score="12"
    )
    assert "East (alice)'s hand: '789x' is not a tile" in await refusal(
        winner=w.alice,
        east=w.alice,
        east_score="123m 456m 789x 55s 22p win 2p",
        south=w.bob,
    )
    assert "listed twice" in await refusal(winner=w.alice, east=w.alice, south=w.alice)
    assert "North's score is given, not the player" in await refusal(
        winner=w.alice, east=w.alice, south=w.bob, north_score="5"
    )
    after = len([m for m in w.bob.messages(w.channel) if m.interaction_id])
    assert after == before  # every refusal was private


async def test_settle_buttons_survive_a_restart(discord_world, start_bot, run_bot) -> None:
    w = discord_world
    first = await start_bot()
    message = await _propose(w)
    settlement_id = _settlement_id(message)
    await first.close()
    second = await start_bot()
    confirm = f"mj:settle:{settlement_id}:confirm"
    await (await w.bob.click(message, confirm)).reply()
    await (await w.carol.click(message, confirm)).reply()
    assert await second.services.ledger.balance(w.guild.id, w.bob.id) == 1000 - 960 - 208


async def test_score_names_a_house_rule_that_changed_it(discord_world, start_bot) -> None:
    w = discord_world
    await start_bot()
    hand = "234m 456m 567p 345s 99p win 3s from W"
    plain = await (await w.alice.slash(w.channel, "score", hand=hand, rules="singapore")).reply()
    assert "House rules" not in [f["name"] for f in plain.embeds[0]["fields"]]
    house = await (
        await w.alice.slash(
            w.channel, "score", hand=hand, rules="singapore", options="four_chows_eyes=any"
        )
    ).reply()
    fields = {f["name"]: f["value"] for f in house.embeds[0]["fields"]}
    assert "`four_chows_eyes=any` changed this hand" in fields["House rules"]
    listing = await (await w.alice.slash(w.channel, "rules", topic="options")).reply()
    while "singapore" not in listing.embeds[0]["title"]:  # a page per rule set: ▶ to it
        listing = await (await w.alice.click(listing, listing.custom_ids()[1])).reply()
    text = listing.embeds[0]["description"]
    assert "🏠 `three_pungs_drawn`=any" in text and "'3 Pungs, win by drawing from wall: 4'" in text


def test_a_hand_that_pays_a_penalty_says_it_pays() -> None:
    """Furi Tem not declared: the winner pays the penalty; 'South collects -1,000' read as a
    mistake."""
    import asyncio

    from cogs.scoring import _as_win, score_embed
    from tests.service.test_scoring_input import service

    result = asyncio.run(
        service().score(
            "111m 234p 555s 678s 9p",
            rules="singapore",
            seat="S",
            win=_as_win("9p from W furiten-undeclared"),
        )
    )
    payments = score_embed(result).fields[0].value
    assert "South pays West **1,000**" in payments
    assert payments.endswith("South pays 1,000 in all") and "collects" not in payments
