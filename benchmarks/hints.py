"""Hints in words: time per call of ``seat_hints`` for every seat after every move.

Computer players play whole games of each rule set; after each move every occupied seat's
hints are computed from its own view, as the notifier does. Prints p50, p99 and the largest
time per call in milliseconds, first calls (cold caches) included, and the share of calls
that had something to say. Budget: p99 < 5 ms.

    python benchmarks/hints.py [--hands 8] [--seed 3]
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Sequence

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)

from bot.players import decide
from bot.rules.game import (
    GAME_OVER,
    HAND_OVER,
    NextHand,
    apply,
    legal_actions,
    new_game,
    pending_seats,
    view,
)
from bot.rules.rulesets import RULESETS, get_ruleset
from bot.service.hints import seat_hints


def play_and_time(rules: str, hands: int, seed: int) -> tuple[list[float], int]:
    ruleset = get_ruleset(rules)
    state = new_game(rules, None, seed, players=4, sets=None, hands=hands)
    times: list[float] = []
    said = 0
    while state.phase != GAME_OVER:
        if state.phase == HAND_OVER:
            state = apply(state, NextHand(None))
            continue
        for seat in range(4):
            seen = view(state, seat)
            start = time.perf_counter()
            hints = seat_hints(seen)
            times.append(time.perf_counter() - start)
            said += bool(hints)
        seat = min(pending_seats(state))
        legal = legal_actions(state, seat)
        state = apply(state, decide(view(state, seat), legal, ruleset, state.config.options))
    return times, said


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=8)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    every: list[float] = []
    for rules in RULESETS:
        gc.collect()
        times, said = play_and_time(rules, args.hands, args.seed)
        every.extend(times)
        print(f"{rules:16} {_figures(times)}  ({said / len(times):.0%} of calls say something)")
    print(f"{'all':16} {_figures(every)}  (budget: p99 < 5 ms)")


def _figures(times: list[float]) -> str:
    ordered = sorted(times)
    p50 = ordered[len(ordered) // 2] * 1e3
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e3
    worst = ordered[-1] * 1e3
    return f"{len(ordered):6} calls: p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {worst:.1f} ms"


if __name__ == "__main__":
    main()
