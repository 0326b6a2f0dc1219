"""Command names, descriptions, options and choices in each shipped language, through
discord.py's ``app_commands.Translator``: the synced payload then carries
``name_localizations`` and ``description_localizations``, and Discord shows each member the
commands in their client's language (a Chinese client types ``/麻將 新桌``; the bot still
receives the English names, so nothing else changes).

The catalogue keeps them under gettext contexts (``msgctxt``), so a command called ``score``
and the word "score" in a message are translated apart; names follow Discord's rules (lower
case, no spaces, at most 32 characters), which :func:`valid_name` checks.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.i18n.catalogue import ptranslate
from bot.i18n.locales import SHIPPED

#: Where a string sits in a command -> its gettext context in the catalogues.
CONTEXTS = {
    Where.command_name: "command",
    Where.group_name: "command",
    Where.parameter_name: "option",
    Where.command_description: "description",
    Where.group_description: "description",
    Where.parameter_description: "description",
    Where.choice_name: "choice",
}
NAME_CONTEXTS = ("command", "option")
_NAME = re.compile(r"^[-_\w]{1,32}$")


def valid_name(name: str) -> bool:
    """Discord's rule for command and option names (letters of any script, digits, - and _)."""
    return bool(_NAME.match(name)) and name == name.lower()


class CatalogueTranslator(app_commands.Translator):
    """Translates every command string from the catalogues; ``missing`` collects what a shipped
    catalogue lacks (the tests read it: nothing may be missing)."""

    def __init__(self) -> None:
        super().__init__()
        self.missing: set[tuple[str, str, str]] = set()
        self.seen: set[tuple[str, str]] = set()

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: Any
    ) -> str | None:
        where = CONTEXTS.get(context.location)
        if where is None or locale.value not in SHIPPED:
            return None
        self.seen.add((where, string.message))
        found = ptranslate(locale.value, where, string.message)
        if found is None or (where in NAME_CONTEXTS and not valid_name(found)):
            self.missing.add((locale.value, where, string.message))
            return None
        return found


async def command_strings(tree: app_commands.CommandTree[Any]) -> set[tuple[str, str]]:
    """Every (context, English string) of the tree's commands, as the translator is asked."""
    recorder = CatalogueTranslator()
    for command in tree.get_commands():
        await command.get_translated_payload(tree, recorder)
    return recorder.seen
