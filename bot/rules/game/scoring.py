"""The end of a hand: every seat's Hand, the winner's Win, the scores and the settlement.

Scores and payments come from the rule set (``ruleset.score``, ``ruleset.settle``), which is
keyed by seat wind; this module builds what they need from the table and maps the payments back
to physical seats. Pung Chow p.25: "all players expose their hands and count up their scores";
only the rule sets whose losers score (``losers_score``) score the losing hands. The limit
game's liable discarder (p.67-69) is found with ``discarder_is_liable``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.rules.game.state import (
    DRAWN,
    FALSE_MAHJONG,
    MAHJONG,
    WASHING,
    GameState,
    HandResult,
    SeatState,
)
from bot.rules.hand import Hand, Situation, Win
from bot.rules.house_rules import changed_by_house_rules
from bot.rules.rulesets import Outcome, RuleSet, get_ruleset
from bot.rules.rulesets.pung_chow_limit import (
    PungChowLimit,
    different_heads,
    discarder_is_liable,
    washing_payments,
)
from bot.rules.score import Payment, Score, net_of


def seat_hand(seat: SeatState, extra: int | None = None) -> Hand:
    """A seat's tiles as the scorer takes them (the drawn tile among the concealed)."""
    tiles = seat.tiles()
    if extra is not None:
        tiles.append(extra)
    return Hand(tuple(sorted(tiles)), seat.melds, seat.flowers)


def situation(state: GameState, seat: int) -> Situation:
    wind = state.wind_of(seat)
    extras = {"renchon": state.renchon} if wind == 0 and state.renchon else {}
    return Situation(wind, state.round_wind, extras)


def _base(state: GameState, kind: str, **fields) -> HandResult:
    winds = tuple(state.wind_of(s) if state.occupied[s] else None for s in range(4))
    hands = tuple(seat_hand(state.seats[s]) if state.occupied[s] else None for s in range(4))
    return HandResult(
        number=state.deal,
        kind=kind,
        dealer=state.dealer,
        round_wind=state.round_wind,
        winds=winds,
        hands=fields.pop("hands", hands),
        renchon=state.renchon,
        seed=state.hand_seed,
        seed_hash=state.seed_hash,
        **fields,
    )


def _to_seats(state: GameState, payments: Sequence[Payment]) -> tuple[Payment, ...]:
    return tuple(
        Payment(state.seat_of_wind(p.payer), state.seat_of_wind(p.payee), p.amount, p.reason)
        for p in payments
    )


def _net(payments: Sequence[Payment]) -> tuple[int, ...]:
    return tuple(net_of(list(payments), 4))


def drawn_hand(state: GameState, note: str = "the wall reached the dead wall") -> HandResult:
    """No winner: nothing is paid (filipino-16 "the game is declared a draw and no scores
    count"; Pung Chow p.28 speaks of causing "a draw")."""
    return _base(state, DRAWN, note=note)


