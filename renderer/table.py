"""The table image posted in the channel: four sides around a middle showing the wall.

Layout (a square, the same shape for every seat turned a quarter each time): along each
edge runs a seat's band (its name plate in the player's left-hand corner, then the concealed
tiles, then the melds and flowers at the far end); inside it the seat's discards in rows of
six in play order, the first row nearest the middle; in the middle the wall as a ring of
stacks (the dead wall darker), the round wind and the count of tiles left.

Physical seat 0 sits at the bottom of the public image, so everyone finds their place in
the same spot all evening; an image made for one viewer puts that viewer at the bottom.
Seats follow counter-clockwise: seat 1 on the right, 2 at the top, 3 on the left.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.rules.game.view import SeatView, TableView
from renderer import style
from renderer.fonts import BOLD, CJK, CONDENSED, REGULAR, font
from renderer.glyphs import WIND_GLYPHS
from renderer.layout import Frame, Placed, Scene, ellipsize, fit_lines
from renderer.rows import concealed_tiles, melds_items, melds_length, row_items
from renderer.tile_cache import depth, face_height

EMPTY_PLACE = (28, 74, 58)
DEAD_WALL = (70, 104, 92)
WIND_NAMES = ("East", "South", "West", "North")

HAND_W = 32
DISCARD_W = 40
DISCARD_STEPS = (43, 46)
BAND = 110
GROUP_GAP = 10
MARGIN = 10
HEADER = 66
NAME_FACES = ((BOLD, 15), (BOLD, 14), (CONDENSED, 14), (CONDENSED, 13), (CONDENSED, 12))


@dataclass(frozen=True, slots=True)
class Geometry:
    size: int
    cols: int
    rows: int
    box: int
    hand_w: int
    discard_w: int

    @property
    def pitch(self) -> int:
        return face_height(self.discard_w) + 3

    @property
    def discard_inner(self) -> float:
        """The ``v`` at which the first discard row ends, just outside the middle box."""
        return (self.size - self.box) / 2 - 10


def _side_of(seat: int, bottom: int) -> int:
    return (seat - bottom) % 4


def _seat_map(view: TableView) -> dict[int, SeatView]:
    return {s.seat: s for s in view.seats}


def _row_need(seat: SeatView, hand_w: int) -> float:
    tiles, drawn = concealed_tiles(seat)
    need = len(tiles) * hand_w + (GROUP_GAP + hand_w if drawn is not None else 0)
    if seat.melds:
        need += 2 * GROUP_GAP + melds_length(seat.melds, seat.seat, hand_w, GROUP_GAP)
    if seat.flowers:
        need += GROUP_GAP + len(seat.flowers) * hand_w
    return need


def _geometry(view: TableView, seats: dict[int, SeatView], bottom: int) -> Geometry:
    sides_used = {_side_of(s.seat, bottom) for s in seats.values() if s.occupied}
    cols = 12 if sides_used and sides_used <= {0, 2} else 6
    most = max((len(s.discards) for s in seats.values()), default=0)
    rows = max(3, math.ceil(most / cols))

    def size_center(dw: int) -> int:
        return 2 * (BAND + 12 + rows * (face_height(dw) + 3) + 10) + 6 * dw

    # Room along each band for a full hand with its drawn tile, a few kongs and flowers, so
    # the image keeps its size from one turn to the next.
    full = max((s.concealed_count + 3 * len(s.melds) for s in seats.values()), default=13)
    row_floor = (max(full, 13) + 6) * HAND_W + 4 * GROUP_GAP
    need = max((_row_need(s, HAND_W) for s in seats.values()), default=0)
    size_rows = 2 * BAND + max(row_floor, need) + 2 * MARGIN
    dw = DISCARD_W
    size = int(max(size_center(dw), size_rows))
    # When the hands set the size, the discards grow into the room they leave (in a few
    # steps, so that few sizes of sprite are ever built and cached).
    for wider in DISCARD_STEPS:
        if size_center(wider) <= size:
            dw = wider
    return Geometry(size, cols, rows, 6 * dw, HAND_W, dw)


def _draw_band(scene: Scene, frame: Frame, seat: SeatView, geo: Geometry) -> None:
    w = geo.hand_w
    base = max(depth(w), 8) + 4
    u = BAND + MARGIN
    tiles, drawn = concealed_tiles(seat)
    items, u = row_items(tiles, w, u)
    if drawn is not None:
        more, u = row_items([drawn], w, u + GROUP_GAP)
        items += more
    end = geo.size - BAND - MARGIN
    tail = 0.0
    if seat.melds:
        tail += melds_length(seat.melds, seat.seat, w, GROUP_GAP)
    if seat.flowers:
        tail += (GROUP_GAP if seat.melds else 0) + len(seat.flowers) * w
    start = max(u + 2 * GROUP_GAP, end - tail)
    if seat.melds:
        more, start = melds_items(seat.melds, seat.seat, w, start, GROUP_GAP)
        items += more
        start += GROUP_GAP
    if seat.flowers:
        more, _ = row_items(seat.flowers, w, start)
        items += more
    for item in items:
        item.v += base
        scene.tile(frame, item)


def _draw_discards(scene: Scene, frame: Frame, seat: SeatView, geo: Geometry, latest: bool) -> None:
    cols = geo.cols
    dw = geo.discard_w
    left = (geo.size - cols * dw) / 2
    for i, tile in enumerate(seat.discards):
        row, col = divmod(i, cols)
        v = geo.discard_inner - (row + 1) * geo.pitch
        is_latest = latest and i == len(seat.discards) - 1
        item = Placed(
            tile,
            left + col * dw,
            v,
            dw,
            dim=i in seat.claimed,
            outline=style.HIGHLIGHT if is_latest else None,
        )
        scene.tile(frame, item)


def _corner_rect(frame: Frame) -> tuple[int, int, int, int]:
    x, y, w, h = frame.rect(0, 0, BAND, BAND)
    return (x, y, x + w, y + h)


def _wind_badge(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, wind: int) -> None:
    fill = style.RED if wind == 0 else (236, 228, 204)
    ink = style.IVORY if wind == 0 else style.INK
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=style.GOLD, width=2)
    f = font(CJK, int(r * 1.25))
    d.text((cx, cy + 1), WIND_GLYPHS[wind], font=f, fill=ink, anchor="mm")


def _draw_plate(
    d: ImageDraw.ImageDraw, frame: Frame, seat: SeatView | None, name: str, turn: bool
) -> None:
    x0, y0, x1, y1 = _corner_rect(frame)
    x0, y0, x1, y1 = x0 + 5, y0 + 5, x1 - 5, y1 - 5
    if seat is None or not seat.occupied:
        d.rounded_rectangle((x0, y0, x1, y1), radius=10, outline=style.FELT_LINE, width=2)
        d.text(
            ((x0 + x1) / 2, (y0 + y1) / 2),
            "empty",
            font=font(REGULAR, 14),
            fill=style.TEXT_DIM,
            anchor="mm",
        )
        return
    d.rounded_rectangle(
        (x0, y0, x1, y1),
        radius=10,
        fill=style.PANEL,
        outline=style.GOLD if turn else style.FELT_LINE,
        width=4 if turn else 2,
    )
    r = 17
    _wind_badge(d, x0 + 8 + r, y0 + 8 + r, r, seat.wind)
    tx = x0 + 8 + 2 * r + 6
    d.text(
        (tx, y0 + 10),
        WIND_NAMES[seat.wind],
        font=font(BOLD, 13),
        fill=style.GOLD if seat.wind == 0 else style.TEXT_DIM,
    )
    if seat.wind == 0:
        d.text((tx, y0 + 26), "dealer", font=font(REGULAR, 11), fill=style.TEXT_DIM)
    net = getattr(seat, "net", 0)
    tags = []
    if net:
        tags.append((f"{net:+d}", style.MARK if net > 0 else style.WIN))
    if getattr(seat, "riichi", False):
        tags.append(("riichi", style.GOLD))
    room = (y1 - y0) - 50 - (16 if tags else 0)
    f, lines = fit_lines(name, NAME_FACES, x1 - x0 - 12, max(1, room // 15))
    step = f.size + 2
    y = y0 + 48 + (room - step * len(lines)) / 2
    for line in lines:
        d.text((x0 + 7, y), line, font=f, fill=style.TEXT)
        y += step
    x = x0 + 7
    for label, color in tags:
        d.text((x, y1 - 18), label, font=font(BOLD, 12), fill=color)
        x += font(BOLD, 12).getlength(label) + 8


def _set_size(view: TableView, seats: dict[int, SeatView]) -> int:
    """How many tiles the set has: every tile is in the wall or somewhere on the table (a
    claimed discard is counted in its meld, not twice)."""
    out = view.wall_remaining + view.dead_wall
    for seat in seats.values():
        if not seat.occupied:
            continue
        tiles, drawn = concealed_tiles(seat)
        out += len(tiles) + (drawn is not None) + sum(m.size for m in seat.melds)
        out += len(seat.flowers) + len(seat.discards) - len(seat.claimed)
    return out


def _draw_wall(scene: Scene, view: TableView, seats: dict[int, SeatView], geo: Geometry) -> None:
    """The wall as a ring of stacks of two inside the middle box: the stacks still to draw,
    then the dead wall (darker: a dimmed back), and faint empty places for every stack
    already dealt or drawn, so the ring shows at a glance how much is left."""
    box = geo.box
    bx = (geo.size - box) / 2
    by = HEADER + bx
    total = max(_set_size(view, seats), view.wall_remaining + view.dead_wall, 8)
    per_side = math.ceil(math.ceil(total / 2) / 4)
    pad, mini = 7, 9
    thick = face_height(mini) + depth(mini) + 3
    length = box - 2 * pad - thick
    pitch = length / per_side
    live, dead = view.wall_remaining, view.dead_wall
    # Clockwise from the top-left corner: empty places, live stacks, the dead wall.
    empty = per_side * 4 - math.ceil(live / 2) - math.ceil(dead / 2) - 1
    stacks: list[tuple[int, bool]] = [(0, False)] * max(empty, 0)
    stacks += [(2, False)] * (live // 2) + ([(1, False)] if live % 2 else [])
    if live and dead:
        stacks.append((-1, False))
    stacks += [(1, True)] if dead % 2 else []
    stacks += [(2, True)] * (dead // 2)
    d = scene.draw
    across = thick - 3
    for i, (height, is_dead) in enumerate(stacks[: per_side * 4]):
        side, k = divmod(i, per_side)
        a0 = pad + k * pitch + 1
        a1 = pad + (k + 1) * pitch - 1
        # (x0, y0, x1, y1) of the stack, and which way is "outwards" for its side edge.
        if side == 0:  # top, left to right
            r = (bx + a0, by + pad, bx + a1, by + pad + across)
        elif side == 1:  # right, top to bottom
            r = (bx + box - pad - across, by + a0, bx + box - pad, by + a1)
        elif side == 2:  # bottom, right to left
            r = (bx + box - a1, by + box - pad - across, bx + box - a0, by + box - pad)
        else:  # left, bottom to top
            r = (bx + pad, by + box - a1, bx + pad + across, by + box - a0)
        _stack(d, r, height, is_dead)


def _stack(d: ImageDraw.ImageDraw, r: tuple[float, ...], height: int, dead: bool) -> None:
    """One stack of the wall seen from above: a tile back, with one ivory stripe per tile
    along its lower edge (the tiles' sides); an empty place is a faint outline."""
    x0, y0, x1, y1 = r
    if height < 0:
        return
    if height == 0:
        d.rounded_rectangle((x0, y0, x1, y1), radius=2, outline=EMPTY_PLACE)
        return
    side = 2 * height + 1
    d.rounded_rectangle((x0, y0, x1, y1), radius=2, fill=style.BACK_DARK)
    for k in range(height):
        y = y1 - 2 - 2 * k
        d.line((x0 + 1, y, x1 - 1, y), fill=style.IVORY_SIDE)
    top = DEAD_WALL if dead else style.BACK
    d.rounded_rectangle((x0, y0, x1, y1 - side), radius=2, fill=top)


def _latest_discard_seat(view: TableView, seats: dict[int, SeatView]) -> int | None:
    """Whose last discard is the latest one on the table: ``last_discard`` while a discard
    lies untaken; else, while the next player holds a tile just drawn, the previous
    player's last discard (unless it was claimed)."""
    if view.last_discard is not None:
        return view.last_discard[0]
    turn = seats.get(view.turn)
    if view.phase != "play" or turn is None or concealed_tiles(turn)[1] is None:
        return None
    for k in range(1, 4):
        prev = seats.get((view.turn - k) % 4)
        if prev is not None and prev.occupied:
            if prev.discards and len(prev.discards) - 1 not in prev.claimed:
                return prev.seat
            return None
    return None


def _draw_middle(
    scene: Scene,
    view: TableView,
    seats: dict[int, SeatView],
    geo: Geometry,
    turn_side: int | None,
) -> None:
    d = scene.draw
    box = geo.box
    x0 = (geo.size - box) / 2
    y0 = HEADER + x0
    d.rounded_rectangle(
        (x0, y0, x0 + box, y0 + box), radius=14, fill=style.PANEL, outline=style.FELT_LINE, width=2
    )
    _draw_wall(scene, view, seats, geo)
    cx = x0 + box / 2
    r = 24
    cy = y0 + 36 + r
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(236, 228, 204), outline=style.GOLD, width=3)
    d.text(
        (cx, cy + 1),
        WIND_GLYPHS[view.round_wind % 4],
        font=font(CJK, 30),
        fill=style.RED,
        anchor="mm",
    )
    d.text(
        (cx, cy + r + 12),
        f"{WIND_NAMES[view.round_wind % 4]} round",
        font=font(BOLD, 15),
        fill=style.TEXT,
        anchor="mm",
    )
    d.text(
        (cx, cy + r + 40),
        str(view.wall_remaining),
        font=font(BOLD, 30),
        fill=style.GOLD,
        anchor="mm",
    )
    d.text(
        (cx, cy + r + 62),
        "tiles in the wall",
        font=font(REGULAR, 12),
        fill=style.TEXT_DIM,
        anchor="mm",
    )
    d.text(
        (cx, cy + r + 77),
        f"dead wall {view.dead_wall}",
        font=font(REGULAR, 12),
        fill=style.TEXT_DIM,
        anchor="mm",
    )
    if turn_side is not None:
        # A gold pointer on the edge of the middle facing the player to move.
        s = 10
        mid = box / 2
        pts = {
            0: [(cx - s, y0 + box + 3), (cx + s, y0 + box + 3), (cx, y0 + box + 3 + s)],
            1: [
                (x0 + box + 3, y0 + mid - s),
                (x0 + box + 3, y0 + mid + s),
                (x0 + box + 3 + s, y0 + mid),
            ],
            2: [(cx - s, y0 - 3), (cx + s, y0 - 3), (cx, y0 - 3 - s)],
            3: [(x0 - 3, y0 + mid - s), (x0 - 3, y0 + mid + s), (x0 - 3 - s, y0 + mid)],
        }[turn_side]
        d.polygon(pts, fill=style.GOLD)


