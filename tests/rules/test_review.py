"""An independent review of the scoring and settling against the rule texts: each test cites
the line of the text it holds the engine to (pung-chow-1922.txt by the book's pages,
filipino-16-tile.txt and singapore-simplified.txt by their headings)."""

from __future__ import annotations

import pytest

from bot.rules.hand import Situation
from bot.rules.notation import parse_hand
from bot.rules.rulesets import HandError
from bot.rules.rulesets.pung_chow_limit import discarder_is_liable
from bot.rules.table_score import request_from_json, score_table
from tests.rules.helpers import as_table, score

S = "singapore"

# -- Pung Chow Part II, penalty 2 (p.67-68) ----------

ALL_DOTS = "23p 99p [222p] [555p] [777p]"  # nine dots exposed, an all-dot hand (p.68 Example 1)


def _liable(discarder: str, seat: int, round_wind: int = 0) -> bool:
    winner = parse_hand(f"{ALL_DOTS} win 1p from W")
    assert winner.win is not None
    other = parse_hand(discarder).hand
    return discarder_is_liable(winner.hand, winner.win, other, Situation(seat, round_wind))


def test_mandarins_are_not_doubling_honours_for_the_penalty_p67_p29() -> None:
    # p.67-68: "unless the discarder himself had two complete doubling honors and was waiting":
    # the doubling honours are those of p.67 (own wind, dragons, one suit, no sequences). A
    # player's own mandarins double his score (p.29) but are no doubling honour; and a table
    # playing with them must not fail here.
    plain_with_own_mandarins = "123m 456m 789s 234s 8s 2f 6f"  # South's flower and season
    assert _liable(plain_with_own_mandarins, seat=1)


def test_waiting_for_a_limit_hand_with_three_doubling_honours_p68() -> None:
    # "... or was waiting for the winning tile which would give him more than two doubling
    # honors" (p.68): four kongs (a limit hand, p.64) of bamboo and white dragons waiting on
    # 9 bamboo would hold the white dragons, no sequences and one suit with honours (p.67).
    assert not _liable("[1111s] [2222s] [3333s] [5555z] 9s", seat=2)
    # The same wait without the dragons holds one suit (x3) and no sequences: also exempt.
    assert not _liable("[1111s] [2222s] [3333s] [4444s] 9s", seat=2)
    # A plain ready hand is penalised.
    assert _liable("123m 456m 789s 234s 8s", seat=2)


# -- singapore maximum hands ----------


def test_nine_gates_needs_the_drawn_tile_to_make_the_eyes() -> None:
    # "Player holds a Pung of 1's, Pung of 9's, and 2-3-4-5-6-7-8 regardless of suit, then
    # draws a tile making Eyes with one of the middle numbers."
    held_all_nine = score(S, "1112345678999m win 5m from W", seat="S")
    assert held_all_nine.limit_hand is not None
    # Won on the 3: before it the hand lacked the 3, so it never held 1-1-1-2-...-8-9-9-9.
    lacked_the_three = score(S, "11123455678999m win 3m from W", seat="S")
    assert lacked_the_three.limit_hand is None
    assert lacked_the_three.total < 2000


def test_seven_eyes_of_honours_is_the_all_honours_maximum() -> None:
    # "The following bonuses automatically give a player a maximum score ... All honor tiles".
    result = score(S, "11223344556677z win 7z self-draw", seat="W")
    assert result.limit_hand == "All honour tiles"
    assert result.total == 2000
    # Seven eyes that are not all honours stay at 100 ("7 Eyes ... total score for the hand=100").
    assert score(S, "11m 33m 55p 77p 99s 22z 66z win 6z self-draw", seat="W").total == 100


# -- singapore Renchon through /score and mahjong-score (table_score) ----------


def _renchon_doc(concealed: str, melds: list, tile: str, renchon: int) -> dict:
    return {
        "ruleset": "singapore",
        "players": [{"seat": "E", "concealed": concealed, "melds": melds}],
        "win": {"seat": "E", "tile": tile, "by": "discard", "from": "S"},
        "renchon": renchon,
    }


