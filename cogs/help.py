"""How to play here: the text of ``/mahjong help`` and of the "How to play here" button.

The button is a :class:`discord.ui.DynamicItem` with the fixed custom id ``mj:help``, so it
works on any message that carries it, after any restart, without state: the lobby shows it
(the notifier adds ``HelpButton()`` to the lobby view) and ``/mahjong help`` answers with the
same :func:`help_embed`. Both answer only to the member who asked (ephemeral).

Written for a phone: one short field per topic, a line or two each, the words the buttons
and commands really use. Loading this extension registers the button with the bot.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import FALLBACK, N_, _, answer_locale

CUSTOM_ID = "mj:help"
LABEL = N_("How to play here")
TITLE = N_("How to play here")

#: (topic, text): the fields of the help, in the order a new player needs them.
TOPICS: tuple[tuple[str, str], ...] = (
    (
        N_("Joining a table"),
        N_(
            "`/mahjong new` opens a lobby. Press **Join**; the host presses **Start**. "
            "Empty seats can go to computer players. Each table plays in its own thread."
        ),
    ),
    (
        N_("Your hand"),
        N_(
            "It comes by direct message, with a button per tile: press one to discard it. "
            "DMs closed? Press **My hand** on the table message, or use `/mahjong hand`: "
            "the same buttons, shown only to you. (DMs: this server's Privacy Settings.)"
        ),
    ),
    (
        N_("Claims and timers"),
        N_(
            "When a discard can be yours you get **Chow**, **Pung**, **Kong**, **Mah-Jongg!** "
            "or **Pass**, with a countdown. When time runs out you pass, and on your turn a "
            "tile is discarded for you."
        ),
    ),
    (
        N_("Away for a while"),
        N_(
            "Miss two turns in a row and a computer player keeps your seat warm. "
            "Press **Take my seat back** (in your DM or under **My hand**) to play again. "
            "`/mahjong leave` gives your seat away for good."
        ),
    ),
    (
        N_("Hints"),
        N_(
            "Under your hand: which discards make it ready, what it waits on and what a win "
            "would score. A host can open a table with `options:hints=off`."
        ),
    ),
    (
        N_("Your settings"),
        N_(
            "`/mahjong settings`: **pings** (your turns notify you), **auto_pass_chows** "
            "(skip discards you could only chow), **discard_drawn_on_timeout** (a timeout "
            "discards the tile you drew)."
        ),
    ),
    (
        N_("More"),
        N_(
            "`/mahjong table` shows the table again. `/mahjong replay` plays a finished hand "
            "back from any seat. `/rules` explains the rules, `/score` scores a hand, `/chips` "
            "and `/leaderboard` show the ledger."
        ),
    ),
)


def help_embed(locale: Any = FALLBACK) -> discord.Embed:
    """The help as one embed (the same for ``/mahjong help`` and the button), in the
    member's language: it is answered privately."""
    embed = discord.Embed(title=_(locale, TITLE), colour=discord.Colour.dark_green())
    for name, text in TOPICS:
        embed.add_field(name=_(locale, name), value=_(locale, text), inline=False)
    return embed


class HelpButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=re.escape(CUSTOM_ID)):
    """ "How to play here": answers the member who pressed it with :func:`help_embed`."""

    def __init__(self, locale: Any = FALLBACK) -> None:
        super().__init__(
            discord.ui.Button(
                label=_(locale, LABEL),
                style=discord.ButtonStyle.secondary,
                custom_id=CUSTOM_ID,
                emoji="❔",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HelpButton:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        locale = answer_locale(interaction, private=True)
        await interaction.response.send_message(embed=help_embed(locale), ephemeral=True)


async def setup(bot: Any) -> None:
    bot.add_dynamic_items(HelpButton)


async def teardown(bot: Any) -> None:
    bot.remove_dynamic_items(HelpButton)
