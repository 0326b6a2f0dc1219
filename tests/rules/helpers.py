"""Small helpers for the rule-text example tests."""

from __future__ import annotations

from bot.rules.hand import Situation
from bot.rules.notation import parse_hand
from bot.rules.rulesets import get_ruleset
from bot.rules.rulesets.base import Outcome
from bot.rules.score import Payment, Score

SEATS = {"E": 0, "S": 1, "W": 2, "N": 3}


def score(rules: str, text: str, seat: str = "S", round_wind: str = "E", **options) -> Score:
    parsed = parse_hand(text)
    return get_ruleset(rules).score(
        parsed.hand, Situation(SEATS[seat], SEATS[round_wind]), parsed.win, options
    )


def line_values(result: Score) -> list[tuple[int, int]]:
    return [(line.points, line.doubles) for line in result.lines]


def settle(rules: str, scores: dict[str, int], winner: str | None, **kw) -> dict[tuple, int]:
    options = kw.pop("options", None)
    outcome = Outcome(
        scores={SEATS[k]: v for k, v in scores.items()},
        winner=None if winner is None else SEATS[winner],
        **kw,
    )
    payments = get_ruleset(rules).settle(outcome, options)
    return as_table(payments)


def as_table(payments: list[Payment]) -> dict[tuple, int]:
    """Payments as {(payer, payee): amount} with wind letters, merged per pair."""
    table: dict[tuple, int] = {}
    for p in payments:
        key = ("ESWN"[p.payer], "ESWN"[p.payee])
        table[key] = table.get(key, 0) + p.amount
    return table
