"""What the scorer is given: a player's tiles at the end of a hand and how the hand was won."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.rules.melds import Kind, Meld
from bot.rules.tiles import counts_of

# How the winning tile came (the JSON interchange names).
DISCARD = "discard"
SELF_DRAW = "self-draw"
LOOSE_TILE = "loose-tile"
DEALT = "dealt"
WIN_METHODS = (DISCARD, SELF_DRAW, LOOSE_TILE, DEALT)

# What the tiles cannot show; see docs/rules.md for which rule set uses which.
WIN_FLAGS = {
    "original-hand": "won on the hand as dealt (no tile drawn or claimed before)",
    "last-tile": "won with the last tile that may be drawn from the wall",
    "last-discard": "won on the discard of the last drawable tile",
    "first-discard": "won on East's first discard",
    "robbing-kong": "won with a tile another player added to a kong",
    "riichi": "won after declaring Riichi (singapore)",
    "furiten-undeclared": "won on a discard while in Furi Tem without declaring it (singapore)",
}


@dataclass(frozen=True, slots=True)
class Win:
    """How a hand was won. ``from_seat`` (seat wind 0-3) is the discarder for a discard."""

    tile: int | None
    by: str = SELF_DRAW
    from_seat: int | None = None
    flags: frozenset[str] = frozenset()

    @property
    def drawn(self) -> bool:
        return self.by in (SELF_DRAW, LOOSE_TILE)


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's tiles at the end: concealed tiles (the winning tile included for the winner),
    declared melds, and exposed flowers/seasons."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    flowers: tuple[int, ...] = ()

    @property
    def kong_count(self) -> int:
        return sum(1 for m in self.melds if m.kind is Kind.KONG)

    def all_tiles(self) -> list[int]:
        tiles = list(self.concealed)
        for meld in self.melds:
            tiles.extend(meld.tiles)
        return tiles

    def counts(self) -> list[int]:
        """Counts of every playing tile the player owns, concealed and declared."""
        return counts_of(self.all_tiles())

    def tile_count(self) -> int:
        """Tiles counted as the texts count them: a kong counts as three (Pung Chow p.24)."""
        return len(self.concealed) + sum(min(m.size, 3) for m in self.melds)


@dataclass(frozen=True, slots=True)
class Situation:
    """Where a hand was played: the seat's wind and the round's wind (indices 0-3)."""

    seat_wind: int
    round_wind: int = 0
    extras: dict[str, int] = field(default_factory=dict)
