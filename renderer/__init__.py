"""Images of the game: tiles, the table, a player's hand, the score card and tile emoji.

Every function is pure: it takes the engine's views and returns PNG bytes, reading nothing
but the fonts bundled in ``renderer/assets``. Tile ints are those of ``bot.rules.tiles``;
``BACK`` (-1) stands for a face-down tile where one is accepted.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.rules.game.view import TableView
from bot.rules.score import Payment, Score
from renderer.emoji import ALL_EMOJI_TILES, emoji_name, render_tile_emoji
from renderer.encode import png_bytes
from renderer.hand import compose_hand
from renderer.score_card import compose_score_card
from renderer.table import compose_table
from renderer.tile_art import BACK


def render_table(view: TableView, names: Sequence[str], *, western_index: bool = True) -> bytes:
    """The table image for the channel (``view.viewer`` None) or for one seat.

    ``names`` is indexed by physical seat. Physical seat 0 sits at the bottom of a public
    image; a viewer's image puts the viewer at the bottom.
    """
    return png_bytes(compose_table(view, names, western_index=western_index))


def render_hand(
    view: TableView, *, marks: frozenset[int] = frozenset(), western_index: bool = True
) -> bytes:
    """The viewer's own hand, for a DM; ``marks`` are tiles to point out (for example those
    whose discard leaves the hand ready). Raises ValueError for a public view."""
    return png_bytes(compose_hand(view, marks=frozenset(marks), western_index=western_index))


def render_score_card(
    view: TableView,
    names: Sequence[str],
    scores: Sequence[Score | None],
    payments: Sequence[Payment],
    *,
    winner: int | None,
    winning_tile: int | None,
) -> bytes:
    """All hands laid open with their itemised scores and the payments.

    ``scores`` and ``names`` are indexed by physical seat; ``payments`` and ``winner`` name
    physical seats (None: a drawn hand).
    """
    image = compose_score_card(
        view, names, scores, payments, winner=winner, winning_tile=winning_tile
    )
    return png_bytes(image)


__all__ = [
    "ALL_EMOJI_TILES",
    "BACK",
    "emoji_name",
    "render_hand",
    "render_score_card",
    "render_table",
    "render_tile_emoji",
]
