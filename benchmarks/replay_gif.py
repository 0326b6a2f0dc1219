"""The size of ``mahjong-bot replay --gif``: a hand's frames as whole frames (how the GIF was
written before) and as the animation writes them now (changed boxes, transparent unchanged
pixels, one palette), from the table and from a seat, for the longest of a few one-hand games
of computer players.

    python benchmarks/replay_gif.py [--seeds 4]
"""

from __future__ import annotations

import argparse
import io
import time

import _path  # noqa: F401  (the repository first)
from PIL import Image

from bot.drawing import render
from bot.service.replays import TABLE, build_replay
from renderer.animation import render_animation
from renderer.palette import palette_image
from tests.service.test_replays import play


def whole_frames(frames: list[bytes]) -> int:
    """The bytes of the GIF as written before: every frame whole, a colour table each."""
    images = [
        Image.open(io.BytesIO(f)).convert("RGB").quantize(palette=palette_image(), dither=0)
        for f in frames
    ]
    out = io.BytesIO()
    images[0].save(
        out, "GIF", save_all=True, append_images=images[1:], duration=1200, loop=0,
        disposal=1, optimize=False,
    )  # fmt: skip
    return len(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=4)
    options = parser.parse_args()
    replays = [build_replay(*play(f"gif-{n}", hands=1), 1) for n in range(options.seeds)]
    replay = max(replays, key=lambda r: len(r.steps))
    for seat in (TABLE, replay.seats()[0][0]):
        frames = []
        for step in replay.stops(seat):
            frame = replay.frame(step, seat)
            frames.append(render(frame.kind, frame.args, frame.kwargs))
        started = time.perf_counter()
        gif = render_animation(frames, format="gif")
        took = time.perf_counter() - started
        who = "table" if seat == TABLE else f"seat {seat}"
        print(
            f"{who}: {len(frames)} frames, PNGs {sum(map(len, frames)) / 1e6:.2f} MB, "
            f"GIF whole frames {whole_frames(frames) / 1e6:.2f} MB, "
            f"GIF now {len(gif) / 1e6:.2f} MB ({took:.2f} s)"
        )


if __name__ == "__main__":
    main()
