"""``filipino-16``: Filipino/Taiwanese sixteen-tile mahjong (filipino-16-tile.txt).

Five sets and a pair from seventeen tiles, a sixteen-tile dead wall, the same score sheet as
Pung Chow's Part I with seasons scoring 4 points each and doubling for one's own and for a full
colour. Every hand scores; the losers settle their differences, East double; the limit
(usually 300) caps every payment, East double.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from bot.rules.hand import Hand, Situation
from bot.rules.options import Options, OptionSpec
from bot.rules.rulesets.base import Lines, Outcome
from bot.rules.rulesets.pung_chow import PungChow
from bot.rules.score import Payment
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
        # House rules: the other readings of docs/rules.md (filipino-16), the bot's first.
        OptionSpec(
            "limit_applies",
            "payments",
            "what the limit holds: every payment, the losers' differences too (payments); only "
            "what is paid to the winner (winner); each hand's score, before the losers take "
            "their differences (scores)",
            choices=("payments", "winner", "scores"),
            kind=str,
            source="filipino-16-tile.txt: 'A scoring limit of 300 points on any one hand'",
            house=True,
        ),
        OptionSpec(
            "loose_tile_bonus",
            "kong",
            "the 10 for winning on a loose tile: only after a kong, as the text says (kong), "
            "or after a season's loose tile too, as Pung Chow p.31 gives it (any)",
            choices=("kong", "any"),
            kind=str,
            source="filipino-16-tile.txt: 'Winning piece on special draw of a loose tile after "
            "4 of a kind'",
            house=True,
        ),
        OptionSpec(
            "false_mahjong",
            "half-limit",
            "a false Mah-Jongg (strict tables): half the limit to each, East the full limit "
            "(half-limit), or a dead hand that pays every other hand its score (dead-hand)",
            choices=("half-limit", "dead-hand"),
            kind=str,
            source="filipino-16-tile.txt: 'he must pay winner and pay each other player total "
            "score of that player' (dead hand); Pung Chow p.67 penalty 1 (half the limit)",
            house=True,
        ),
    )
    source_bonus: ClassVar[str] = SHEET
    source_combination: ClassVar[str] = SHEET
    # "Winning piece on special draw of a loose tile after 4 of a kind": not after a season.
    loose_tile_after_kong_only: ClassVar[bool] = True

    def loser_payments(
        self, outcome: Outcome, losers: Sequence[int], options: Options
    ) -> list[Payment]:
        """The losers' differences: capped like every payment (the bot's reading), not at all
        (``winner``: the text speaks only of paying the winner), or from scores each held to
        the limit first (``scores``: "a scoring limit of 300 points on any one hand")."""
        applies = options["limit_applies"]
        limit = self.limit_of(options)
        if applies == "payments" or limit is None:
            return super().loser_payments(outcome, losers, options)
        value = self._loser_value
        if applies == "scores":
            scores = {s: min(value(outcome, s), limit) for s in losers}
        else:
            scores = {s: value(outcome, s) for s in losers}
        payments: list[Payment] = []
        ordered = sorted(losers, key=lambda s: (-scores[s], s))
        for i, high in enumerate(ordered):
            if high in outcome.dead:
                continue
            for low in ordered[i + 1 :]:
                amount = (scores[high] - scores[low]) * (2 if 0 in (high, low) else 1)
                if amount > 0:
                    payments.append(Payment(low, high, amount, "difference of scores"))
        return payments

    def false_mahjong_payments(self, outcome: Outcome, options: Options) -> list[Payment]:
        """House rule ``false_mahjong=dead-hand``: the text's own dead hand instead of the
        limit game's penalty 1."""
        if options["false_mahjong"] == "dead-hand":
            caller = outcome.false_mahjong
            assert caller is not None
            dead = Outcome(scores=outcome.scores, dead=outcome.dead | {caller}, winner=None)
            return self.dead_hand_payments(dead, options)
        return super().false_mahjong_payments(outcome, options)

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
