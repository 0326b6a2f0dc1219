"""Renderer speed and size: median time to compose and encode each image, and its PNG size.

For each image (the channel's table and a seat's table from sample deals and late in played
games, the hand, the score card) it times the whole public call (compose + encode, tile
sprites already cached, as they are after the first image), then the same image encoded as a
palette PNG (the fixed palette the bot uses, and an adaptive palette learnt from each image)
and as a plain RGB PNG side by side, with each palette's colour error against the RGB image
(mean and share of pixels off by more than 16 levels). Also the cold start: the first table
with an empty tile cache.

    python benchmarks/render.py [--repeats 25] [--seed 7]
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable

import _path  # noqa: F401  (the repository first: benchmarks/bot.py is not the bot package)
from PIL import Image, ImageChops

from benchmarks.timing import run_times
from renderer import render_hand, render_score_card, render_seat_table, render_table
from renderer.encode import png_bytes
from renderer.hand import compose_hand
from renderer.samples import NAMES, played_hand, sample_scores, sample_table
from renderer.score_card import compose_score_card
from renderer.table import compose_seat_table, compose_table
from renderer.tile_cache import tile_sprite


def median_ms(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time in ms, with the garbage collector paused while timing (the machine
    is shared and noisy; the median shrugs off a few slow runs)."""
    return statistics.median(run_times(fn, repeats)) * 1000


def plain_png(image: Image.Image, level: int, mode: str = "RGB") -> bytes:
    """The image as a truecolour PNG (RGB, or RGBA as a compositor with alpha would give)."""
    out = io.BytesIO()
    (image if image.mode == mode else image.convert(mode)).save(out, "PNG", compress_level=level)
    return out.getvalue()