def test_ninth_renchon_game_is_a_maximum_hand_when_scored_from_tiles() -> None:
    # "If East wins the ninth Renchon game, he receives the Maximum Points."
    doc = _renchon_doc("123m456p789s234m55p", [], "5p", 9)
    result = score_table(request_from_json(doc))
    assert result.scores[0].limit_hand == "East wins the ninth Renchon game"
    payments = as_table(result.payments)
    assert payments[("N", "E")] == 3000 + 900


def test_renchon_game_needs_a_bonus_when_scored_from_tiles() -> None:
    # "However, after the first game, East must have at least one bonus to win."
    no_bonus = _renchon_doc("123m456p789s11p", [{"tiles": "555s"}], "1p", 2)
    with pytest.raises(HandError, match="bonus"):
        score_table(request_from_json(no_bonus))
    no_bonus["renchon"] = 0
    assert score_table(request_from_json(no_bonus)).scores[0].total > 0


# -- filipino-16 special bonus scores ----------

F = "filipino-16"


def test_loose_tile_bonus_is_for_the_loose_tile_after_a_kong() -> None:
    # Score sheet: "Winning piece on special draw of a 'loose tile' after 4 of a kind....10
    # points"; a season also brings a loose tile ("draws a loose tile for each Season"), but
    # that draw is not the one the bonus names. The winning piece is still drawn (2 points).
    after_season = score(F, "123m 456m 789m 234p 567p 5s win 5s loose-tile 2f", flowers=True)
    names = [line.name for line in after_season.lines]
    assert "Winning on a draw from the loose tiles" not in names
    assert "Drawing the winning piece" in names
    after_kong = score(F, "123m 456m 789m 234p [7777p] 5s win 5s loose-tile")
    assert "Winning on a draw from the loose tiles" in [line.name for line in after_kong.lines]
    # Pung Chow p.31 gives it for "any of his loose tile draws", a mandarin's too.
    mandarin = score("pung-chow", "123m 456m 789m 234p 5s win 5s loose-tile 2f", flowers=True)
    assert "Winning on a draw from the loose tiles" in [line.name for line in mandarin.lines]


# -- an independent scorer, written from the texts, against the engine on random hands ----------
#
# A brute-force reading of each score table (every division of the tiles, every set the winning
# tile could have completed, "only place" by trying all 34 kinds), with the choices of
# docs/rules.md. Slow but plain; it agrees with the engine on every hand below.

_HEADS = frozenset({0, 8, 9, 17, 18, 26, *range(27, 34)})
_KINDS = ("chow", "pung", "kong")


def _counts(tiles) -> list[int]:
    out = [0] * 34
    for t in tiles:
        out[t] += 1
    return out


def _divisions(counts: list[int]) -> list[tuple[tuple, int]]:
    found: list[tuple[tuple, int]] = []
    c = list(counts)

    def walk(sets: list, pair: int | None) -> None:
        i = next((k for k in range(34) if c[k]), None)
        if i is None:
            if pair is not None:
                found.append((tuple(sets), pair))
            return
        if pair is None and c[i] >= 2:
            c[i] -= 2
            walk(sets, i)
            c[i] += 2
        if c[i] >= 3:
            c[i] -= 3
            walk([*sets, ("pung", i)], pair)
            c[i] += 3
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for k in (i, i + 1, i + 2):
                c[k] -= 1
            walk([*sets, ("chow", i)], pair)
            for k in (i, i + 1, i + 2):
                c[k] += 1

    walk([], None)
    return found


def _readings(hand, win, sets_needed: int) -> list[tuple[list, int, str | None]]:
    """(sets as (kind, tile, concealed), pair, what the winning tile completed)."""
    declared = [(_KINDS[int(m.kind)], m.tile, m.concealed) for m in hand.melds]
    out = []
    for sets, pair in _divisions(_counts(hand.concealed)):
        if len(sets) + len(declared) != sets_needed:
            continue
        mine = [(k, t, True) for k, t in sets]
        if win.by == "dealt":
            out.append((declared + mine, pair, None))
            continue
        w = win.tile
        for i, (k, t, _) in enumerate(mine):
            if (k == "pung" and t == w) or (k == "chow" and t <= w <= t + 2):
                role = "pung"
                if k == "chow":
                    edge = (w - t == 2 and t % 9 == 0) or (w == t and t % 9 == 6)
                    role = "chow-middle" if w - t == 1 else "chow-edge" if edge else "chow-open"
                done = [*mine[:i], (k, t, win.by != "discard"), *mine[i + 1 :]]
                out.append((declared + done, pair, role))
        if pair == w:
            out.append((declared + mine, pair, "pair"))
    return out


