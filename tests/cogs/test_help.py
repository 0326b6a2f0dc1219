"""The "How to play here" button (cogs/help.py) on the real bot: any message carrying it
answers the member who pressed it, privately, with the help; after a restart too."""

from __future__ import annotations

import discord

from bot.app import MahjongBot
from bot.config import Settings
from cogs.help import CUSTOM_ID, TOPICS, HelpButton, help_embed


def make(tmp_path) -> MahjongBot:
    return MahjongBot(
        Settings(
            token="test-token", database=tmp_path / "db.sqlite3", dev_guild=None, log_level="INFO"
        )
    )


async def test_the_help_button_answers_privately_even_after_a_restart(
    discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    bot = await run_bot.start(make(tmp_path))
    view = discord.ui.View(timeout=None)
    view.add_item(HelpButton())
    await bot.get_channel(w.channel.id).send("A lobby", view=view)
    message = w.server.channel_messages(w.channel)[-1]
    assert message.custom_ids() == [CUSTOM_ID]
    assert message.component(CUSTOM_ID)["label"] == "How to play here"

    await run_bot.close_all()  # the button holds no state: a fresh bot answers it
    await run_bot.start(make(tmp_path))
    handle = await w.bob.click(message, CUSTOM_ID)
    reply = await handle.reply()
    assert reply.ephemeral and reply.visible_to == w.bob.id
    (embed,) = reply.embeds
    assert embed["title"] == "How to play here"
    assert [f["name"] for f in embed["fields"]] == [name for name, _ in TOPICS]
    assert w.carol.messages(w.channel)[-1].id == message.id  # nobody else sees it


def test_the_help_is_short_enough_for_a_phone() -> None:
    embed = help_embed()
    assert len(embed) <= 2000  # about two phone screens
    for field in embed.fields:
        assert len(field.value) <= 300, field.name
    text = " ".join(f.value for f in embed.fields)
    for words in ("My hand", "/mahjong hand", "Take my seat back", "/mahjong settings", "thread"):
        assert words in text
