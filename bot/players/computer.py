"""A computer player: legal and sensible play for every rule set, from its view only.

``decide(view, legal, ruleset, options)`` picks one of the legal actions:

* always take a win (but not on a discard in an undeclared Furi Tem, singapore);
* discards that bring the hand closer to winning: the least shanten, then the most tile
  acceptance counted against the tiles the player can see, then the hand's value under the
  rule set (dragon and own-wind pairs, the round wind in the limit game, one-suit hands);
* claims only when they bring the hand closer (or make a valuable set at no cost);
* the book's defensive play (Pung Chow p.26-28): "upon the slightest suspicion that one of these
  opponents is nearing the completion of his hand", with an ordinary hand "complete it as
  quickly as possible"; with a poor one "hold the tiles which he thinks would help the other
  players and discard only those which he is sure they will not pung". An opponent looks close
  with many sets exposed, a dangerous exposure (p.67-68: nine tiles of one suit, nine heads,
  two dragon sets, three wind sets), a Riichi, or when the wall runs short.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.rules.game.actions import (
    Action,
    Chow,
    DeclareFuriten,
    Discard,
    Kong,
    MahJongg,
    NextHand,
    Pass,
    Pung,
    Riichi,
    WashTiles,
)
from bot.rules.game.shanten import acceptance, shanten, thirteen_heads_shanten
from bot.rules.game.view import SeatView, TableView
from bot.rules.melds import Kind
from bot.rules.rulesets import RuleSet, get_ruleset
from bot.rules.tiles import DRAGONS, N_KINDS, WINDS, is_head, wind_tile

WALL_SHORT = 12  # drawable tiles left when the wall "grows shorter" (p.27)


@dataclass(slots=True)
class _Me:
    """What the player knows of itself and the table."""

    view: TableView
    rules: RuleSet
    seat: SeatView
    counts: list[int]  # concealed tiles (with the drawn one)
    needed: int  # sets still to make
    specials: tuple[str, ...]
    unseen: list[int]  # copies of each kind the player cannot see
    valuable: frozenset[int]  # honours whose sets double


def decide(
    view: TableView,
    legal: Sequence[Action],
    ruleset: RuleSet | str,
    options: Mapping[str, Any] | None = None,
) -> Action:
    """The computer player's choice among ``legal`` (which must not be empty)."""
    if not legal:
        raise ValueError("no legal action to choose from")
    for action in legal:
        if isinstance(action, NextHand):
            return action
    rules = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if view.viewer is None:
        return _fallback(legal)
    me = _know(view, rules)
    by_type: dict[type, list[Action]] = {}
    for action in legal:
        by_type.setdefault(type(action), []).append(action)
    furiten_pending = DeclareFuriten in by_type
    if MahJongg in by_type and not (view.phase == "claim" and furiten_pending):
        return by_type[MahJongg][0]
    if furiten_pending and MahJongg not in by_type:
        return by_type[DeclareFuriten][0]
    if WashTiles in by_type and thirteen_heads_shanten(me.counts) > 2:
        return by_type[WashTiles][0]
    if view.phase == "claim":
        return _claim(me, by_type)
    return _turn(me, by_type)


def _fallback(legal: Sequence[Action]) -> Action:
    for kind in (MahJongg, Pass, Discard):
        for action in legal:
            if isinstance(action, kind):
                return action
    return legal[0]


def _know(view: TableView, rules: RuleSet) -> _Me:
    assert view.viewer is not None
    seat = view.seats[view.viewer]
    concealed = list(seat.concealed or ())
    if seat.drawn is not None:
        concealed.append(seat.drawn)
    counts = [0] * N_KINDS
    for tile in concealed:
        if tile < N_KINDS:
            counts[tile] += 1
    visible = list(counts)
    for other in view.seats:
        for meld in other.melds:
            for tile in meld.tiles:
                visible[tile] += 1
        for index, tile in enumerate(other.discards):
            if index not in other.claimed:
                visible[tile] += 1
    unseen = [max(0, 4 - v) for v in visible]
    needed = rules.sets_needed - len(seat.melds)
    specials = rules.specials if not seat.melds else ()
    valuable = set(DRAGONS)
    valuable.add(wind_tile(seat.wind))
    if rules.name == "pung-chow-limit":
        valuable.add(wind_tile(view.round_wind))
    return _Me(view, rules, seat, counts, needed, specials, unseen, frozenset(valuable))


