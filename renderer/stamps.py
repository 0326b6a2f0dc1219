"""Text and shapes drawn once and stamped again: the same few hundred strings (names, "13
tiles", "to play", wind names, scores) and the same rounded boxes appear on every picture.

At 200 tables the drawing processes draw pictures of ~100 tables each in turn, so the
renderer's caches of whole seat blocks rarely hold the block asked for, and each block is
drawn from its parts: py-spy had FreeType rendering the same strings at 17 % of a drawing
process's time and Pillow's rounded rectangles at 8 % (``benchmarks/render.py``, the
"interleaved" line, measures that case). A stamp is exactly what Pillow would have drawn:
:func:`text` keeps the glyph mask Pillow makes for a string at a position's fraction of a
pixel (the only thing besides the string, the face and the anchor that the mask depends on)
and draws it with the same call ``ImageDraw.text`` makes; :func:`rounded_box` and
:func:`rounded_mask` keep the drawn box. ``tests/test_stamps.py`` checks them pixel for
pixel against Pillow's own calls.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

Color = tuple[int, int, int]

TEXT_STAMPS = 4096  # masks kept (a few KB each: ~10 MB when full)
BOX_STAMPS = 256


def text(
    d: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    words: str,
    font: ImageFont.FreeTypeFont,
    fill: Color,
    anchor: str | None = None,
) -> None:
    """``d.text(xy, words, font=font, fill=fill, anchor=anchor)``, with the glyph mask kept
    for the next picture that shows the same words at the same fraction of a pixel.
    Several lines, a font that is not FreeType's or a palette image: drawn by Pillow."""
    if "\n" in words or not isinstance(font, ImageFont.FreeTypeFont) or d.palette:
        d.text(xy, words, font=font, fill=fill, anchor=anchor)
        return
    x, y = xy
    ink = d.draw.draw_ink(fill)
    start = (math.modf(x)[0], math.modf(y)[0])
    mask, (dx, dy) = _mask(font, words, anchor or "la", d.fontmode, ink, start)
    d.draw.draw_bitmap((int(x) + dx, int(y) + dy), mask, ink)


@lru_cache(maxsize=TEXT_STAMPS)
def _mask(
    font: ImageFont.FreeTypeFont,
    words: str,
    anchor: str,
    mode: str,
    ink: int,
    start: tuple[float, float],
) -> tuple[object, tuple[int, int]]:
    # The arguments ImageDraw.text passes (Pillow 10-13) for one line without a stroke.
    return font.getmask2(words, mode, None, None, None, 0, anchor, ink, start, stroke_filled=True)


@lru_cache(maxsize=BOX_STAMPS)
def rounded_box(
    size: tuple[int, int],
    radius: int,
    fill: Color,
    outline: Color | None,
    width: int,
    background: Color,
) -> Image.Image:
    """A ``size`` image of ``background`` with a rounded rectangle over all of it, drawn as
    ``ImageDraw.rounded_rectangle((0, 0, w - 1, h - 1), ...)`` draws it. Read-only: paste it."""
    image = Image.new("RGB", size, background)
    w, h = size
    ImageDraw.Draw(image).rounded_rectangle(
        (0, 0, w - 1, h - 1), radius=radius, fill=fill, outline=outline, width=width
    )
    return image


@lru_cache(maxsize=BOX_STAMPS)
def rounded_mask(size: tuple[int, int], radius: int) -> Image.Image:
    """The pixels ``ImageDraw.rounded_rectangle((0, 0, w - 1, h - 1), radius=radius,
    fill=...)`` paints (it does not smooth its edges), as a mask: ``image.paste(colour,
    (x, y), mask)`` paints them over whatever lies beneath."""
    mask = Image.new("L", size, 0)
    w, h = size
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w - 1, h - 1), radius=radius, fill=255)
    return mask