def colour_error(image: Image.Image, png: bytes) -> tuple[float, float]:
    """The mean error of the PNG's pixels against ``image`` (the largest of the three
    channels' differences, 0-255) and the share of pixels off by more than 16."""
    decoded = Image.open(io.BytesIO(png)).convert("RGB")
    red, green, blue = ImageChops.difference(image.convert("RGB"), decoded).split()
    worst = ImageChops.lighter(ImageChops.lighter(red, green), blue).histogram()
    pixels = sum(worst)
    mean = sum(level * count for level, count in enumerate(worst)) / pixels
    return mean, sum(worst[17:]) / pixels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    n, seed = args.repeats, args.seed

    table = sample_table(seed)
    start = time.perf_counter()
    render_table(table, NAMES)
    cold = (time.perf_counter() - start) * 1000
    print(f"cold start (first table, empty tile cache): {cold:.0f} ms")
    print(f"tile sprites cached: {tile_sprite.cache_info().currsize}")
    print()

    f16 = sample_table(seed + 3, hand_size=16, turns=36)
    hand_view = sample_table(seed, viewer=table.turn)
    own = next(s for s in hand_view.seats if s.seat == hand_view.viewer)
    marks = frozenset((own.concealed or ())[::5])
    revealed = sample_table(seed + 4, turns=30, revealed=True)
    winner = revealed.turn
    wseat = next(s for s in revealed.seats if s.seat == winner)
    wtile = wseat.drawn if wseat.drawn is not None else (wseat.concealed or (0,))[-1]
    scores, payments = sample_scores(revealed, winner)

    from bot.rules.game import view as game_view

    late = played_hand("pung-chow", 27)[-2]  # 18 discards a seat, several sets
    late_public = game_view(late, None)
    late_seat = game_view(late, late.turn)
    seat16 = sample_table(seed + 3, hand_size=16, turns=36, viewer=f16.turn)

    cases: list[tuple[str, Callable[[], bytes], Callable[[], Image.Image], str]] = [
        (
            "table 4p late",
            lambda: render_table(late_public, NAMES),
            lambda: compose_table(late_public, NAMES, western_index=True),
            "< 30 ms",
        ),
        (
            "seat table 4p late",
            lambda: render_seat_table(late_seat, NAMES, marks=marks),
            lambda: compose_seat_table(late_seat, NAMES, marks=marks, western_index=True),
            "< 30 ms",
        ),
        (
            "seat table f-16",
            lambda: render_seat_table(seat16, NAMES),
            lambda: compose_seat_table(seat16, NAMES, marks=frozenset(), western_index=True),
            "< 30 ms",
        ),
        (
            "table 4p",
            lambda: render_table(table, NAMES),
            lambda: compose_table(table, NAMES, western_index=True),
            "< 30 ms",
        ),
        (
            "table filipino-16",
            lambda: render_table(f16, NAMES),
            lambda: compose_table(f16, NAMES, western_index=True),
            "< 30 ms",
        ),
        (
            "hand",
            lambda: render_hand(hand_view, marks=marks),
            lambda: compose_hand(hand_view, marks=marks, western_index=True),
            "< 10 ms",
        ),
        (
            "score card",
            lambda: render_score_card(
                revealed, NAMES, scores, payments, winner=winner, winning_tile=wtile
            ),
            lambda: compose_score_card(
                revealed, NAMES, scores, payments, winner=winner, winning_tile=wtile
            ),
            "",
        ),
    ]
    head = (
        f"{'image':<18} {'size':>10} {'total ms':>9} {'KB':>6}   {'compose':>8} "
        f"{'palette':>8} {'KB':>6} {'err':>4} {'>16':>5}   {'adaptive':>8} {'KB':>6} {'err':>4} "
        f"{'>16':>5}   {'RGBA l1':>7} {'KB':>6}   {'RGB l1':>7} {'KB':>6}   "
        f"{'RGB l6':>7} {'KB':>6}  goal"
    )
    print(head)
    print("-" * len(head))
    for name, render, compose, goal in cases:
        render()
        total = median_ms(render, n)
        size = len(render())
        image = compose()
        t_compose = median_ms(compose, n)
        t_pal = median_ms(lambda image=image: png_bytes(image), n)
        kb_pal = len(png_bytes(image)) / 1024
        err_pal, off_pal = colour_error(image, png_bytes(image))
        t_ada = median_ms(lambda image=image: png_bytes(image, adaptive=True), n)
        kb_ada = len(png_bytes(image, adaptive=True)) / 1024
        err_ada, off_ada = colour_error(image, png_bytes(image, adaptive=True))
        rgba = image.convert("RGBA")
        t_rgba = median_ms(lambda rgba=rgba: plain_png(rgba, 1, "RGBA"), n)
        kb_rgba = len(plain_png(rgba, 1, "RGBA")) / 1024
        t_rgb1 = median_ms(lambda image=image: plain_png(image, 1), n)
        kb_rgb1 = len(plain_png(image, 1)) / 1024
        t_rgb6 = median_ms(lambda image=image: plain_png(image, 6), max(5, n // 3))
        kb_rgb6 = len(plain_png(image, 6)) / 1024
        dims = f"{image.width}x{image.height}"
        print(
            f"{name:<18} {dims:>10} {total:>9.1f} {size / 1024:>6.1f}   {t_compose:>8.1f} "
            f"{t_pal:>8.1f} {kb_pal:>6.1f} {err_pal:>4.2f} {off_pal:>5.2%}   "
            f"{t_ada:>8.1f} {kb_ada:>6.1f} {err_ada:>4.2f} {off_ada:>5.2%}   "
            f"{t_rgba:>7.1f} {kb_rgba:>6.1f}   "
            f"{t_rgb1:>7.1f} {kb_rgb1:>6.1f}   "
            f"{t_rgb6:>7.1f} {kb_rgb6:>6.1f}  {goal}"
        )
    print()
    print("total = compose + palette PNG (the public call, tiles cached); the palette, RGBA and")
    print("RGB columns time the encoding alone (l1/l6: zlib compress_level); err: the mean")
    print("colour error in levels of 255 (the largest channel's), >16: pixels off by more")
    print("than 16 levels. The tables cache their seat blocks and header, so drawing the same")
    print("table again mostly pastes; the figures per move below are what the bot pays.")
    print()
    per_move()
    many_tables()


def per_move() -> None:
    """What the bot draws per move of a played hand: the channel's table and every seated
    player's DM picture (their seat's table) of the same moment, in one process, as CPU time
    (the machine is shared; CPU time is what 200 tables cost). The blocks that look alike
    are drawn once per move and pasted into the other pictures (``renderer.table``)."""
    from bot.rules.game import view as game_view

    print("per move: the channel's table + each seat's DM picture, CPU ms (one process)")
    for ruleset, seed, players in (
        ("pung-chow", 27, 4),
        ("filipino-16", 24, 4),
        ("pung-chow", 0, 2),
    ):
        states = played_hand(ruleset, seed, players=players)[:-1]
        costs, sizes = [], []
        for state in states:
            start = time.process_time()
            render_table(game_view(state, None), NAMES)
            for seat in range(4):
                if state.occupied[seat]:
                    sizes.append(len(render_seat_table(game_view(state, seat), NAMES)))
            costs.append(time.process_time() - start)
        median, mean = statistics.median(costs) * 1000, statistics.mean(costs) * 1000
        print(
            f"  {ruleset} {players}p: {len(states)} moves, median {median:.1f} ms, mean"
            f" {mean:.1f} ms; DM picture mean {statistics.mean(sizes) / 1024:.0f} KB"
        )


def many_tables(tables: int = 40) -> None:
    """What a drawing process pays per picture at 200 tables: it draws for ~100 tables in
    turn, so its caches of finished blocks rarely hold the block asked for. Pictures of
    ``tables`` played hands in turn, a move of each at a time: the DM picture of the seat to
    play, and every fourth move the channel's table (the budget's pace for table images at
    200 tables); CPU per picture."""
    from bot.rules.game import view as game_view

    hands = [played_hand("pung-chow", seed)[8:-1] for seed in range(100, 100 + tables)]
    longest = max(len(states) for states in hands)
    costs = []
    for move in range(longest):
        for states in hands:
            if move >= len(states):
                continue
            state = states[move]
            start = time.process_time()
            render_seat_table(game_view(state, state.turn), NAMES)
            costs.append(time.process_time() - start)
            if move % 4 == 0:
                start = time.process_time()
                render_table(game_view(state, None), NAMES)
                costs.append(time.process_time() - start)
    print(
        f"interleaved: {tables} tables' moves in turn, {len(costs)} moments: CPU per picture"
        f" median {statistics.median(costs) * 1000:.2f} ms, mean"
        f" {statistics.mean(costs) * 1000:.2f} ms"
    )
    # What benchmarks/bot.py's P lines have the pool draw at 200 tables with two members a
    # table: half a DM picture a move (each member's every fourth move, coalesced) and a
    # channel table every sixth move.
    costs = []
    for move in range(0, longest, 2):
        for states in hands:
            if move >= len(states):
                continue
            state = states[move]
            start = time.process_time()
            render_seat_table(game_view(state, (move // 2) % 2), NAMES)
            if move % 6 == 0:
                render_table(game_view(state, None), NAMES)
            costs.append(time.process_time() - start)
    print(
        f"bot's mix: {tables} tables, a member's DM every 2nd move, the channel every 6th:"
        f" CPU per move {sum(costs) / len(costs) / 2 * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
