"""Finished tile sprites (face or back on a body with visible thickness), built once and cached.

A sprite is keyed by (tile, face width, rotation, index, dim). Rotation turns only the face;
the thickness always shows along the bottom edge, as if the whole table were seen from a
little south of overhead, so stacked and neighbouring tiles overlap like real ones when
pasted from top to bottom.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from renderer import style
from renderer.tile_art import BACK, SS, draw_back, draw_face

ROTATIONS = {
    0: None,
    90: Image.Transpose.ROTATE_90,
    180: Image.Transpose.ROTATE_180,
    270: Image.Transpose.ROTATE_270,
}


def face_height(width: int) -> int:
    """Tiles are about 3:4 (a real tile is some 26 x 35 mm)."""
    return round(width * 1.34)


def depth(width: int) -> int:
    """How much of the tile's side shows below its face."""
    return max(2, round(width * 0.2))


def footprint(width: int, rotation: int = 0) -> tuple[int, int]:
    """The face's size on the image (without the thickness) for a rotation."""
    h = face_height(width)
    return (h, width) if rotation in (90, 270) else (width, h)


@lru_cache(maxsize=64)
def _shade_mask(w: int, h: int) -> Image.Image:
    # Light from the top: full face colour at the top, shaded towards the bottom edge.
    return Image.linear_gradient("L").resize((w, h), Image.Resampling.BILINEAR)


@lru_cache(maxsize=4096)
def tile_sprite(
    tile: int, width: int, rotation: int = 0, index: bool = True, dim: bool = False
) -> Image.Image:
    """The RGBA sprite of a tile (``BACK`` for a face-down tile) whose face is ``width`` px
    wide when upright. Its size is ``footprint`` plus ``depth`` rows below."""
    w, h = width * SS, face_height(width) * SS
    r = w * 0.13
    face = draw_back(w, h) if tile == BACK else draw_face(tile, w, h, index)
    shaded = Image.blend(face, Image.new("RGBA", face.size, (60, 50, 20, 255)), 0.07)
    face = Image.composite(shaded, face, _shade_mask(w, h))
    transpose = ROTATIONS[rotation]
    if transpose is not None:
        face = face.transpose(transpose)
    fw, fh = face.size
    dp = depth(width) * SS
    sprite = Image.new("RGBA", (fw, fh + dp), (0, 0, 0, 0))
    d = ImageDraw.Draw(sprite)
    lower, upper = (style.BACK_DARK, style.IVORY_SIDE)
    if tile == BACK:
        lower, upper = (style.IVORY_EDGE, style.BACK_DARK)
    d.rounded_rectangle((0, dp, fw - 1, fh + dp - 1), radius=r, fill=lower)
    d.rounded_rectangle((0, dp * 0.45, fw - 1, fh + dp * 0.45 - 1), radius=r, fill=upper)
    mask = Image.new("L", (fw, fh), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, fw - 1, fh - 1), radius=r, fill=255)
    sprite.paste(face, (0, 0), mask)
    edge = style.BACK_DARK if tile == BACK else style.IVORY_EDGE
    d.rounded_rectangle((0, 0, fw - 1, fh - 1), radius=r, outline=edge, width=max(1, SS))
    out = sprite.resize((fw // SS, (fh + dp) // SS), Image.Resampling.LANCZOS)
    if dim:
        alpha = out.getchannel("A").point(lambda a: a * 45 // 100)
        out.putalpha(alpha)
    return out
