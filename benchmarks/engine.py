"""Rules-engine speed: win detection and best itemised score, hands per second.

Side by side in one run, on the same seeded 14-tile hands: our ``is_complete`` against the
``mahjong`` PyPI library's ``Agari().is_agari``, and our ``arrangements`` against its
``HandDivider().divide_hand``. Then the best itemised score (every reading, every set the
winning tile could have completed) for each rule set on 14- and 17-tile hands.

    python benchmarks/engine.py [--hands 20000] [--seed 7] [--clock cpu|wall]

Rates are per second of this thread's CPU time by default: the machine is shared, and CPU
time is what the engine spends whatever else runs (``--clock wall`` for wall-clock rates).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)

from benchmarks.timing import run_times
from bot.rules.analysis import arrangements, is_complete, is_winning_shape
from bot.rules.hand import Situation
from bot.rules.rulesets import RULESETS
from bot.rules.sampling import random_complete_hand, random_hand_tiles
from bot.rules.tiles import counts_of

CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
# Interleaved rounds of three timed runs each: the host's slow spells last seconds, even in
# CPU time (2026-11-28: 16 runs of 3 rounds gave 45-75k itemised hands a second and win
# detection at 3.3-5.7x, where the quiet runs agree within a few per cent).
ROUNDS = 6
clock = CLOCKS["cpu"]


def rate(fn: Callable[[], object], count: int, repeats: int = 7) -> float:
    """Items per second: the best of ``repeats`` runs, with the garbage collector paused while
    timing (as ``timeit`` does). Seconds of this thread's CPU by default (``--clock cpu``):
    on the shared 2-core machine, wall-clock rates swung by half with other work running
    while CPU-time rates stayed within a few percent; ``--clock wall`` gives wall time."""
    return count / min(run_times(fn, repeats, clock))


def side_by_side(
    contenders: dict[str, Callable[[], object]], count: int, rounds: int = ROUNDS
) -> dict[str, float]:
    """Best rate of each contender over ``rounds`` interleaved rounds, so a slow spell of the
    machine hits both sides alike."""
    best = dict.fromkeys(contenders, 0.0)
    for _ in range(rounds):
        for name, fn in contenders.items():
            best[name] = max(best[name], rate(fn, count, repeats=3))
    return best


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    rng = random.Random(args.seed)

    # Half complete concealed hands, half random 14-tile hands (most not complete).
    complete = [random_complete_hand(rng, 4, declared_max=0)[0] for _ in range(args.hands // 2)]
    arrays = [counts_of(h.concealed) for h in complete]
    arrays += [counts_of(random_hand_tiles(rng, 14)) for _ in range(args.hands - len(arrays))]
    rng.shuffle(arrays)
    n = len(arrays)

    def ours() -> None:
        for c in arrays:
            is_complete(c)

    def ours_specials() -> None:
        for c in arrays:
            is_winning_shape(c)

    # With --clock wall, a machine busy with other work gives lower figures: say its load.
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine load (1-minute average) {load:.2f} on {os.cpu_count()} cores")
    print(f"rates per second of {'CPU time' if args.clock == 'cpu' else 'wall-clock time'}")
    print(f"win detection, {n} 14-tile hands ({len(complete)} complete), seed {args.seed}")
    try:
        from mahjong.agari import Agari
        from mahjong.hand_calculating.divider import HandDivider
    except ImportError:
        Agari = HandDivider = None
    contenders: dict[str, Callable[[], object]] = {"ours": ours, "specials": ours_specials}
    if Agari is not None:
        agari = Agari()

        def theirs() -> None:
            for c in arrays:
                agari.is_agari(c)

        contenders["theirs"] = theirs
    rates = side_by_side(contenders, n)
    ours_rate, specials_rate = rates["ours"], rates["specials"]
    print(f"  ours is_complete                   {ours_rate:>12,.0f} hands/s")
    print(f"  ours is_winning_shape (7 pairs, 13){specials_rate:>12,.0f} hands/s")
    if Agari is None:
        print("  (install the 'bench' extra for the mahjong library comparison)")
    else:
        theirs_rate = rates["theirs"]
        print(f"  mahjong Agari().is_agari           {theirs_rate:>12,.0f} hands/s")
        print(f"  ratio ours / mahjong               {ours_rate / theirs_rate:>12.1f}x")
        print(f"  ratio (with specials) / mahjong    {specials_rate / theirs_rate:>12.1f}x")
        complete_arrays = [counts_of(h.concealed) for h in complete]
        divider = HandDivider()

        def our_divide() -> None:
            for c in complete_arrays:
                arrangements(c)

        def their_divide() -> None:
            for c in complete_arrays:
                divider.divide_hand(c)

        divided = side_by_side({"ours": our_divide, "theirs": their_divide}, len(complete_arrays))
        ours_div, theirs_div = divided["ours"], divided["theirs"]
        print(f"hand division, {len(complete_arrays)} complete 14-tile hands")
        print(f"  ours arrangements                  {ours_div:>12,.0f} hands/s")
        print(f"  mahjong HandDivider().divide_hand  {theirs_div:>12,.0f} hands/s")
        print(f"  ratio ours / mahjong               {ours_div / theirs_div:>12.1f}x")

    print("best itemised score (every reading), complete hands with declared melds")
    # The rule sets take their turns in rounds (``side_by_side``): a slow spell of the shared
    # machine lasting a few seconds (2026-11-28: every rule set at 46-49k a second in one
    # run, 61-74k in the next two) then costs one round, not all of one rule set's repeats.
    scorers: dict[str, Callable[[], object]] = {}
    medians: dict[str, float] = {}
    count = args.hands // 4  # hands a rule set
    for name, ruleset in RULESETS.items():
        size = ruleset.sets_needed
        sample_rng = random.Random(args.seed + size)
        sample = [random_complete_hand(sample_rng, size) for _ in range(count)]
        situations = [Situation(sample_rng.randrange(4), sample_rng.randrange(4)) for _ in sample]
        options = ruleset.options({"flowers": False} if name != "singapore" else {})

        def score_all(items=sample, sits=situations, rules=ruleset, opts=options) -> None:
            for (hand, win), situation in zip(items, sits, strict=True):
                rules.score(hand, situation, win, opts)

        scorers[name] = score_all
        medians[name] = statistics.median(
            ruleset.score(h, s, w, options).total
            for (h, w), s in zip(sample, situations, strict=True)
        )
    rates = side_by_side(scorers, count)
    for name, ruleset in RULESETS.items():
        print(
            f"  {name:<16} {ruleset.hand_size + 1:>2}-tile  {rates[name]:>10,.0f} hands/s"
            f"   (median score {medians[name]:,.0f})"
        )


if __name__ == "__main__":
    main()
