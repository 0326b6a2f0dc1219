"""The images draw every character of the shipped languages (the bundled CJK faces, built by
renderer/assets/build_font.py from the catalogues) and members' Chinese names (Debian's Noto
Sans CJK when installed; without it, a clean fallback: the name's other characters, else
"Seat N")."""

from __future__ import annotations

import gc
import io
from importlib import resources

import pytest
from babel.messages.pofile import read_po
from PIL import Image, ImageDraw, ImageFont

from bot.i18n import SHIPPED
from bot.i18n.catalogue import po_path
from bot.i18n.tiles import CHINESE
from renderer import fonts, render_seat_table, render_table
from renderer.fonts import UI_BOLD, UI_REGULAR, drawable, face_for, font, ui_chars
from renderer.samples import sample_table
from renderer.table import _name


def shipped_chars() -> set[str]:
    chars: set[str] = set()
    for locale in SHIPPED:
        with po_path(locale).open("rb") as f:
            for message in read_po(f):
                chars |= set(message.string or "")
    for names in CHINESE.values():
        for value in names.values():
            chars |= set("".join(value))
    # Emoji (the 🏠 of a house rule in /rules options) are in embeds only, never drawn.
    return {ch for ch in chars if 0xFF < ord(ch) < 0x1F000}


def ink(f, ch: str) -> bytes:  # type: ignore[no-untyped-def]
    image = Image.new("L", (40, 40))
    ImageDraw.Draw(image).text((4, 4), ch, font=f, fill=255)
    return image.tobytes()


def test_the_bundled_faces_hold_every_character_of_the_shipped_languages() -> None:
    missing = shipped_chars() - ui_chars()
    assert not missing, f"rebuild the fonts (build_font.py --ui): {''.join(sorted(missing))}"
    for name in (UI_BOLD, UI_REGULAR):
        f = font(name, 24)
        notdef = ink(f, "\ue000")  # a private-use point: no face has it
        blank = [ch for ch in sorted(shipped_chars()) if ink(f, ch) == notdef]
        assert not blank, (name, blank)
    root = resources.files("renderer") / "assets"
    assert (root / UI_BOLD).stat().st_size < 200_000


def test_chinese_words_are_drawn_in_the_cjk_face() -> None:
    text = "輪到你"
    assert drawable(text) == text
    assert face_for(fonts.BOLD, 19, text) is font(UI_BOLD, 19)
    assert face_for(fonts.BOLD, 19, "Your turn") is font(fonts.BOLD, 19)


def test_a_chinese_name_without_the_system_font_falls_back_cleanly(monkeypatch) -> None:
    monkeypatch.setattr(fonts, "system_cjk_available", lambda: False)
    monkeypatch.setattr(fonts, "_system_font", lambda ui, size: None)
    fonts.drawable.cache_clear()
    try:
        rare = "龘龘"  # in no catalogue
        assert drawable(rare) == "?"
        assert _name((rare,), 0, "zh-TW") == "座位 1"
        assert drawable("東南 bob") == "東南 bob"  # the bundled characters still draw
        png = render_table(sample_table(7), (rare, "bob", "王小明", "東南"), locale="zh-TW")
        assert Image.open(io.BytesIO(png)).size[0] == 600
    finally:
        fonts.drawable.cache_clear()


@pytest.mark.skipif(not fonts.system_cjk_available(), reason="fonts-noto-cjk not installed")
def test_a_chinese_name_draws_with_the_system_font() -> None:
    assert drawable("王小明 🀄") == "王小明 ?"
    assert _name(("王小明",), 0) == "王小明"
    f = face_for(fonts.BOLD, 17, "王小明")
    assert ink(f, "王") != ink(f, "\ue000")


def test_the_seat_picture_in_each_language() -> None:
    view = sample_table(7, viewer=0, turns=30)
    pictures = {
        locale: render_seat_table(view, ("王小明", "bob", "陳美玲", "Zoë"), locale=locale)
        for locale in ("zh-TW", "zh-CN", "en-US")
    }
    assert len(set(pictures.values())) == 3  # the words differ, nothing else


@pytest.mark.skipif(not fonts.system_cjk_available(), reason="fonts-noto-cjk not installed")
def test_the_score_card_draws_chinese_names() -> None:
    from renderer import render_score_card
    from renderer.samples import sample_scores

    view = sample_table(11)
    scores, payments = sample_scores(view, 0)

    def card(names: tuple[str, ...]) -> bytes:
        return render_score_card(view, names, scores, payments, winner=0, winning_tile=5)

    assert card(("王小明", "bob", "陳美玲", "Zoë")) != card(("?", "bob", "?", "Zoë"))


def test_a_face_let_go_takes_its_origin_with_it() -> None:
    """The bundled faces' origins are kept by the face, not by its id: a face the cache lets
    go takes its entry with it (the ids stayed for ever before, and a face made later at a
    freed address, a system CJK face, could be taken for a bundled one)."""
    before = len(fonts._ORIGIN)
    faces = [fonts.font(fonts.BOLD, size) for size in range(200, 264)]  # drawn by nothing
    assert len(fonts._ORIGIN) == before + 64
    assert fonts.origin(faces[0]) == (fonts.BOLD, 200)
    fonts.font.cache_clear()
    del faces
    gc.collect()
    assert len(fonts._ORIGIN) <= before
    others = [ImageFont.truetype(io.BytesIO(fonts._font_bytes(fonts.BOLD)), 12) for _ in range(64)]
    assert [fonts.origin(face) for face in others] == [None] * 64
    assert fonts.origin(fonts.font(fonts.BOLD, 12)) == (fonts.BOLD, 12)
