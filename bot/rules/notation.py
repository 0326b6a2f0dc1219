"""Reading whole hands as people type them (``/score``, ``mahjong-score``).

One grammar takes both the compact interchange form and a friendlier one; every token is
one of:

* tiles: ``123m`` ``456p`` ``789s`` ``1234567z`` (compact), or ``123c`` characters, ``456d``
  dots, ``789b`` bamboo; honours as letters ``E S W N`` (winds), ``R G Wh`` (dragons), which
  may repeat (``EEE``, ``RR``) or be written out (``east``, ``red``, ``white``);
* flowers and seasons: ``1f``-``8f``, or ``F1``-``F4`` (flowers) and ``S1``-``S4`` (seasons);
* ``[555s]`` or ``[E E E]``: a set exposed on the table; ``{1111z}`` or ``{RRRR}``: a kong
  declared concealed (its ends face down);
* ``win 2p`` (or ``win:2p``): the winning tile; ``by`` words ``discard``, ``self-draw``,
  ``loose-tile``, ``dealt``; ``from W``: who discarded it; and flags such as ``last-tile``.

If the hand's tiles already include the winning tile it is not added again; if they are one
short, it is. A bad token is named in the error with what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.rules.hand import (
    DEALT,
    DISCARD,
    LOOSE_TILE,
    SELF_DRAW,
    WIN_FLAGS,
    Hand,
    Win,
)
from bot.rules.melds import Meld, meld_from_tiles
from bot.rules.tiles import (
    BONUS,
    EAST,
    GREEN,
    NORTH,
    RED,
    SOUTH,
    WEST,
    WHITE,
    NotationError,
    format_tiles,
    is_bonus,
    make,
)

_SUFFIX = {"m": 0, "c": 0, "p": 1, "d": 1, "s": 2, "b": 2, "z": 3, "f": BONUS}
_LIMIT = {"z": 7, "f": 8}
# ASCII only: \d would take fullwidth digits (５m) and IGNORECASE the long s (ſ) for S.
_GROUP = re.compile(r"([0-9]+)([mpszfbcd])", re.IGNORECASE | re.ASCII)
_GROUPS = re.compile(r"^(?:[0-9]+[mpszfbcd])+$", re.IGNORECASE | re.ASCII)
_BONUS_WORD = re.compile(r"^([FS])([1-4])$", re.IGNORECASE | re.ASCII)
_HONOUR_RUN = re.compile(r"^(?:WH|[ESWNRG])+$", re.IGNORECASE | re.ASCII)
_HONOUR_LETTER = re.compile(r"WH|[ESWNRG]", re.IGNORECASE | re.ASCII)
_HONOUR_BY_LETTER = {
    "E": EAST,
    "S": SOUTH,
    "W": WEST,
    "N": NORTH,
    "R": RED,
    "G": GREEN,
    "WH": WHITE,
}
_HONOUR_WORDS = {
    "east": EAST,
    "south": SOUTH,
    "west": WEST,
    "north": NORTH,
    "red": RED,
    "green": GREEN,
    "white": WHITE,
}
_METHODS = {
    "discard": DISCARD,
    "claimed": DISCARD,
    "self-draw": SELF_DRAW,
    "selfdraw": SELF_DRAW,
    "self-drawn": SELF_DRAW,
    "drawn": SELF_DRAW,
    "draw": SELF_DRAW,
    "loose-tile": LOOSE_TILE,
    "loose": LOOSE_TILE,
    "dealt": DEALT,
}
_SEATS = {"e": 0, "s": 1, "w": 2, "n": 3, "east": 0, "south": 1, "west": 2, "north": 3}
_TOKEN = re.compile(r"\[[^\]\[{}]*\]|\{[^}\[\]{]*\}|[^\s,\[\]{}]+|[\[\]{}]")

EXPECTED = (
    "expected tiles such as 123m 55p 789s 11z (or 123c 55d 789b), honours E S W N R G Wh, "
    "flowers 1f-8f or F1-F4 / S1-S4, a meld in [ ] or a concealed kong in { }, "
    "'win <tile>', 'discard', 'self-draw', 'loose-tile', 'dealt', 'from <wind>'"
)


@dataclass(frozen=True, slots=True)
class ParsedHand:
    hand: Hand
    win: Win | None


def parse_tile_token(token: str) -> list[int]:
    """The tiles of one token (``123m``, ``55d``, ``EEE``, ``red``, ``F2``)."""
    if _GROUPS.match(token):
        tiles = []
        for group in _GROUP.finditer(token):
            digits, letter = group.group(1), group.group(2).lower()
            suit_index = _SUFFIX[letter]
            limit = _LIMIT.get(letter, 9)
            for ch in digits:
                number = int(ch)
                if not 1 <= number <= limit:
                    raise NotationError(
                        f"'{token}': {number}{letter} is not a tile (expected 1-{limit} "
                        f"before '{letter}')"
                    )
                tiles.append(make(suit_index, number))
        return tiles
    bonus = _BONUS_WORD.match(token)
    if bonus:
        kind, number = bonus.group(1).upper(), int(bonus.group(2))
        return [33 + number + (4 if kind == "S" else 0)]
    word = token.lower().rstrip("s") if token.lower() not in _HONOUR_WORDS else token.lower()
    if word in _HONOUR_WORDS:
        return [_HONOUR_WORDS[word]]
    if _HONOUR_RUN.match(token):
        return [_HONOUR_BY_LETTER[m.group(0).upper()] for m in _HONOUR_LETTER.finditer(token)]
    if token.isascii() and token.isdigit():
        raise NotationError(
            f"'{token}' has no suit: put m/c (characters), p/d (dots) or s/b (bamboo) after "
            "the numbers, or z after 1-7 for honours"
        )
    raise NotationError(f"'{token}' is not a tile: {EXPECTED}")


def _bracket_tiles(token: str) -> list[int]:
    inner = token[1:-1]
    parts = _TOKEN.findall(inner)
    if not parts:
        raise NotationError(f"'{token}' is empty: put the meld's tiles inside, like [555p]")
    tiles: list[int] = []
    for part in parts:
        tiles.extend(parse_tile_token(part))
    return tiles


def parse_hand(text: str) -> ParsedHand:
    """Parse a whole hand; see the module docstring for the grammar."""
    tokens = _TOKEN.findall(text.replace(":", " ").replace("=", " "))
    if not tokens:
        raise NotationError(f"the hand is empty: {EXPECTED}")
    concealed: list[int] = []
    melds: list[Meld] = []
    flowers: list[int] = []
    win_tile: int | None = None
    method: str | None = None
    from_seat: int | None = None
    flags: set[str] = set()
    saw_win = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        low = token.lower()
        if token in ("[", "{"):
            closing = "]" if token == "[" else "}"
            raise NotationError(f"'{token}' is not closed: expected '{closing}' after the tiles")
        if token in ("]", "}"):
            raise NotationError(f"'{token}' closes nothing: a meld is written like [555p]")
        if token.startswith("["):
            melds.append(meld_from_tiles(_bracket_tiles(token)))
        elif token.startswith("{"):
            tiles = _bracket_tiles(token)
            if len(tiles) != 4:
                raise NotationError(
                    f"'{token}': braces mark a concealed kong, which has four tiles"
                )
            melds.append(meld_from_tiles(tiles, concealed=True))
        elif low in ("win", "won", "winning", "+"):
            saw_win = True
            if i + 1 >= len(tokens):
                raise NotationError("'win' must be followed by the winning tile, e.g. win 5p")
            tiles = parse_tile_token(tokens[i + 1])
            if len(tiles) != 1 or is_bonus(tiles[0]):
                raise NotationError(
                    f"'win {tokens[i + 1]}': expected one tile such as 5p or R after 'win'"
                )
            win_tile = tiles[0]
            i += 1
        elif low in _METHODS:
            saw_win = True
            method = _METHODS[low]
        elif low in ("by", "on", "with"):
            pass
        elif low == "from":
            if i + 1 >= len(tokens) or tokens[i + 1].lower() not in _SEATS:
                raise NotationError("'from' must be followed by a wind: E, S, W or N")
            from_seat = _SEATS[tokens[i + 1].lower()]
            i += 1
        elif low in WIN_FLAGS:
            saw_win = True
            flags.add(low)
        else:
            for tile in parse_tile_token(token):
                (flowers if is_bonus(tile) else concealed).append(tile)
        i += 1
    if not saw_win:
        return ParsedHand(Hand(tuple(concealed), tuple(melds), tuple(flowers)), None)
    if method is None:
        method = DISCARD if from_seat is not None else SELF_DRAW
    if method == DEALT and win_tile is None:
        win_tile = concealed[-1] if concealed else None
    if win_tile is None:
        raise NotationError("say which tile won: add 'win <tile>', e.g. win 5p")
    counted = len(concealed) + sum(min(m.size, 3) for m in melds)
    if counted % 3 == 1:
        concealed.append(win_tile)
    elif win_tile not in concealed:
        raise NotationError(
            f"the winning tile {format_tiles([win_tile])} is not among the tiles in hand "
            f"({format_tiles(concealed)})"
        )
    win = Win(win_tile, method, from_seat, frozenset(flags))
    return ParsedHand(Hand(tuple(concealed), tuple(melds), tuple(flowers)), win)


def format_hand(hand: Hand, win: Win | None = None) -> str:
    """The compact form of a whole hand, readable back by :func:`parse_hand`."""
    parts = [format_tiles(hand.concealed)] if hand.concealed else []
    for meld in hand.melds:
        text = format_tiles(meld.tiles)
        parts.append(f"{{{text}}}" if meld.concealed else f"[{text}]")
    if hand.flowers:
        parts.append(format_tiles(hand.flowers))
    if win is not None:
        if win.tile is not None:
            parts.append(f"win {format_tiles([win.tile])}")
        parts.append(win.by)
        if win.from_seat is not None:
            parts.append(f"from {'ESWN'[win.from_seat]}")
        parts.extend(sorted(win.flags))
    return " ".join(parts)
