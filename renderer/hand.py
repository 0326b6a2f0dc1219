"""The private hand image sent in a DM: big tiles, sorted, the drawn tile set apart.

Discord shows an image at most some 400 px wide on a phone and 550 on a desktop, so a long
hand is laid on two rows, cut where one suit ends and the next begins, rather than on one
row of tiles too small to read. The concealed tiles run in suit order (characters, dots,
bamboo, winds, dragons), the drawn tile after a gap at the end; melds and flowers go on a
last row of smaller tiles. Tiles in ``marks`` (those whose discard leaves the hand ready,
as the caller works out) get a green bar and pointer underneath.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.rules.game.view import SeatView, TableView
from renderer import style
from renderer.fonts import BOLD, REGULAR, font
from renderer.layout import Frame, Scene, ellipsize
from renderer.rows import flow, line_height, meld_units, row_items
from renderer.tile_cache import depth, face_height

WIND_NAMES = ("East", "South", "West", "North")
TILE_W = 60
MELD_W = 46
MARGIN = 16
GAP = 18
HEADER = 40
MARK_SPACE = 18
ROW_GAP = 10
ONE_ROW_MAX = 9
MELD_ROW_MIN = 520


def own_seat(view: TableView, needed_by: str = "render_hand") -> SeatView:
    """The viewer's own seat, with its concealed tiles (what ``needed_by`` draws from)."""
    if view.viewer is None:
        raise ValueError(f"{needed_by} needs a view made for one seat (viewer is None)")
    for seat in view.seats:
        if seat.seat == view.viewer:
            if seat.concealed is None:
                raise ValueError(f"the view does not show seat {view.viewer}'s concealed tiles")
            return seat
    raise ValueError(f"seat {view.viewer} is not in the view")


def _suit(tile: int) -> int:
    return min(tile // 9, 3)


def split_rows(tiles: list[int], drawn: bool) -> tuple[list[int], list[int]]:
    """Cut a sorted hand in two rows of about equal length, at a change of suit when one is
    near the middle (the drawn tile, at the end of the second row, counts as one)."""
    total = len(tiles) + (1 if drawn else 0)
    if total <= ONE_ROW_MAX:
        return tiles, []
    half = total / 2
    cuts = [i for i in range(1, len(tiles)) if _suit(tiles[i]) != _suit(tiles[i - 1])]
    best = min(cuts, key=lambda i: (abs(i - half), -i), default=None)
    if best is None or abs(best - half) > 1.5:
        best = (total + 1) // 2
    return tiles[:best], tiles[best:]


def _mark(d: ImageDraw.ImageDraw, x: int, y: int, w: int) -> None:
    # A bar under the tile's side and a pointer beneath it: seen at a glance, and nothing
    # covers the face.
    d.rounded_rectangle((x + 4, y, x + w - 5, y + 4), radius=2, fill=style.MARK)
    cx = x + w / 2
    d.polygon([(cx - 8, y + 16), (cx + 8, y + 16), (cx, y + 7)], fill=style.MARK)


def compose_hand(view: TableView, *, marks: frozenset[int], western_index: bool) -> Image.Image:
    seat = own_seat(view)
    concealed = sorted(seat.concealed or ())
    drawn = seat.drawn
    first, second = split_rows(concealed, drawn is not None)
    rows = [first] + ([second] if second else [])
    w, h = TILE_W, face_height(TILE_W)
    drawn_row = len(rows) - 1
    lengths = [len(r) * w for r in rows]
    if drawn is not None:
        lengths[drawn_row] += GAP + w
    header = _header_text(view, seat)
    header_w = font(BOLD, 17).getlength(header)
    units = meld_units(seat.melds, seat.seat, seat.flowers, MELD_W, GAP * 0.7)
    # Melds and flowers wrap to the width the concealed rows set (a phone's width at most).
    room = max(*lengths, header_w, MELD_ROW_MIN)
    meld_lines = flow(units, room)
    width = int(max([room] + [length for _, length in meld_lines]) + 2 * MARGIN)

    row_step = h + depth(w) + MARK_SPACE + ROW_GAP
    top = HEADER + (16 if drawn is not None else 0)
    height = top + row_step * len(rows)
    meld_bases = []
    for items, _ in meld_lines:
        meld_bases.append(height + line_height(items))
        height = meld_bases[-1] + depth(MELD_W) + ROW_GAP
    height += MARGIN - ROW_GAP - (0 if meld_lines else 6)

    image = Image.new("RGB", (width, height), style.FELT)
    scene = Scene(image, index=western_index)
    d = scene.draw
    d.text(
        (MARGIN, 12),
        ellipsize(header, font(BOLD, 17), width - 2 * MARGIN),
        font=font(BOLD, 17),
        fill=style.TEXT,
    )
    for r, tiles in enumerate(rows):
        base = top + r * row_step + h
        frame = Frame(MARGIN, base, (1, 0), (0, -1), 0)
        items, u = row_items(tiles, w, 0)
        if r == drawn_row and drawn is not None:
            more, _ = row_items([drawn], w, u + GAP)
            items += more
            x = MARGIN + u + GAP + w / 2
            d.text(
                (x, base - h - 4), "drawn", font=font(REGULAR, 13), fill=style.TEXT_DIM, anchor="md"
            )
        for item in items:
            rect = scene.tile(frame, item)
            if item.tile in marks:
                _mark(d, rect[0], base + depth(w) + 2, w)
    for (items, _), base in zip(meld_lines, meld_bases, strict=True):
        frame = Frame(MARGIN, base, (1, 0), (0, -1), 0)
        for item in items:
            scene.tile(frame, item)
    scene.flush()
    return image


def _header_text(view: TableView, seat: SeatView) -> str:
    return (
        f"Your hand · {WIND_NAMES[seat.wind]} wind · {WIND_NAMES[view.round_wind % 4]} round"
        f" · {view.wall_remaining} left"
    )
