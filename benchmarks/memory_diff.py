"""What grew in the bot's memory between two samples of ``MAHJONG_MEMORY_TRACE``.

    python benchmarks/memory_diff.py FOLDER [FIRST] [LAST] [--top 25]

Prints the object types whose count grew most, then the allocation sites (tracemalloc,
grouped by traceback) that grew most, between samples FIRST and LAST (by default the first
and the last written).
"""

from __future__ import annotations

import argparse
import json
import sys
import tracemalloc
from pathlib import Path


def samples(folder: Path) -> list[int]:
    return sorted(int(p.stem.split("-")[1]) for p in folder.glob("types-*.json"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("first", type=int, nargs="?")
    parser.add_argument("last", type=int, nargs="?")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--frames", type=int, default=6)
    args = parser.parse_args(argv)
    taken = samples(args.folder)
    if len(taken) < 2:
        print(f"{args.folder}: fewer than two samples", file=sys.stderr)
        return 1
    first = args.first or taken[0]
    last = args.last or taken[-1]
    a = json.loads((args.folder / f"types-{first}.json").read_text())
    b = json.loads((args.folder / f"types-{last}.json").read_text())
    minutes = (b["t"] - a["t"]) / 60
    print(
        f"samples {first} -> {last} ({minutes:.1f} min): objects {a['objects']} -> "
        f"{b['objects']}, RSS {a['rss_mb']:.1f} -> {b['rss_mb']:.1f} MB"
    )
    before = dict(a["types"])
    grown = sorted(((n - before.get(t, 0), t, n) for t, n in b["types"]), reverse=True)
    print("\nobject types that grew:")
    for delta, name, n in grown[: args.top]:
        print(f"  {delta:+8d}  {n:8d}  {name}")
    # tracemalloc may have started after FIRST: compare from its first snapshot.
    snapped = [n for n in taken if first <= n <= last]
    snapped = [n for n in snapped if (args.folder / f"snapshot-{n}.pickle").exists()]
    if len(snapped) < 2:
        return 0  # sampled without MAHJONG_MEMORY_TRACE_PYTHON: no allocation sites
    before_path = args.folder / f"snapshot-{snapped[0]}.pickle"
    after_path = args.folder / f"snapshot-{snapped[-1]}.pickle"
    print(f"\n(tracemalloc: samples {snapped[0]} -> {snapped[-1]})")
    old = tracemalloc.Snapshot.load(str(before_path))
    new = tracemalloc.Snapshot.load(str(after_path))
    print("\nallocation sites that grew:")
    for stat in new.compare_to(old, "traceback")[: args.top]:
        print(f"  {stat.size_diff / 1024:+9.1f} KiB  {stat.count_diff:+7d} blocks")
        for line in stat.traceback.format(limit=args.frames, most_recent_first=True):
            print("      " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
