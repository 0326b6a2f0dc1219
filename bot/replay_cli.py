"""``mahjong-bot replay``: the frames of a finished hand as pictures to share.

    mahjong-bot replay 3fa9c02b-2 --out replay/              frame-001.png, frame-002.png ...
    mahjong-bot replay 12 2 --seat alice --out replay/ --gif  one animated GIF (--apng: PNG)

The hand is found by its replay code or by table and hand number in the bot's database (the
same one ``mahjong-bot`` uses, or ``--db``), rebuilt by the replay service and drawn by the
renderer in this process, exactly as ``/mahjong replay`` shows it: from a seat (a name, or
a wind at the deal: E S W N), or by default the table as the channel saw it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.drawing import render
from bot.service.replays import TABLE, HandReplay, ReplayError, ReplayService

WINDS = {"e": 0, "s": 1, "w": 2, "n": 3, "east": 0, "south": 1, "west": 2, "north": 3}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="mahjong-bot replay",
        description="Write the frames of a finished hand to a folder, or as one animation.",
    )
    parser.add_argument(
        "hand", nargs="+", help="a replay code (3fa9c02b-2), or a table number and a hand number"
    )
    parser.add_argument("--out", type=Path, required=True, help="the folder to write to")
    parser.add_argument(
        "--seat", default="table", help="a player's name, a wind at the deal (E S W N), or table"
    )
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--gif", action="store_true", help="one animated GIF instead of frames")
    kind.add_argument("--apng", action="store_true", help="one animated PNG instead of frames")
    parser.add_argument("--seconds", type=float, default=1.2, help="per frame in an animation")
    parser.add_argument("--db", help="the database (default: the bot's own, as MAHJONG_DB)")
    options = parser.parse_args(argv)
    if len(options.hand) > 2 or (
        len(options.hand) == 2 and not all(part.isdigit() for part in options.hand)
    ):
        parser.error("give a replay code, or a table number and a hand number")
    if not 0.05 <= options.seconds <= 60:
        parser.error("--seconds is between 0.05 and 60")
    return options


def choose_seat(replay: HandReplay, wanted: str) -> int:
    """A seat by name (any case), by wind at the deal, or the table's own view."""
    word = wanted.strip().lower()
    if word in ("table", "channel", "public"):
        return TABLE
    seats = replay.seats()
    for seat, name, _ in seats:
        if name.lower() == word:
            return seat
    if word in WINDS:
        for seat, _, wind in seats:
            if WINDS[wind.lower()] == WINDS[word]:
                return seat
    names = ", ".join(name for _, name, _ in seats)
    raise ReplayError(f"No seat '{wanted}' in this hand: pick one of {names}, a wind, or table.")


def write_frames(replay: HandReplay, seat: int, options: argparse.Namespace) -> list[Path]:
    """Draw every frame from ``seat``; write them, or one animation of them."""
    frames = []
    for step in replay.stops(seat):
        frame = replay.frame(step, seat)
        frames.append(render(frame.kind, frame.args, frame.kwargs))
    options.out.mkdir(parents=True, exist_ok=True)
    who = "table" if seat == TABLE else replay.steps[0].names[seat]
    stem = f"{replay.code}-{''.join(c if c.isalnum() else '_' for c in who)}"
    if options.gif or options.apng:
        from renderer.animation import render_animation

        kind = "gif" if options.gif else "png"
        path = options.out / f"{stem}.{kind}"
        path.write_bytes(render_animation(frames, seconds=options.seconds, format=kind))
        return [path]
    written = []
    for number, png in enumerate(frames, 1):
        path = options.out / f"{stem}-{number:03d}.png"
        path.write_bytes(png)
        written.append(path)
    return written


async def _open(options: argparse.Namespace) -> HandReplay:
    from bot.store.database import open_database
    from bot.store.replays_repo import ReplaysRepository

    if options.db:
        database = options.db
    else:
        from bot.config import Settings

        database = Settings.from_env(require_token=False).database
    if "://" not in str(database) and not Path(database).is_file():
        # Opening it would create and migrate an empty database at a mistyped path.
        raise ReplayError(f"There is no database at {database}.")
    db = await open_database(database)
    try:
        service = ReplayService(ReplaysRepository(db))
        if len(options.hand) == 1:
            return await service.open_code(None, options.hand[0])
        table, hand = (int(part) for part in options.hand)
        return await service.open(None, table, hand)
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> int:
    options = parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        replay = asyncio.run(_open(options))
        seat = choose_seat(replay, options.seat)
    except ReplayError as exc:
        print(f"mahjong-bot replay: {exc}", file=sys.stderr)
        return 1
    written = write_frames(replay, seat, options)
    where = written[0] if len(written) == 1 else options.out
    print(
        f"table {replay.table_id}, hand {replay.hand} (code {replay.code}): wrote "
        f"{len(replay.stops(seat))} frames to {where}"
    )
    return 0
