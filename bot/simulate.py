"""The simulator: complete hands played by computer players, with the invariants checked.

    mahjong-bot simulate --rules pung-chow --hands 100 --seed 1
    python -m bot.simulate --rules singapore --hands 50 --seed 7 --players 3

Prints hands per second, how hands ended, the average and largest winning score, each seat's
net chips and the time per computer decision. With checking on (the default) the invariants
(tile conservation, no fifth copy, hand sizes, the dead wall) are checked after every event and
every computer decision is checked to be a legal action.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.players import decide
from bot.rules.game import (
    CLAIM,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    DeclareFuriten,
    Discard,
    GameState,
    NextHand,
    Riichi,
    apply,
    check_invariants,
    legal_actions,
    new_game,
    pending_seats,
    view,
)
from bot.rules.rulesets import RULESETS, get_ruleset


class IllegalDecision(AssertionError):
    """A computer player chose an action that was not legal."""


@dataclass(slots=True)
class Report:
    """What a simulation found."""

    rules: str
    seed: int | str
    players: int
    hands: int = 0
    seconds: float = 0.0
    endings: Counter[str] = field(default_factory=Counter)
    scores: list[int] = field(default_factory=list)
    net: tuple[int, ...] = (0, 0, 0, 0)
    decisions: list[float] = field(default_factory=list)
    events: int = 0
    checks: int = 0
    limit_hands: int = 0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    def rate(self, kind: str) -> float:
        total = sum(self.endings.values())
        return self.endings[kind] / total if total else 0.0

    @property
    def average_score(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def largest_score(self) -> int:
        return max(self.scores, default=0)

    def decision_ms(self) -> tuple[float, float, float]:
        """Mean, 99th percentile and largest time per computer decision, in milliseconds."""
        if not self.decisions:
            return 0.0, 0.0, 0.0
        ordered = sorted(self.decisions)
        p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
        return statistics.fmean(ordered) * 1e3, p99 * 1e3, ordered[-1] * 1e3


def run_simulation(
    rules: str,
    hands: int,
    seed: int | str,
    *,
    check: bool = True,
    players: int = 4,
    options: Mapping[str, Any] | None = None,
) -> Report:
    """Play ``hands`` complete hands (washed hands do not count) with computer players in
    every seat and report on them."""
    ruleset = get_ruleset(rules)
    state = new_game(rules, options, seed, players=players, sets=None, hands=hands)
    opts = state.config.options
    report = Report(ruleset.name, seed, players)
    singapore = ruleset.name == "singapore"
    start = time.perf_counter()
    while True:
        report.events += 1
        if check:
            check_invariants(state)
            report.checks += 1
        if state.phase == GAME_OVER:
            break
        if state.phase == HAND_OVER:
            state = apply(state, NextHand(None))
            continue
        seat = min(pending_seats(state))
        legal = legal_actions(state, seat)
        action = _decide(state, seat, legal, ruleset, opts, report)
        if check and action not in legal:
            raise IllegalDecision(f"seat {seat} chose {action!r}, not among {legal!r}")
        state = apply(state, action)
        if singapore and isinstance(action, Discard | Riichi) and state.phase in (PLAY, CLAIM):
            # Furi Tem is declared when the discard makes it so, out of turn.
            offered = [a for a in legal_actions(state, seat) if isinstance(a, DeclareFuriten)]
            if offered:
                state = apply(state, _decide(state, seat, offered, ruleset, opts, report))
    report.seconds = time.perf_counter() - start
    report.hands = state.hands_played
    for result in state.results:
        report.endings[result.kind] += 1
        if result.winner is not None:
            score = result.scores[result.winner]
            if score is not None:
                report.scores.append(score.total)
                report.limit_hands += score.limit_hand is not None
    report.net = state.net
    return report


def _decide(
    state: GameState,
    seat: int,
    legal: Sequence[Any],
    ruleset: Any,
    options: Mapping[str, Any],
    report: Report,
) -> Any:
    seen = view(state, seat)
    start = time.perf_counter()
    action = decide(seen, legal, ruleset, options)
    report.decisions.append(time.perf_counter() - start)
    return action


def format_report(report: Report) -> str:
    mean, p99, worst = report.decision_ms()
    endings = ", ".join(
        f"{kind} {count} ({report.rate(kind):.0%})" for kind, count in report.endings.most_common()
    )
    seats = ", ".join(f"seat {s} {n:+d}" for s, n in enumerate(report.net) if s < 4)
    lines = [
        f"{report.rules}: {report.hands} hands, {report.players} players, seed {report.seed}",
        f"  {report.hands_per_second:.1f} hands/s ({report.seconds:.2f} s)",
        f"  endings: {endings}",
        f"  win rate {report.rate('mahjong'):.1%}, draw rate {report.rate('draw'):.1%}",
        f"  winning score: average {report.average_score:.1f}, largest {report.largest_score}"
        f" ({report.limit_hands} limit/maximum hands)",
        f"  net chips: {seats}",
        f"  computer decisions: {len(report.decisions)}, mean {mean:.3f} ms, "
        f"p99 {p99:.3f} ms, max {worst:.2f} ms",
    ]
    if report.checks:
        lines.append(f"  invariants checked after {report.checks} events: all held")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="mahjong-bot simulate",
        description="Play complete hands with four computer players and check the invariants.",
    )
    parser.add_argument("--rules", default="pung-chow", choices=sorted(RULESETS))
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--no-check", action="store_true", help="skip the invariant checks")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a rule-set option"
    )
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    options = {}
    for item in args.option:
        name, _, value = item.partition("=")
        options[name] = value
    seed: int | str = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
    report = run_simulation(
        args.rules,
        args.hands,
        seed,
        check=not args.no_check,
        players=args.players,
        options=options,
    )
    print(format_report(report))
    return 0


__all__ = ["Report", "format_report", "main", "run_simulation"]

if __name__ == "__main__":
    sys.exit(main())
