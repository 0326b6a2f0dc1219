"""Scoring in any chat (issue 13.5): /score, /rules and /notation where the app is installed
to a member's own account, answered in the bot's DM and in a group DM the bot is not in,
through the fake Discord; the ledger and /settle are not offered there."""

from __future__ import annotations

import pytest
from fakediscord import CommandError

EXAMPLE_1 = "123m 456m 789s 55s 22p win 2p from W"


async def test_score_in_the_bots_dm(discord_world, start_bot) -> None:
    w = discord_world
    await start_bot()
    reply = await (await w.alice.slash(w.alice.dm(), "score", hand=EXAMPLE_1, seat="S")).reply()
    embed = reply.embeds[0]
    assert embed["title"] == "Mah-Jongg: 22 points"
    assert "West pays South **22**" in embed["fields"][0]["value"]
    assert reply.attachment("score.png").width > 100
    for command in ("chips", "leaderboard", "stats", "history"):
        with pytest.raises(CommandError, match=f"cannot use /{command}"):
            await w.alice.slash(w.alice.dm(), command)


async def test_score_rules_and_notation_in_a_group_dm(discord_world, start_bot) -> None:
    w = discord_world
    await start_bot()
    group = w.server.create_group_dm(w.alice, w.bob, w.carol)
    reply = await (await w.alice.slash(group, "score", hand=EXAMPLE_1, seat="S")).reply()
    assert reply.embeds[0]["title"] == "Mah-Jongg: 22 points"
    assert reply.attachment("score.png").content_type == "image/png"
    # Everyone in the group sees the answer; the bot answered only through the interaction.
    assert [m.id for m in w.bob.messages(group)] == [reply.id]
    assert not w.server.requests_to("POST", rf"/channels/{group.id}/")

    mistake = await (await w.bob.slash(group, "score", hand="123m 456x")).reply()
    assert mistake.ephemeral and "'456x' is not a tile" in mistake.content

    rules = await (await w.carol.slash(group, "rules", topic="washing")).reply()
    assert rules.ephemeral and "p.61" in rules.embeds[0]["title"]
    shared = await (await w.carol.click(rules, "mj:rules:share:washing")).reply()
    assert not shared.ephemeral and shared in w.alice.messages(group)

    read = await (await w.alice.slash(group, "notation", hand="11m 22m 33m 44m 55m 66m 7m")).reply()
    text = read.embeds[0]["description"]
    assert read.ephemeral and "ready, waiting on 1 Characters, 4 Characters, 7 Characters" in text

    # The notation helper while typing /score's hand: one suggestion, the text itself.
    typed = await w.bob.autocomplete(group, "score", focused="hand", hand="123m 456x")
    (choice,) = await typed.choices()
    assert choice["value"] == "123m 456x" and choice["name"].startswith("✗ '456x' is not a tile")
    typed = await w.bob.autocomplete(
        group, "score", focused="hand", hand="11m 22m 33m 44m 55m 66m 7m", rules="singapore"
    )
    (choice,) = await typed.choices()
    assert choice["name"] == "13 tiles, ready on 147m: add win <tile> · 1122334455667m"

    for command in ("settle", "chips", "leaderboard", "mahjong new"):
        with pytest.raises(CommandError, match=f"cannot use /{command}"):
            await w.alice.slash(group, command)
