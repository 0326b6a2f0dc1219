"""Placing tiles and text: frames, a painter's-order scene, and text helpers.

A row of tiles is laid out in a frame: ``u`` runs along the row, ``v`` across it (up from the
row's base in the hand and the score card; down from the top-left corner on the tables). A
:class:`Frame` maps that onto the image, and the :class:`Scene` pastes sprites from the top
of the image down, so a tile's visible thickness is covered by the tile in front of it, as on
a real table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from renderer.fonts import drawable, face_for, font, like
from renderer.style import Color
from renderer.tile_cache import depth, face_height, tile_sprite

Rect = tuple[int, int, int, int]  # x, y, w, h on the image


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame: an origin on the image and the image directions of ``u`` and ``v``.

    ``rotation`` is how far (counter-clockwise, degrees) the tiles laid in it are turned
    (every picture lays them upright today: 0).
    """

    ox: float
    oy: float
    eu: tuple[int, int]
    ev: tuple[int, int]
    rotation: int

    def point(self, u: float, v: float) -> tuple[float, float]:
        return (
            self.ox + u * self.eu[0] + v * self.ev[0],
            self.oy + u * self.eu[1] + v * self.ev[1],
        )

    def rect(self, u: float, v: float, du: float, dv: float) -> Rect:
        x0, y0 = self.point(u, v)
        x1, y1 = self.point(u + du, v + dv)
        x, y = min(x0, x1), min(y0, y1)
        return (round(x), round(y), round(abs(x1 - x0)), round(abs(y1 - y0)))


@dataclass(slots=True)
class Placed:
    """A tile laid in a seat frame: ``u``, ``v`` is its corner nearest the frame's origin."""

    tile: int
    u: float
    v: float
    width: int
    sideways: bool = False
    dim: bool = False
    outline: Color | None = None

    @property
    def du(self) -> int:
        return face_height(self.width) if self.sideways else self.width

    @property
    def dv(self) -> int:
        return self.width if self.sideways else face_height(self.width)


@dataclass(slots=True)
class Scene:
    """An image under construction: sprites are queued and pasted in painter's order."""

    image: Image.Image
    index: bool = True
    _sprites: list[tuple[int, int, int, Image.Image]] = field(default_factory=list)
    _outlines: list[tuple[Rect, Color, int]] = field(default_factory=list)

    @property
    def draw(self) -> ImageDraw.ImageDraw:
        return ImageDraw.Draw(self.image)

    def sprite(self, sprite: Image.Image, x: int, y: int) -> None:
        self._sprites.append((y, x, len(self._sprites), sprite))

    def tile(self, frame: Frame, item: Placed) -> Rect:
        """Queue a tile laid in a frame; returns the rectangle of its face on the image."""
        rotation = (frame.rotation + (90 if item.sideways else 0)) % 360
        rect = frame.rect(item.u, item.v, item.du, item.dv)
        sprite = tile_sprite(item.tile, item.width, rotation, self.index, item.dim)
        self.sprite(sprite, rect[0], rect[1])
        if item.outline is not None:
            self.outline(rect, item.outline, item.width)
        return rect

    def outline(self, rect: Rect, color: Color, width: int) -> None:
        self._outlines.append((rect, color, width))

    def flush(self) -> None:
        for y, x, _, sprite in sorted(self._sprites, key=lambda s: s[:3]):
            self.image.paste(sprite, (x, y), sprite)
        self._sprites.clear()
        for rect, color, tile_w in self._outlines:
            draw_outline(self.image, rect, color, tile_w)
        self._outlines.clear()


def draw_outline(image: Image.Image, rect: Rect, color: Color | int, tile_w: int) -> None:
    """A tile's outline: around its face (``rect``) and its visible side, a little outside
    the tile, over whatever lies there. Stamped from a kept mask of the ring Pillow draws (one
    colour, no anti-aliasing: the same pixels wherever it goes), so on a palette image
    ``color`` may be the colour's index, and the pixels are those of the RGB picture mapped."""
    x, y, w, h = rect
    pad = max(2, tile_w // 12)
    image.paste(color, (x - pad, y - pad), _outline_mask(w, h, tile_w))  # type: ignore[arg-type]


@lru_cache(maxsize=64)
def _outline_mask(w: int, h: int, tile_w: int) -> Image.Image:
    pad = max(2, tile_w // 12)
    line = max(2, tile_w // 10)
    size = (w + 2 * pad, h + depth(tile_w) + 2 * pad)
    mask = Image.new("1", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle(
        (0, 0, size[0] - 1, size[1] - 1), radius=tile_w // 5, outline=1, width=line
    )
    return mask


# --- text -------------------------------------------------------------------------------


# Lines measured and cut kept (``ellipsize``, ``fit_lines``): the same names and words are
# fitted into the same room on picture after picture, and measuring them (FreeType's
# getlength, several times for a line cut by halving) was 4 % of a drawing process's time
# (py-spy, ``benchmarks/render_mix.py``'s mix), 1 % with these kept.
FITTED = 4096


@lru_cache(maxsize=FITTED)
def ellipsize(text: str, f: ImageFont.FreeTypeFont, max_width: float) -> str:
    """``text`` cut with an ellipsis to fit ``max_width`` pixels, measured in the face it is
    drawn with (``fonts.like(f, text)``: Chinese text is drawn in the CJK face)."""
    text = drawable(text)
    f = like(f, text)
    if f.getlength(text) <= max_width:
        return text
    # The longest prefix that fits with the ellipsis, found by halving (a long line would
    # otherwise measure itself once per character cut).
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if f.getlength(text[:mid] + "…") <= max_width:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + "…"


def wrap(text: str, f: ImageFont.FreeTypeFont, max_width: float, max_lines: int) -> list[str]:
    """Greedy word wrap into at most ``max_lines``; whatever does not fit is ellipsized."""
    words = drawable(text).split()
    lines: list[str] = []
    current = ""
    for i, word in enumerate(words):
        trial = f"{current} {word}".strip()
        if like(f, trial).getlength(trial) <= max_width or not current:
            current = trial
            continue
        lines.append(current)
        current = word
        if len(lines) == max_lines - 1:
            current = " ".join(words[i:])
            break
    if current:
        lines.append(current)
    return [ellipsize(line, f, max_width) for line in lines[:max_lines]]


@lru_cache(maxsize=FITTED)
def fit_lines(
    text: str, faces: tuple[tuple[str, int], ...], max_width: float, max_lines: int
) -> tuple[ImageFont.FreeTypeFont, tuple[str, ...]]:
    """The first of ``faces`` (font name, size) at which ``text`` wraps into the room
    without being cut; the last, cut with an ellipsis, if none does."""
    clean = " ".join(drawable(text).split())
    for name, size in faces:
        f = face_for(name, size, clean)
        lines = wrap(clean, font(name, size), max_width, max_lines)
        if " ".join(lines) == clean:
            return f, tuple(lines)
    return face_for(*faces[-1], clean), tuple(wrap(clean, font(*faces[-1]), max_width, max_lines))
