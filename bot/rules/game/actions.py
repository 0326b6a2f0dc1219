"""What players do (actions) and what happened at the table (events).

Every action names the physical ``seat`` that takes it (0-3 counter-clockwise from the first
East; see ``state.py``). ``apply`` accepts an action or raises ``IllegalAction`` with the reason;
the list of accepted actions, with the table's configuration, replays to the identical state.

Drawing from the wall is not an action: when a claim window closes with no claim, the next
player draws at once (Pung Chow p.16: "it becoming the turn of South Wind to draw the next tile
in the wall and discard"), and flowers and seasons are exposed and replaced as soon as they are
drawn (p.29, filipino-16 "Mahjong With the Seasons"). Those happen as *events*.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.tiles import WIND_NAMES, tile_name


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``tile`` face up (Pung Chow p.16)."""

    seat: int
    tile: int

    def describe(self) -> str:
        return f"discard {tile_name(self.tile)}"


@dataclass(frozen=True, slots=True)
class Riichi:
    """Declare Riichi and discard ``tile`` (singapore: "Win after declaring Riichi", "Declared
    Riichi but did not win: 100 pts. to the winner"). See docs/game.md for the reading."""

    seat: int
    tile: int

    def describe(self) -> str:
        return f"declare Riichi, discarding {tile_name(self.tile)}"


@dataclass(frozen=True, slots=True)
class Chow:
    """Take the discard of the player on your left to make the sequence starting at ``tile``
    (its lowest tile), only in turn (Pung Chow p.18)."""

    seat: int
    tile: int

    def describe(self) -> str:
        return f"chow {tile_name(self.tile)} to {tile_name(self.tile + 2)}"


@dataclass(frozen=True, slots=True)
class Pung:
    """Take the latest discard to make three of a kind with a pair in hand (Pung Chow p.19)."""

    seat: int

    def describe(self) -> str:
        return "pung"


@dataclass(frozen=True, slots=True)
class Kong:
    """Four of a kind (Pung Chow p.22-23), then a loose tile.

    In a claim window: take the discard to a concealed three of a kind (an exposed kong).
    In your turn: lay down four of a kind held in hand (a concealed kong, its ends face down),
    or add a drawn fourth ``tile`` to your exposed pung (never a claimed fourth).
    """

    seat: int
    tile: int

    def describe(self) -> str:
        return f"kong {tile_name(self.tile)}"


@dataclass(frozen=True, slots=True)
class MahJongg:
    """Call Mah-Jongg: on the latest discard (in a claim window) or on your own tiles in your
    turn (Pung Chow p.24)."""

    seat: int

    def describe(self) -> str:
        return "Mah-Jongg"


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline every claim on the latest discard."""

    seat: int

    def describe(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class WashTiles:
    """Call "no play" with nine or more different heads in the original hand (Pung Chow p.61,
    pung-chow-limit)."""

    seat: int

    def describe(self) -> str:
        return "wash the tiles (no play)"


@dataclass(frozen=True, slots=True)
class DeclareFuriten:
    """Declare Furi Tem: a tile this seat discarded earlier would complete its hand
    (singapore "FURI TEM")."""

    seat: int

    def describe(self) -> str:
        return "declare Furi Tem"


@dataclass(frozen=True, slots=True)
class NextHand:
    """Deal the next hand after a hand is over (any seat, or the table itself: ``seat`` None)."""

    seat: int | None = None

    def describe(self) -> str:
        return "deal the next hand"


Action = (
    Discard | Riichi | Chow | Pung | Kong | MahJongg | Pass | WashTiles | DeclareFuriten | NextHand
)
ACTION_TYPES: tuple[type, ...] = (
    Discard,
    Riichi,
    Chow,
    Pung,
    Kong,
    MahJongg,
    Pass,
    WashTiles,
    DeclareFuriten,
    NextHand,
)

# Event kinds, in the order they can happen in a hand.
SEATED = "seated"
DEALT = "dealt"
FLOWER = "flower"
DREW = "drew"
LOOSE = "loose"
DISCARDED = "discarded"
RIICHI = "riichi"
CLAIMED = "claimed"
PASSED = "passed"
KONG = "kong"
FURITEN = "furiten"
WON = "won"
DRAWN_HAND = "drawn-hand"
WASHED = "washed"
FALSE_MAHJONG = "false-mahjong"
HAND_OVER = "hand-over"
GAME_OVER = "game-over"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened. ``tile`` is None when the event does not show one publicly;
    ``private_tile`` is what only ``seat`` may see (the tile it drew)."""

    kind: str
    seat: int | None = None
    tile: int | None = None
    text: str = ""
    private_tile: int | None = None


def seat_label(wind: int) -> str:
    return WIND_NAMES[wind]
