"""The fixed 256-colour palette every table, hand and score card is encoded with.

An adaptive palette (Pillow's octree over each image) cost ~9 ms of a table image's ~20 ms:
40 % of the drawing processes' time (issue 12). The images are always the same few dozen
flat colours (``renderer.style``), the tile art and the anti-aliased edges between them, so
one palette learnt once from real pictures serves them all: mapping a table onto it takes
~1 ms, the files are within a few per cent of the adaptive size, and the average error is
lower than the adaptive one's because every style colour is kept exactly (large flat areas
such as the felt and the tile faces come out unchanged).

The palette lives in ``renderer/assets/palette.txt`` (one ``#rrggbb`` a line, readable in a
diff). It is learnt from the demo games of every rule set (:func:`training_images`):
an octree over all of them together, then each style colour replaces its nearest learnt
neighbour. A colour added to ``renderer.style`` or a new kind of picture needs it learnt
again: ``python -m renderer.palette --write`` (``tests/test_palette.py`` checks that the
sample pictures keep their colours).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from PIL import Image

from renderer import style

Color = tuple[int, int, int]
SIZE = 256
PATH = Path(__file__).resolve().parent / "assets" / "palette.txt"


def style_colors() -> list[Color]:
    """Every colour named in ``renderer.style`` (single colours and tuples of colours)."""
    found: list[Color] = []
    for value in vars(style).values():
        candidates = (
            value
            if isinstance(value, tuple) and value and isinstance(value[0], tuple)
            else (value,)
        )
        for item in candidates:
            if (
                isinstance(item, tuple)
                and len(item) == 3
                and all(isinstance(c, int) and 0 <= c <= 255 for c in item)
            ):
                found.append(item)
    return list(dict.fromkeys(found))


def learn(images: Iterable[Image.Image], exact: Sequence[Color] = ()) -> list[Color]:
    """A palette of :data:`SIZE` colours for ``images``; each of ``exact`` is in it as is."""
    images = [im.convert("RGB") for im in images]
    width = max(im.width for im in images)
    sheet = Image.new("RGB", (width, sum(im.height for im in images)), style.FELT)
    top = 0
    for im in images:
        sheet.paste(im, (0, top))
        top += im.height
    octree = sheet.quantize(SIZE, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat = octree.getpalette() or []
    colors: list[Color] = [tuple(flat[i : i + 3]) for i in range(0, 3 * SIZE, 3)]  # type: ignore[misc]
    colors += [colors[0]] * (SIZE - len(colors))
    kept: set[int] = set()
    for color in exact:
        if color in colors:
            kept.add(colors.index(color))
            continue
        free = [i for i in range(SIZE) if i not in kept]
        nearest = min(
            free, key=lambda i: sum((a - b) ** 2 for a, b in zip(colors[i], color, strict=True))
        )
        colors[nearest] = color
        kept.add(nearest)
    return colors


def training_images() -> list[Image.Image]:
    """Tables (public and a seat's), hands and score cards from seeded games of every rule
    set, at 2, 3 and 4 players, early and late in a hand."""
    from bot.rules.game import view
    from renderer.demo import NAMES, _ready_marks
    from renderer.hand import compose_hand
    from renderer.samples import play_game as _play
    from renderer.score_card import compose_score_card
    from renderer.table import compose_seat_table, compose_table

    images: list[Image.Image] = []
    games = [
        ("pung-chow", 4, 10),
        ("pung-chow", 4, 50),
        ("pung-chow-limit", 3, 30),
        ("filipino-16", 4, 45),
        ("singapore", 4, 40),
        ("pung-chow", 2, 30),
    ]
    for number, (ruleset, players, moves) in enumerate(games):
        state = _play(ruleset, 100 + number, players=players, moves=moves)
        images.append(compose_table(view(state, None), NAMES, western_index=True))
        images.append(compose_table(view(state, state.turn), NAMES, western_index=True))
        own = view(state, state.turn)
        marks = _ready_marks(own)
        images.append(compose_seat_table(own, NAMES, marks=marks, western_index=True))
        images.append(compose_hand(own, marks=marks, western_index=True))
    for number, ruleset in enumerate(["pung-chow-limit", "singapore", "filipino-16"]):
        over = _play(ruleset, 200 + number)
        result = over.results[-1]
        images.append(
            compose_score_card(
                view(over, None),
                NAMES,
                list(result.scores),
                list(result.payments),
                winner=result.winner,
                winning_tile=result.win.tile if result.win is not None else None,
            )
        )
    return images


def read(path: Path = PATH) -> list[Color]:
    colors = []
    for line in path.read_text().split():
        value = int(line.lstrip("#"), 16)
        colors.append((value >> 16, (value >> 8) & 0xFF, value & 0xFF))
    if len(colors) != SIZE:
        raise ValueError(f"{path} holds {len(colors)} colours, not {SIZE}")
    return colors


def write(colors: Sequence[Color], path: Path = PATH) -> None:
    path.write_text("".join(f"#{r:02x}{g:02x}{b:02x}\n" for r, g, b in colors))


@cache
def palette_image() -> Image.Image:
    """The palette as a 1x1 ``P`` image, the form ``Image.quantize(palette=...)`` takes."""
    image = Image.new("P", (1, 1))
    image.putpalette([c for color in read() for c in color])
    return image


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"learn it again into {PATH}")
    args = parser.parse_args(argv)
    if args.write:
        write(learn(training_images(), style_colors()))
        print(f"wrote {PATH}")
    else:
        colors = read()
        missing = [c for c in style_colors() if c not in colors]
        print(f"{len(colors)} colours; style colours missing: {missing or 'none'}")


if __name__ == "__main__":
    main()
