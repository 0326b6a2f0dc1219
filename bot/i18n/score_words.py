"""Score lines, limit hands and payment reasons in a reader's language.

The engine (bot/rules) names each line of an itemised score in English, as the books write
them ("3 ones (dots) (concealed)", "Pung of Red Dragon (hidden)", "Limit hand: East wins on
his original draw"), and stays free of languages. They are translated here, at the edge
where they are shown (the reveal, ``/score``, the score card): a fixed name is itself the
catalogue's message; a name built around a tile is recognised by its form, its tile read
back through :func:`tile_of` (the engine's own tile words, so a tile is never guessed), and
put into the form's message with the tile in the reader's words. A name of no known form is
shown as the engine wrote it; ``tests/i18n/test_score_words.py`` scores sampled hands of every
rule set and fails when a line, a limit hand or a payment reason would stay English.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from bot.i18n.catalogue import N_, _
from bot.i18n.locales import FALLBACK, catalogue_of
from bot.i18n.tiles import tile_words, wind_words
from bot.rules.analysis import KONG, PUNG
from bot.rules.rulesets.pung_chow import set_label
from bot.rules.tiles import N_TILES, tile_name

#: Names without a tile: the message is the engine's own English.
FIXED: tuple[str, ...] = (
    N_("Mah-Jongg"),
    N_("No sequences in hand or on table"),
    N_("Winning on a draw from the loose tiles"),
    N_("Drawing the winning piece"),
    N_("Filling the only place to win"),
    N_("No other score than Mah-Jongg in hand or on table"),
    N_("Winning on original hand"),
    N_("All one suit (honours)"),
    N_("All one suit"),
    N_("All one suit except winds or dragons"),
    N_("Three of own wind"),
    N_("Filling a sequence by draw to complete hand"),
    N_("Filling a sequence in the middle by chow to complete hand"),
    N_("Filling a sequence on the only open end by chow to complete hand"),
    N_("No other score in hand or on table than Mah-Jongg"),
    N_("No sequences (Tei Tei Woo)"),
    N_("Set of own wind"),
    N_("Set of own wind in own wind round"),
    N_("Pair of own wind in own wind round drawn to complete hand"),
    N_("Pair of own wind in own wind round punged to complete hand"),
    N_("Winning on the first discard: half the limit"),
    N_("Winning tile drawn from the last tile of the wall"),
    N_("Winning on a draw from a loose tile"),
    N_("Completing the hand with the fourth tile of an exposed set"),
    N_("Both of own seasons"),
    N_("One of own seasons"),
    N_("All four flowers of one colour"),
    N_("All four seasons of one colour"),
    N_("Win by making an eye or a chow"),
    N_("Win by drawing from the wall"),
    N_("7 eyes: total score for the hand"),
    N_("Hidden hand won on a discard, no other bonus"),
    N_("Pung of seat wind"),
    N_("2 dragon pungs and dragon eyes"),
    N_("Chows and eyes only, number tiles only, won on a discard"),
    N_("All middle numbers of one suit"),
    N_("4 chows, all middle numbers"),
    N_("Entire hand of middle numbers"),
    N_("All number tiles of one suit"),
    N_("All letter tiles and one suit of number tiles"),
    N_("No middle numbers"),
    N_("Concealed hand, won by drawing from the wall"),
    N_("Win with a tile drawn from the back of the wall"),
    N_("Win by drawing the last available tile"),
    N_("Win on the discarded last available tile"),
    N_("Win on a tile another player called for a kong"),
    N_("Win after declaring Riichi"),
    N_("3 chows of one suit"),
    N_("Sequence of 3 chows of one suit (1-9)"),
    N_("4 pungs, 3 of them hidden"),
    N_("3 pungs, won by drawing from the wall"),
    N_("4 pungs"),
    N_("2 hidden pungs"),
    N_("3 kongs"),
    # Limit hands (pung-chow-limit, LIMIT_HAND_NAMES) and maximum hands (singapore).
    N_("Single heads (one of each head and a pair of heads)"),
    N_("Sets of heads only, with a pair of heads"),
    N_("Four sets of winds (the four happinesses)"),
    N_("Three sets of winds with a pair of the fourth"),
    N_("Four sets of four of a kind"),
    N_("East wins on his original draw"),
    N_("Three sets of dragons (the three Doctors of Literature)"),
    N_("All 4 flowers or all 4 seasons"),
    N_("East wins with his first 14 tiles"),
    N_("Wins with East's first discard"),
    N_("3 dragon pungs"),
    N_("4 wind pungs"),
    N_("3 wind pungs and wind eyes"),
    N_("All pungs and eyes of 1s and 9s"),
    N_("All honour tiles"),
    N_("4 hidden pungs"),
    N_("4 kongs"),
    N_("Pung of 1s, pung of 9s and 2-8 of one suit, eyes on a middle number"),
    N_("7 different honours and the 1 and 9 of each suit, with eyes"),
    N_("East wins the ninth Renchon game"),
    # Payment reasons.
    N_("false Mah-Jongg"),
    N_("difference of scores"),
    N_("declared Riichi but did not win"),
    N_("won in Furi Tem without declaring it"),
)
_FIXED = frozenset(FIXED)

#: Forms around a tile (``tile``: as the engine writes it in that form) or a number -> the
#: message. Tried in order; the first whose tile (if any) reads back wins.
FORMS: tuple[tuple[str, str], ...] = (
    (r"3 (?P<tile>.+) \(concealed\)", N_("concealed pung of {tile}")),
    (r"3 (?P<tile>.+) \(exposed\)", N_("exposed pung of {tile}")),
    (r"4 (?P<tile>.+) \(concealed\)", N_("concealed kong of {tile}")),
    (r"4 (?P<tile>.+) \(exposed\)", N_("exposed kong of {tile}")),
    (r"Pung of (?P<tile>.+) \(hidden\)", N_("concealed pung of {tile}")),
    (r"Pung of (?P<tile>.+) \(exposed\)", N_("exposed pung of {tile}")),
    (r"Kong of (?P<tile>.+) \(hidden\)", N_("concealed kong of {tile}")),
    (r"Kong of (?P<tile>.+) \(exposed\)", N_("exposed kong of {tile}")),
    (r"Eyes of honours \((?P<tile>.+)\)", N_("Eyes of honours ({tile})")),
    (r"Pair of own wind \((?P<tile>.+)\)", N_("Pair of own wind ({tile})")),
    (
        r"Pair of heads \((?P<tile>.+)\) drawn to complete hand",
        N_("Pair of heads ({tile}) drawn to complete hand"),
    ),
    (
        r"Pair of heads \((?P<tile>.+)\) punged to complete hand",
        N_("Pair of heads ({tile}) punged to complete hand"),
    ),
    (
        r"Pair of 2 to 8 \((?P<tile>.+)\) drawn to complete hand",
        N_("Pair of 2 to 8 ({tile}) drawn to complete hand"),
    ),
    (
        r"Pair of 2 to 8 \((?P<tile>.+)\) punged to complete hand",
        N_("Pair of 2 to 8 ({tile}) punged to complete hand"),
    ),
    (r"Pair of (?P<tile>.+)", N_("Pair of {tile}")),
    (r"Set of (?P<tile>.+)", N_("Set of {tile}")),
    (r"Three (?P<tile>.+)", N_("Three {tile}")),
    (r"Pung of (?P<tile>.+)", N_("Pung of {tile}")),
    (r"Own (?P<tile>.+)", N_("Own {tile}")),
    (r"(?P<tile>.+): own seat", N_("{tile}: own seat")),
    (
        r"Rounded to the nearest 10 \((?P<rounded>\d+)\)",
        N_("Rounded to the nearest 10 ({rounded})"),
    ),
    (r"washing the tiles \((?P<heads>\d+) heads\)", N_("washing the tiles ({heads} heads)")),
    (r"Renchon ante x(?P<renchon>\d+)", N_("Renchon ante x{renchon}")),
    (r"pays (?P<letter>[ESWN])'s share \(discard\)", N_("pays {seat}'s share (discard)")),
    (r"pays for (?P<letter>[ESWN]) \(liable\)", N_("pays for {seat} (liable)")),
    (r"(?P<tile>.+)", "{tile}"),  # a flower or season scoring alone: its name
)
_FORMS = [(re.compile(f"^{pattern}$"), message) for pattern, message in FORMS]
#: Names whose rest is itself a fixed name.
PREFIXED: tuple[tuple[str, str], ...] = (
    ("Limit hand: ", N_("Limit hand: {name}")),
    ("Maximum hand: ", N_("Maximum hand: {name}")),
)


@lru_cache(maxsize=1)
def _tiles_by_words() -> dict[str, int]:
    """Every way the engine writes a tile inside a score line -> the tile: its name ("Red
    Dragon"), lower case plural ("red dragons", "7 bamboos"), and the sets' words of
    :func:`set_label` ("ones (dots)", "east winds")."""
    found: dict[str, int] = {}
    for tile in range(N_TILES):
        name = tile_name(tile)
        found[name] = tile
        found[name.lower()] = tile
        found[f"{name.lower()}s"] = tile
        if tile < 34:
            label = set_label(PUNG, tile, False)
            found[label.removeprefix("3 ").removesuffix(" (exposed)")] = tile
            label = set_label(KONG, tile, True)
            found[label.removeprefix("4 ").removesuffix(" (concealed)")] = tile
    return found


def tile_of(words: str) -> int | None:
    """The tile a score line's words name, or None."""
    return _tiles_by_words().get(words)


def _translated(locale: str, text: str) -> str | None:
    if text in _FIXED:
        return _(locale, text)
    for prefix, message in PREFIXED:
        if text.startswith(prefix) and text[len(prefix) :] in _FIXED:
            return _(locale, message, name=_(locale, text[len(prefix) :]))
    for pattern, message in _FORMS:
        found = pattern.match(text)
        if found is None:
            continue
        values: dict[str, Any] = dict(found.groupdict())
        if "letter" in values:
            values["seat"] = wind_words(locale, "ESWN".index(values.pop("letter")))
        if "tile" in values:
            tile = tile_of(values["tile"])
            if tile is None:
                continue
            values["tile"] = tile_words(locale, tile)
        if message == "{tile}":
            return str(values["tile"])
        return _(locale, message, **values)
    return None


def known(text: str) -> bool:
    """Whether ``text`` (a line's name, a limit hand, a payment reason) has a translation."""
    return _translated("zh-TW", text) is not None


def score_words(locale: Any, text: str) -> str:
    """A score line's name, a limit hand's name or a payment's reason in ``locale``; as the
    engine wrote it in English, or when its form is unknown."""
    locale = catalogue_of(locale)
    if locale == FALLBACK or not text:
        return text
    return _translated(locale, text) or text
