"""Sets (melds) as the engine and the scorer see them.

A *declared* meld is one a player laid on the table during play: a chow or pung made with a
claimed discard, a kong (exposed, added to an exposed pung, or concealed with its ends face
down). An *arranged* set is one the analyser found among the concealed tiles at the end.
Both are :class:`Meld`; ``concealed`` tells how the scorer counts it (Pung Chow p.22-23:
"concealed sets ... score twice as much as the same set would if it were on the table").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from bot.rules.tiles import format_tiles, is_honour


class Kind(IntEnum):
    CHOW = 0
    PUNG = 1
    KONG = 2
    PAIR = 3


KIND_NAMES = {Kind.CHOW: "chow", Kind.PUNG: "pung", Kind.KONG: "kong", Kind.PAIR: "pair"}
KIND_BY_NAME = {name: kind for kind, name in KIND_NAMES.items()}
_SIZES = {Kind.CHOW: 3, Kind.PUNG: 3, Kind.KONG: 4, Kind.PAIR: 2}


@dataclass(frozen=True, slots=True)
class Meld:
    """A set: its kind, its lowest tile, and whether it counts as concealed.

    ``claimed`` is the tile taken from another player's discard (None when the set was
    completed by drawing); ``from_seat`` is who discarded it. ``added`` marks a kong made by
    adding a drawn fourth tile to an exposed pung (Pung Chow p.23). These three matter for
    drawing the table and for replay; the scorer only looks at kind, tile and concealed.
    """

    kind: Kind
    tile: int
    concealed: bool = False
    claimed: int | None = None
    from_seat: int | None = None
    added: bool = False

    @property
    def tiles(self) -> tuple[int, ...]:
        t = self.tile
        if self.kind is Kind.CHOW:
            return (t, t + 1, t + 2)
        return (t,) * (2 if self.kind is Kind.PAIR else 3 if self.kind is Kind.PUNG else 4)

    @property
    def size(self) -> int:
        return _SIZES[self.kind]

    @property
    def is_set_of_kind(self) -> bool:
        """Three or four of a kind (a pung or a kong)."""
        return self.kind is Kind.PUNG or self.kind is Kind.KONG

    def describe(self) -> str:
        where = "concealed" if self.concealed else "exposed"
        return f"{where} {KIND_NAMES[self.kind]} {format_tiles(self.tiles)}"


def chow_is_legal(tile: int) -> bool:
    """A chow starting at ``tile`` stays inside one suit (Pung Chow p.18)."""
    return not is_honour(tile) and tile < 27 and tile % 9 <= 6


def meld_from_tiles(
    tiles: list[int], *, concealed: bool = False, kind_name: str | None = None
) -> Meld:
    """Build a declared meld from its tiles, checking that they form one.

    Only a kong may be declared concealed (its ends face down, Pung Chow p.23).
    """
    from bot.rules.tiles import NotationError, tile_name

    if not tiles:
        raise NotationError("an empty meld: expected three or four tiles such as [555p]")
    ordered = sorted(tiles)
    first = ordered[0]
    if any(t >= 34 for t in ordered):
        raise NotationError("flowers and seasons cannot be part of a meld")
    if len(ordered) == 3 and ordered == [first, first + 1, first + 2] and chow_is_legal(first):
        kind = Kind.CHOW
    elif len(ordered) in (3, 4) and all(t == first for t in ordered):
        kind = Kind.PUNG if len(ordered) == 3 else Kind.KONG
    else:
        names = ", ".join(tile_name(t) for t in ordered)
        raise NotationError(
            f"[{format_tiles(ordered)}] ({names}) is not a set: expected three in sequence "
            "in one suit, three of a kind or four of a kind"
        )
    if kind_name is not None and KIND_BY_NAME.get(kind_name) is not kind:
        raise NotationError(f"[{format_tiles(ordered)}] is a {KIND_NAMES[kind]}, not a {kind_name}")
    if concealed and kind is not Kind.KONG:
        raise NotationError(
            f"[{format_tiles(ordered)}]: only a kong can be declared concealed "
            "(other declared sets were made with a claimed discard)"
        )
    return Meld(kind, first, concealed=concealed)
