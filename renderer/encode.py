"""PNG encoding: a fixed palette and light compression, for speed and small files.

The images are flat colours and anti-aliased edges, which 256 colours keep faithfully; a
palette PNG is a third of the bytes of an RGB one and encodes several times faster. The
palette is fixed (:mod:`renderer.palette`, learnt once from real pictures) rather than
adaptive: mapping a table onto it takes ~1 ms against ~9 ms for Pillow's octree over each
image, for files a few per cent larger and colours at least as close
(``benchmarks/render.py`` prints both side by side). ``compress_level`` 1 costs a few per
cent in size against 6 and saves time.
"""

from __future__ import annotations

import io

from PIL import Image

PALETTE_COLORS = 256
COMPRESS_LEVEL = 1


def png_bytes(
    image: Image.Image,
    *,
    palette: bool = True,
    compress_level: int = COMPRESS_LEVEL,
    adaptive: bool = False,
) -> bytes:
    """Encode an RGB or RGBA image; RGBA (emoji) keeps its alpha and is not quantized.

    ``adaptive`` picks the image's own palette instead of the fixed one (the benchmark's
    comparison; slower)."""
    if palette and image.mode == "RGB":
        if adaptive:
            image = image.quantize(
                colors=PALETTE_COLORS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
            )
        else:
            from renderer.palette import palette_image  # here: runnable as ``-m``

            image = image.quantize(palette=palette_image(), dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()
