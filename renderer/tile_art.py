"""The art of one tile face, drawn by hand-written geometry at a large scale.

Everything is drawn at ``SS`` times the requested size and shrunk with LANCZOS, so the dots,
sticks and glyph edges come out smooth at any size. Positions are given in units of the
art box (0..1 across and down), so one description serves every size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image, ImageDraw

from renderer import style
from renderer.fonts import CJK, CONDENSED, font
from renderer.glyphs import (
    DRAGON_GLYPHS,
    FLOWER_GLYPHS,
    NUMERALS,
    SEASON_GLYPHS,
    WAN,
    WIND_GLYPHS,
)
from renderer.style import Color

SS = 4
BACK = -1

Point = tuple[float, float]


class Box:
    """A rectangle in supersampled pixels with a unit-coordinate mapping."""

    def __init__(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1

    @property
    def w(self) -> float:
        return self.x1 - self.x0

    @property
    def h(self) -> float:
        return self.y1 - self.y0

    def at(self, u: float, v: float) -> Point:
        return (self.x0 + u * self.w, self.y0 + v * self.h)

    def sub(self, u0: float, v0: float, u1: float, v1: float) -> Box:
        x0, y0 = self.at(u0, v0)
        x1, y1 = self.at(u1, v1)
        return Box(x0, y0, x1, y1)


def _ellipse(cx: float, cy: float, rx: float, ry: float, angle: float = 0.0, n: int = 40):
    ca, sa = math.cos(angle), math.sin(angle)
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        x, y = rx * math.cos(t), ry * math.sin(t)
        pts.append((cx + x * ca - y * sa, cy + x * sa + y * ca))
    return pts


def _place(points: Sequence[Point], cx: float, cy: float, angle: float) -> list[Point]:
    ca, sa = math.cos(angle), math.sin(angle)
    return [(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in points]


def _circle(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color) -> None:
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)


# --- dots -------------------------------------------------------------------------------

B, G, R = style.BLUE, style.GREEN, style.RED

DOT_LAYOUTS: dict[int, tuple[float, list[tuple[float, float, Color]]]] = {
    2: (0.27, [(0.5, 0.25, G), (0.5, 0.75, B)]),
    3: (0.21, [(0.22, 0.16, B), (0.5, 0.5, R), (0.78, 0.84, G)]),
    4: (0.22, [(0.27, 0.25, B), (0.73, 0.25, G), (0.27, 0.75, G), (0.73, 0.75, B)]),
    5: (
        0.2,
        [(0.23, 0.19, B), (0.77, 0.19, G), (0.5, 0.5, R), (0.23, 0.81, G), (0.77, 0.81, B)],
    ),
    6: (
        0.19,
        [(0.28, 0.15, G), (0.72, 0.15, G)]
        + [(u, v, R) for v in (0.56, 0.85) for u in (0.28, 0.72)],
    ),
    7: (
        0.16,
        [(0.19, 0.09, G), (0.5, 0.2, G), (0.81, 0.31, G)]
        + [(u, v, R) for v in (0.61, 0.89) for u in (0.3, 0.7)],
    ),
    8: (0.165, [(u, v, B) for v in (0.11, 0.37, 0.63, 0.89) for u in (0.28, 0.72)]),
    9: (
        0.155,
        [(u, v, c) for v, c in ((0.14, B), (0.5, R), (0.86, G)) for u in (0.18, 0.5, 0.82)],
    ),
}


def _dot(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, color: Color) -> None:
    # A ringed circle: coloured rim, ivory gap, coloured core with a small ivory flower.
    _circle(d, cx, cy, r, color)
    _circle(d, cx, cy, r * 0.8, style.IVORY)
    _circle(d, cx, cy, r * 0.64, color)
    petal = r * 0.13
    for i in range(8):
        a = i * math.pi / 4
        _circle(d, cx + math.cos(a) * r * 0.36, cy + math.sin(a) * r * 0.36, petal, style.IVORY)
    _circle(d, cx, cy, r * 0.16, style.IVORY)


def _one_dot(d: ImageDraw.ImageDraw, box: Box) -> None:
    cx, cy = box.at(0.5, 0.5)
    r = min(box.w, box.h) * 0.5
    _circle(d, cx, cy, r, G)
    _circle(d, cx, cy, r * 0.9, style.IVORY)
    for i in range(16):
        a = i * math.pi / 8
        _circle(d, cx + math.cos(a) * r * 0.82, cy + math.sin(a) * r * 0.82, r * 0.075, G)
    _circle(d, cx, cy, r * 0.7, B)
    _circle(d, cx, cy, r * 0.62, style.IVORY)
    for i in range(12):
        a = i * math.pi / 6 + math.pi / 12
        d.polygon(
            _ellipse(cx + math.cos(a) * r * 0.4, cy + math.sin(a) * r * 0.4, r * 0.19, r * 0.08, a),
            fill=R,
        )
    _circle(d, cx, cy, r * 0.25, R)
    _circle(d, cx, cy, r * 0.17, style.IVORY)
    _circle(d, cx, cy, r * 0.1, G)


def _dots(d: ImageDraw.ImageDraw, box: Box, n: int) -> None:
    if n == 1:
        _one_dot(d, box)
        return
    rr, spots = DOT_LAYOUTS[n]
    r = rr * box.w
    for u, v, color in spots:
        x, y = box.at(u, v)
        _dot(d, x, y, r, color)


# --- bamboo -----------------------------------------------------------------------------

SG, SB, SR = style.STICK_GREEN, style.STICK_BLUE, style.STICK_RED
Stick = tuple[float, float, float, float, tuple[Color, Color, Color]]  # u, v, length, angle

_TILT = math.radians(24)
BAMBOO_LAYOUTS: dict[int, list[Stick]] = {
    2: [(0.5, 0.26, 0.44, 0, SB), (0.5, 0.74, 0.44, 0, SG)],
    3: [(0.5, 0.26, 0.44, 0, SB), (0.3, 0.74, 0.44, 0, SG), (0.7, 0.74, 0.44, 0, SG)],
    4: [
        (0.3, 0.26, 0.44, 0, SB),
        (0.7, 0.26, 0.44, 0, SG),
        (0.3, 0.74, 0.44, 0, SG),
        (0.7, 0.74, 0.44, 0, SB),
    ],
    5: [
        (0.2, 0.26, 0.44, 0, SG),
        (0.8, 0.26, 0.44, 0, SB),
        (0.5, 0.5, 0.44, 0, SR),
        (0.2, 0.74, 0.44, 0, SB),
        (0.8, 0.74, 0.44, 0, SG),
    ],
    6: [(u, 0.26, 0.44, 0, SG) for u in (0.18, 0.5, 0.82)]
    + [(u, 0.74, 0.44, 0, SB) for u in (0.18, 0.5, 0.82)],
    7: [(0.5, 0.17, 0.29, 0, SR)]
    + [(u, v, 0.29, 0, SG) for v in (0.5, 0.83) for u in (0.18, 0.5, 0.82)],
    8: [
        (0.12, 0.26, 0.44, 0, SG),
        (0.37, 0.26, 0.44, _TILT, SB),
        (0.63, 0.26, 0.44, -_TILT, SB),
        (0.88, 0.26, 0.44, 0, SG),
        (0.12, 0.74, 0.44, 0, SG),
        (0.37, 0.74, 0.44, -_TILT, SB),
        (0.63, 0.74, 0.44, _TILT, SB),
        (0.88, 0.74, 0.44, 0, SG),
    ],
    9: [
        (u, v, 0.29, 0, c)
        for v in (0.17, 0.5, 0.83)
        for u, c in ((0.18, SB), (0.5, SR), (0.82, SG))
    ],
}


def _stick(
    d: ImageDraw.ImageDraw,
    cx: float,
    cy: float,
    length: float,
    width: float,
    angle: float,
    colors: tuple[Color, Color, Color],
) -> None:
    # Two segments, each waisted between its joints, with a darker node at each joint and
    # a light stripe down one side, as the carved sticks of real sets.
    body, dark, light = colors
    half, w = length / 2, width / 2
    for sign in (-1, 1):
        a, b = (0.0, half) if sign > 0 else (-half, 0.0)
        mid = (a + b) / 2
        outline = [(-w, a), (-w * 0.78, mid), (-w, b), (w, b), (w * 0.78, mid), (w, a)]
        d.polygon(_place(outline, cx, cy, angle), fill=body)
        stripe = [(-w * 0.45, a + w * 0.5), (-w * 0.25, a + w * 0.5)]
        stripe += [(-w * 0.25, b - w * 0.5), (-w * 0.45, b - w * 0.5)]
        d.polygon(_place(stripe, cx, cy, angle), fill=light)
    for y in (-half, 0.0, half):
        jx, jy = _place([(0.0, y)], cx, cy, angle)[0]
        d.polygon(_ellipse(jx, jy, w * 1.12, w * 0.36, angle), fill=dark)


def _bamboo(d: ImageDraw.ImageDraw, box: Box, n: int) -> None:
    if n == 1:
        _bird(d, box)
        return
    width = box.w * {2: 0.22, 3: 0.22, 4: 0.22, 5: 0.19, 8: 0.15}.get(n, 0.18)
    for u, v, length, angle, colors in BAMBOO_LAYOUTS[n]:
        x, y = box.at(u, v)
        _stick(d, x, y, length * box.h, width, angle, colors)


def _bird(d: ImageDraw.ImageDraw, box: Box) -> None:
    # A peacock on a bamboo stem: fanned tail, green body, red crest, yellow beak.
    # Scaled so the fanned tail stays on the face; centred a little right to balance it.
    s = min(box.w, box.h / 1.3) * 0.86
    ox, oy = box.at(0.5, 0.5)
    ox += s * 0.06

    def p(x: float, y: float) -> Point:
        return (ox + x * s, oy + y * s)

    # the stem the bird stands on
    _stick(d, *p(0.02, 0.52), s * 0.95, s * 0.12, math.pi / 2, style.STICK_GREEN)
    # tail feathers fanned up and to the left
    for i, (angle, color) in enumerate(((-2.55, B), (-2.2, G), (-1.85, B), (-1.55, G), (-2.85, G))):
        length = 0.5 if i < 4 else 0.4
        bx, by = -0.14, 0.08
        tx, ty = bx + math.cos(angle) * length, by + math.sin(angle) * length
        cx, cy = (bx + tx) / 2, (by + ty) / 2
        d.polygon(_ellipse(*p(cx, cy), s * length * 0.5, s * 0.075, angle), fill=color)
        _circle(d, *p(tx, ty), s * 0.075, style.RED)
        _circle(d, *p(tx, ty), s * 0.038, style.IVORY)
    # legs
    for lx in (-0.02, 0.1):
        d.line([p(lx, 0.22), p(lx + 0.02, 0.48)], fill=style.RED, width=max(1, int(s * 0.035)))
        d.line([p(lx - 0.04, 0.5), p(lx + 0.08, 0.48)], fill=style.RED, width=max(1, int(s * 0.03)))
    # body, breast and wing
    d.polygon(_ellipse(*p(0.03, 0.08), s * 0.26, s * 0.17, -0.5), fill=G)
    d.polygon(_ellipse(*p(0.13, 0.05), s * 0.13, s * 0.12, -0.4), fill=style.RED)
    d.polygon(_ellipse(*p(-0.03, 0.09), s * 0.17, s * 0.085, -0.35), fill=B)
    d.polygon(_ellipse(*p(-0.05, 0.1), s * 0.1, s * 0.03, -0.35), fill=(120, 160, 220))
    # neck and head
    d.polygon(_ellipse(*p(0.19, -0.1), s * 0.06, s * 0.14, 0.35), fill=G)
    _circle(d, *p(0.24, -0.24), s * 0.09, G)
    d.polygon([p(0.31, -0.27), p(0.43, -0.22), p(0.31, -0.19)], fill=style.GOLD)
    _circle(d, *p(0.26, -0.26), s * 0.032, style.IVORY)
    _circle(d, *p(0.265, -0.26), s * 0.017, style.INK)
    for i, a in enumerate((-2.2, -1.8, -1.4)):
        tip = p(0.22 + math.cos(a) * 0.16, -0.3 + math.sin(a) * 0.16)
        d.line([p(0.22, -0.3), tip], fill=style.RED, width=max(1, int(s * 0.022)))
        _circle(d, *tip, s * (0.03 if i == 1 else 0.025), style.RED)


# --- glyphs -----------------------------------------------------------------------------


@lru_cache(maxsize=512)
def _fit_size(chars: str, box_w: int, box_h: int) -> int:
    """The font size at which the largest of ``chars`` just fits a box (one size per group,
    so 一 is not blown up to the height of 萬)."""
    probe = font(CJK, 200)
    w = h = 1
    for ch in chars:
        x0, y0, x1, y1 = probe.getbbox(ch)
        w, h = max(w, x1 - x0), max(h, y1 - y0)
    return max(4, int(200 * min(box_w / w, box_h / h)))


def _glyph(
    d: ImageDraw.ImageDraw, ch: str, box: Box, color: Color, group: str, stroke: float = 0.0
) -> None:
    size = _fit_size(group, int(box.w), int(box.h))
    f = font(CJK, size)
    x0, y0, x1, y1 = f.getbbox(ch)
    cx, cy = box.at(0.5, 0.5)
    # Small tiles lose thin strokes in the downsampling: embolden the glyphs a little there.
    # Many-stroked glyphs (萬, 蘭) would clog: they get less.
    small = max(0.0, min(0.02, (40 - box.w / SS) * 0.001))
    if group in (WAN, FLOWER_GLYPHS, SEASON_GLYPHS):
        small *= 0.3
    sw = round(size * (stroke + small))
    d.text(
        (cx - (x0 + x1) / 2, cy - (y0 + y1) / 2),
        ch,
        font=f,
        fill=color,
        stroke_width=sw,
        stroke_fill=color,
    )


def _characters(d: ImageDraw.ImageDraw, box: Box, n: int) -> None:
    _glyph(d, NUMERALS[n - 1], box.sub(0.02, 0.0, 0.98, 0.42), style.NUMERAL, NUMERALS, 0.02)
    _glyph(d, WAN, box.sub(0.0, 0.47, 1.0, 1.0), style.RED, WAN, 0.01)


def _white_dragon(d: ImageDraw.ImageDraw, box: Box) -> None:
    inner = box.sub(0.08, 0.06, 0.92, 0.94)
    t = box.w * 0.09
    d.rounded_rectangle(
        (inner.x0, inner.y0, inner.x1, inner.y1), radius=t, outline=style.BLUE, width=int(t)
    )
    gap = t * 1.9
    d.rounded_rectangle(
        (inner.x0 + gap, inner.y0 + gap, inner.x1 - gap, inner.y1 - gap),
        radius=t * 0.5,
        outline=style.BLUE,
        width=max(1, int(t * 0.35)),
    )


def _bonus(d: ImageDraw.ImageDraw, box: Box, tile: int) -> None:
    season = tile >= 38
    k = (tile - 34) % 4
    color = (style.SEASON_COLORS if season else style.FLOWER_COLORS)[k]
    glyphs = SEASON_GLYPHS if season else FLOWER_GLYPHS
    frame = box.sub(0.0, 0.0, 1.0, 1.0)
    t = box.w * 0.035
    d.rounded_rectangle(
        (frame.x0, frame.y0, frame.x1, frame.y1), radius=t * 3, outline=color, width=int(t) or 1
    )
    _glyph(d, NUMERALS[k], box.sub(0.6, 0.04, 0.94, 0.26), color, NUMERALS[:4], 0.0)
    _glyph(d, glyphs[k], box.sub(0.08, 0.3, 0.92, 0.94), color, glyphs, 0.015)


# --- the face ---------------------------------------------------------------------------


def index_label(tile: int) -> str:
    """The Western index: the number of a suit tile, else the letter(s) of ``short_name``."""
    if tile < 27:
        return str(tile % 9 + 1)
    if tile < 31:
        return "ESWN"[tile - 27]
    if tile < 34:
        return ("Wh", "G", "R")[tile - 31]
    return f"F{tile - 33}" if tile < 38 else f"S{tile - 37}"


def index_color(tile: int) -> Color:
    if tile < 9:
        return style.RED
    if tile < 18:
        return style.BLUE
    if tile < 27:
        return style.GREEN
    if tile < 31:
        return style.INK
    if tile < 34:
        return (style.BLUE, style.GREEN, style.RED)[tile - 31]
    return (style.SEASON_COLORS if tile >= 38 else style.FLOWER_COLORS)[(tile - 34) % 4]


def _draw_index(d: ImageDraw.ImageDraw, tile: int, w: int, h: int) -> float:
    size = int(w * 0.3)
    f = font(CONDENSED, size)
    text = index_label(tile)
    x, y = w * 0.07, h * 0.035
    x0, y0, _x1, y1 = f.getbbox(text)
    d.text(
        (x - x0, y - y0),
        text,
        font=f,
        fill=index_color(tile),
        stroke_width=max(1, size // 9),
        stroke_fill=style.IVORY,
    )
    return y + (y1 - y0)


def _art_box(tile: int, w: int, h: int, index: bool) -> Box:
    mx, my = w * 0.1, h * 0.075
    box = Box(mx, my, w - mx, h - my)
    if not index:
        return box
    # Leave the top-left corner to the index: suit art moves down a little, and the
    # honour and bonus glyphs shrink a little, rather than run under the label.
    if tile < 27:
        return Box(mx, h * 0.19, w - mx, h - my * 0.8)
    if tile >= 34:
        return Box(mx, h * 0.23, w - mx, h - my * 0.8)
    return Box(mx + w * 0.1, h * 0.2, w - mx, h - my * 0.8)


def draw_face(tile: int, w: int, h: int, index: bool) -> Image.Image:
    """The ivory face of a tile, ``w`` x ``h`` supersampled pixels, RGBA, square corners
    (the caller masks the corners)."""
    im = Image.new("RGBA", (w, h), (*style.IVORY, 255))
    d = ImageDraw.Draw(im)
    box = _art_box(tile, w, h, index)
    if tile < 9:
        _characters(d, box, tile + 1)
    elif tile < 18:
        _dots(d, box, tile - 8)
    elif tile < 27:
        _bamboo(d, box, tile - 17)
    elif tile < 31:
        _glyph(d, WIND_GLYPHS[tile - 27], box.sub(0.0, 0.05, 1.0, 0.95), style.INK, WIND_GLYPHS)
    elif tile == 31:
        _white_dragon(d, box)
    elif tile < 34:
        color = style.GREEN if tile == 32 else style.RED
        _glyph(d, DRAGON_GLYPHS[33 - tile], box.sub(0.0, 0.05, 1.0, 0.95), color, DRAGON_GLYPHS)
    else:
        _bonus(d, box, tile)
    if index:
        _draw_index(d, tile, w, h)
    return im


def draw_back(w: int, h: int) -> Image.Image:
    """The jade back of a tile, with a faint inset panel."""
    im = Image.new("RGBA", (w, h), (*style.BACK, 255))
    d = ImageDraw.Draw(im)
    inset = w * 0.14
    d.rounded_rectangle(
        (inset, inset, w - inset, h - inset),
        radius=w * 0.08,
        outline=style.BACK_LIGHT,
        width=max(1, int(w * 0.025)),
    )
    return im
