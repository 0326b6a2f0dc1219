"""``python -m tests.storyboard --out DIR``: see the package docstring."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.storyboard",
        description="Play a short game over the fake Discord and write what one member saw.",
    )
    parser.add_argument("--out", type=Path, required=True, help="directory to write into")
    parser.add_argument("--rules", default="pung-chow")
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--humans", type=int, default=2, choices=(1, 2, 3, 4))
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the end-to-end tests' speed (no pauses; rate-limit windows 1/24 as long)",
    )
    args = parser.parse_args(argv)
    tests = Path(__file__).resolve().parents[1]
    if str(tests) not in sys.path:
        sys.path.insert(0, str(tests))  # the fake Discord is imported as `fakediscord`

    from .play import Options, play
    from .write import write

    story = asyncio.run(
        play(Options(rules=args.rules, hands=args.hands, humans=args.humans, quick=args.quick))
    )
    last = write(story, args.out)
    print(f"wrote {args.out / 'index.md'}")
    print(last)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
