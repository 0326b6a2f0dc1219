"""Frames of a replay as one animated picture (``mahjong-bot replay --gif``), for sharing.

The frames are the renderer's own PNGs, all on the fixed palette (:mod:`renderer.palette`),
so a GIF of them keeps every colour exactly (no dithering) with one palette for the whole
animation (no colour table per frame). Consecutive frames of a hand differ in a few tiles and
a line of words, so each frame after the first stores only the box that changed, its
unchanged pixels in that box made transparent (Pillow's ``optimize``; LZW packs those runs
to almost nothing), and a frame identical to the one before only lengthens it. A 46-frame
hand from the table: 2.03 MB as whole frames, 0.62 MB so, with every pixel the same
(``tests/test_replay_cli.py``; ``benchmarks/replay_gif.py`` measures it). Frames of
different sizes (the reveal of a hand is taller than a seat's table when a hand has many
sets) are laid on a canvas the size of the largest, at the top left, on the table's panel
colour. An animated PNG (APNG) keeps the same pixels and is often smaller; every current
browser and Discord's client play both.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image

from renderer import style

FORMATS = ("gif", "png")


def render_animation(
    frames: Sequence[bytes],
    *,
    seconds: float = 1.2,
    last_seconds: float = 5.0,
    format: str = "gif",
) -> bytes:
    """One animated image of ``frames`` (PNG bytes), each shown ``seconds``, the last one
    ``last_seconds``; it loops. ``format`` is ``gif`` or ``png`` (APNG)."""
    if format not in FORMATS:
        raise ValueError(f"format is one of {', '.join(FORMATS)}, not {format!r}")
    if not frames:
        raise ValueError("an animation needs at least one frame")
    from renderer.palette import palette_image

    palette = palette_image()
    images = [_on_palette(Image.open(io.BytesIO(data)), palette) for data in frames]
    width = max(i.width for i in images)
    height = max(i.height for i in images)
    canvas = []
    for image in images:
        if image.size != (width, height):
            padded = _on_palette(Image.new("RGB", (width, height), style.PANEL), palette)
            padded.paste(image, (0, 0))
            image = padded
        canvas.append(image)
    durations = [round(seconds * 1000)] * (len(canvas) - 1) + [round(last_seconds * 1000)]
    # GIF: each frame drawn over the last (disposal 1), only its changed box with the
    # unchanged pixels transparent (optimize), one global palette. APNG: the first frame is
    # the animation's own (a viewer that does not animate shows it), not an extra still.
    colours = bytes(palette.getpalette()[: 3 * 256])  # type: ignore[index]
    own = {
        "gif": {"disposal": 1, "optimize": True, "palette": colours},
        "png": {"default_image": False},
    }
    out = io.BytesIO()
    canvas[0].save(
        out,
        format.upper(),
        save_all=True,
        append_images=canvas[1:],
        duration=durations,
        loop=0,
        **own[format],
    )
    return out.getvalue()


def _on_palette(image: Image.Image, palette: Image.Image) -> Image.Image:
    """``image`` in palette mode on ``palette``: the renderer's PNGs already are, and are
    kept as they are (mapping their colours again is not exact: Pillow's nearest-colour
    search is approximate, and moved a few hundred pixels of a table by a shade)."""
    if image.mode == "P" and image.getpalette() == palette.getpalette():
        return image
    return image.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)
