"""Regenerate the subset fonts under ``renderer/assets/`` (a build-time tool, not run by the bot).

Needs fontTools and Debian's fonts (``apt-get install -y fonts-noto-cjk fonts-dejavu-core
fonts-dejavu-extra``). Run from the repository root::

    python renderer/assets/build_font.py

The CJK glyphs come from Noto Serif CJK TC Bold (SIL OFL 1.1, see ``OFL.txt``): a serif
face reads closer to the brush characters of real tiles than the sans. Latin text uses
DejaVu Sans (Bitstream Vera licence, see ``DejaVu-LICENSE.txt``). Only the characters in
``renderer/glyphs.py`` are kept, so the committed files stay small.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from renderer.glyphs import CJK_TEXT, latin_codepoints  # noqa: E402

NOTO = Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")
NOTO_FACE = "Noto Serif CJK TC Bold"
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
LATIN_FONTS = {
    "DejaVuSans-Bold.ttf": "latin-bold.ttf",
    "DejaVuSans.ttf": "latin-regular.ttf",
    "DejaVuSansCondensed-Bold.ttf": "latin-condensed-bold.ttf",
}


def _options(latin: bool) -> subset.Options:
    options = subset.Options()
    # The CJK glyphs are drawn large on the tiles: no hinting or layout needed. The Latin
    # text is small: DejaVu's hinting keeps it crisp and its advances right, and kerning
    # keeps pairs like "Wa" and "Te" tidy (without them "th" and "ti" drift apart).
    options.layout_features = ["kern"] if latin else []
    options.hinting = latin
    options.desubroutinize = True
    options.glyph_names = False
    options.notdef_outline = True
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    return options


def _rename(font: TTFont, family: str) -> None:
    # The OFL asks modified versions not to pass as the original: name the subset plainly.
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4, 16):
            names.setName(family, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName(
                family.replace(" ", ""),
                record.nameID,
                record.platformID,
                record.platEncID,
                record.langID,
            )
        elif record.nameID in (3, 17, 18):
            names.removeNames(nameID=record.nameID)


def build_cjk(out: Path) -> None:
    collection = TTCollection(str(NOTO))
    font = next(f for f in collection.fonts if f["name"].getDebugName(4) == NOTO_FACE)
    subsetter = subset.Subsetter(_options(latin=False))
    subsetter.populate(text=CJK_TEXT)
    subsetter.subset(font)
    _rename(font, "Mahjong Bot Tile Glyphs")
    font.save(str(out))


def build_latin(src: Path, out: Path) -> None:
    font = TTFont(str(src))
    subsetter = subset.Subsetter(_options(latin=True))
    subsetter.populate(unicodes=sorted(latin_codepoints()))
    subsetter.subset(font)
    font.save(str(out))


#: The words of the shipped languages (issue 13.4): Noto Sans CJK (OFL 1.1), the Traditional
#: Chinese face (its forms are the ones zh-TW readers expect; Simplified characters are other
#: code points, which it has too).
NOTO_SANS = {
    "ui-cjk-regular.otf": (
        Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
        "Noto Sans CJK TC",
    ),
    "ui-cjk-bold.otf": (
        Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"),
        "Noto Sans CJK TC",
    ),
}


def ui_text() -> str:
    """Every character the shipped catalogues and tile names draw, with ASCII and Latin-1
    (a string with any Chinese in it is drawn whole in this face)."""
    from babel.messages.pofile import read_po

    from bot.i18n.catalogue import po_path
    from bot.i18n.locales import SHIPPED
    from bot.i18n.tiles import CHINESE

    chars = {chr(c) for c in range(0x20, 0x7F)} | {chr(c) for c in range(0xA0, 0x100)}
    chars |= set("，。：；（）「」、…·！？＋－→←−–—")  # the cards' arrows and dashes
    for locale in SHIPPED:
        with po_path(locale).open("rb") as f:
            for message in read_po(f):
                chars |= set(message.string or "")
    for names in CHINESE.values():
        for value in names.values():
            chars |= set("".join(value))
    return "".join(sorted(chars))


def build_ui(out: Path, source: Path, face: str) -> None:
    collection = TTCollection(str(source))
    font = next(f for f in collection.fonts if f["name"].getDebugName(4).startswith(face))
    options = _options(latin=False)
    options.layout_features = ["kern", "palt"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=ui_text())
    subsetter.subset(font)
    _rename(font, "Mahjong Bot UI CJK " + out.stem.rsplit("-", 1)[-1].capitalize())
    font.recalcTimestamp = False  # the same characters give the same bytes (no merge noise)
    font.save(str(out))
    # What the face holds, for renderer/fonts.py (Pillow cannot list a font's characters).
    held = sorted(chr(c) for c in font.getBestCmap() if c > 0xFF)
    (HERE / "ui-cjk.txt").write_text("".join(held) + "\n", encoding="utf-8")


def main() -> None:
    for out, (source, face) in NOTO_SANS.items():
        build_ui(HERE / out, source, face)
    if "--ui" in sys.argv:  # only the words' fonts (after a catalogue changed)
        return
    build_cjk(HERE / "tile-glyphs.otf")
    for src, out in LATIN_FONTS.items():
        build_latin(DEJAVU / src, HERE / out)
    for path in sorted(HERE.glob("*.[ot]tf")):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
