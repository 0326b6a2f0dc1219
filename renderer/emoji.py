"""Tile emoji: each tile upright on a transparent 128 x 128 square, for Discord application
emojis (at most 128 x 128 and 256 KB), with a stable name per tile."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image

from renderer.encode import png_bytes
from renderer.tile_art import BACK, index_label
from renderer.tile_cache import depth, face_height, tile_sprite

EMOJI_SIZE = 128
# The largest face whose sprite (face and visible side) fits the square.
EMOJI_TILE_W = max(w for w in range(40, 100) if face_height(w) + depth(w) <= EMOJI_SIZE - 4)
ALL_EMOJI_TILES = (*range(42), BACK)


def emoji_name(tile: int) -> str:
    """``mj_`` and the tile's short name: ``mj_5d``, ``mj_E``, ``mj_Wh``, ``mj_F1``, and
    ``mj_back`` for a face-down tile. Letters, digits and underscores only, as Discord asks."""
    if tile == BACK:
        return "mj_back"
    if not 0 <= tile < 42:
        raise ValueError(f"not a tile: {tile}")
    if tile < 27:
        return f"mj_{index_label(tile)}{'cdb'[tile // 9]}"
    return f"mj_{index_label(tile)}"


@lru_cache(maxsize=64)
def _emoji_png(tile: int, western_index: bool) -> bytes:
    sprite = tile_sprite(tile, EMOJI_TILE_W, 0, western_index)
    square = Image.new("RGBA", (EMOJI_SIZE, EMOJI_SIZE), (0, 0, 0, 0))
    x = (EMOJI_SIZE - sprite.width) // 2
    y = (EMOJI_SIZE - sprite.height) // 2
    square.paste(sprite, (x, y), sprite)
    return png_bytes(square, palette=False, compress_level=9)


def render_tile_emoji(tile: int, *, western_index: bool = True) -> bytes:
    """The PNG of a tile's emoji (``BACK`` for the face-down tile)."""
    if tile != BACK and not 0 <= tile < 42:
        raise ValueError(f"not a tile: {tile}")
    return _emoji_png(tile, western_index)
