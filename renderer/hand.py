"""The private hand image sent in a DM: big tiles, sorted, the drawn tile set apart.

The concealed tiles come first in suit order (characters, dots, bamboo, winds, dragons),
the drawn tile after a gap; melds and flowers go on a second row so the first row stays
wide enough to read on a phone. Tiles in ``marks`` (those whose discard leaves the hand
ready, as the caller works out) get a green bar and pointer underneath.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.rules.game.view import SeatView, TableView
from renderer import style
from renderer.fonts import BOLD, REGULAR, font
from renderer.layout import Frame, Scene, ellipsize
from renderer.rows import melds_items, melds_length, row_height, row_items
from renderer.tile_cache import depth, face_height

WIND_NAMES = ("East", "South", "West", "North")
MARGIN = 16
GAP = 18
HEADER = 34
MARK_SPACE = 18
MAX_WIDTH = 1000


def _own_seat(view: TableView) -> SeatView:
    if view.viewer is None:
        raise ValueError("render_hand needs a view made for one seat (viewer is None)")
    for seat in view.seats:
        if seat.seat == view.viewer:
            if seat.concealed is None:
                raise ValueError(f"the view does not show seat {view.viewer}'s concealed tiles")
            return seat
    raise ValueError(f"seat {view.viewer} is not in the view")


def _width_for(tiles: int, gaps: int) -> int:
    """The biggest tile width (at most 60) for which a row fits the maximum image width."""
    room = MAX_WIDTH - 2 * MARGIN - gaps * GAP
    return max(30, min(60, room // max(tiles, 1)))


def _mark(d: ImageDraw.ImageDraw, x: int, y: int, w: int) -> None:
    # A bar under the tile's side and a pointer beneath it: visible at a glance, and it
    # does not cover any of the face.
    d.rounded_rectangle((x + 3, y, x + w - 4, y + 4), radius=2, fill=style.MARK)
    cx = x + w / 2
    d.polygon([(cx - 7, y + 15), (cx + 7, y + 15), (cx, y + 7)], fill=style.MARK)


def compose_hand(view: TableView, *, marks: frozenset[int], western_index: bool) -> Image.Image:
    seat = _own_seat(view)
    concealed = sorted(seat.concealed or ())
    n = len(concealed) + (1 if seat.drawn is not None else 0)
    w = _width_for(n, 1)
    h = face_height(w)
    row1 = len(concealed) * w + (GAP + w if seat.drawn is not None else 0)
    w2 = max(28, round(w * 0.78))
    second = bool(seat.melds or seat.flowers)
    row2 = melds_length(seat.melds, seat.seat, w2, GAP * 0.6)
    if seat.flowers:
        row2 += (GAP if seat.melds else 0) + len(seat.flowers) * w2
    width = int(max(row1, row2, 360) + 2 * MARGIN)
    y1 = HEADER + 18 + h
    height = y1 + depth(w) + MARK_SPACE
    if second:
        y2 = height + 10 + row_height(seat.melds, w2)
        height = y2 + depth(w2) + MARGIN
    else:
        height += MARGIN - 6
    image = Image.new("RGB", (width, height), style.FELT)
    scene = Scene(image, index=western_index)
    d = scene.draw
    _header(d, view, seat, width)

    frame = Frame(MARGIN, y1, (1, 0), (0, -1), 0)
    items, u = row_items(concealed, w, 0)
    if seat.drawn is not None:
        more, _ = row_items([seat.drawn], w, u + GAP)
        items += more
    for item in items:
        rect = scene.tile(frame, item)
        if item.tile in marks:
            _mark(d, rect[0], y1 + depth(w) + 1, w)
    if seat.drawn is not None:
        x = MARGIN + u + GAP
        d.text(
            (x + w / 2, HEADER + 4),
            "drawn",
            font=font(REGULAR, 12),
            fill=style.TEXT_DIM,
            anchor="mt",
        )
    if second:
        frame2 = Frame(MARGIN, y2, (1, 0), (0, -1), 0)
        placed, u2 = melds_items(seat.melds, seat.seat, w2, 0, GAP * 0.6)
        if seat.flowers:
            more, _ = row_items(seat.flowers, w2, u2 + (GAP if seat.melds else 0))
            placed += more
        for item in placed:
            scene.tile(frame2, item)
    scene.flush()
    return image


def _header(d: ImageDraw.ImageDraw, view: TableView, seat: SeatView, width: int) -> None:
    parts = [
        f"Your hand · {WIND_NAMES[seat.wind]} wind",
        f"{WIND_NAMES[view.round_wind % 4]} round",
        f"{view.wall_remaining} in the wall",
    ]
    f = font(BOLD, 16)
    d.text(
        (MARGIN, 10),
        ellipsize(" · ".join(parts), f, width - 2 * MARGIN - 60),
        font=f,
        fill=style.TEXT,
    )
