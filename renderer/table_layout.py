"""Where every tile of a table image goes: one layout for the channel table and the seat table.

The images are read where Discord shows them, about 400 px wide on a desktop and 300-400 px on
a phone, so the layout is a column of seat blocks the width of a phone, not a square table seen
from above: a header (round, whose turn, the latest discard drawn large, the wall count), then
one block per occupied seat in play order (its name plate on the left; beside it the seat's
hidden hand as small backs and its exposed sets, then its discards in rows, the oldest first).
Every discard and exposed tile is :data:`TILE_W` px on a :data:`WIDTH` px image, so at 400 px
it is 25 px wide; ``tests/test_renderer.py`` measures that from this layout on played games.

A seat's sets and flowers sit inside its own block, beside its own plate, whatever the number
of players; an empty seat (the dummy of a two- or three-player table) has no block at all.

The seat table (a DM) ends with the viewer's own block and then the viewer's hand, large, in
one row in :func:`hand_order` (sorted), the drawn tile apart in a fixed place above the row's
right end. Its size is fixed for the whole hand: every block reserves the meld line and the
discard rows a seat can fill in a hand (:func:`_river_rows`), and the hand row has a slot for
every tile of a full hand, so the image height, the rows and the tiles' places do not move from
one turn to the next and the buttons under the picture stay under the thumb. Only a seat with
more sets than a line holds (four sets, or a stack of kongs and flowers) or more discards than
a hand usually allows makes the image grow. The channel's table has no buttons to keep in
place: its discard rows grow as they fill (at least two), so it is not mostly empty early on.

Coordinates are image pixels; a tile's box is its face (its thickness shows below it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from bot.rules.game.view import SeatView, TableView
from bot.rules.melds import Meld
from renderer.hand import own_seat
from renderer.layout import Placed, Rect
from renderer.rows import concealed_tiles, flow, line_height, meld_items, row_items
from renderer.style import Color
from renderer.tile_art import BACK
from renderer.tile_cache import depth, face_height

WIDTH = 600
MARGIN = 8
TILE_W = 38  # discards, sets, flowers: 25.3 px when the image is shown 400 px wide
BACK_W = 16  # a hidden hand's backs: its size is public, its tiles are not
BIG_W = 60  # the latest discard in the header: what a claim is about
HEADER_H = 120
WALL_W = 78  # the wall count at the right of the channel's header
PLATE_W = 112
PAD = 6
BLOCK_GAP = 6
SET_GAP = 8
ROW_PITCH = face_height(TILE_W) + 3  # the next row hides most of a row's thickness
LINE_H = face_height(TILE_W) + depth(TILE_W)
HAND_MAX_W = 60
MARK_SPACE = 16
PLATE_MIN_H = 112
HIGHLIGHT: Color = (255, 150, 30)  # the latest discard's outline (style.HIGHLIGHT)
# Block layouts kept (``_block_tiles``), a few KB each: a drawing process draws for about
# half the tables (100 at 200 tables), each with four seats' blocks in two or three sizes;
# 256 kept missed so often that laying blocks out again was 5 % of its time (py-spy).
BLOCK_LAYOUTS = 2048
CONTENT_X = MARGIN + PLATE_W + PAD
CONTENT_W = WIDTH - MARGIN - PAD - CONTENT_X
PER_ROW = CONTENT_W // TILE_W


@dataclass(frozen=True, slots=True)
class TileBox:
    """One tile on the image: the top-left corner of its face and its own (upright) width.

    ``role`` says what it is: ``discard``, ``meld`` (a tile of an exposed set), ``flower``,
    ``back`` (a hidden hand), ``concealed`` (a hand laid open), ``hand`` and ``drawn`` (the
    viewer's own), ``latest`` (the latest discard drawn large in the header).
    """

    tile: int
    x: float
    y: float
    width: int
    role: str
    seat: int | None
    sideways: bool = False
    dim: bool = False
    outline: Color | None = None

    @property
    def rect(self) -> Rect:
        """x, y, w, h of the face on the image (a sideways tile is wider than tall)."""
        long = face_height(self.width)
        w, h = (long, self.width) if self.sideways else (self.width, long)
        return (round(self.x), round(self.y), w, h)


@dataclass(frozen=True, slots=True)
class SeatBlock:
    """One seat's block: all of it, its name plate, the ground of its discards and the
    tiles drawn in it (its sets and discards; the viewer's own sets go with the hand)."""

    seat: int
    region: Rect
    plate: Rect
    own: bool
    river: Rect  # the discards' ground
    tiles: tuple[TileBox, ...]  # placed from the block's top-left corner, not the image's
    content: BlockContent
    # The latest discard, outlined, when it lies in this block. ``tiles`` holds it outlined;
    # the block's picture is drawn without the outline, which goes over it, so a block does
    # not change when the outline only moves on to the next player's discard.
    latest: TileBox | None = None

    @property
    def unlit(self) -> tuple[TileBox, ...]:
        """The block's tiles as its kept picture draws them: no outline on the latest."""
        return _block_tiles(self.content)[0]


@dataclass(frozen=True, slots=True)
class TableLayout:
    width: int
    height: int
    header: Rect
    blocks: tuple[SeatBlock, ...]
    extra: tuple[TileBox, ...]  # the tiles outside the blocks: the viewer's hand, the latest
    latest: tuple[int, int] | None  # (seat, index in its discards) outlined as the latest
    hand: Rect | None = None  # the viewer's hand area (seat table)
    drawn_slot: Rect | None = None  # where the viewer's drawn tile goes (seat table)
    hand_width: int = 0

    def block(self, seat: int) -> SeatBlock:
        return next(b for b in self.blocks if b.seat == seat)

    @property
    def tiles(self) -> list[TileBox]:
        """Every tile on the image, placed on the image."""
        out = []
        for block in self.blocks:
            x, y = block.region[:2]
            out += [replace(t, x=t.x + x, y=t.y + y) for t in block.tiles]
        return out + list(self.extra)


# --- what goes where -----------------------------------------------------------------------


def seat_order(view: TableView) -> list[int]:
    """Occupied seats top to bottom, in play order (counter-clockwise): from physical seat 0
    on the channel table (the order stays put all evening); on a seat's table starting with
    the player after the viewer, so the viewer comes last, just above the hand, with the
    player whose discards the viewer may chow right above."""
    occupied = sorted(s.seat for s in view.seats if s.occupied)
    if view.viewer is None or view.viewer not in occupied:
        return occupied
    return sorted(occupied, key=lambda s: (s - view.viewer - 1) % 4)


def hand_size(seat: SeatView) -> int:
    """Tiles in a full hand without the drawn one (13, or 16 in filipino-16): the concealed
    tiles plus three per set, less the one to discard after a claim."""
    n = seat.concealed_count + 3 * len(seat.melds)
    return n - 1 if n % 3 == 2 else n


def hand_order(view: TableView) -> list[int]:
    """The viewer's tiles in the order the seat table draws them: the concealed tiles sorted
    (characters, dots, bamboo, winds, dragons, each by number), then the drawn tile, apart.
    The DM's discard buttons follow this order, so a button sits where its tile does."""
    seat = own_seat(view, "a seat's table")
    tiles = sorted(seat.concealed or ())
    return tiles + ([seat.drawn] if seat.drawn is not None else [])


def latest_discard(view: TableView) -> tuple[int, int] | None:
    """Which discard is the latest one on the table, as (seat, index): ``last_discard`` while
    it lies untaken; else, while the player in turn holds a tile just drawn, the previous
    player's last discard unless it was claimed."""
    seats = {s.seat: s for s in view.seats}
    if view.last_discard is not None:
        seat = seats.get(view.last_discard[0])
        if seat is None or not seat.discards:
            return None
        return seat.seat, len(seat.discards) - 1
    turn = seats.get(view.turn)
    if view.phase != "play" or turn is None or concealed_tiles(turn)[1] is None:
        return None
    for k in range(1, 4):
        prev = seats.get((view.turn - k) % 4)
        if prev is not None and prev.occupied:
            last = len(prev.discards) - 1
            if prev.discards and last not in prev.claimed:
                return prev.seat, last
            return None
    return None


def _set_size(view: TableView) -> int:
    """How many tiles the set has: every tile is in the wall (``wall_remaining`` counts the
    dead wall too) or on the table (a claimed discard is counted in its set, not twice)."""
    out = view.wall_remaining
    for seat in view.seats:
        if not seat.occupied:
            continue
        tiles, drawn = concealed_tiles(seat)
        out += len(tiles) + (drawn is not None) + sum(m.size for m in seat.melds)
        out += len(seat.flowers) + len(seat.discards) - len(seat.claimed)
    return out


def _river_rows(view: TableView) -> int:
    """Rows of discards to keep for every seat: as many as a seat fills when the live wall
    is shared out evenly (and one tile over), so a block keeps its size all hand long."""
    seats = [s for s in view.seats if s.occupied]
    if not seats:
        return 1
    size = max(hand_size(s) for s in seats)
    live = _set_size(view) - view.dead_wall - len(seats) * size - 1
    per_seat = math.ceil(max(live, 0) / len(seats)) + 1
    return max(1, math.ceil(per_seat / PER_ROW))


# --- the blocks ------------------------------------------------------------------------------


def _shifted(items: Sequence[Placed], x: float, base: float) -> list[Placed]:
    """Items laid along a line whose ``v`` rises from ``base``, as top-left image boxes."""
    out = []
    for item in items:
        top = base - item.v - item.dv
        out.append(Placed(item.tile, x + item.u, top, item.width, item.sideways, item.dim))
    return out


def _low_stack(item: Placed) -> Placed:
    """The fourth tile of an added kong lies on the sideways one; here it is shifted up
    only so far that the set is no taller than an upright tile, so the line keeps its
    height (the lower tile still shows a strip)."""
    lift = face_height(item.width) - item.width
    if item.v <= lift:
        return item
    return Placed(item.tile, item.u, lift, item.width, item.sideways, item.dim, item.outline)


def _meld_units(
    seat: SeatView, show_hand: bool, room: float
) -> list[tuple[list[Placed], float, float, str]]:
    """The seat's meld line as units that may wrap: its hand (backs, or faces once laid
    open), each set, its flowers."""
    units: list[tuple[list[Placed], float, float, str]] = []
    for meld in seat.melds:
        items, length = meld_items(meld, seat.seat, TILE_W, 0)
        units.append(([_low_stack(item) for item in items], length, SET_GAP, "meld"))
    for i, flower in enumerate(seat.flowers):
        items, length = row_items([flower], TILE_W, 0)
        units.append((items, length, SET_GAP if i == 0 else 0.0, "flower"))
    if show_hand:
        tiles, drawn = concealed_tiles(seat)
        hidden = seat.concealed is None
        if hidden:
            # A hidden hand's backs only where they fit before the sets (the plate gives
            # the count in words), so they never push a set onto a second line.
            sets = sum(length + gap for _, length, gap, _ in units)
            backs = (len(tiles) + (drawn is not None)) * BACK_W + 4 + SET_GAP
            if sets + backs > room:
                return units
        w = BACK_W if hidden else TILE_W
        role = "back" if hidden else "concealed"
        # Tile by tile, so that a hand laid open wraps like text.
        hand: list[tuple[list[Placed], float, float, str]] = [
            (row_items([tile], w, 0)[0], w, 0.0, role) for tile in tiles
        ]
        if drawn is not None:
            hand.append((row_items([drawn], w, 0)[0], w, 4.0, role))
        units = hand + units
    return units


def _meld_lines(
    seat: SeatView, show_hand: bool, room: float
) -> list[tuple[list[tuple[Placed, str]], int]]:
    """The meld line wrapped to ``room``: each line's items (with their role) and height."""
    units = _meld_units(seat, show_hand, room)
    roles = [role for items, _, _, role in units for _ in items]
    lines = flow([(items, length, gap) for items, length, gap, _ in units], room)
    out = []
    k = 0
    for items, _ in lines:  # flow() keeps the items in order, so the roles follow
        height = max(line_height(items), face_height(TILE_W)) + depth(TILE_W)
        out.append((list(zip(items, roles[k : k + len(items)], strict=True)), height))
        k += len(items)
    return out


@dataclass(frozen=True, slots=True)
class BlockContent:
    """All a seat's block shows of the seat, small and hashable: the key of the caches of
    block layouts and of finished block pictures."""

    seat: int
    discards: tuple[int, ...]
    claimed: frozenset[int]
    melds: tuple[Meld, ...]
    flowers: tuple[int, ...]
    hand: tuple[int, ...] | None  # the hand in the meld line (backs or laid open); None: own
    holding: bool  # a tile set apart in the hand
    rows: int


def block_content(seat: SeatView, rows: int, *, own: bool) -> BlockContent:
    tiles, drawn = concealed_tiles(seat)
    return BlockContent(
        seat=seat.seat,
        discards=seat.discards,
        claimed=seat.claimed,
        melds=seat.melds,
        flowers=seat.flowers,
        hand=None if own else (*tiles, *(() if drawn is None else (drawn,))),
        holding=drawn is not None,
        rows=rows,
    )


@lru_cache(maxsize=BLOCK_LAYOUTS)
def _block_tiles(content: BlockContent) -> tuple[tuple[TileBox, ...], int, int]:
    """A block's tiles laid from its top-left corner, its height and where its discards
    start (cached: the same block is laid out for the channel and every seat's DM)."""
    boxes: list[TileBox] = []
    top = PAD
    lines = []
    if content.hand is not None:
        seat = SeatView(
            seat=content.seat,
            wind=0,
            concealed=None if all(t == BACK for t in content.hand) else content.hand,
            concealed_count=len(content.hand) - content.holding,
            melds=content.melds,
            flowers=content.flowers,
            holding_drawn=content.holding,
        )
        if seat.concealed is not None:
            # A hand laid open: its own tiles, in the order the view gives them.
            tiles = content.hand[: len(content.hand) - content.holding]
            drawn = content.hand[-1] if content.holding else None
            seat = replace(seat, concealed=tiles, drawn=drawn)
        lines = _meld_lines(seat, True, CONTENT_W) or [([], LINE_H)]
    x = CONTENT_X - MARGIN
    for items, height in lines:
        base = top + height - depth(TILE_W)
        for item, role in items:
            boxes.append(_set_tile_box(item, x, base, role, content.seat))
        top += height + 4
    rows = max(content.rows, math.ceil(len(content.discards) / PER_ROW), 1)
    for i, tile in enumerate(content.discards):
        row, col = divmod(i, PER_ROW)
        boxes.append(
            TileBox(
                tile,
                x + col * TILE_W,
                top + row * ROW_PITCH,
                TILE_W,
                "discard",
                content.seat,
                dim=i in content.claimed,
            )
        )
    bottom = max(top + (rows - 1) * ROW_PITCH + LINE_H + PAD, PLATE_MIN_H)
    return tuple(boxes), round(bottom), round(top)


def _block(
    seat: SeatView,
    y: float,
    rows: int,
    latest: tuple[int, int] | None,
    *,
    own: bool,
) -> tuple[SeatBlock, float]:
    """A seat's block from ``y``: returns it and the ``y`` below it. The viewer's own
    hand and sets go in the hand area below the block, not in it."""
    content = block_content(seat, rows, own=own)
    tiles, height, top = _block_tiles(content)
    lit = None
    if latest is not None and latest[0] == seat.seat:
        # The discards are the block's last tiles, in order.
        k = len(tiles) - len(content.discards) + latest[1]
        lit = replace(tiles[k], outline=HIGHLIGHT)
        tiles = (*tiles[:k], lit, *tiles[k + 1 :])
    y = round(y)
    region = (MARGIN, y, WIDTH - 2 * MARGIN, height)
    plate = (MARGIN + 3, y + 3, PLATE_W - 6, height - 6)
    river = (CONTENT_X - 4, y + top - 4, PER_ROW * TILE_W + 8, height - PAD - top + 6)
    return SeatBlock(seat.seat, region, plate, own, river, tiles, content, lit), y + height


def _hand_area(
    view: TableView, seat: SeatView, y: float
) -> tuple[list[TileBox], Rect, Rect, int, float]:
    """The viewer's sets and flowers beside the drawn tile's place, then the hand in one
    row of large tiles: returns the tiles, the area, the drawn tile's slot, the hand's tile
    width and the ``y`` below."""
    size = hand_size(seat)
    hw = min(HAND_MAX_W, (WIDTH - 2 * MARGIN) // max(size, 1))
    hh = face_height(hw)
    slot_x = WIDTH - MARGIN - hw
    room = slot_x - SET_GAP - MARGIN
    lines = _meld_lines(seat, False, room)
    boxes: list[TileBox] = []
    top = y + 18  # room for the "drawn" caption above the slot
    first_h = max(hh + depth(hw), LINE_H, lines[0][1] if lines else 0)
    # Sets that do not fit beside the slot go on extra lines above the first.
    extra = sum(h + 4 for _, h in lines[1:])
    line_top = top
    for i, (items, height) in enumerate([*lines[1:], *lines[:1]]):
        last = i == len(lines) - 1
        base = (top + extra + first_h - depth(hw)) if last else (line_top + height - depth(TILE_W))
        for item, role in items:
            boxes.append(_set_tile_box(item, MARGIN, base, role, seat.seat))
        line_top += height + 4
    slot_y = top + extra + first_h - depth(hw) - hh
    slot = (slot_x, round(slot_y), hw, hh)
    row_y = top + extra + first_h + 6
    tiles = sorted(seat.concealed or ())
    for i, tile in enumerate(tiles):
        boxes.append(TileBox(tile, MARGIN + i * hw, row_y, hw, "hand", seat.seat))
    if seat.drawn is not None:
        boxes.append(TileBox(seat.drawn, slot_x, slot_y, hw, "drawn", seat.seat))
    bottom = row_y + hh + depth(hw) + MARK_SPACE + MARGIN
    area = (MARGIN, round(y), WIDTH - 2 * MARGIN, round(bottom - y))
    return boxes, area, slot, hw, bottom


def layout_table(view: TableView) -> TableLayout:
    """The layout of ``view``: the channel table when ``view.viewer`` is None, else that
    seat's table with its hand at the bottom (and room under it for the hint marks, whether
    there are any or not, so that the image keeps its height)."""
    seats = {s.seat: s for s in view.seats}
    order = seat_order(view)
    own = view.viewer if view.viewer is not None and view.viewer in order else None
    if own is not None:
        own_seat(view, "a seat's table")
    latest = latest_discard(view)
    if own is not None:
        rows = _river_rows(view)
    else:
        # The channel's table grows a row at a time as the discards need (all seats
        # alike); a seat's table keeps room for the whole hand from the start.
        most = max((len(seats[s].discards) for s in order), default=0)
        rows = max(2, math.ceil(most / PER_ROW))
    y: float = HEADER_H
    blocks: list[SeatBlock] = []
    tiles: list[TileBox] = []
    for seat_no in order:
        block, y = _block(seats[seat_no], y, rows, latest, own=seat_no == own)
        blocks.append(block)
        y += BLOCK_GAP
    hand = slot = None
    hand_w = 0
    if own is not None:
        boxes, hand, slot, hand_w, y = _hand_area(view, seats[own], y - BLOCK_GAP)
        tiles.extend(boxes)
    else:
        y += MARGIN - BLOCK_GAP
    if latest is not None:
        seat, index = latest
        tile = seats[seat].discards[index]
        # The channel's header ends with the wall count; a seat's has none (the DM's text
        # gives it, so the picture need not change when only the wall does).
        right = WALL_W if own is None else 12
        tiles.append(TileBox(tile, WIDTH - MARGIN - right - BIG_W, 22, BIG_W, "latest", seat))
    return TableLayout(
        width=WIDTH,
        height=round(y),
        header=(0, 0, WIDTH, HEADER_H),
        blocks=tuple(blocks),
        extra=tuple(tiles),
        latest=latest,
        hand=hand,
        drawn_slot=slot,
        hand_width=hand_w,
    )


__all__ = ["BACK", "TableLayout", "TileBox", "hand_order", "layout_table", "seat_order"]


def _set_tile_box(item: Placed, x: float, base: float, role: str, seat: int) -> TileBox:
    """The box of one tile of a set line, placed from ``x`` on the line's ``base``."""
    (placed,) = _shifted([item], x, base)
    return TileBox(
        placed.tile, placed.u, placed.v, placed.width, role, seat, sideways=placed.sideways
    )
