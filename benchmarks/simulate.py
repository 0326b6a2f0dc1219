"""Game speed: complete hands per second per rule set with four computer players, one core.

Each rule set plays ``--hands`` complete hands (the engine, the views and every computer
decision), first without the invariant checks (the speed of the game itself; the goal is 20
hands/s or more), then, with ``--checked``, with the simulator's checks after every event.
The time of every computer decision is measured too (goal: at most 5 ms).

    python benchmarks/simulate.py [--hands 200] [--seed 1] [--checked] [--players 4]
"""

from __future__ import annotations

import argparse
import sys

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)

from bot.rules.rulesets import RULESETS
from bot.simulate import run_simulation


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--checked", action="store_true", help="also time with the checks on")
    parser.add_argument("--rules", action="append", choices=sorted(RULESETS))
    args = parser.parse_args(argv)
    names = args.rules or sorted(RULESETS)
    # Warm the shanten and hand-analysis caches once, as a long-running bot would have them.
    run_simulation(names[0], 5, "warm-up", check=False)
    header = (
        f"{'rule set':<16} {'hands/s':>8} {'checked':>8} {'wins':>6} {'draws':>6} "
        f"{'avg score':>9} {'ms/dec':>7} {'p99 ms':>7} {'max ms':>7}"
    )
    print(f"{args.hands} complete hands each, {args.players} computer players, seed {args.seed}")
    print(header)
    print("-" * len(header))
    for name in names:
        report = run_simulation(name, args.hands, args.seed, check=False, players=args.players)
        checked = ""
        if args.checked:
            slow = run_simulation(name, args.hands, args.seed, check=True, players=args.players)
            checked = f"{slow.hands_per_second:8.1f}"
        mean, p99, worst = report.decision_ms()
        print(
            f"{name:<16} {report.hands_per_second:8.1f} {checked:>8} "
            f"{report.rate('mahjong'):6.0%} {report.rate('draw'):6.0%} "
            f"{report.average_score:9.1f} {mean:7.3f} {p99:7.3f} {worst:7.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
