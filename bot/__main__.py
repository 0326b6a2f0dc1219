"""``mahjong-bot``: run the bot, or one of its tools.

mahjong-bot                        run the bot (needs DISCORD_TOKEN)
mahjong-bot --shards 0-3 --shard-count 8   run shards 0 to 3 of 8 in this process
mahjong-bot doctor [--offline]     check the set-up; say what is wrong and how to fix it
mahjong-bot health                 exit 0 when the running bot is connected (Docker)
mahjong-bot simulate --rules R --hands N --seed S
mahjong-bot render-demo --out DIR
mahjong-bot migrate-db --from SOURCE --to TARGET   copy a store (SQLite -> PostgreSQL)
mahjong-bot replay CODE | TABLE HAND --out DIR [--seat S] [--gif | --apng]
                                   the frames of a finished hand, or one animation
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

SHARD_FLAGS = {"--shards": "MAHJONG_SHARDS", "--shard-count": "MAHJONG_SHARD_COUNT"}


def _shard_flags(args: list[str]) -> list[str] | None:
    """Move ``--shards X`` / ``--shard-count N`` (or ``--shards=X``) into the environment,
    where the settings read them; returns the other arguments, or None for a flag given
    without its value."""
    import os

    rest: list[str] = []
    items = iter(args)
    for arg in items:
        name, eq, value = arg.partition("=")
        if name not in SHARD_FLAGS:
            rest.append(arg)
            continue
        if not eq:
            value = next(items, "")
        if not value or value.startswith("--"):
            return None
        os.environ[SHARD_FLAGS[name]] = value
    return rest


def _run_bot() -> int:
    from bot.config import ConfigError, Settings

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"mahjong-bot: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=getattr(logging, settings.log_level, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from bot.app import run

    return run(settings)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a.split("=")[0] in SHARD_FLAGS for a in args):
        flagged = _shard_flags(args)
        if flagged is None or flagged not in ([], ["run"]):
            print("usage: mahjong-bot [run] [--shards 0-3 --shard-count 8]", file=sys.stderr)
            return 2
        args = flagged
    if args and args[0] == "simulate":
        from bot.simulate import main as simulate_main

        return simulate_main(args[1:]) or 0
    if args and args[0] == "render-demo":
        parser = argparse.ArgumentParser(prog="mahjong-bot render-demo")
        parser.add_argument("--out", type=Path, required=True, help="folder for the images")
        parser.add_argument("--seed", type=int, default=1)
        options = parser.parse_args(args[1:])
        from renderer.demo import write_demo

        written = write_demo(options.out)
        print(f"wrote {len(written) if written else 'the'} images to {options.out}")
        return 0
    if args and args[0] == "doctor":
        from bot.doctor import main as doctor_main

        return doctor_main(args[1:])
    if args and args[0] == "health":
        from bot.doctor import health

        return health()
    if args and args[0] == "migrate-db":
        from bot.store.copy import main as migrate_main

        return migrate_main(args[1:])
    if args and args[0] == "replay":
        from bot.replay_cli import main as replay_main

        return replay_main(args[1:])
    if args and args[0] not in ("run",):
        print(
            "usage: mahjong-bot [run [--shards 0-3 --shard-count 8] | doctor [--offline] | "
            "health | simulate --rules R --hands N --seed S | render-demo --out DIR | "
            "migrate-db --from SOURCE --to TARGET | replay CODE --out DIR]",
            file=sys.stderr,
        )
        return 2
    return _run_bot()


if __name__ == "__main__":
    sys.exit(main())
