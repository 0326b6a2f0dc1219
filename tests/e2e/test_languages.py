"""A whole game with a zh-TW member and an en-US member on a server whose language is zh-CN
(issue 13.4): each reads their own language in private (DMs, buttons, ephemeral refusals),
both read the server's in public (lobby, table, reveal, standings), and the synced command
payload carries the localisations. One hand against two computer players, fast() bots."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.harness import lobby_id, open_table, start_bot
from tests.e2e.players import SimPlayer, play_all

CJK = re.compile(r"[\u4e00-\u9fff]")
TRADITIONAL_ONLY = re.compile(r"[結東輪過為終]")  # characters zh-CN writes otherwise
SIMPLIFIED_ONLY = re.compile(r"[结东轮过为终]")


def labels(message: Any) -> list[str]:
    out = []
    for row in message.components:
        for item in row.get("components", ()):
            if item.get("label"):
                out.append(item["label"])
    return out


def embed_texts(user: Any, channel: Any) -> list[str]:
    return [
        " ".join(str(e.get(k, "")) for k in ("title", "description"))
        + " ".join(f.get("name", "") + f.get("value", "") for f in e.get("fields", ()))
        + str(e.get("footer", {}).get("text", ""))
        for m in user.messages(channel)
        if not m.ephemeral
        for e in m.embeds
    ]


async def test_each_member_reads_their_language_in_private_and_the_servers_in_public(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    w.guild.preferred_locale = "zh-CN"
    w.bob.record.locale = "zh-TW"  # alice keeps en-US
    bot = await start_bot(run_bot, tmp_path)

    mahjong = next(c for c in w.server.commands() if c["name"] == "mahjong")
    assert mahjong["name_localizations"] == {"zh-TW": "麻將", "zh-CN": "麻将"}

    opened = await open_table(w, w.alice, [w.bob], start=False, computer_players=2, hands=1)
    lobby = opened.lobby
    assert lobby.embeds[0]["title"] == "麻将桌：pung-chow"  # public: the server's zh-CN
    assert "加入" in labels(lobby)
    # An ephemeral refusal in each member's own language.
    refused = await (await w.bob.click(lobby, lobby_id(lobby, "join"))).reply()
    assert refused.ephemeral and refused.content == "你已經在這張牌桌。"
    refused = await (await w.alice.click(lobby, lobby_id(lobby, "join"))).reply()
    assert refused.content == "You are already at this table."
    assert await (await w.alice.click(lobby, lobby_id(lobby, "start"))).ack() == 6
    place = opened.place  # the table's thread

    seen: dict[str, set[str]] = {"alice": set(), "bob": set()}

    def finished() -> bool:
        # The live DMs' buttons, gathered while they are there (a finished DM has none).
        for name, user in (("alice", w.alice), ("bob", w.bob)):
            seen[name].update(label for m in user.dm_messages() for label in labels(m))
        return any("最终排名" in t for t in embed_texts(w.alice, place))

    players = [SimPlayer(w.alice, place), SimPlayer(w.bob, place)]
    await play_all(players, finished, timeout=180)

    public = embed_texts(w.alice, place)
    # The home channel's one line for the table, in the server's language too.
    summary = await w.server.wait_for(
        lambda: "已打完" in (w.server.message(lobby.id).content or ""),
        timeout=60,
        what="the finished summary line",
    )
    assert summary and w.server.message(lobby.id).content.startswith("**牌桌 1**（pung-chow）")
    assert any(t.startswith("pung-chow：东圈，第 1 局") for t in public), public
    assert any(t.startswith("第 1 局：") for t in public), public
    assert not any(TRADITIONAL_ONLY.search(t) for t in public)
    assert any("打出" in t for t in public) and not any(" discards " in t for t in public)
    # The reveal's score lines are the server's words too (bot/i18n/score_words.py).
    reveal = [
        e
        for m in w.alice.messages(place)
        for e in m.embeds
        if str(e.get("title", "")).startswith("第 1 局：")
    ]
    lines = [
        line.partition(": ")[0]
        for e in reveal
        for f in e.get("fields", ())
        if f["name"] not in ("付款", "自定义规则")
        for line in f["value"].splitlines()[:-1]
    ]
    assert reveal and [x for x in lines if re.search("[A-Za-z]", x)] == [], lines

    # The standings are out; each DM's last edit ("Hand 1 is over") may still be on its way
    # (DMs are paced at five per five seconds): wait for everything the bot has to send.
    await bot.services.tables.notifier.drain()
    alice_dms = w.alice.dm_messages()
    bob_dms = w.bob.dm_messages()
    assert alice_dms and bob_dms
    alice_text = "\n".join(m.content for m in alice_dms)
    bob_text = "\n".join(m.content for m in bob_dms)
    assert "**Table" in alice_text and "Hand 1 is over." in alice_text
    assert not CJK.search(alice_text.replace("bob", "")), alice_text[:500]
    assert "**牌桌" in bob_text and "第 1 局結束" in bob_text
    assert "Table" not in bob_text and not SIMPLIFIED_ONLY.search(bob_text)
    assert "Waiting on" not in bob_text and "Discard " not in bob_text  # hints: his words
    # Buttons: bob's in Traditional Chinese, alice's in English.
    bob_labels, alice_labels = seen["bob"], seen["alice"]
    assert bob_labels and [x for x in bob_labels if not CJK.search(x)] == []
    assert alice_labels and not any(CJK.search(label) for label in alice_labels), alice_labels