def _only_place(hand, win, sets_needed: int) -> bool:
    if win.by == "dealt":
        return False
    held = _counts(hand.all_tiles())
    before = _counts(hand.concealed)
    before[win.tile] -= 1
    need = sets_needed - len(hand.melds)
    for t in range(34):
        if t != win.tile and held[t] < 4:
            before[t] += 1
            other = any(len(s) == need for s, _ in _divisions(before))
            before[t] -= 1
            if other:
                return False
    return True


def _suits(hand) -> tuple[set[int], bool]:
    tiles = hand.all_tiles()
    return {t // 9 for t in tiles if t < 27}, any(t >= 27 for t in tiles)


def _loser_sets(hand) -> tuple[list, list[int]]:
    c = _counts(hand.concealed)
    sets = [(_KINDS[int(m.kind)], m.tile, m.concealed) for m in hand.melds]
    sets += [("pung", t, True) for t in range(34) if c[t] >= 3]
    return sets, [t for t in range(34) if c[t] == 2]


def _part_one(hand, win, seat: int, sets_needed: int, seasons: bool) -> int:
    """Pung Chow Part I (p.3, p.29-31); with ``seasons``, the filipino-16 score sheet."""
    own = 27 + seat
    suits, honours = _suits(hand)

    def points_of(sets) -> int:
        total = 0
        for k, t, concealed in sets:
            if k != "chow":
                total += (4 if t in _HEADS else 2) * (4 if k == "kong" else 1) * (1 + concealed)
        return total

    def doubles_of(sets) -> int:
        d = sum(1 for k, t, _ in sets if k != "chow" and (t >= 31 or t == own))
        d += 3 if not suits or (len(suits) == 1 and not honours) else len(suits) == 1
        d += sum(1 for f in hand.flowers if (f - 34) % 4 == seat)
        if seasons:
            d += 3 * sum(set(range(b, b + 4)) <= set(hand.flowers) for b in (34, 38))
        return d

    flowers = 4 * len(hand.flowers) if seasons else 0
    if win is None:
        sets, pairs = _loser_sets(hand)
        pair = 2 if any(t >= 31 or t == own for t in pairs) else 0
        return (points_of(sets) + pair + flowers) << doubles_of(sets)
    only = _only_place(hand, win, sets_needed)
    best = 0
    for sets, pair, _ in _readings(hand, win, sets_needed):
        bonus = 10 * all(k != "chow" for k, _, _ in sets) + 2 * only
        bonus += {"loose-tile": 12, "self-draw": 2}.get(win.by, 0)
        if win.by == "loose-tile" and seasons and not hand.kong_count:
            bonus -= 10
        other = points_of(sets) + (2 if pair >= 31 or pair == own else 0) + flowers
        points = 20 + bonus + other + (10 if bonus == other == 0 else 0)
        doubles = doubles_of(sets) + 3 * (win.by == "dealt" or "original-hand" in win.flags)
        best = max(best, points << doubles)
    return best


def _part_two(hand, win, seat: int, round_wind: int, limit: int = 300) -> int:
    """Pung Chow Part II: scoring values p.65-66, doubling honours p.67, bonus scores and
    limit hands p.62-64."""
    own, rw = 27 + seat, 27 + round_wind
    suits, honours = _suits(hand)

    def set_points(k, t, concealed, winner) -> int:
        if k == "chow":
            return 0
        if k == "kong":
            return (16 if t in _HEADS else 8) * (1 + concealed)
        table = (
            ((4, 10) if t in _HEADS else (2, 6)) if winner else ((4, 8) if t in _HEADS else (2, 4))
        )
        return table[concealed]

    def set_doubles(sets) -> int:
        d = sum(1 for f in hand.flowers if (f - 34) % 4 == seat)
        for k, t, _ in sets:
            if k != "chow" and t == own:
                d += 2 if seat == round_wind else 1
            elif k != "chow" and t >= 31:
                d += 1
        return d

    def other_pair(t) -> int:
        return 4 if t == own == rw else 2 if (t >= 31 or t in (own, rw)) else 0

    if win is None:
        sets, pairs = _loser_sets(hand)
        points = sum(set_points(*s, False) for s in sets) + max(map(other_pair, pairs), default=0)
        return points << set_doubles(sets)
    c = _counts(hand.concealed)
    heads_single = sorted(c[t] for t in _HEADS) == [1] * 12 + [2]
    if (not hand.melds and sum(c) == 14 and heads_single) or (
        seat == 0 and (win.by == "dealt" or "original-hand" in win.flags)
    ):
        return limit
    drawn = win.by in ("self-draw", "loose-tile")
    best = 0
    for sets, pair, role in _readings(hand, win, 4):
        winds = {t for k, t, _ in sets if k != "chow" and 27 <= t <= 30}
        chows = sum(k == "chow" for k, _, _ in sets)
        if (
            (chows == 0 and all(t in _HEADS for t in hand.all_tiles()))
            or len(winds) == 4
            or (len(winds) == 3 and 27 <= pair <= 30 and pair not in winds)
            or all(k == "kong" for k, _, _ in sets)
            or len({t for k, t, _ in sets if k != "chow" and t >= 31}) == 3
        ):
            best = max(best, limit)
            continue
        points = 10 + sum(set_points(*s, True) for s in sets)
        if role == "pair":
            points += (8 if pair == own and seat == round_wind else 6 if pair in _HEADS else 4) - (
                0 if drawn else 2
            )
        else:
            points += other_pair(pair)
        if role and role.startswith("chow"):
            points += 4 if drawn else 2 if role != "chow-open" else 0
        points += 10 if points == 10 else 0
        doubles = set_doubles(sets) + (chows == 0)
        doubles += 3 if len(suits) == 1 and not honours else len(suits) == 1
        doubles += ("last-tile" in win.flags and drawn) + (win.by == "loose-tile")
        doubles += any(
            m.tile == win.tile and int(m.kind) == 1 and not m.concealed for m in hand.melds
        )
        after = limit // 2 if "first-discard" in win.flags else 0
        best = max(best, (points << doubles) + after)
    return best


@pytest.mark.parametrize("seed", [1, 2])
def test_engine_agrees_with_an_independent_scorer(seed: int) -> None:
    import random

    from bot.rules.hand import Hand, Win
    from bot.rules.notation import format_hand
    from bot.rules.rulesets import get_ruleset
    from bot.rules.sampling import random_complete_hand

    rng = random.Random(seed)
    for name, sets_needed in (("pung-chow", 4), ("filipino-16", 5), ("pung-chow-limit", 4)):
        rules = get_ruleset(name)
        for _ in range(250):
            hand, win = random_complete_hand(rng, sets_needed, declared_max=3)
            seat, round_wind = rng.randrange(4), rng.randrange(4)
            flags = frozenset(
                f for f in ("last-tile", "first-discard", "original-hand") if rng.random() < 0.05
            )
            win = Win(None, "dealt") if rng.random() < 0.03 else Win(win.tile, win.by, None, flags)
            flowers = tuple(sorted(rng.sample(range(34, 42), rng.randint(0, 4))))
            if rng.random() < 0.3:  # a losing hand: one tile short
                tiles = list(hand.concealed)
                tiles.remove(rng.choice(tiles))
                hand, win = Hand(tuple(tiles), hand.melds, flowers), None
            else:
                hand = Hand(hand.concealed, hand.melds, flowers)
            situation = Situation(seat, round_wind if name == "pung-chow-limit" else 0)
            got = rules.score(hand, situation, win, {"flowers": True}).total
            if name == "pung-chow-limit":
                expected = _part_two(hand, win, seat, round_wind)
            else:
                expected = _part_one(hand, win, seat, sets_needed, name == "filipino-16")
            assert got == expected, (name, "ESWN"[seat], format_hand(hand, win))
