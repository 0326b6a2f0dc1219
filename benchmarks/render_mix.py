"""A drawing process's CPU a picture for the bot's mix of pictures over many tables, for
several numbers of kept blocks (``renderer.table.INDEXED_BLOCKS``) side by side.

At 200 tables a drawing process draws for about 100 of them (``bot.drawing``: a table's
pictures go to one process), each table's moments in turn: both members' DMs, and every
other moment the channel's table. Whether a table's blocks are still kept when its next
moment comes depends on how many the process keeps, so this draws that sequence from
played hands in one process per setting, two at a time, each process on its own core
(swapped each round: this machine is shared and one core can be slower for a while).

    python benchmarks/render_mix.py --tables 100 --blocks 500 800 --rounds 2
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import time

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)


def _views(tables: int) -> list[tuple[bool, object]]:
    from bot.rules.game import view as game_view
    from renderer.samples import played_hand

    hands = [played_hand("pung-chow", seed)[4:-1] for seed in range(200, 200 + tables)]
    out: list[tuple[bool, object]] = []
    for i in range(max(len(h) for h in hands)):
        for hand in hands:
            if i < len(hand):
                state = hand[i]
                out += [(True, game_view(state, 0)), (True, game_view(state, 1))]
                if i % 2 == 0:
                    out.append((False, game_view(state, None)))
    return out


def _child(tables: int, blocks: int, core: int | None) -> None:
    """Draw the mix with ``blocks`` kept; print one JSON line."""
    if core is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {core})
    import renderer.table as table
    from renderer import render_seat_table, render_table
    from renderer.samples import NAMES

    table._indexed_block = functools.lru_cache(maxsize=blocks)(table._indexed_block.__wrapped__)  # type: ignore[attr-defined]
    views = _views(tables)
    warm = _views(1)[:3]  # the fonts and tile sprites, as a running process has them
    for seat, view in warm:
        (render_seat_table if seat else render_table)(view, NAMES)  # type: ignore[operator]
    table._indexed_block.cache_clear()
    start = time.process_time()
    for seat, view in views:
        (render_seat_table if seat else render_table)(view, NAMES)  # type: ignore[operator]
    cpu = time.process_time() - start
    info = table._indexed_block.cache_info()
    print(
        json.dumps(
            {
                "blocks": blocks,
                "pictures": len(views),
                "cpu_ms": 1000 * cpu / len(views),
                "misses": info.misses / len(views),
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100, help="tables one process draws for")
    parser.add_argument("--blocks", type=int, nargs="+", default=[500, 800])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.tables, args.child[0], args.child[1] if args.child[1] >= 0 else None)
        return
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    results: dict[int, list[dict[str, float]]] = {b: [] for b in args.blocks}
    for r in range(args.rounds):
        order = args.blocks if r % 2 == 0 else args.blocks[::-1]
        for i in range(0, len(order), max(1, len(cores))):
            batch = order[i : i + max(1, len(cores))]
            procs = [
                subprocess.Popen(
                    [
                        sys.executable,
                        __file__,
                        "--tables",
                        str(args.tables),
                        "--child",
                        str(b),
                        str(cores[k] if cores else -1),
                    ],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                for k, b in enumerate(batch)
            ]
            for b, proc in zip(batch, procs, strict=True):
                out, _ = proc.communicate()
                results[b].append(json.loads(out.strip().splitlines()[-1]))
    print(f"{args.tables} tables in one process, the bot's mix, {args.rounds} rounds")
    for b in args.blocks:
        runs = results[b]
        cpu = " / ".join(f"{run['cpu_ms']:.2f}" for run in runs)
        print(
            f"  {b:5d} blocks kept: CPU a picture {cpu} ms; blocks mapped afresh a picture "
            f"{runs[0]['misses']:.2f}; RSS {max(run['rss_mb'] for run in runs):.0f} MB"
        )


if __name__ == "__main__":
    main()
