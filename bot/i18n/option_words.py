"""What each rule-set option means (its OptionSpec.help in bot/rules), in a reader's
language, for ``/rules options``. The engine writes them in English and stays free of
languages; each is a catalogue message here, and tests/i18n/test_score_words.py fails when a
rule set has an option whose help is not listed. A help not listed is shown as written."""

from __future__ import annotations

from typing import Any

from bot.i18n.catalogue import N_, _

OPTION_HELP: tuple[str, ...] = (
    N_("cap on what a hand collects (Part I plays without one); East double"),
    N_("points for Mah-Jongg (p.3: 20)"),
    N_("play with the mandarins (flowers and seasons), p.29"),
    N_(
        "a false Mah-Jongg makes the hand dead: it pays every other hand its score and "
        "the others settle their differences as losers do (settle), or the others settle "
        "nothing among themselves, as in a draw (draw)"
    ),
    N_(
        "the limit (p.60): by default 300 with a Mah-Jongg bonus of 10, 400 with 20; the "
        "limit game always has one"
    ),
    N_("points for Mah-Jongg (p.62: generally 10)"),
    N_("play with the mandarins (p.29)"),
    N_("washing the tiles with 9+ different heads (p.61)"),
    N_(
        "winning on the first discard: half the limit added after the doubling (added), "
        "or the hand worth half the limit, as a limit hand worth half (half-limit-hand)"
    ),
    N_("the limit on what a loser pays (The Limit: usually 300; none for unlimited)"),
    N_("points for Mah-Jongg (score sheet: 20)"),
    N_("play with the seasons (Mahjong With the Seasons)"),
    N_(
        "what the limit holds: every payment, the losers' differences too (payments); "
        "only what is paid to the winner (winner); each hand's score, before the losers "
        "take their differences (scores)"
    ),
    N_(
        "the 10 for winning on a loose tile: only after a kong, as the text says (kong), "
        "or after a season's loose tile too, as Pung Chow p.31 gives it (any)"
    ),
    N_(
        "a false Mah-Jongg (strict tables): half the limit to each, East the full limit "
        "(half-limit), or a dead hand that pays every other hand its score (dead-hand)"
    ),
    N_("the maximum hand for players other than East"),
    N_("the maximum where East pays or is paid"),
    N_("play with flowers and seasons (4 points each)"),
    N_("Renchon ante per counter"),
    N_(
        "4 Chows, all middle numbers: the eyes must be middle numbers too (middle), or "
        "may be any tiles (any)"
    ),
    N_(
        "3 Pungs, win by drawing from wall: exposed pungs count (any), or only hidden ones (hidden)"
    ),
    N_(
        "Sequence of 3 Chows of one suit: 1-2-3, 4-5-6 and 7-8-9 (1-9), or any three "
        "chows of one suit (any)"
    ),
    N_(
        "Furi Tem not declared: half the maximum (half-maximum), or half of East's "
        "maximum when East wins or discarded (half-east-maximum)"
    ),
    N_(
        "the ninth Renchon game won by East: the antes are paid on top of the maximum "
        "(on), or the maximum alone (off)"
    ),
)

_KNOWN = frozenset(OPTION_HELP)


def option_help(locale: Any, text: str) -> str:
    return _(locale, text) if text in _KNOWN else text