def _draw_header(d: ImageDraw.ImageDraw, view: TableView, names: Sequence[str], width: int) -> None:
    d.rectangle((0, 0, width, HEADER), fill=style.PANEL)
    left = f"{WIND_NAMES[view.round_wind % 4]} round · hand {view.hand_number}"
    seat = _seat_map(view).get(view.turn)
    if seat is not None and view.phase == "play":
        left += f" · {_name(names, view.turn)} ({WIND_NAMES[seat.wind]}) to play"
    elif view.phase == "claim":
        waiting = sorted(getattr(view, "awaiting", ()) or ())
        who = ", ".join(_name(names, s) for s in waiting)
        left += f" · waiting for {who}" if who else " · claims open"
    elif view.phase in ("hand-over", "game-over"):
        left += " · game over" if view.phase == "game-over" else " · hand over"
    f = font(BOLD, 21)
    d.text((14, 8), ellipsize(left, f, width - 28), font=f, fill=style.TEXT)
    if view.last_action:
        f2 = font(REGULAR, 17)
        d.text((14, 37), ellipsize(view.last_action, f2, width - 28), font=f2, fill=style.GOLD)


def _name(names: Sequence[str], seat: int) -> str:
    if seat < len(names) and names[seat] and names[seat].strip():
        return names[seat].strip()
    return f"Seat {seat + 1}"


