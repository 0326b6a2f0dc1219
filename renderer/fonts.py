"""The bundled subset fonts, loaded once per size, and text made safe to draw with them."""

from __future__ import annotations

import io
import unicodedata
from functools import lru_cache
from importlib import resources

from PIL import ImageFont

from renderer.glyphs import CJK_TEXT, latin_codepoints

CJK = "tile-glyphs.otf"
BOLD = "latin-bold.ttf"
REGULAR = "latin-regular.ttf"
CONDENSED = "latin-condensed-bold.ttf"

_LATIN = latin_codepoints()


@lru_cache(maxsize=8)
def _font_bytes(name: str) -> bytes:
    return (resources.files("renderer") / "assets" / name).read_bytes()


@lru_cache(maxsize=256)
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    """A bundled font at a pixel size (never a system font: the output must not vary)."""
    return ImageFont.truetype(io.BytesIO(_font_bytes(name)), max(1, size))


def cjk_has(text: str) -> bool:
    return all(ch in CJK_TEXT for ch in text)


@lru_cache(maxsize=1024)
def latin_safe(text: str, fallback: str = "?") -> str:
    """``text`` with every character the Latin subset lacks replaced.

    Accented letters outside the subset lose their accents first (NFKD), so a Vietnamese or
    Polish name stays readable; anything else (emoji, CJK) becomes ``fallback``, and runs of
    it collapse to one.
    """
    out: list[str] = []
    for ch in text:
        if ord(ch) in _LATIN:
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if ord(c) in _LATIN)
        base = "".join(c for c in base if not unicodedata.combining(c))
        if base:
            out.append(base)
        elif not out or out[-1] != fallback:
            out.append(fallback)
    return "".join(out)
