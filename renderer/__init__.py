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
from renderer.encode import framed_png, png_bytes
from renderer.hand import compose_hand
from renderer.score_card import compose_score_card
from renderer.table import compose_indexed, require_seat
from renderer.table_layout import hand_order
from renderer.tile_art import BACK


def render_table(
    view: TableView, names: Sequence[str], *, western_index: bool = True, locale: str = "en-US"
) -> bytes:
    """The table image for the channel (``view.viewer`` None) or for one seat (then the
    same as :func:`render_seat_table` without marks).

    ``names`` is indexed by physical seat. The seats run down the image in play order, from
    physical seat 0 on a public image; a viewer's image ends with the viewer and their hand.
    """
    return framed_png(compose_indexed(view, names, western_index=western_index, locale=locale))


def render_seat_table(
    view: TableView,
    names: Sequence[str],
    *,
    marks: frozenset[int] = frozenset(),
    western_index: bool = True,
    locale: str = "en-US",
    player: bool = True,
) -> bytes:
    """The table from one seat, for its DM: everyone's sets and discards, whose turn, the
    latest discard drawn large, and the viewer's own hand large at the bottom in
    :func:`hand_order` with the drawn tile apart. Its size and the hand's places stay the same
    all hand long. ``marks`` are tiles of the hand to point out (hints). ``player`` False
    draws the seat for someone else watching it (a replay): its plate and the header name
    the seat's player instead of "You" / "Your turn". Raises ValueError for a public view."""
    require_seat(view)
    return framed_png(
        compose_indexed(
            view,
            names,
            marks=frozenset(marks),
            western_index=western_index,
            locale=locale,
            player=player,
        )
    )


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
    title: str | None = None,
    locale: str = "en-US",
) -> bytes:
    """All hands laid open with their itemised scores and the payments.

    ``scores`` and ``names`` are indexed by physical seat; ``payments`` and ``winner`` name
    physical seats (None: nobody won). ``title`` replaces the heading ("Mah-Jongg! ... wins",
    or "Hand over: nobody won"): a drawn hand, washing, a hand scored alone. ``locale``: the
    language of the card's words and score lines.
    """
    image = compose_score_card(
        view,
        names,
        scores,
        payments,
        winner=winner,
        winning_tile=winning_tile,
        title=title,
        locale=locale,
    )
    return png_bytes(image)


__all__ = [
    "ALL_EMOJI_TILES",
    "BACK",
    "emoji_name",
    "hand_order",
    "render_hand",
    "render_score_card",
    "render_seat_table",
    "render_table",
    "render_tile_emoji",
]
