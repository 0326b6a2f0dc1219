"""The fixed palette (renderer/palette.py): every picture keeps its colours.

The palette was learnt from the demo games; these pictures come from other seeds and from
the renderer's own samples, so a colour the renderer starts using that the palette lacks
shows here (learn it again with ``python -m renderer.palette --write``)."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from renderer import palette, style
from renderer.encode import palette_png, png_bytes
from renderer.hand import compose_hand
from renderer.samples import NAMES, sample_scores, sample_table
from renderer.score_card import compose_score_card
from renderer.table import compose_seat_table, compose_table


def colour_error(image: Image.Image, png: bytes) -> tuple[float, float]:
    """Mean of each pixel's largest channel error, and the share of pixels off by > 16."""
    decoded = Image.open(io.BytesIO(png)).convert("RGB")
    red, green, blue = ImageChops.difference(image, decoded).split()
    worst = ImageChops.lighter(ImageChops.lighter(red, green), blue).histogram()
    pixels = sum(worst)
    return sum(v * n for v, n in enumerate(worst)) / pixels, sum(worst[17:]) / pixels


def pictures() -> dict[str, Image.Image]:
    table = sample_table(11)
    sixteen = sample_table(12, hand_size=16, turns=40)
    seat = sample_table(13, viewer=2)
    revealed = sample_table(14, turns=30, revealed=True)
    winner = revealed.turn
    scores, payments = sample_scores(revealed, winner)
    return {
        "table": compose_table(table, NAMES, western_index=True),
        "table-16": compose_table(sixteen, NAMES, western_index=False),
        "seat": compose_seat_table(seat, NAMES, marks=frozenset((0, 9)), western_index=True),
        "hand": compose_hand(seat, marks=frozenset((0, 9, 18)), western_index=True),
        "score card": compose_score_card(
            revealed, NAMES, scores, payments, winner=winner, winning_tile=None
        ),
    }


@pytest.mark.parametrize("name", list(pictures()))
def test_the_fixed_palette_keeps_the_colours(name: str) -> None:
    image = pictures()[name]
    fixed = png_bytes(image)
    assert Image.open(io.BytesIO(fixed)).mode == "P"
    mean, off = colour_error(image, fixed)
    adaptive_mean, _ = colour_error(image, png_bytes(image, adaptive=True))
    # Measured: mean 0.7-1.7 levels of 255, 0.1-0.4 % of pixels off by more than 16 (the
    # adaptive palette: 0.8-1.9 and 0.2-0.3 %).
    assert mean < 2.5 and mean < adaptive_mean + 0.75
    assert off < 0.01


def test_every_style_colour_is_kept_exactly() -> None:
    colors = palette.read()
    assert len(colors) == palette.SIZE
    assert set(palette.style_colors()) <= set(colors)
    assert style.FELT in palette.style_colors() and style.STICK_RED[2] in palette.style_colors()
    flat = Image.new("RGB", (4, 4), style.IVORY)
    decoded = Image.open(io.BytesIO(png_bytes(flat))).convert("RGB")
    assert decoded.getcolors() == [(16, style.IVORY)]


def test_learning_keeps_the_exact_colours_it_is_given() -> None:
    image = Image.linear_gradient("L").convert("RGB")
    exact = [(1, 2, 3), (250, 10, 10), (128, 128, 128)]
    colors = palette.learn([image], exact)
    assert len(colors) == palette.SIZE
    assert all(c in colors for c in exact)


@pytest.mark.parametrize("name", ["table", "seat", "hand"])
def test_the_written_png_holds_exactly_what_pillow_would_write(name: str) -> None:
    """renderer.encode writes palette PNGs itself (ISA-L's deflate): every chunk's CRC checks,
    and the indices and palette read back are Pillow's own encoding's, for no more bytes."""
    image = pictures()[name]
    indexed = image.quantize(palette=palette.palette_image(), dither=Image.Dither.NONE)
    written = palette_png(indexed)
    Image.open(io.BytesIO(written)).verify()  # signature, chunk order and CRCs
    ours = Image.open(io.BytesIO(written))
    pillows = io.BytesIO()
    indexed.save(pillows, "PNG", compress_level=1)
    theirs = Image.open(io.BytesIO(pillows.getvalue()))
    assert (ours.mode, ours.size) == ("P", image.size)
    assert ours.tobytes() == theirs.tobytes()
    assert ours.getpalette() == theirs.getpalette()
    assert len(written) <= 1.05 * len(pillows.getvalue())
    assert png_bytes(image) == written


def test_only_palette_images_are_written_by_hand() -> None:
    with pytest.raises(ValueError, match="palette image"):
        palette_png(Image.new("RGB", (2, 2)))
