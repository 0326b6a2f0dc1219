"""The game engine's public account of a move ("South discards 7 Bamboo"; in the channel's
log "bob: discards 7 Bamboo") in a reader's language.

The engine writes these English sentences itself (bot/rules/game/engine.py) and the service
keeps them as text, so they are translated where they are shown, by recognising the engine's
few forms; a sentence of another form is shown as written (English)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from bot.i18n.catalogue import N_, _
from bot.i18n.locales import FALLBACK, catalogue_of
from bot.i18n.tiles import tile_words, wind_words
from bot.rules.tiles import N_TILES, WIND_NAMES, tile_name

#: The engine's forms, as regular expressions over what follows the player -> the message.
FORMS: tuple[tuple[str, str], ...] = (
    (r"discards (?P<tile>.+)", N_("discards {tile}")),
    (r"chows (?P<tile>.+)", N_("chows {tile}")),
    (r"pungs (?P<tile>.+)", N_("pungs {tile}")),
    (r"kongs (?P<tile>.+)", N_("kongs {tile}")),
    (r"exposes (?P<tile>.+)", N_("exposes {tile}")),
    (r"draws a loose tile", N_("draws a loose tile")),
    (r"draws", N_("draws")),
    (r"declares Riichi", N_("declares Riichi")),
    (r"wins on a discard: Mah-Jongg", N_("wins on a discard: Mah-Jongg")),
    (r"wins on own draw: Mah-Jongg", N_("wins on own draw: Mah-Jongg")),
    (r"washes the tiles: no play", N_("washes the tiles: no play")),
    (r"called Mah-Jongg falsely", N_("called Mah-Jongg falsely")),
)
WHOLE: tuple[tuple[str, str], ...] = (
    (r"the game is over", N_("the game is over")),
    (r"hand (?P<number>\d+) is over \((?P<kind>[^)]*)\)", N_("hand {number} is over")),
)
_COMPILED = [(re.compile(f"^{pattern}$"), message) for pattern, message in FORMS]
_WHOLE = [(re.compile(f"^{pattern}$"), message) for pattern, message in WHOLE]


@lru_cache(maxsize=1)
def _tiles_by_name() -> dict[str, int]:
    return {tile_name(t): t for t in range(N_TILES)}


def _rest(locale: str, rest: str) -> str | None:
    for pattern, message in _COMPILED:
        found = pattern.match(rest)
        if found is None:
            continue
        values: dict[str, Any] = {}
        if "tile" in found.groupdict():
            tile = _tiles_by_name().get(found["tile"])
            if tile is None:
                return None
            values["tile"] = tile_words(locale, tile)
        return _(locale, message, **values)
    return None


#: How the seats were chosen (bot/service/tables/events.py describe_seating): its parts.
SEATING: tuple[tuple[str, str], ...] = (
    (r"(?P<name>.+) threw (?P<a>\d+)\+(?P<b>\d+)", N_("{name} threw {a}+{b}")),
    (r"indicators laid out: (?P<winds>.+)", N_("indicators laid out: {winds}")),
    (r"(?P<name>.+) is the first East", N_("{name} is the first East")),
)
_SEATING = [(re.compile(f"^{pattern}$"), message) for pattern, message in SEATING]
GAME_BEGINS = "The game begins: "


def _seating(locale: str, text: str) -> str | None:
    """The line that opens a game ("The game begins: alice threw 3+4; ...; bob is the first
    East") in ``locale``; None when a part is of no known form."""
    said = []
    for part in text.split("; "):
        for pattern, message in _SEATING:
            found = pattern.match(part)
            if found is None:
                continue
            values = found.groupdict()
            if "winds" in values:
                names = values["winds"].split(", ")
                if not set(names) <= set(WIND_NAMES):
                    return None
                values["winds"] = _(locale, ", ").join(
                    wind_words(locale, WIND_NAMES.index(w)) for w in names
                )
            said.append(_(locale, message, **values))
            break
        else:
            return None
    return _(locale, "The game begins: {seating}", seating=_(locale, "; ").join(said))


def move_words(locale: Any, text: str) -> str:
    """``text`` (an engine sentence, or a log line "name: sentence") in ``locale``."""
    locale = catalogue_of(locale)
    if locale == FALLBACK or not text:
        return text
    if text.startswith(GAME_BEGINS):
        return _seating(locale, text[len(GAME_BEGINS) :]) or text
    for pattern, message in _WHOLE:
        found = pattern.match(text)
        if found is not None:
            return _(locale, message, number=found.groupdict().get("number", ""))
    # "name: sentence" (a name may hold ": " too, and so may a sentence: try each split)
    at = text.find(": ")
    while at != -1:
        said = _rest(locale, text[at + 2 :])
        if said is not None:
            return f"{text[:at]}: {said}"
        at = text.find(": ", at + 2)
    first, _space, rest = text.partition(" ")
    if first in WIND_NAMES:
        said = _rest(locale, rest)
        if said is not None:
            seat = _(locale, "{wind} seat", wind=wind_words(locale, WIND_NAMES.index(first)))
            return f"{seat} {said}"
    return text