# -- threats (Pung Chow p.26-28, p.67-68) -------------------------------------------------------


def _threats(me: _Me) -> list[SeatView]:
    """Opponents who look near to winning."""
    out = []
    for other in me.view.seats:
        if other.seat == me.seat.seat or not other.occupied:
            continue
        if other.riichi or len(other.melds) >= me.rules.sets_needed - 1:
            out.append(other)
            continue
        if _dangerous_exposure(other) is not None:
            out.append(other)
    return out


def _dangerous_exposure(other: SeatView) -> str | None:
    exposed = [t for m in other.melds for t in m.tiles]
    sets = [m.tile for m in other.melds if m.kind in (Kind.PUNG, Kind.KONG)]
    if sum(1 for t in sets if t in DRAGONS) >= 2:
        return "dragons"
    if sum(1 for t in sets if t in WINDS) >= 3:
        return "winds"
    suits = {t // 9 for t in exposed if t < 27}
    if len(exposed) >= 9 and len(suits) == 1:
        return "one-suit"
    if len(exposed) >= 9 and all(is_head(t) for t in exposed):
        return "heads"
    return None


def _danger(me: _Me, tile: int, threats: Sequence[SeatView]) -> int:
    """How likely a discard is to be claimed by a threatening opponent (0 safest)."""
    if not threats:
        return 0
    worst = 0
    seen = 4 - me.unseen[tile]
    for other in threats:
        if tile in other.discards:
            level = 0  # he let it go before
        elif seen >= 3:
            level = 1  # nobody can pung it
        else:
            level = 3 if tile >= 27 or tile % 9 in (0, 8) else 4
            kind = _dangerous_exposure(other)
            if (kind == "dragons" and tile in DRAGONS) or (kind == "winds" and tile in WINDS):
                level = 9
            elif kind == "one-suit":
                suit = next(m.tile // 9 for m in other.melds if m.tile < 27)
                if tile < 27 and tile // 9 == suit:
                    level = 8
            elif kind == "heads" and is_head(tile):
                level = 8
            if seen == 2 and tile >= 27:
                level = min(level, 2)
        worst = max(worst, level)
    return worst


# -- value (the rule set's doubling honours) ----------------------------------------------------


def _keep_value(me: _Me, tile: int, counts: Sequence[int]) -> float:
    """How much the hand loses in value by discarding ``tile`` (negative: a gain)."""
    value = 0.0
    held = counts[tile]
    if tile in me.valuable:
        if held >= 2:
            value += 4.0
        elif me.unseen[tile] >= 2:
            value += 0.5
    elif tile >= 27 and held == 1:
        value -= 0.5  # a lone honour of no value goes first
    suit = _one_suit(me, counts)
    if suit is not None and tile < 27:
        value += 1.5 if tile // 9 == suit else -2.0
    return value


def _one_suit(me: _Me, counts: Sequence[int]) -> int | None:
    """The suit the hand leans to, if it clearly does (every rule set doubles one suit)."""
    per_suit = [sum(counts[9 * s : 9 * s + 9]) for s in range(3)]
    for meld in me.seat.melds:
        if meld.tile < 27:
            per_suit[meld.tile // 9] += 3
    total = sum(per_suit) + sum(counts[27:34]) + 3 * sum(1 for m in me.seat.melds if m.tile >= 27)
    best = max(range(3), key=lambda s: per_suit[s])
    if per_suit[best] >= 0.65 * total and per_suit[best] >= 8:
        return best
    return None


# -- turns ----------------------------------------------------------------------------------------


def _turn(me: _Me, by_type: dict[type, list[Action]]) -> Action:
    discards = by_type.get(Discard, [])
    if len(discards) == 1 and not by_type.get(Kong):
        return discards[0]
    counts = me.counts
    choice, best_shanten, ranked = _choose_discard(me, [a.tile for a in discards])
    for kong in by_type.get(Kong, []):
        assert isinstance(kong, Kong)
        if _kong_worth(me, kong.tile, best_shanten):
            return kong
    riichis = {a.tile: a for a in by_type.get(Riichi, [])}
    if choice in riichis and best_shanten == 0:
        counts[choice] -= 1
        ukeire, _ = acceptance(counts, me.needed, me.unseen, me.specials, 0)
        counts[choice] += 1
        if ukeire >= 4 and me.view.drawable >= 16:
            return riichis[choice]
    del ranked
    return Discard(me.seat.seat, choice)


def _kong_worth(me: _Me, tile: int, best_shanten: int) -> bool:
    counts = me.counts
    if counts[tile] == 4:  # a concealed kong: the four leave the hand, one set fewer to make
        counts[tile] -= 4
        after = shanten(counts, me.needed - 1, ())
        counts[tile] += 4
        return after <= best_shanten
    counts[tile] -= 1  # the fourth to an exposed pung: as good as discarding it
    after = shanten(counts, me.needed, me.specials)
    counts[tile] += 1
    return after <= best_shanten


def _choose_discard(me: _Me, tiles: Sequence[int]) -> tuple[int, int, list[tuple[float, int]]]:
    """The discard, the shanten after it, and the candidates ranked."""
    counts = me.counts
    after: dict[int, int] = {}
    for tile in tiles:
        counts[tile] -= 1
        after[tile] = shanten(counts, me.needed, me.specials)
        counts[tile] += 1
    best = min(after.values())
    threats = _threats(me)
    short = me.view.drawable < WALL_SHORT
    fold = (threats and best >= 2) or (short and best >= 2 and me.view.drawable < 8)
    ranked: list[tuple[float, int]] = []
    if fold:
        # p.28: discard only what they will not pung; keep the hand as a fallback.
        for tile in tiles:
            score = -10.0 * _danger(me, tile, threats) - 2.0 * (after[tile] - best)
            ranked.append((score, tile))
        ranked.sort(reverse=True)
        return ranked[0][1], after[ranked[0][1]], ranked
    speed = bool(threats) or short
    for tile in tiles:
        if after[tile] > best:
            continue
        counts[tile] -= 1
        ukeire, _ = acceptance(counts, me.needed, me.unseen, me.specials, after[tile])
        counts[tile] += 1
        score = float(ukeire)
        if not speed:
            score -= _keep_value(me, tile, counts)
        else:
            score -= 3.0 * _danger(me, tile, threats)
        ranked.append((score, tile))
    ranked.sort(reverse=True)
    return ranked[0][1], best, ranked


# -- claims -----------------------------------------------------------------------------------


def _claim(me: _Me, by_type: dict[type, list[Action]]) -> Action:
    passing = by_type.get(Pass, [Pass(me.seat.seat)])[0]
    discard = me.view.last_discard
    if discard is None:
        return passing
    tile = discard[1]
    counts = me.counts
    now = shanten(counts, me.needed, me.specials)
    for kong in by_type.get(Kong, []):
        counts[tile] -= 3
        after = shanten(counts, me.needed - 1, ())
        counts[tile] += 3
        if after <= now:
            return kong
    best: tuple[int, float, Action] | None = None
    for pung in by_type.get(Pung, []):
        counts[tile] -= 2
        after = _best_after_claim(counts, me.needed - 1)
        counts[tile] += 2
        bonus = 1.0 if tile in me.valuable else 0.0
        best = _better(best, (after, bonus, pung))
    for chow in by_type.get(Chow, []):
        assert isinstance(chow, Chow)
        used = [t for t in (chow.tile, chow.tile + 1, chow.tile + 2) if t != tile]
        for t in used:
            counts[t] -= 1
        after = _best_after_claim(counts, me.needed - 1)
        for t in used:
            counts[t] += 1
        suit = _one_suit(me, counts)
        bonus = -1.0 if suit is not None and tile // 9 != suit else 0.0
        best = _better(best, (after, bonus, chow))
    if best is None:
        return passing
    after, bonus, action = best
    if after < now or (after == now and bonus > 0):
        return action
    return passing


def _better(
    best: tuple[int, float, Action] | None, candidate: tuple[int, float, Action]
) -> tuple[int, float, Action]:
    if best is None or (candidate[0], -candidate[1]) < (best[0], -best[1]):
        return candidate
    return best


def _best_after_claim(counts: list[int], needed: int) -> int:
    """The shanten after the claim and the best discard that must follow it."""
    best = 99
    for tile in range(N_KINDS):
        if counts[tile]:
            counts[tile] -= 1
            best = min(best, shanten(counts, needed, ()))
            counts[tile] += 1
    return best