def compose_table(view: TableView, names: Sequence[str], *, western_index: bool) -> Image.Image:
    seats = _seat_map(view)
    bottom = view.viewer if view.viewer is not None else 0
    geo = _geometry(view, seats, bottom)
    image = Image.new("RGB", (geo.size, geo.size + HEADER), style.FELT)
    scene = Scene(image, index=western_index)
    d = scene.draw
    _draw_header(d, view, names, geo.size)
    turn_side = None
    latest_seat = _latest_discard_seat(view, seats)
    for seat_no in range(4):
        side = _side_of(seat_no, bottom)
        frame = Frame.for_side(side, geo.size, geo.size)
        frame = Frame(frame.ox, frame.oy + HEADER, frame.eu, frame.ev, frame.rotation)
        seat = seats.get(seat_no)
        turn = seat is not None and seat.occupied and view.turn == seat_no
        if turn:
            turn_side = side
        _draw_plate(d, frame, seat, _name(names, seat_no), turn and view.phase == "play")
        if seat is None or not seat.occupied:
            continue
        _draw_band(scene, frame, seat, geo)
        _draw_discards(scene, frame, seat, geo, latest_seat == seat_no)
    _draw_middle(scene, view, seats, geo, turn_side if view.phase == "play" else None)
    scene.flush()
    return image
