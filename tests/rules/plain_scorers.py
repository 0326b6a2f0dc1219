"""The plain reading scorers the fast ones are held to (tests/rules/test_scoring_reference.py).

Singapore's and Pung Chow Part II's reading scorers as they were written before they became
one pass each (bot/rules/rulesets/singapore.py, pung_chow_limit.py): a SetStats pass over the
sets, then the maximum or limit hands and the bonuses as separate, plain steps in the texts'
order. Kept here, not in the engine, as the straightforward statement of the same rules.
"""

from __future__ import annotations

from bot.rules.analysis import CHOW, KONG, PAIR, PUNG
from bot.rules.hand import DEALT, DISCARD, LOOSE_TILE, SELF_DRAW, Hand, Situation, Win
from bot.rules.options import Options
from bot.rules.reading import Facts, Reading
from bot.rules.rulesets.base import Lines
from bot.rules.rulesets.pung_chow_limit import (
    _DRAGON_SET,
    _FOURTH_TILE,
    _LAST_TILE,
    _LOOSE_TILE,
    _NO_OTHER_SCORE,
    _NO_SEQUENCES,
    _ONE_SUIT,
    _ONE_SUIT_WITH_HONOURS,
    _OWN_WIND,
    _OWN_WIND_IN_OWN_ROUND,
    _SEQUENCE_BY_DRAW,
    _SEQUENCE_EDGE,
    _SEQUENCE_MIDDLE,
    _WINNING_VALUE_LINES,
    BONUS,
    LIMIT_HAND_NAMES,
    LIMITS,
    PungChowLimit,
    first_discard_line,
    mahjong_line,
    other_pair_line,
    pair_completion_line,
)
from bot.rules.rulesets.singapore import (
    _DRAWN,
    _EYE_OR_CHOW,
    _FUNDAMENTAL_LINES,
    _HIDDEN_ON_DISCARD,
    _MAHJONG,
    _SET_LINES,
    _SEVEN_EYES,
    MAXH,
    MAXIMUM_HANDS,
    Singapore,
    bonus_line,
    round_to_ten,
    rounding_line,
)
from bot.rules.score import Score, ScoreLine, line_doubles, line_points, new_score
from bot.rules.tiles import (
    DRAGON_NAMES,
    EAST,
    FLOWERS,
    SEASONS,
    WHITE,
    bonus_wind,
    is_wind,
    tile_name,
)


class SetStats:
    """Counts over one reading's sets, taken in a single pass for the scorers."""

    __slots__ = (
        "chow_starts",
        "chows",
        "dragon_pungs",
        "hidden_pungs",
        "kongs",
        "pair",
        "pungs",
        "sets",
        "wind_pungs",
    )

    def __init__(self, reading: Reading) -> None:
        chow_starts: list[int] = []
        dragon_pungs: list[int] = []
        wind_pungs: list[int] = []
        pungs = hidden = kongs = 0
        for kind, tile, concealed, _ in reading.sets:
            if kind == CHOW:
                chow_starts.append(tile)
            elif kind != PAIR:
                pungs += 1
                if kind == KONG:
                    kongs += 1
                if concealed:
                    hidden += 1
                if tile >= 31:
                    dragon_pungs.append(tile)
                elif tile >= 27:
                    wind_pungs.append(tile)
        chows = len(chow_starts)
        self.sets = chows + pungs
        self.chows = chows
        self.chow_starts = chow_starts
        self.pungs = pungs
        self.hidden_pungs = hidden
        self.kongs = kongs
        self.dragon_pungs = dragon_pungs
        self.wind_pungs = wind_pungs
        self.pair = reading.pairs[0] if reading.pairs else None


