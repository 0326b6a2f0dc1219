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

from bot.rules.analysis import is_complete, is_winning_shape, waits
from bot.rules.hand import DISCARD, Hand, Win
from bot.rules.melds import KIND_NAMES, Kind, Meld
from bot.rules.notation import format_hand, parse_hand
from bot.rules.rulesets import get_ruleset
from bot.rules.tiles import counts_of, format_tiles, is_suited, rank, suit, tile_name

WIND_WORDS = ("East", "South", "West", "North")
_SUITS = ("Characters", "Dots", "Bamboo")
_HOW = {
    "discard": "on a discard",
    "self-draw": "by drawing it from the wall",
    "loose-tile": "with a loose tile (after a kong)",
    "dealt": "as dealt (East's original hand)",
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


def hand_hint(text: str, ruleset: str = "pung-chow") -> str:
    """One line on a hand being typed: what is wrong with it, or its count and whether it
    is complete, then its compact form as far as it fits."""
    try:
        reading = read_hand(text, ruleset)
    except ValueError as exc:  # NotationError, or an unknown rule set
        return f"✗ {exc}"[:HINT_LENGTH]
    line = f"{reading.hint} · {reading.compact}"
    return line if len(line) <= HINT_LENGTH else line[: HINT_LENGTH - 1] + "…"


def _tiles_in_words(tiles: list[int]) -> str:
    """Concealed tiles grouped by suit: ``1 2 3 Characters · 5 5 Bamboo · Red Dragon ×2``."""
    groups: list[str] = []
    for s, name in enumerate(_SUITS):
        ranks = sorted(rank(t) for t in tiles if is_suited(t) and suit(t) == s)
        if ranks:
            groups.append(f"{' '.join(map(str, ranks))} {name}")
    for tile in sorted({t for t in tiles if not is_suited(t)}):
        n = tiles.count(tile)
        groups.append(tile_name(tile) + (f" ×{n}" if n > 1 else ""))
    return " · ".join(groups)


def _meld_in_words(meld: Meld) -> str:
    kind = KIND_NAMES[meld.kind]
    if meld.kind is Kind.CHOW:
        what = f"{kind} {'-'.join(str(rank(t)) for t in meld.tiles)} {_SUITS[suit(meld.tile)]}"
    else:
        what = f"{kind} of {tile_name(meld.tile)}"
    where = "concealed (declared, ends face down)" if meld.concealed else "exposed"
    return f"`{format_tiles(meld.tiles)}` {what}, {where}"


def _win_in_words(win: Win) -> str:
    how = _HOW.get(win.by, win.by)
    text = f"Wins on **{tile_name(win.tile)}** {how}" if win.tile is not None else "Wins"
    if win.by == DISCARD and win.from_seat is not None:
        text += f", discarded by {WIND_WORDS[win.from_seat]}"
    if win.flags:
        text += f" ({', '.join(sorted(win.flags))})"
    return text


def read_hand(text: str, ruleset: str = "pung-chow") -> HandReading:
    """Read ``text`` as ``/score`` would. Raises NotationError (the token and what was
    expected) for what cannot be read at all; a wrong count is said, not raised."""
    rules = get_ruleset(ruleset)
    parsed = parse_hand(text)
    hand: Hand = parsed.hand
    lines: list[str] = []
    if hand.concealed:
        lines.append(f"In hand: {_tiles_in_words(list(hand.concealed))}")
    lines.extend(f"Set: {_meld_in_words(m)}" for m in hand.melds)
    if hand.flowers:
        lines.append(f"Flowers/seasons: {', '.join(tile_name(t) for t in hand.flowers)}")
    if parsed.win is not None:
        lines.append(_win_in_words(parsed.win))
    count = hand.tile_count()
    full = rules.hand_size + 1
    verdict, hint = _verdict(hand, count, full, rules.specials != ())
    return HandReading(format_hand(hand, parsed.win), tuple(lines), verdict, count, full, hint)


def _verdict(hand: Hand, count: int, full: int, specials: bool) -> tuple[str, str]:
    """The verdict in a sentence, and in a few words."""
    counts = counts_of(hand.concealed)
    sets = (full - 2) // 3
    if count == full:
        special = specials and not hand.melds and is_winning_shape(counts)
        if special or is_complete(counts):
            return f"{count} tiles: a complete hand (Mah-Jongg).", f"✓ {count} tiles, complete"
        return (
            f"{count} tiles, but they do not make {sets} sets and a pair: no Mah-Jongg.",
            f"✗ {count} tiles, not {sets} sets and a pair",
        )
    if count == full - 1:
        ready = waits(counts, held=hand.counts(), specials=specials and not hand.melds)
        if ready:
            return (
                f"{count} tiles: ready, waiting on {', '.join(map(tile_name, ready))} "
                f"(`{format_tiles(ready)}`). Add the winning tile with `win <tile>`.",
                f"{count} tiles, ready on {format_tiles(ready)}: add win <tile>",
            )
        return (
            f"{count} tiles: not ready (no tile completes it); as a losing hand it scores.",
            f"{count} tiles, a losing hand (not ready)",
        )
    return (
        f"{count} tiles (a kong counts as three): a hand has {full - 1}, or {full} with the "
        "winning tile.",
        f"✗ {count} tiles: a hand has {full - 1}, or {full} with the winning tile",
    )


__all__ = ["HandReading", "hand_hint", "read_hand"]
