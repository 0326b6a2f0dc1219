"""``filipino-16``: Filipino/Taiwanese sixteen-tile mahjong (filipino-16-tile.txt).

Five sets and a pair from seventeen tiles, a sixteen-tile dead wall, the same score sheet as
Pung Chow's Part I with seasons scoring 4 points each and doubling for one's own and for a full
colour. Every hand scores; the losers settle their differences, East double; the limit
(usually 300) caps every payment, East double.
"""

from __future__ import annotations

from typing import ClassVar

from bot.rules.hand import Hand, Situation
from bot.rules.options import OptionSpec
from bot.rules.rulesets.base import Lines
from bot.rules.rulesets.pung_chow import PungChow
from bot.rules.tiles import FLOWERS, SEASONS, bonus_wind

SHEET = "filipino-16 score sheet"
SEASONS_SRC = "filipino-16 Mahjong With the Seasons"


class Filipino16(PungChow):
    name: ClassVar[str] = "filipino-16"
    title: ClassVar[str] = "Filipino/Taiwanese 16-tile mahjong"
    text: ClassVar[str] = "filipino-16-tile.txt"
    hand_size: ClassVar[int] = 16
    sets_needed: ClassVar[int] = 5
    dead_wall: ClassVar[int] = 16
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "limit",
            300,
            "the limit on what a loser pays (The Limit: usually 300; none for unlimited)",
            allow_none=True,
            minimum=10,
        ),
        OptionSpec("mahjong_bonus", 20, "points for Mah-Jongg (score sheet: 20)", choices=(10, 20)),
        OptionSpec("flowers", False, "play with the seasons (Mahjong With the Seasons)", kind=bool),
    )
    source_bonus: ClassVar[str] = SHEET
    source_combination: ClassVar[str] = SHEET
    # "Winning piece on special draw of a loose tile after 4 of a kind": not after a season.
    loose_tile_after_kong_only: ClassVar[bool] = True

    def bonus_points(self, tile: int) -> int:
        """Each season scores 4 points, in every hand."""
        return 4

    def add_bonus_doubles(self, lines: Lines, hand: Hand, situation: Situation) -> None:
        """One of a player's own seasons doubles once, both twice; all four of one colour
        double three times; "in addition to any other doubling combinations"."""
        own = sum(1 for t in hand.flowers if bonus_wind(t) == situation.seat_wind)
        if own:
            lines.double(
                "Both of own seasons" if own == 2 else "One of own seasons", own, SEASONS_SRC
            )
        held = set(hand.flowers)
        for colour, tiles in (("flowers", FLOWERS), ("seasons", SEASONS)):
            if held.issuperset(tiles):
                lines.double(f"All four {colour} of one colour", 3, SEASONS_SRC)


RULESET = Filipino16()