class PlainSingapore(Singapore):
    def maximum_hand(
        self,
        reading: Reading,
        stats: SetStats,
        facts: Facts,
        hand: Hand,
        situation: Situation,
        win: Win,
    ) -> str | None:
        if len(hand.flowers) >= 4:
            held = set(hand.flowers)
            if held.issuperset(FLOWERS) or held.issuperset(SEASONS):
                return "all-flowers"
        if reading.special == "thirteen-heads":
            return "thirteen-orphans"
        if situation.seat_wind == 0 and (win.by == DEALT or "original-hand" in win.flags):
            return "east-first-14"
        if situation.seat_wind != 0 and "first-discard" in win.flags:
            return "east-first-discard"
        if situation.seat_wind == 0 and situation.extras.get("renchon", 0) >= 9:
            return "ninth-renchon"
        if reading.special:
            # Seven eyes of honours is still "All honor tiles".
            return "all-honours" if facts.all_honours else None
        pair = stats.pair
        if len(stats.dragon_pungs) == 3:
            return "three-dragons"
        winds = len(stats.wind_pungs)
        if winds == 4:
            return "four-winds"
        if winds == 3 and pair is not None and is_wind(pair):
            return "three-winds-eyes"
        if facts.terminals_only and stats.chows == 0:
            return "terminals"
        if facts.all_honours:
            return "all-honours"
        if stats.hidden_pungs == 4:
            return "four-hidden-pungs"
        if stats.kongs == 4:
            return "four-kongs"
        if not hand.melds and self._nine_gates(facts, win):
            return "nine-gates"
        return None

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
        if win is None:
            return Score((), 0)
        maximum = options["maximum"]
        stats = SetStats(reading)
        special = self.maximum_hand(reading, stats, facts, hand, situation, win)
        if special is not None:
            name = MAXIMUM_HANDS[special]
            return Score(
                (ScoreLine(f"Maximum hand: {name}", maximum, 0, MAXH),),
                maximum,
                limit_hand=name,
                reading=reading,
                winner=True,
            )
        if reading.special == "seven-pairs":
            return Score((_SEVEN_EYES,), 100, reading=reading, winner=True)
        # Plain lists and prebuilt lines: this runs for every reading of every hand.
        table = _FUNDAMENTAL_LINES
        items = [_MAHJONG]
        for pair in reading.pairs:
            if pair >= 27:
                items.append(table[PAIR, pair, True])
        set_line = _SET_LINES.get
        for s in reading.sets:
            line = set_line(s)
            if line is not None:
                items.append(line)
        for tile in hand.flowers:
            items.append(table[-1, tile, True])
        role = reading.win_role
        if role is not None and role != "pung":
            items.append(_EYE_OR_CHOW)
        by = win.by
        if by in (SELF_DRAW, LOOSE_TILE):
            items.append(_DRAWN)
        bonuses = self.bonuses(reading, stats, facts, hand, situation, win, options)
        if not bonuses and by == DISCARD:
            for meld in hand.melds:
                if not meld.concealed:
                    break
            else:
                items.append(_HIDDEN_ON_DISCARD)
        points = sum(map(line_points, items))
        rounded = round_to_ten(points)
        if rounded != points:
            items.append(rounding_line(rounded, points))
        items.extend(bonuses)
        total = rounded << sum(map(line_doubles, bonuses))
        return new_score(Score, (tuple(items), total, None, reading, True, False))

    @staticmethod
    def _middle_chows(stats: SetStats, options: Options) -> bool:
        """House rule ``four_chows_eyes=any``: four chows of middle numbers (2-8) count
        whatever the eyes are; the text's reading needs the eyes to be middle numbers too."""
        if options["four_chows_eyes"] != "any":
            return False
        return all(1 <= start % 9 <= 5 for start in stats.chow_starts)

    def bonuses(
        self,
        reading: Reading,
        stats: SetStats,
        facts: Facts,
        hand: Hand,
        situation: Situation,
        win: Win,
        options: Options,
    ) -> list[ScoreLine]:
        """The multipliers that apply, as doubles (x2 = 1, x4 = 2, x8 = 3, x16 = 4). Of the
        overlapping families only the highest counts (docs/rules.md)."""
        out: list[ScoreLine] = []
        seat = situation.seat_wind
        for tile in hand.flowers:
            if bonus_wind(tile) == seat:
                out.append(bonus_line(f"{tile_name(tile)}: own seat", 1))
        pair = stats.pair
        if EAST + seat in stats.wind_pungs:
            out.append(bonus_line("Pung of seat wind", 1))
        dragon_pungs = stats.dragon_pungs
        if len(dragon_pungs) == 2 and pair is not None and pair >= WHITE:
            out.append(bonus_line("2 dragon pungs and dragon eyes", 3))
        else:
            for tile in dragon_pungs:
                out.append(bonus_line(f"Pung of {DRAGON_NAMES[tile - WHITE].lower()} dragons", 1))
        chows = stats.chows
        if (
            chows == stats.sets
            and not facts.has_honours
            and win.by == DISCARD
            and reading.special is None
        ):
            out.append(bonus_line("Chows and eyes only, number tiles only, won on a discard", 1))
        # Middle numbers and suits: one family each, the highest applies.
        one_suit = facts.one_suit
        if facts.all_simples and one_suit:
            out.append(bonus_line("All middle numbers of one suit", 4))
        elif chows == 4 and (facts.all_simples or self._middle_chows(stats, options)):
            out.append(bonus_line("4 chows, all middle numbers", 2))
        elif facts.all_simples:
            out.append(bonus_line("Entire hand of middle numbers", 1))
        elif one_suit:
            out.append(bonus_line("All number tiles of one suit", 3))
        elif facts.one_suit_with_honours:
            out.append(bonus_line("All letter tiles and one suit of number tiles", 1))
        if facts.no_simples:
            out.append(bonus_line("No middle numbers", 1))
        drawn = win.by in (SELF_DRAW, LOOSE_TILE)
        if drawn:
            for meld in hand.melds:
                if not meld.concealed:
                    break
            else:
                out.append(bonus_line("Concealed hand, won by drawing from the wall", 1))
        if win.by == LOOSE_TILE:
            out.append(bonus_line("Win with a tile drawn from the back of the wall", 1))
        flags = win.flags
        if flags:
            if "last-tile" in flags and drawn:
                out.append(bonus_line("Win by drawing the last available tile", 1))
            if "last-discard" in flags and win.by == DISCARD:
                out.append(bonus_line("Win on the discarded last available tile", 1))
            if "robbing-kong" in flags:
                out.append(bonus_line("Win on a tile another player called for a kong", 1))
            if "riichi" in flags:
                out.append(bonus_line("Win after declaring Riichi", 1))
        if chows >= 3:
            starts = stats.chow_starts
            if options["three_chows"] == "any":
                suits = [start // 9 for start in starts]
                if any(suits.count(suit) >= 3 for suit in set(suits)):
                    out.append(bonus_line("3 chows of one suit", 1))
            else:
                for base in (0, 9, 18):
                    if base in starts and base + 3 in starts and base + 6 in starts:
                        out.append(bonus_line("Sequence of 3 chows of one suit (1-9)", 1))
                        break
        pungs, hidden = stats.pungs, stats.hidden_pungs
        if pungs == 4 and hidden == 3:
            out.append(bonus_line("4 pungs, 3 of them hidden", 2))
        elif drawn and (hidden if options["three_pungs_drawn"] == "hidden" else pungs) >= 3:
            out.append(bonus_line("3 pungs, won by drawing from the wall", 2))
        elif pungs == 4:
            out.append(bonus_line("4 pungs", 1))
        elif hidden >= 2:
            out.append(bonus_line("2 hidden pungs", 1))
        if stats.kongs == 3:
            out.append(bonus_line("3 kongs", 1))
        return out


class PlainPungChowLimit(PungChowLimit):
    # -- limit hands -------------------------------------------------------------------------
    def limit_hand(
        self, reading: Reading, stats: SetStats, facts: Facts, situation: Situation, win: Win
    ) -> str | None:
        """The limit hands of p.62-64, in the book's order."""
        if reading.special == "thirteen-heads":
            return "single-heads"
        if situation.seat_wind == 0 and (win.by == DEALT or "original-hand" in win.flags):
            return "east-original"
        pair = stats.pair
        if pair is None:
            return None
        if stats.chows == 0 and facts.no_simples:
            return "heads-only"
        winds = stats.wind_pungs
        if len(winds) == 4:
            return "four-winds"
        if len(winds) == 3 and is_wind(pair) and pair not in winds:
            return "three-winds-and-pair"
        if stats.kongs == stats.sets:
            return "all-kongs"
        if len(stats.dragon_pungs) == 3:
            return "three-dragons"
        return None

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
        if win is None:
            return self.score_other_hand(reading, facts, hand, situation)
        limit = self.limit_of(options)
        stats = SetStats(reading)
        special = self.limit_hand(reading, stats, facts, situation, win)
        if (
            special is None
            and "first-discard" in win.flags
            and options["first_discard_bonus"] == "half-limit-hand"
        ):
            line = ScoreLine("Winning on the first discard: half the limit", limit // 2, 0, BONUS)
            return Score((line,), limit // 2, reading=reading, winner=True)
        if special is not None:
            line = ScoreLine(f"Limit hand: {LIMIT_HAND_NAMES[special]}", limit, 0, LIMITS)
            return Score(
                (line,), limit, limit_hand=LIMIT_HAND_NAMES[special], reading=reading, winner=True
            )
        # Plain lists and prebuilt lines: this runs for every reading of every winning hand.
        items = [mahjong_line(options["mahjong_bonus"])]
        by = win.by
        drawn = by in (SELF_DRAW, LOOSE_TILE)
        line_of = _WINNING_VALUE_LINES.get
        own = EAST + situation.seat_wind
        own_wind: list[ScoreLine] = []
        dragons: list[ScoreLine] = []
        for s in reading.sets:
            line = line_of(s)
            if line is not None:
                items.append(line)
                # Doubling honours 1-5 (p.67), as set_double_lines gives them.
                tile = s[1]
                if tile == own:
                    own_wind.append(
                        _OWN_WIND_IN_OWN_ROUND
                        if situation.round_wind == situation.seat_wind
                        else _OWN_WIND
                    )
                elif tile >= WHITE:
                    dragons.append(_DRAGON_SET[tile])
        pair = reading.pairs[0]
        role = reading.win_role
        if role == "pair":
            items.append(
                pair_completion_line(pair, situation.seat_wind, situation.round_wind, drawn)
            )
        else:
            points = self.pair_points(pair, situation)
            if points:
                items.append(other_pair_line(pair, points))
        if role is not None and role.startswith("chow"):
            if drawn:
                items.append(_SEQUENCE_BY_DRAW)
            elif role == "chow-middle":
                items.append(_SEQUENCE_MIDDLE)
            elif role == "chow-edge":
                items.append(_SEQUENCE_EDGE)
        if len(items) == 1:
            items.append(_NO_OTHER_SCORE)
        if stats.chows == 0:
            items.append(_NO_SEQUENCES)
        if own_wind:
            items.extend(own_wind)
        if dragons:
            items.extend(dragons)
        if facts.one_suit:
            items.append(_ONE_SUIT)
        elif facts.one_suit_with_honours:
            items.append(_ONE_SUIT_WITH_HONOURS)
        flags = win.flags
        if drawn and "last-tile" in flags:
            items.append(_LAST_TILE)
        if by == LOOSE_TILE:
            items.append(_LOOSE_TILE)
        for meld in hand.melds:
            if meld.tile == win.tile and meld.kind == PUNG and not meld.concealed:
                items.append(_FOURTH_TILE)
                break
        if hand.flowers:
            lines = Lines()
            self.add_bonus_doubles(lines, hand, situation)
            items.extend(lines.items)
        total = sum(map(line_points, items)) << sum(map(line_doubles, items))
        if "first-discard" in flags:
            items.append(first_discard_line(limit // 2))
            total += limit // 2
        return new_score(Score, (tuple(items), total, None, reading, True, False))


PLAIN = {"singapore": PlainSingapore(), "pung-chow-limit": PlainPungChowLimit()}
