"""PNG encoding: an adaptive palette and light compression, for speed and small files.

The images are flat colours and anti-aliased edges, which a 256-colour adaptive palette
keeps faithfully; a palette PNG is a third of the bytes of an RGB one and encodes several
times faster. ``compress_level`` 1 costs a few per cent in size against 6 and saves time.
"""

from __future__ import annotations

import io

from PIL import Image

PALETTE_COLORS = 256
COMPRESS_LEVEL = 1


def png_bytes(
    image: Image.Image, *, palette: bool = True, compress_level: int = COMPRESS_LEVEL
) -> bytes:
    """Encode an RGB or RGBA image; RGBA (emoji) keeps its alpha and is not quantized."""
    if palette and image.mode == "RGB":
        image = image.quantize(
            colors=PALETTE_COLORS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()
