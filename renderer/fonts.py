"""The bundled subset fonts, loaded once per size, and text made safe to draw with them."""

from __future__ import annotations

import io
import unicodedata
import weakref
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
    """A bundled font at a pixel size (a system font only for names beyond the bundled
    characters: see :func:`face_for`)."""
    made = ImageFont.truetype(io.BytesIO(_font_bytes(name)), max(1, size))
    _ORIGIN[made] = (name, size)
    return made


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


# -- text in other scripts (issue 13.4) ---------------------------------------------------------
# Pillow has no font fallback, so a string is drawn whole in ONE face: the Latin face when it
# has every character; else the bundled CJK face (Noto Sans CJK TC subset to every character of
# the shipped catalogues and tile names, plus ASCII and Latin-1, so "bob 打出 五筒" draws whole);
# else, for a member's name in characters beyond that subset, Debian's full Noto Sans CJK when
# it is installed (fonts-noto-cjk: the Dockerfile and .ci/run install it); else the Latin face
# with the characters it lacks replaced, as before. The bundled faces keep the output the same
# on every machine for all of the bot's own words.
UI_BOLD = "ui-cjk-bold.otf"
UI_REGULAR = "ui-cjk-regular.otf"
_UI_FOR = {BOLD: UI_BOLD, CONDENSED: UI_BOLD, REGULAR: UI_REGULAR}
SYSTEM_CJK = {
    UI_BOLD: "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    UI_REGULAR: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
}
SYSTEM_FACE = "Noto Sans CJK TC"
#: What Noto Sans CJK covers: CJK symbols and punctuation, kana, ideographs, Hangul, full width.
_CJK_BLOCKS = (
    (0x2E80, 0x2FDF),
    (0x3000, 0x30FF),
    (0x3100, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
)


@lru_cache(maxsize=1)
def ui_chars() -> frozenset[str]:
    """The characters beyond Latin-1 that the bundled CJK faces hold (written by the build)."""
    text = (resources.files("renderer") / "assets" / "ui-cjk.txt").read_text(encoding="utf-8")
    return frozenset(text.strip())


@lru_cache(maxsize=2)
def _system_cjk_index(path: str) -> int | None:
    """The collection index of the Traditional Chinese face in Debian's Noto Sans CJK, or
    None when the package is not installed (or the file is not what is expected)."""
    for index in range(10):
        try:
            face = ImageFont.truetype(path, 10, index=index)
        except OSError:
            return None
        if face.getname()[0] == SYSTEM_FACE:
            return index
    return None


@lru_cache(maxsize=64)
def _system_font(ui: str, size: int) -> ImageFont.FreeTypeFont | None:
    path = SYSTEM_CJK[ui]
    index = _system_cjk_index(path)
    if index is None:
        return None
    return ImageFont.truetype(path, max(1, size), index=index)


def system_cjk_available() -> bool:
    return _system_cjk_index(SYSTEM_CJK[UI_REGULAR]) is not None


def _in_cjk_blocks(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in _CJK_BLOCKS)


def _ui_has(text: str) -> bool:
    chars = ui_chars()
    return all(ord(ch) <= 0xFF or ch in chars for ch in text)


@lru_cache(maxsize=1024)
def drawable(text: str, fallback: str = "?") -> str:
    """``text`` as the faces can draw it: unchanged when the Latin face, the bundled CJK face
    or the system's Noto Sans CJK holds it; otherwise :func:`latin_safe`."""
    if all(ord(ch) in _LATIN for ch in text) or _ui_has(text):
        return text
    if not any(_in_cjk_blocks(ch) for ch in text):
        return latin_safe(text, fallback)
    # Chinese in it: drawn in a CJK face, which has Latin-1 but not Greek, Cyrillic or emoji.
    system = system_cjk_available()
    chars = ui_chars()
    out: list[str] = []
    for ch in text:
        if ord(ch) <= 0xFF or ch in chars or (system and _in_cjk_blocks(ch)):
            out.append(ch)
        elif not out or out[-1] != fallback:
            out.append(fallback)
    return "".join(out)


def face_for(name: str, size: int, text: str) -> ImageFont.FreeTypeFont:
    """The face to draw ``text`` with at the weight of ``name`` (see above). ``text`` should
    be :func:`drawable` already."""
    if name not in _UI_FOR or all(ord(ch) in _LATIN for ch in text):
        return font(name, size)
    ui = _UI_FOR[name]
    if _ui_has(text):
        return font(ui, size)
    return _system_font(ui, size) or font(name, size)


# Each bundled face's (name, size), by the face itself, held weakly: keyed by id() it kept
# the ids of faces the cache had let go, and a face made later at a freed id (a system CJK
# face) would have been taken for a bundled one.
_ORIGIN: weakref.WeakKeyDictionary[ImageFont.FreeTypeFont, tuple[str, int]] = (
    weakref.WeakKeyDictionary()
)


def origin(f: ImageFont.FreeTypeFont) -> tuple[str, int] | None:
    return _ORIGIN.get(f)


def like(f: ImageFont.FreeTypeFont, text: str) -> ImageFont.FreeTypeFont:
    """The face to draw ``text`` with in place of the bundled face ``f`` (same weight, size)."""
    found = origin(f)
    return f if found is None else face_for(found[0], found[1], text)
