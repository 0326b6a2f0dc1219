"""Refusals in the member's language, also those that carry a value ("'456x' is not a tile").

The engine and the services raise their errors in English, with the value written in
(``f"'{token}' is not a tile: ..."``), and stay free of languages. A refusal is translated
where it is answered (cogs/common.py ``reply_error``): a message of the catalogue as it is,
else the first of :data:`FORMS` it matches, read back into its values, which are put into the
form's translation (a value that is a tile's name is given in the member's words). A refusal
of no known form is shown as written.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache
from typing import Any

from bot.i18n.catalogue import N_, _, translations
from bot.i18n.locales import FALLBACK, catalogue_of
from bot.i18n.score_words import tile_of
from bot.i18n.tiles import tile_words, wind_words

#: The forms of the refusals members meet most, as the code writes them (the English is the
#: catalogue's message; ``{name}`` stands for a value).
FORMS: tuple[str, ...] = (
    # bot/rules/notation.py, tiles.py, melds.py: a hand that cannot be read
    N_("'{token}' is not a tile: {expected}"),
    N_("'{token}' is empty: put the meld's tiles inside, like [555p]"),
    N_("the hand is empty: {expected}"),
    N_("'{token}' is not closed: expected '{closing}' after the tiles"),
    N_("'{token}' closes nothing: a meld is written like [555p]"),
    N_("'{text}': expected exactly one tile such as 5p or 7z"),
    N_("[{tiles}] is a {kind}, not a {expected}"),
    # bot/rules/rulesets, options.py
    N_("{count} copies of {tile}: a set has only four"),
    N_("unknown rule set '{name}' (known: {known})"),
    N_("option '{name}' needs a value ({help})"),
    N_("option '{name}' is on or off, not '{value}'"),
    N_("option '{name}' must be at least {minimum}"),
    N_("option '{name}' must be at most {maximum}"),
    N_("option '{name}' must be one of {allowed}"),
    N_("unknown option '{name}' (this rule set has: {known})"),
    # /score, /settle, /rules (bot/service/scoring.py, cogs/scoring.py)
    N_("no rules topic '{topic}' (topics: {known})"),
    N_("two players sit {wind}"),
    N_("{name} is listed twice"),
    N_("{wind}: a score is a whole number or a hand"),
    N_("{wind}'s score must be between 0 and {most}"),
    N_("{wind}'s score is given, not the player"),
    N_("{name} is a bot; only members play."),
    # tables (bot/service/tables/lobby.py)
    N_(
        "You are already at {count} open tables (the most on this server is {cap}). "
        "Finish or leave one first."
    ),
    N_(
        "This channel already has {count} open tables (the most is {cap}). "
        "Join one of them, or open a table in another channel."
    ),
    N_(
        "This server already has {count} open tables (the most is {cap}). "
        "Join one of them, or try again when one has finished."
    ),
    N_(
        "The table is paused: the bot is missing something it needs in the table's channel "
        "({reason}). It resumes by itself."
    ),
    N_("Unknown setting {name}."),
    # /mahjong config (bot/service/guild_settings.py)
    N_("at most {count} channels can be listed"),
    N_("{what} must be a whole number"),
    N_("{what} must be between {low} and {high}"),
    # discord.py's own refusals (cogs/common.py)
    N_("Slow down: try again in {seconds} s."),
)


@lru_cache(maxsize=1)
def _compiled() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for form in FORMS:
        pattern = ""
        for literal, name, _spec, _conversion in string.Formatter().parse(form):
            pattern += re.escape(literal)
            if name is not None:
                pattern += f"(?P<{name}>.+?)"
        out.append((re.compile(f"^{pattern}$", re.DOTALL), form))
    return out


_WINDS = ("East", "South", "West", "North")


def _value(locale: str, text: str) -> str:
    """A value in the member's words when it is a tile or a wind, else as written."""
    if text in _WINDS:
        return wind_words(locale, _WINDS.index(text))
    tile = tile_of(text)
    return tile_words(locale, tile) if tile is not None else text


def refusal_words(locale: Any, text: str) -> str:
    """``text`` (a refusal in English) in ``locale``, as far as the catalogue knows it."""
    locale = catalogue_of(locale)
    if locale == FALLBACK or not text:
        return text
    found = translations(locale).gettext(text)
    if found != text:
        return found
    for pattern, form in _compiled():
        matched = pattern.match(text)
        if matched is not None:
            values = {k: _value(locale, v) for k, v in matched.groupdict().items()}
            return _(locale, form, **values)
    return text
