"""``/notation``: how the bot reads a hand written in the notation, before scoring it.

People playing with real tiles type their hand into ``/score`` from a phone, anywhere (the
command also works where the app is installed to their account). A typo there is answered
with the score of a hand they did not mean; this says, in words, what each token became
(tiles by name, which sets are exposed or concealed, the winning tile and how it was won),
counts the tiles as the rule set counts them (a kong as three, Pung Chow p.24) and tells
whether the hand is complete or which tiles it waits on. Pure: no Discord, no database.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.i18n import FALLBACK, N_, _
from bot.i18n.tiles import tile_words, wind_words
from bot.rules.analysis import is_complete, is_winning_shape, waits
from bot.rules.hand import DISCARD, Hand, Win
from bot.rules.melds import KIND_NAMES, Kind, Meld
from bot.rules.notation import format_hand, parse_hand
from bot.rules.rulesets import get_ruleset
from bot.rules.tiles import counts_of, format_tiles, is_suited, rank, suit

_SUITS = (N_("Characters"), N_("Dots"), N_("Bamboo"))
_HOW = {
    "discard": N_("on a discard"),
    "self-draw": N_("by drawing it from the wall"),
    "loose-tile": N_("with a loose tile (after a kong)"),
    "dealt": N_("as dealt (East's original hand)"),
}
_KINDS = {
    Kind.CHOW: N_("chow"),
    Kind.PUNG: N_("pung"),
    Kind.KONG: N_("kong"),
    Kind.PAIR: N_("pair"),
}


@dataclass(frozen=True, slots=True)
class HandReading:
    """A hand as the bot read it: ``compact`` is the notation to paste back; ``lines`` say
    what each part became; ``verdict`` says complete, ready (with its waits) or neither;
    ``hint`` says it in a few words (``/score``'s suggestion while the hand is typed)."""

    compact: str
    lines: tuple[str, ...]
    verdict: str
    tiles: int
    expected: int
    hint: str = ""


HINT_LENGTH = 100  # Discord's limit for an autocomplete choice's name


def hand_hint(text: str, ruleset: str = "pung-chow", locale: str = FALLBACK) -> str:
    """One line on a hand being typed: what is wrong with it, or its count and whether it
    is complete, then its compact form as far as it fits."""
    try:
        reading = read_hand(text, ruleset, locale)
    except ValueError as exc:  # NotationError, or an unknown rule set
        return f"✗ {exc}"[:HINT_LENGTH]
    line = f"{reading.hint} · {reading.compact}"
    return line if len(line) <= HINT_LENGTH else line[: HINT_LENGTH - 1] + "…"


def _tiles_in_words(tiles: list[int], locale: str = FALLBACK) -> str:
    """Concealed tiles grouped by suit: ``1 2 3 Characters · 5 5 Bamboo · Red Dragon ×2``."""
    groups: list[str] = []
    for s, name in enumerate(_SUITS):
        ranks = sorted(rank(t) for t in tiles if is_suited(t) and suit(t) == s)
        if ranks:
            groups.append(f"{' '.join(map(str, ranks))} {_(locale, name)}")
    for tile in sorted({t for t in tiles if not is_suited(t)}):
        n = tiles.count(tile)
        groups.append(tile_words(locale, tile) + (f" ×{n}" if n > 1 else ""))
    return " · ".join(groups)


def _meld_in_words(meld: Meld, locale: str = FALLBACK) -> str:
    kind = _(locale, _KINDS.get(meld.kind, KIND_NAMES[meld.kind]))
    if meld.kind is Kind.CHOW:
        ranks = "-".join(str(rank(t)) for t in meld.tiles)
        what = f"{kind} {ranks} {_(locale, _SUITS[suit(meld.tile)])}"
    else:
        what = _(locale, "{kind} of {tile}", kind=kind, tile=tile_words(locale, meld.tile))
    where = (
        _(locale, "concealed (declared, ends face down)")
        if meld.concealed
        else _(locale, "exposed")
    )
    return f"`{format_tiles(meld.tiles)}` {what}, {where}"


def _win_in_words(win: Win, locale: str = FALLBACK) -> str:
    how = _(locale, _HOW[win.by]) if win.by in _HOW else win.by
    if win.tile is not None:
        text = _(locale, "Wins on **{tile}** {how}", tile=tile_words(locale, win.tile), how=how)
    else:
        text = _(locale, "Wins")
    if win.by == DISCARD and win.from_seat is not None:
        text += _(locale, ", discarded by {wind}", wind=wind_words(locale, win.from_seat))
    if win.flags:
        text += f" ({', '.join(sorted(win.flags))})"
    return text


def read_hand(text: str, ruleset: str = "pung-chow", locale: str = FALLBACK) -> HandReading:
    """Read ``text`` as ``/score`` would, said in ``locale``. Raises NotationError (the token
    and what was expected) for what cannot be read at all; a wrong count is said, not
    raised."""
    rules = get_ruleset(ruleset)
    parsed = parse_hand(text)
    hand: Hand = parsed.hand
    lines: list[str] = []
    if hand.concealed:
        lines.append(
            _(locale, "In hand: {tiles}", tiles=_tiles_in_words(list(hand.concealed), locale))
        )
    lines.extend(_(locale, "Set: {set}", set=_meld_in_words(m, locale)) for m in hand.melds)
    if hand.flowers:
        flowers = _(locale, ", ").join(tile_words(locale, t) for t in hand.flowers)
        lines.append(_(locale, "Flowers/seasons: {tiles}", tiles=flowers))
    if parsed.win is not None:
        lines.append(_win_in_words(parsed.win, locale))
    count = hand.tile_count()
    full = rules.hand_size + 1
    verdict, hint = _verdict(hand, count, full, rules.specials != (), locale)
    return HandReading(format_hand(hand, parsed.win), tuple(lines), verdict, count, full, hint)


def _verdict(
    hand: Hand, count: int, full: int, specials: bool, locale: str = FALLBACK
) -> tuple[str, str]:
    """The verdict in a sentence, and in a few words."""
    counts = counts_of(hand.concealed)
    sets = (full - 2) // 3
    if count == full:
        special = specials and not hand.melds and is_winning_shape(counts)
        if special or is_complete(counts):
            return (
                _(locale, "{count} tiles: a complete hand (Mah-Jongg).", count=count),
                "✓ " + _(locale, "{count} tiles, complete", count=count),
            )
        return (
            _(
                locale,
                "{count} tiles, but they do not make {sets} sets and a pair: no Mah-Jongg.",
                count=count,
                sets=sets,
            ),
            "✗ " + _(locale, "{count} tiles, not {sets} sets and a pair", count=count, sets=sets),
        )
    if count == full - 1:
        ready = waits(counts, held=hand.counts(), specials=specials and not hand.melds)
        if ready:
            named = _(locale, ", ").join(tile_words(locale, t) for t in ready)
            return (
                _(
                    locale,
                    "{count} tiles: ready, waiting on {tiles} (`{notation}`). Add the winning "
                    "tile with `win <tile>`.",
                    count=count,
                    tiles=named,
                    notation=format_tiles(ready),
                ),
                _(
                    locale,
                    "{count} tiles, ready on {notation}: add win <tile>",
                    count=count,
                    notation=format_tiles(ready),
                ),
            )
        return (
            _(
                locale,
                "{count} tiles: not ready (no tile completes it); as a losing hand it scores.",
                count=count,
            ),
            _(locale, "{count} tiles, a losing hand (not ready)", count=count),
        )
    return (
        _(
            locale,
            "{count} tiles (a kong counts as three): a hand has {short}, or {full} with the "
            "winning tile.",
            count=count,
            short=full - 1,
            full=full,
        ),
        "✗ "
        + _(
            locale,
            "{count} tiles: a hand has {short}, or {full} with the winning tile",
            count=count,
            short=full - 1,
            full=full,
        ),
    )


__all__ = ["HandReading", "hand_hint", "read_hand"]
