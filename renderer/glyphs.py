"""Which characters the bundled fonts hold: shared by the font build script and the loader.

The subset fonts under ``assets/`` contain exactly these; text outside them is replaced
before drawing (Pillow has no font fallback, and a missing glyph draws as an empty box).
"""

from __future__ import annotations

NUMERALS = "一二三四五六七八九"
WAN = "萬"
WIND_GLYPHS = "東南西北"
DRAGON_GLYPHS = "中發"
FLOWER_GLYPHS = "梅蘭菊竹"
SEASON_GLYPHS = "春夏秋冬"
# Drawn outside the tiles: the round-wind plaque in the middle of the table.
EXTRA_GLYPHS = "風"

CJK_TEXT = (
    NUMERALS + WAN + WIND_GLYPHS + DRAGON_GLYPHS + FLOWER_GLYPHS + SEASON_GLYPHS + EXTRA_GLYPHS
)

# Latin text (names, labels, score lines): ASCII, Latin-1, Latin Extended-A, Greek and
# Cyrillic cover most Discord display names; a few symbols the cards use.
LATIN_RANGES: tuple[tuple[int, int], ...] = (
    (0x0020, 0x007E),
    (0x00A0, 0x017F),
    (0x0370, 0x03FF),
    (0x0400, 0x045F),
    (0x2010, 0x2026),
    (0x2190, 0x2193),
    (0x2212, 0x2212),
    (0x00D7, 0x00D7),
    (0x2022, 0x2022),
    (0x25B2, 0x25BC),
    (0x2605, 0x2606),
)


def latin_codepoints() -> frozenset[int]:
    return frozenset(cp for lo, hi in LATIN_RANGES for cp in range(lo, hi + 1))
