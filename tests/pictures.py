"""What a PNG shows, for comparing pictures drawn apart."""

from __future__ import annotations

import hashlib
import io

from PIL import Image


def shows(png: bytes) -> bytes:
    """A digest of what a PNG shows (mode, size, palette, pixels), not of how it was packed:
    the same picture drawn in two processes can differ by a few bytes (ISA-L's deflate,
    renderer/encode.py), so pictures drawn apart are compared by this."""
    image = Image.open(io.BytesIO(png))
    image.load()
    digest = hashlib.blake2b(repr((image.mode, image.size, image.getpalette())).encode())
    digest.update(image.tobytes())
    return digest.digest()
