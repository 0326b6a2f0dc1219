"""Replaying a table's events at start-up: microseconds per action, per rule set.

A restarted bot rebuilds every open table by applying its stored actions to a new game
(``bot.service.tables.events.rebuild``), so 1,000 open tables of a few hundred actions each
keep it busy for as long as that takes. This plays seeded games with the computer players,
keeps their actions, then times ``apply`` over them from the first deal (median and best of
the runs, garbage collector paused; the machine is shared and noisy, the best is the
steadiest), and once with the garbage collector on.

    python benchmarks/replay.py [--games 6] [--repeats 5] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

import _path  # noqa: F401  (the repository first)

from benchmarks.timing import run_times
from bot.players import decide
from bot.rules.game import GAME_OVER, apply, legal_actions, new_game, pending_seats, view
from bot.rules.rulesets import get_ruleset

RULESETS = ("pung-chow", "pung-chow-limit", "singapore", "filipino-16")


def play(ruleset: str, seed: int, hands: int = 4) -> tuple[object, list[object]]:
    """A seeded game of computer players: its first state and every action, in order."""
    first = new_game(ruleset, {}, f"replay-{seed}", players=4, hands=hands)
    rules = get_ruleset(ruleset)
    state, actions = first, []
    while state.phase != GAME_OVER:
        seat = min(pending_seats(state))
        action = decide(view(state, seat), legal_actions(state, seat), rules, state.config.options)
        actions.append(action)
        state = apply(state, action)
    return first, actions


def replay(first: object, actions: list[object]) -> object:
    state = first
    for action in actions:
        state = apply(state, action)
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    total_actions = 0
    total_seconds = total_best = 0.0
    for ruleset in RULESETS:
        games = [play(ruleset, seed) for seed in range(args.games)]
        actions = sum(len(a) for _, a in games)

        def all_games(games: list = games) -> None:
            for first, acts in games:
                replay(first, acts)

        times = run_times(all_games, args.repeats)
        seconds, best = statistics.median(times), min(times)
        began = time.perf_counter()
        all_games()
        with_gc = time.perf_counter() - began
        total_actions += actions
        total_seconds += seconds
        total_best += best
        print(
            f"{ruleset:<16} {actions:>6} actions  {seconds / actions * 1e6:6.1f} µs/action"
            f"  (best {best / actions * 1e6:6.1f}, gc on: {with_gc / actions * 1e6:6.1f})"
        )
        if args.profile and ruleset == RULESETS[0]:
            profile = cProfile.Profile()
            profile.runcall(all_games)
            pstats.Stats(profile).sort_stats("tottime").print_stats(18)
    print(
        f"{'all':<16} {total_actions:>6} actions  "
        f"{total_seconds / total_actions * 1e6:6.1f} µs/action"
        f"  (best {total_best / total_actions * 1e6:6.1f})"
    )


if __name__ == "__main__":
    main()