def win_on_hand(
    state: GameState,
    winner: int,
    win: Win,
    discarder: int | None,
    riichi: Sequence[int] = (),
) -> HandResult:
    """Score every hand and settle a Mah-Jongg.

    ``win.from_seat`` must already be the discarder's wind. The winner's Hand holds the winning
    tile among its concealed tiles (for a discard it is added here).
    """
    ruleset = get_ruleset(state.config.ruleset)
    options = state.config.options
    hands: list[Hand | None] = [
        seat_hand(state.seats[seat]) if state.occupied[seat] else None for seat in range(4)
    ]
    liable = _liable(ruleset, state, hands, winner, win, discarder)
    furiten = "furiten-undeclared" in win.flags

    def played(opts: Mapping[str, Any]) -> tuple[tuple[Score | None, ...], tuple[Payment, ...]]:
        scores: list[Score | None] = [None] * 4
        values: dict[int, int] = {}
        for seat, hand in enumerate(hands):
            if hand is None:
                continue
            if seat == winner:
                scores[seat] = ruleset.score(hand, situation(state, seat), win, opts)
            elif ruleset.losers_score:
                scores[seat] = ruleset.score(hand, situation(state, seat), None, opts)
            score = scores[seat]
            values[state.wind_of(seat)] = score.total if score is not None else 0
        outcome = Outcome(
            scores=values,
            winner=state.wind_of(winner),
            discarder=None if discarder is None else state.wind_of(discarder),
            liable=None if liable is None else state.wind_of(liable),
            riichi=frozenset(state.wind_of(s) for s in riichi),
            renchon=state.renchon,
            extras={"furiten": furiten},
        )
        return tuple(scores), _to_seats(state, ruleset.settle(outcome, opts))

    scores, payments = played(options)
    house = changed_by_house_rules(
        ruleset.option_specs, options, lambda o: _totals(*played(o)), _totals(scores, payments)
    )
    return _base(
        state,
        MAHJONG,
        winner=winner,
        discarder=discarder,
        win=win,
        scores=tuple(scores),
        hands=tuple(hands),
        payments=payments,
        net=_net(payments),
        liable=liable,
        house_rules=house,
    )


def _totals(
    scores: Sequence[Score | None], payments: Sequence[Payment]
) -> tuple[tuple[int | None, ...], tuple[Payment, ...]]:
    """What a house rule may change: each seat's score and who pays whom."""
    return tuple(None if s is None else s.total for s in scores), tuple(payments)


def _liable(
    ruleset: RuleSet,
    state: GameState,
    hands: Sequence[Hand | None],
    winner: int,
    win: Win,
    discarder: int | None,
) -> int | None:
    """Pung Chow p.67-69 penalty 2 (the limit game only)."""
    if discarder is None or not isinstance(ruleset, PungChowLimit):
        return None
    winner_hand = hands[winner]
    assert winner_hand is not None
    if discarder_is_liable(winner_hand, win, hands[discarder], situation(state, discarder)):
        return discarder
    return None


def washing(state: GameState, seat: int) -> HandResult:
    """Washing the tiles (Pung Chow p.61): the caller collects by the number of heads."""
    heads = different_heads(state.seats[seat].tiles())
    winds = [state.wind_of(s) for s in state.active_seats]
    payments = _to_seats(state, washing_payments(state.wind_of(seat), heads, winds))
    return _base(
        state,
        WASHING,
        caller=seat,
        payments=payments,
        net=_net(payments),
        note=f"{heads} different heads",
    )


def false_mahjong(state: GameState, seat: int) -> HandResult:
    """A Mah-Jongg called on an incomplete hand at a strict table: the rule set's penalty
    (Pung Chow p.67 penalty 1; singapore "Renege on Mah-Jongg"; without a limit the hand is
    dead and pays the others' scores, Pung Chow p.24)."""
    ruleset = get_ruleset(state.config.ruleset)
    options = state.config.options

    def played(opts: Mapping[str, Any]) -> tuple[tuple[Score | None, ...], tuple[Payment, ...]]:
        values: dict[int, int] = {}
        scores: list[Score | None] = [None] * 4
        for other in state.active_seats:
            if other == seat or not ruleset.losers_score:
                values[state.wind_of(other)] = 0
                continue
            hand = seat_hand(state.seats[other])
            score = ruleset.score(hand, situation(state, other), None, opts)
            scores[other] = score
            values[state.wind_of(other)] = score.total
        outcome = Outcome(scores=values, false_mahjong=state.wind_of(seat))
        return tuple(scores), _to_seats(state, ruleset.settle(outcome, opts))

    scores, payments = played(options)
    house = changed_by_house_rules(
        ruleset.option_specs, options, lambda o: _totals(*played(o)), _totals(scores, payments)
    )
    return _base(
        state,
        FALSE_MAHJONG,
        caller=seat,
        scores=scores,
        payments=payments,
        net=_net(payments),
        note="Mah-Jongg called on an incomplete hand",
        house_rules=house,
    )
