"""Stamped text and boxes are pixel for pixel what Pillow draws (renderer/stamps.py)."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw

from renderer import stamps, style
from renderer.fonts import BOLD, CJK, REGULAR, font

BACKGROUND = (16, 66, 48)


def _same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a, b).getbbox() is None


@pytest.mark.parametrize("anchor", [None, "la", "mm", "md", "ra", "lm", "rm"])
@pytest.mark.parametrize("xy", [(10, 12), (40.5, 30), (33.25, 17.75), (120, 44.5)])
def test_stamped_text_is_what_pillow_draws(anchor: str | None, xy: tuple[float, float]) -> None:
    for face, size, words, fill in (
        (BOLD, 21, "Alice's turn to play", style.TEXT),
        (REGULAR, 14, "13 tiles + 1", style.TEXT_DIM),
        (CJK, 17, "東", style.INK),
        (BOLD, 30, "84", style.GOLD),
    ):
        f = font(face, size)
        plain = Image.new("RGB", (240, 80), BACKGROUND)
        ImageDraw.Draw(plain).text(xy, words, font=f, fill=fill, anchor=anchor)
        # Twice: the second stamp comes from the kept mask.
        for _ in range(2):
            stamped = Image.new("RGB", (240, 80), BACKGROUND)
            stamps.text(ImageDraw.Draw(stamped), xy, words, f, fill, anchor)
            assert _same(plain, stamped), (words, xy, anchor)
        assert plain.getbbox() is not None  # something was drawn at all


def test_a_mask_kept_for_one_colour_is_not_reused_for_another() -> None:
    f = font(BOLD, 19)
    gold = Image.new("RGB", (200, 40), BACKGROUND)
    stamps.text(ImageDraw.Draw(gold), (4, 4), "to play", f, style.GOLD)
    white = Image.new("RGB", (200, 40), BACKGROUND)
    stamps.text(ImageDraw.Draw(white), (4, 4), "to play", f, style.TEXT)
    plain = Image.new("RGB", (200, 40), BACKGROUND)
    ImageDraw.Draw(plain).text((4, 4), "to play", font=f, fill=style.TEXT)
    assert _same(white, plain) and not _same(white, gold)


def test_several_lines_are_left_to_pillow() -> None:
    f = font(REGULAR, 14)
    plain = Image.new("RGB", (200, 60), BACKGROUND)
    ImageDraw.Draw(plain).text((4, 4), "one\ntwo", font=f, fill=style.TEXT)
    stamped = Image.new("RGB", (200, 60), BACKGROUND)
    stamps.text(ImageDraw.Draw(stamped), (4, 4), "one\ntwo", f, style.TEXT)
    assert _same(plain, stamped)


@pytest.mark.parametrize(("size", "radius", "width"), [((584, 188), 10, 4), ((300, 90), 6, 1)])
def test_stamped_boxes_are_what_pillow_draws(
    size: tuple[int, int], radius: int, width: int
) -> None:
    w, h = size
    plain = Image.new("RGB", size, style.FELT)
    ImageDraw.Draw(plain).rounded_rectangle(
        (0, 0, w - 1, h - 1), radius=radius, fill=style.SEAT_TURN, outline=style.GOLD, width=width
    )
    box = stamps.rounded_box(size, radius, style.SEAT_TURN, style.GOLD, width, style.FELT)
    assert _same(plain, box)

    # The mask paints the same pixels over anything beneath, the corners left alone.
    under = Image.new("RGB", (w + 20, h + 20), style.GOLD)
    ImageDraw.Draw(under).line((0, 0, w + 20, h + 20), fill=style.TEXT, width=5)
    plain = under.copy()
    ImageDraw.Draw(plain).rounded_rectangle(
        (10, 10, 10 + w - 1, 10 + h - 1), radius=radius, fill=style.FELT_DARK
    )
    stamped = under.copy()
    stamped.paste(style.FELT_DARK, (10, 10), stamps.rounded_mask(size, radius))
    assert _same(plain, stamped)
