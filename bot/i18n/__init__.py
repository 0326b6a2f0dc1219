"""Languages (issue 13.4): every word a member reads, in the member's own Discord language in
private (DMs, ephemeral replies) and in the server's (its preferred locale) in public.

- :mod:`bot.i18n.locales` turns a Discord locale into a catalogue: ``zh-TW`` and ``zh-CN`` are
  shipped, every other locale reads English (the words in the code are the English).
- :mod:`bot.i18n.catalogue` translates: ``_(locale, "text {name}", name=...)`` takes the
  locale explicitly, never a global "current language": the notifier writes to four members
  at once, each in their own.
- :mod:`bot.i18n.commands` is discord.py's ``app_commands.Translator``: command names,
  descriptions, options and choices, carried in the synced payload's ``*_localizations``.
- :mod:`bot.i18n.tiles` names tiles in each language.

The catalogues are gettext ``.po`` files in ``bot/i18n/catalogues/`` (the only copy: they are
read with Babel when first needed, no compiled ``.mo`` is kept or built). ``python -m
bot.i18n.extract`` adds every new message of the code to each catalogue (with an empty
translation) and ``tests/i18n/test_catalogues.py`` fails while any is left untranslated.
"""

from bot.i18n.catalogue import N_, _, translate
from bot.i18n.locales import (
    FALLBACK,
    SHIPPED,
    answer_locale,
    catalogue_of,
    guild_locale,
    member_locale,
)

__all__ = [
    "FALLBACK",
    "N_",
    "SHIPPED",
    "_",
    "answer_locale",
    "catalogue_of",
    "guild_locale",
    "member_locale",
    "translate",
]
