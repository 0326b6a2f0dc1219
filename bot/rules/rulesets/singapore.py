"""``singapore``: the simplified Singapore-style scoring (singapore-simplified.txt).

Only the winner scores: fundamental points, rounded to the nearest 10, multiplied by every
bonus that applies; maximum hands are worth the maximum (2000, 3000 where East pays or is
paid). The discarder of the winning tile pays the other players' shares; penalties and the
Renchon antes as the text gives them. Where bonuses overlap, docs/rules.md says which counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any, ClassVar

from bot.rules.analysis import CHOW, KONG, PAIR, PUNG, SetInfo
from bot.rules.hand import DEALT, DISCARD, LOOSE_TILE, SELF_DRAW, Hand, Situation, Win
from bot.rules.options import Options, OptionSpec
from bot.rules.reading import Facts, Reading
from bot.rules.rulesets.base import Outcome, RuleSet, _ResolvedTypes
from bot.rules.score import Payment, Score, ScoreLine, line_doubles, line_points, new_score
from bot.rules.tiles import (
    DRAGON_NAMES,
    EAST,
    FLOWERS,
    SEASONS,
    WHITE,
    bonus_wind,
    is_head,
    is_wind,
    tile_name,
)

FUND = "Singapore: fundamental points"
MULT = "Singapore: bonuses"
MAXH = "Singapore: maximum hands"
PEN = "Singapore: penalties"
RENCHON = "Singapore: Renchon"

PUNG_POINTS = {False: (2, 4), True: (4, 8)}
KONG_POINTS = {False: (8, 16), True: (16, 32)}

MAXIMUM_HANDS = {
    "all-flowers": "All 4 flowers or all 4 seasons",
    "east-first-14": "East wins with his first 14 tiles",
    "east-first-discard": "Wins with East's first discard",
    "three-dragons": "3 dragon pungs",
    "four-winds": "4 wind pungs",
    "three-winds-eyes": "3 wind pungs and wind eyes",
    "terminals": "All pungs and eyes of 1s and 9s",
    "all-honours": "All honour tiles",
    "four-hidden-pungs": "4 hidden pungs",
    "four-kongs": "4 kongs",
    "nine-gates": "Pung of 1s, pung of 9s and 2-8 of one suit, eyes on a middle number",
    "thirteen-orphans": "7 different honours and the 1 and 9 of each suit, with eyes",
    "ninth-renchon": "East wins the ninth Renchon game",
}


_MAHJONG = ScoreLine("Mah-Jongg", 20, 0, FUND)
_EYE_OR_CHOW = ScoreLine("Win by making an eye or a chow", 2, 0, FUND)
_DRAWN = ScoreLine("Win by drawing from the wall", 2, 0, FUND)


@cache
def bonus_line(name: str, doubles: int) -> ScoreLine:
    return ScoreLine(name, 0, doubles, MULT)


@cache
def fundamental_line(kind: int, tile: int, concealed: bool) -> ScoreLine:
    """The fundamental-points line of a set, honour eyes (PAIR) or a flower (kind -1)."""
    if kind == -1:
        return ScoreLine(tile_name(tile), 4, 0, FUND)
    if kind == PAIR:
        return ScoreLine(f"Eyes of honours ({tile_name(tile)})", 2, 0, FUND)
    table = PUNG_POINTS if kind == PUNG else KONG_POINTS
    word = "Pung" if kind == PUNG else "Kong"
    where = "hidden" if concealed else "exposed"
    points = table[is_head(tile)][1 if concealed else 0]
    return ScoreLine(f"{word} of {tile_name(tile)} ({where})", points, 0, FUND)


_SEVEN_EYES = ScoreLine("7 eyes: total score for the hand", 100, 0, FUND)
_HIDDEN_ON_DISCARD = ScoreLine("Hidden hand won on a discard, no other bonus", 10, 0, FUND)
_FUNDAMENTAL_LINES = {
    **{
        (kind, tile, concealed): fundamental_line(kind, tile, concealed)
        for kind in (PUNG, KONG)
        for tile in range(34)
        for concealed in (False, True)
    },
    **{(PAIR, tile, True): fundamental_line(PAIR, tile, True) for tile in range(27, 34)},
    **{(-1, tile, True): fundamental_line(-1, tile, True) for tile in range(34, 42)},
}


# The bonuses' lines (singapore-simplified.txt, Bonuses), built once.
_BONUS = {
    key: bonus_line(name, doubles)
    for key, name, doubles in (
        ("seat-wind", "Pung of seat wind", 1),
        ("two-dragons-eyes", "2 dragon pungs and dragon eyes", 3),
        ("chows-discard", "Chows and eyes only, number tiles only, won on a discard", 1),
        ("middle-one-suit", "All middle numbers of one suit", 4),
        ("four-middle-chows", "4 chows, all middle numbers", 2),
        ("middle", "Entire hand of middle numbers", 1),
        ("one-suit", "All number tiles of one suit", 3),
        ("one-suit-honours", "All letter tiles and one suit of number tiles", 1),
        ("no-middle", "No middle numbers", 1),
        ("concealed-drawn", "Concealed hand, won by drawing from the wall", 1),
        ("loose-tile", "Win with a tile drawn from the back of the wall", 1),
        ("last-tile", "Win by drawing the last available tile", 1),
        ("last-discard", "Win on the discarded last available tile", 1),
        ("robbing-kong", "Win on a tile another player called for a kong", 1),
        ("riichi", "Win after declaring Riichi", 1),
        ("three-chows-any", "3 chows of one suit", 1),
        ("three-chows-1-9", "Sequence of 3 chows of one suit (1-9)", 1),
        ("four-pungs-three-hidden", "4 pungs, 3 of them hidden", 2),
        ("three-pungs-drawn", "3 pungs, won by drawing from the wall", 2),
        ("four-pungs", "4 pungs", 1),
        ("two-hidden-pungs", "2 hidden pungs", 1),
        ("three-kongs", "3 kongs", 1),
    )
}
_DRAGON_PUNG = {
    tile: bonus_line(f"Pung of {DRAGON_NAMES[tile - WHITE].lower()} dragons", 1)
    for tile in (WHITE, WHITE + 1, WHITE + 2)
}
_OWN_FLOWER = {tile: bonus_line(f"{tile_name(tile)}: own seat", 1) for tile in (*FLOWERS, *SEASONS)}
_EYES = {tile: _FUNDAMENTAL_LINES[PAIR, tile, True] for tile in range(27, 34)}


@lru_cache(maxsize=4096)
def rounding_line(rounded: int, points: int) -> ScoreLine:
    return ScoreLine(f"Rounded to the nearest 10 ({rounded})", rounded - points, 0, FUND)


def _all_flowers_or_seasons(flowers: tuple[int, ...]) -> bool:
    """All four flowers or all four seasons held (a maximum hand)."""
    held = set(flowers)
    return held.issuperset(FLOWERS) or held.issuperset(SEASONS)


@lru_cache(maxsize=1024)
def _rounding_line_of(points: int) -> ScoreLine:
    """:func:`rounding_line` by the points alone (they decide the rounding): a cache keyed by
    one int, the cheapest look-up of a line every reading needs."""
    return rounding_line((points + 5) // 10 * 10, points)


# Pung and kong lines keyed by the set as a reading holds it (kind, tile, concealed, winning).
_SET_LINES = {
    SetInfo(kind, tile, concealed, winning): _FUNDAMENTAL_LINES[kind, tile, concealed]
    for kind in (PUNG, KONG)
    for tile in range(34)
    for concealed in (False, True)
    for winning in (False, True)
}


def round_to_ten(points: int) -> int:
    """ "rounded to the nearest 10" (halves up): 22 -> 20, 25 -> 30; the "=40 total" line
    fixes it (a plain 20-point hand with 2 for the chow doubles to 40, not 60)."""
    return (points + 5) // 10 * 10


class Singapore(RuleSet):
    name: ClassVar[str] = "singapore"
    title: ClassVar[str] = "Simplified Singapore-style scoring"
    text: ClassVar[str] = "singapore-simplified.txt"
    hand_size: ClassVar[int] = 13
    sets_needed: ClassVar[int] = 4
    dead_wall: ClassVar[int] = 14
    specials: ClassVar[tuple[str, ...]] = ("thirteen-heads", "seven-pairs")
    losers_score: ClassVar[bool] = False
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("maximum", 2000, "the maximum hand for players other than East", minimum=10),
        OptionSpec("east_maximum", 3000, "the maximum where East pays or is paid", minimum=10),
        OptionSpec("flowers", True, "play with flowers and seasons (4 points each)", kind=bool),
        OptionSpec("ante", 100, "Renchon ante per counter", minimum=0),
        # House rules: the other readings of docs/rules.md (singapore), the text's first.
        OptionSpec(
            "four_chows_eyes",
            "middle",
            "4 Chows, all middle numbers: the eyes must be middle numbers too (middle), or may "
            "be any tiles (any)",
            choices=("middle", "any"),
            kind=str,
            source="singapore-simplified.txt: '4 Chows, all middle numbers: 4'",
            house=True,
        ),
        OptionSpec(
            "three_pungs_drawn",
            "any",
            "3 Pungs, win by drawing from wall: exposed pungs count (any), or only hidden "
            "ones (hidden)",
            choices=("any", "hidden"),
            kind=str,
            source="singapore-simplified.txt: '3 Pungs, win by drawing from wall: 4'",
            house=True,
        ),
        OptionSpec(
            "three_chows",
            "1-9",
            "Sequence of 3 Chows of one suit: 1-2-3, 4-5-6 and 7-8-9 (1-9), or any three chows "
            "of one suit (any)",
            choices=("1-9", "any"),
            kind=str,
            source="singapore-simplified.txt: 'Sequence of 3 Chows of one suit: 2'",
            house=True,
        ),
        OptionSpec(
            "furiten_penalty",
            "half-maximum",
            "Furi Tem not declared: half the maximum (half-maximum), or half of East's maximum "
            "when East wins or discarded (half-east-maximum)",
            choices=("half-maximum", "half-east-maximum"),
            kind=str,
            source="singapore-simplified.txt: 'you forfeit half the Maximum Points'",
            house=True,
        ),
        OptionSpec(
            "ninth_renchon_antes",
            True,
            "the ninth Renchon game won by East: the antes are paid on top of the maximum (on), "
            "or the maximum alone (off)",
            kind=bool,
            source="singapore-simplified.txt: 'If East wins the ninth Renchon game, he "
            "receives the Maximum Points'",
            house=True,
        ),
    )

    def limit_of(self, options: Options) -> int:
        return options["maximum"]

    def cap(self, amount: int, options: Options, east: bool) -> int:
        """East pays and is paid double, up to East's maximum."""
        if east:
            return min(amount * 2, options["east_maximum"])
        return min(amount, options["maximum"])

    # -- scoring -----------------------------------------------------------------------------
    def score_reading(
        self,
        reading: Reading,
        facts: Facts,
        hand: Hand,
        situation: Situation,
        win: Win | None,
        options: Options,
    ) -> Score:
        """A reading's fundamental points, rounded to the nearest 10, doubled by every bonus
        that applies; a maximum hand is worth the maximum.

        This runs for every reading of every hand, so it is one function: one pass over the
        sets gathers their lines and counts, the maximum hands (in the text's order) and the
        bonuses (:data:`_BONUS` lines) follow on local values, and the lines are prebuilt.
        tests/rules/test_scoring_reference.py holds it to a plain reference scorer."""
        if win is None:
            return Score((), 0)
        seat = situation.seat_wind
        flags = win.flags
        by = win.by
        flowers = hand.flowers
        special = reading.special
        # Maximum hands that do not depend on the sets, in the text's order.
        maximum_hand = None
        if len(flowers) >= 4 and _all_flowers_or_seasons(flowers):
            maximum_hand = "all-flowers"
        elif special == "thirteen-heads":
            maximum_hand = "thirteen-orphans"
        elif seat == 0 and (by == DEALT or "original-hand" in flags):
            maximum_hand = "east-first-14"
        elif seat != 0 and "first-discard" in flags:
            maximum_hand = "east-first-discard"
        elif seat == 0 and situation.extras.get("renchon", 0) >= 9:
            maximum_hand = "ninth-renchon"
        elif special is not None:
            # Seven eyes of honours is still "All honor tiles".
            if not facts.all_honours:
                return Score((_SEVEN_EYES,), 100, reading=reading, winner=True)
            maximum_hand = "all-honours"
        if maximum_hand is not None:
            return self._maximum(maximum_hand, reading, options)
        # One pass over the sets: their lines and the counts the maximum hands and bonuses read.
        items = [_MAHJONG]
        for pair in reading.pairs:
            if pair >= 27:
                items.append(_EYES[pair])
        own = EAST + seat
        chows = pungs = hidden = kongs = winds = 0
        seat_pung = False
        starts: list[int] = []
        dragons: list[int] = []
        set_line = _SET_LINES.get
        for s in reading.sets:
            kind, tile, concealed, _ = s
            if kind == CHOW:
                chows += 1
                starts.append(tile)
            elif kind != PAIR:
                items.append(set_line(s))  # type: ignore[arg-type]
                pungs += 1
                if kind == KONG:
                    kongs += 1
                if concealed:
                    hidden += 1
                if tile >= WHITE:
                    dragons.append(tile)
                elif tile >= EAST:
                    winds += 1
                    if tile == own:
                        seat_pung = True
        pair = reading.pairs[0] if reading.pairs else None
        if len(dragons) == 3:
            maximum_hand = "three-dragons"
        elif winds == 4:
            maximum_hand = "four-winds"
        elif winds == 3 and pair is not None and is_wind(pair):
            maximum_hand = "three-winds-eyes"
        elif facts.terminals_only and chows == 0:
            maximum_hand = "terminals"
        elif facts.all_honours:
            maximum_hand = "all-honours"
        elif hidden == 4:
            maximum_hand = "four-hidden-pungs"
        elif kongs == 4:
            maximum_hand = "four-kongs"
        elif not hand.melds and self._nine_gates(facts, win):
            maximum_hand = "nine-gates"
        if maximum_hand is not None:
            return self._maximum(maximum_hand, reading, options)
        table = _FUNDAMENTAL_LINES
        for tile in flowers:
            items.append(table[-1, tile, True])
        role = reading.win_role
        if role is not None and role != "pung":
            items.append(_EYE_OR_CHOW)
        drawn = by in (SELF_DRAW, LOOSE_TILE)
        if drawn:
            items.append(_DRAWN)
        # The bonuses (x2 = 1 double, x4 = 2, x8 = 3, x16 = 4); of the overlapping families
        # only the highest counts (docs/rules.md).
        bonuses: list[ScoreLine] = []
        for tile in flowers:
            if bonus_wind(tile) == seat:
                bonuses.append(_OWN_FLOWER[tile])
        if seat_pung:
            bonuses.append(_BONUS["seat-wind"])
        if dragons:
            if len(dragons) == 2 and pair is not None and pair >= WHITE:
                bonuses.append(_BONUS["two-dragons-eyes"])
            else:
                for tile in dragons:
                    bonuses.append(_DRAGON_PUNG[tile])
        if pungs == 0 and not facts.has_honours and by == DISCARD:  # (no special reading)
            bonuses.append(_BONUS["chows-discard"])
        # Middle numbers and suits: one family each, the highest applies.
        all_simples = facts.all_simples
        one_suit = facts.one_suit
        if all_simples and one_suit:
            bonuses.append(_BONUS["middle-one-suit"])
        elif chows == 4 and (
            all_simples
            # House rule four_chows_eyes=any: four chows of middle numbers (2-8) count
            # whatever the eyes are; the text's reading needs the eyes to be middle too.
            or (
                options["four_chows_eyes"] == "any" and all(1 <= start % 9 <= 5 for start in starts)
            )
        ):
            bonuses.append(_BONUS["four-middle-chows"])
        elif all_simples:
            bonuses.append(_BONUS["middle"])
        elif one_suit:
            bonuses.append(_BONUS["one-suit"])
        elif facts.one_suit_with_honours:
            bonuses.append(_BONUS["one-suit-honours"])
        if facts.no_simples:
            bonuses.append(_BONUS["no-middle"])
        concealed_hand = True
        for meld in hand.melds:
            if not meld.concealed:
                concealed_hand = False
                break
        if drawn and concealed_hand:
            bonuses.append(_BONUS["concealed-drawn"])
        if by == LOOSE_TILE:
            bonuses.append(_BONUS["loose-tile"])
        if flags:
            if "last-tile" in flags and drawn:
                bonuses.append(_BONUS["last-tile"])
            if "last-discard" in flags and by == DISCARD:
                bonuses.append(_BONUS["last-discard"])
            if "robbing-kong" in flags:
                bonuses.append(_BONUS["robbing-kong"])
            if "riichi" in flags:
                bonuses.append(_BONUS["riichi"])
        if chows >= 3:
            if options["three_chows"] == "any":
                suits = [start // 9 for start in starts]
                if any(suits.count(suit) >= 3 for suit in set(suits)):
                    bonuses.append(_BONUS["three-chows-any"])
            else:
                for base in (0, 9, 18):
                    if base in starts and base + 3 in starts and base + 6 in starts:
                        bonuses.append(_BONUS["three-chows-1-9"])
                        break
        if pungs == 4 and hidden == 3:
            bonuses.append(_BONUS["four-pungs-three-hidden"])
        elif drawn and (hidden if options["three_pungs_drawn"] == "hidden" else pungs) >= 3:
            bonuses.append(_BONUS["three-pungs-drawn"])
        elif pungs == 4:
            bonuses.append(_BONUS["four-pungs"])
        elif hidden >= 2:
            bonuses.append(_BONUS["two-hidden-pungs"])
        if kongs == 3:
            bonuses.append(_BONUS["three-kongs"])
        if not bonuses and by == DISCARD and concealed_hand:
            items.append(_HIDDEN_ON_DISCARD)
        points = sum(map(line_points, items))
        rounded = (points + 5) // 10 * 10  # round_to_ten
        if rounded != points:
            items.append(_rounding_line_of(points))
        if not bonuses:
            return new_score(Score, (tuple(items), rounded, None, reading, True, False))
        items.extend(bonuses)
        total = rounded << sum(map(line_doubles, bonuses))
        return new_score(Score, (tuple(items), total, None, reading, True, False))

    @staticmethod
    def _maximum(special: str, reading: Reading, options: Options) -> Score:
        """A maximum hand: worth the maximum, whatever else it holds."""
        maximum = options["maximum"]
        name = MAXIMUM_HANDS[special]
        return Score(
            (ScoreLine(f"Maximum hand: {name}", maximum, 0, MAXH),),
            maximum,
            limit_hand=name,
            reading=reading,
            winner=True,
        )

    @staticmethod
    def _nine_gates(facts: Facts, win: Win) -> bool:
        """ "holds a Pung of 1's, Pung of 9's, and 2-3-4-5-6-7-8 ... then draws a tile making
        Eyes with one of the middle numbers": the winning tile is the extra middle number."""
        if not facts.one_suit or win.tile is None:
            return False
        base = facts.suits.index(True) * 9
        counts = facts.counts[base : base + 9]
        extra = [c - need for c, need in zip(counts, (3, 1, 1, 1, 1, 1, 1, 1, 3), strict=True)]
        if min(extra) < 0 or sum(extra) != 1 or extra[0] or extra[8]:
            return False
        return 0 <= win.tile - base < 9 and extra[win.tile - base] == 1

    # -- settling ----------------------------------------------------------------------------
    def settle(self, outcome: Outcome, options: Mapping[str, Any] | None = None) -> list[Payment]:
        """Each loser pays the winner his share (East double, up to the maximums); the
        discarder of the winning tile pays the others' shares, except in a Renchon game, where
        he pays double the ante instead; Riichi declared without winning pays 100 to the
        winner; a false Mah-Jongg pays 250 to each (East 500)."""
        opts = options if isinstance(options, _ResolvedTypes) else self.options(options)
        if outcome.false_mahjong is not None:
            caller = outcome.false_mahjong
            return [
                Payment(caller, seat, 500 if 0 in (seat, caller) else 250, "false Mah-Jongg")
                for seat in outcome.seats
                if seat != caller
            ]
        if outcome.winner is None:
            return []
        winner = outcome.winner
        payments: list[Payment] = []
        if outcome.extras.get("furiten"):
            victim = outcome.discarder if outcome.discarder is not None else None
            half = opts["maximum"] // 2
            if opts["furiten_penalty"] == "half-east-maximum" and 0 in (winner, victim):
                half = opts["east_maximum"] // 2
            payees = [victim] if victim is not None else [s for s in outcome.seats if s != winner]
            return [
                Payment(winner, p, half, "won in Furi Tem without declaring it") for p in payees
            ]
        value = outcome.scores.get(winner, 0)
        renchon = outcome.renchon if winner == 0 else 0
        ante = opts["ante"] * renchon
        if renchon >= 9 and not opts["ninth_renchon_antes"]:
            ante = 0  # house rule: the ninth Renchon game pays the maximum alone
        discarder = outcome.discarder
        for seat in outcome.seats:
            if seat == winner:
                continue
            share = self.cap(value, opts, east=0 in (seat, winner))
            payer = seat
            if discarder is not None and not renchon:
                payer = discarder
            if share:
                reason = "Mah-Jongg" if payer == seat else f"pays {'ESWN'[seat]}'s share (discard)"
                payments.append(Payment(payer, winner, share, reason))
            if ante:
                times = 2 if seat == discarder else 1
                payments.append(Payment(seat, winner, ante * times, f"Renchon ante x{renchon}"))
        for seat in sorted(outcome.riichi):
            if seat != winner:
                payments.append(Payment(seat, winner, 100, "declared Riichi but did not win"))
        return payments


RULESET = Singapore()


def renchon_bonus_ok(score: Score) -> bool:
    """After the first Renchon game East "must have at least one bonus to win"."""
    return score.limit_hand is not None or score.doubles > 0
