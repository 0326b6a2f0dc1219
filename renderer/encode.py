"""PNG encoding: a fixed palette and a fast deflate, for speed and small files.

The images are flat colours and anti-aliased edges, which 256 colours keep faithfully; a
palette PNG is a third of the bytes of an RGB one. The palette is fixed
(:mod:`renderer.palette`, learnt once from real pictures) rather than adaptive: mapping a
table onto it takes ~1 ms against ~9 ms for Pillow's octree over each image, for files a few
per cent larger and colours at least as close (``benchmarks/render.py`` prints both side by
side).

Deflating the 600 KB of a table's indices was most of a picture's cost: 6-9 ms with zlib at
level 1, the fastest zlib level worth having. ISA-L's deflate (the ``isal`` package, Intel's
library behind many genomics and storage tools) does it in under 1 ms for files as small, so
palette pictures are written here: signature, IHDR, PLTE, one IDAT of unfiltered rows, IEND
(PNG specification, sections 5 and 11). Filtering would not pay: it shrinks photographs, not
indices. Pillow still writes RGBA (emoji) and the benchmark's comparisons.

ISA-L's stream for the same indices is not always the same bytes: now and then a drawing
process packs a picture a few bytes smaller or larger than another process does (seen in
about 1 of 400 fresh processes under load; decoded, the pixels and palette are identical).
Nothing in the bot compares PNG bytes (a picture is re-drawn or re-sent by what it shows,
``bot.drawing.signature``); tests compare pictures drawn apart decoded.
"""

from __future__ import annotations

import io
import struct
import zlib
from functools import cache

from PIL import Image

try:
    from isal import isal_zlib as _deflate
except ImportError:  # a platform without its wheel: the same stream, slower
    _deflate = zlib  # type: ignore[assignment]

PALETTE_COLORS = 256
COMPRESS_LEVEL = 1
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_bytes(
    image: Image.Image,
    *,
    palette: bool = True,
    compress_level: int = COMPRESS_LEVEL,
    adaptive: bool = False,
) -> bytes:
    """Encode an RGB or RGBA image; RGBA (emoji) keeps its alpha and is not quantized.

    ``adaptive`` picks the image's own palette instead of the fixed one (the benchmark's
    comparison; slower), and is written by Pillow."""
    if palette and image.mode == "RGB":
        if adaptive:
            image = image.quantize(
                colors=PALETTE_COLORS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
            )
        else:
            return palette_png(indexed(image), level=compress_level)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()


def indexed(image: Image.Image) -> Image.Image:
    """An RGB image mapped onto the fixed palette (each pixel to its nearest colour, no
    dithering: a pixel's index depends on that pixel alone)."""
    from renderer.palette import palette_image  # here: runnable as ``-m``

    return image.quantize(palette=palette_image(), dither=Image.Dither.NONE)


def framed_canvas(size: tuple[int, int], color: tuple[int, int, int]) -> Image.Image:
    """A ``P`` image of ``size`` filled with ``color`` (one of the palette's own), one column
    wider on the left for each PNG row's filter byte (0): paste into it one pixel right, and
    :func:`framed_png` writes its rows as they are, with no copy to frame them."""
    from renderer.palette import palette_image

    width, height = size
    canvas = Image.new("P", (width + 1, height), palette_index(color))
    canvas.paste(0, (0, 0, 1, height))
    canvas.putpalette(palette_image().getpalette() or [])
    return canvas


@cache
def palette_index(color: tuple[int, int, int]) -> int:
    """The fixed palette's index that ``color`` maps to (as :func:`indexed` maps a pixel)."""
    return indexed(Image.new("RGB", (1, 1), color)).getpixel((0, 0))  # type: ignore[return-value]


def framed_png(canvas: Image.Image, *, level: int = COMPRESS_LEVEL) -> bytes:
    """A :func:`framed_canvas` as a PNG (its first column is the rows' filter bytes)."""
    if canvas.mode != "P":
        raise ValueError(f"a palette image is needed, not {canvas.mode}")
    width, height = canvas.size
    return _palette_file(width - 1, height, canvas.tobytes(), canvas.getpalette() or [], level)


def palette_png(image: Image.Image, *, level: int = COMPRESS_LEVEL) -> bytes:
    """A ``P`` image (8 bits an index, no transparency) as a PNG, deflated by ISA-L.

    ``level`` is ISA-L's (0-3; 1 and 2 are about as small as zlib's 1, several times faster)."""
    if image.mode != "P":
        raise ValueError(f"a palette image is needed, not {image.mode}")
    width, height = image.size
    # Each row starts with its filter type, 0 (none): the image pasted one pixel right of a
    # column of zeros gives its rows so in one copy (a third of the time of joining rows).
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(image, (1, 0))
    return _palette_file(width, height, framed.tobytes(), image.getpalette() or [], level)


def _palette_file(width: int, height: int, rows: bytes, colours: list[int], level: int) -> bytes:
    return b"".join(
        (
            _SIGNATURE,
            _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)),
            _chunk(b"PLTE", bytes(colours[: 3 * PALETTE_COLORS])),
            _chunk(b"IDAT", _deflate.compress(rows, min(level, 3))),
            _chunk(b"IEND", b""),
        )
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(data, zlib.crc32(kind))  # over both, without copying the data into one
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)
