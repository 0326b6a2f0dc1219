"""The table images: the channel's table and one seat's table for its DM.

Both are drawn from :func:`renderer.table_layout.layout_table` (where each tile goes; the
tests measure that very layout): a header with the round, whose turn it is, the latest
discard drawn large (what a claim is about), on the channel's table the wall count; then a
block per seat with its name plate, its hidden hand as small backs, its exposed sets and
flowers and its discards; a seat's table ends with the viewer's hand, large. The seat to
play has a gold frame and says "to play"; the latest discard is outlined in orange where it
lies, claimed discards stay in place, faded.

All tiles stand upright, whoever owns them: a phone shows the image some 300-400 px wide, and
a tile on its head or on its side is hard to read at that size. Only the claimed tile of a
set lies sideways, on the side of the player it came from (see ``rows.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from bot.i18n import FALLBACK, N_, _
from bot.i18n.moves import move_words
from bot.i18n.tiles import wind_words
from bot.rules.game.view import SeatView, TableView
from renderer import stamps, style
from renderer.encode import framed_canvas, indexed, palette_index
from renderer.fonts import BOLD, CJK, CONDENSED, REGULAR, drawable, font, like
from renderer.glyphs import WIND_GLYPHS
from renderer.layout import Frame, Placed, Rect, Scene, draw_outline, ellipsize, fit_lines
from renderer.rows import concealed_tiles
from renderer.style import Color
from renderer.table_layout import (
    BIG_W,
    HEADER_H,
    HIGHLIGHT,
    MARGIN,
    WALL_W,
    WIDTH,
    BlockContent,
    SeatBlock,
    TableLayout,
    TileBox,
    layout_table,
)
from renderer.tile_cache import depth

WIND_NAMES = (N_("East"), N_("South"), N_("West"), N_("North"))
NAME_FACES = (
    (BOLD, 17),
    (BOLD, 16),
    (CONDENSED, 16),
    (CONDENSED, 15),
    (CONDENSED, 14),
    (CONDENSED, 13),
)
TOP_LEFT = Frame(0, 0, (1, 0), (0, 1), 0)
# Blocks' boxes with their river's felt kept (``_block_base``): six shapes (size, turn and
# river) in 32 hands of the four rule sets, seats of two to four.
BLOCK_BASES = 16
# Blocks kept mapped onto the palette (``compose_indexed``), ~110 KB each. At a table of
# four with two members a moment shows six different blocks: the four as the channel shows
# them (the others' blocks in a member's DM look the same), and each member's own as their
# DM shows it. At 200 tables a drawing process draws for about 100 tables: 500 kept was less
# than one moment of each, and 1.65 blocks were mapped afresh a picture; 0.96 with 800 kept
# or more, for 31 MB more a process and about a tenth less CPU a picture
# (``benchmarks/render_mix.py``, 100 tables, two members each). With the hands' areas below,
# a drawing process holds ~70 MB more than with neither.
INDEXED_BLOCKS = 800
# Hands' areas kept mapped (``compose_indexed``), ~110 KB each: one a member, whose hand
# changes on their own moves only (a drawing process draws for ~200 members at 200 tables).
OVERLAYS = 256


def _name(names: Sequence[str], seat: int, locale: str = FALLBACK) -> str:
    """The seat's name as the fonts can draw it (Chinese names too: renderer/fonts.py);
    "Seat N" when nothing of it can be drawn (a name all in emoji would be a lone "?")."""
    name = names[seat].strip() if seat < len(names) and names[seat] else ""
    if not any(ch.isalnum() for ch in drawable(name)):
        return _(locale, "Seat {number}", number=seat + 1)
    return name


def _text(
    d: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    f: Any,
    *,
    fill: Color,
    anchor: str | None = None,
) -> None:
    """Draw ``text`` in the face that holds it (the CJK face for Chinese words and names),
    stamped from the mask drawn for the last picture that showed it."""
    stamps.text(d, xy, text, like(f, text), fill, anchor)


def _to_play(view: TableView) -> int | None:
    """The seat whose move the table waits for, shown as such: only in play (during a claim
    window nobody is shown: which seats are asked is private)."""
    if view.phase != "play":
        return None
    seat = next((s for s in view.seats if s.seat == view.turn and s.occupied), None)
    return None if seat is None else seat.seat


def _wind_badge(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, wind: int) -> None:
    fill = style.RED if wind == 0 else (236, 228, 204)
    ink = style.IVORY if wind == 0 else style.INK
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=style.GOLD, width=2)
    stamps.text(d, (cx, cy + 1), WIND_GLYPHS[wind], font(CJK, int(r * 1.25)), ink, "mm")


def _turn_text(
    view: TableView, names: Sequence[str], locale: str, player: bool = True
) -> tuple[str, str]:
    """What the table waits for, as a name (cut to fit if need be) and the words after it.
    ``player`` False: the seat's picture watched by someone else (a replay), who is told the
    seat's name where its player reads "Your"."""
    if view.phase == "game-over" or view.game_over:
        return "", _(locale, "Game over")
    if view.phase == "hand-over":
        return "", _(locale, "Hand over")
    if view.phase == "claim":
        if view.viewer is not None and view.viewer in view.awaiting:
            if not player:
                return _name(names, view.viewer, locale), _(locale, " may claim it or pass")
            return "", _(locale, "Your call: claim it or pass")
        return "", ""
    seat = _to_play(view)
    if seat is None:
        return "", ""
    if seat == view.viewer and player:
        return "", _(locale, "Your turn")
    return _name(names, seat, locale), _(locale, " to play")


@dataclass(frozen=True, slots=True)
class HeaderPicture:
    """What the header says (the key of the cache of finished headers: the channel's table
    and the DMs of the players not concerned say the same)."""

    round_wind: int
    title: str
    turn: str
    tail: str
    action: str
    wall: int | None  # None: not shown (a seat's table)
    latest: tuple[float, float] | None  # where the latest discard goes
    who: str
    in_the_wall: str = "in the wall"
    big: TileBox | None = None  # the latest discard, drawn large where ``latest`` says
    index: bool = True  # the tiles' western index


def _header_picture(
    view: TableView,
    names: Sequence[str],
    layout: TableLayout,
    locale: str,
    player: bool = True,
    index: bool = True,
) -> HeaderPicture:
    wind = wind_words(locale, view.round_wind % 4)
    title = _(locale, "{wind} round", wind=wind)
    if view.hand_number:
        title += " · " + _(locale, "hand {number}", number=view.hand_number)
    turn, tail = _turn_text(view, names, locale, player)
    latest = big = None
    who = ""
    if layout.latest is not None:
        big = next(t for t in layout.extra if t.role == "latest")
        latest = (big.x, big.y)
        seat = layout.latest[0]
        own = seat == view.viewer and player
        who = _(locale, "yours") if own else _name(names, seat, locale)
    return HeaderPicture(
        view.round_wind % 4,
        title,
        turn,
        tail,
        move_words(locale, view.last_action),
        view.wall_remaining if view.viewer is None else None,
        latest,
        who,
        _(locale, "in the wall"),
        big,
        index,
    )


@lru_cache(maxsize=16)
def _draw_header(pic: HeaderPicture) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEADER_H - 6), style.PANEL)
    d = ImageDraw.Draw(image)
    r = 20
    _wind_badge(d, MARGIN + 4 + r, 16 + r, r, pic.round_wind)
    x = MARGIN + 2 * r + 16
    right = WIDTH - MARGIN - (WALL_W + 2 if pic.wall is not None else 0)
    if pic.latest is not None:
        right = pic.latest[0] - 16
    f = font(BOLD, 21)
    _text(d, (x, 14), ellipsize(pic.title, f, right - x), f, fill=style.TEXT)
    if pic.turn or pic.tail:
        f = font(BOLD, 19)
        tail = like(f, pic.tail).getlength(pic.tail)
        name = ellipsize(pic.turn, f, right - x - tail) if pic.turn else ""
        _text(d, (x, 44), name + pic.tail, f, fill=style.GOLD)
    if pic.action:
        f = font(REGULAR, 16)
        action = ellipsize(pic.action, f, right - MARGIN - 4)
        _text(d, (MARGIN + 4, 82), action, f, fill=style.TEXT_DIM)
    if pic.wall is not None:
        # The wall as a number: the ring of stacks cost a third of the image.
        cx = WIDTH - MARGIN - WALL_W / 2
        stamps.text(d, (cx, 48), str(pic.wall), font(BOLD, 30), style.GOLD, "mm")
        words = pic.in_the_wall
        _text(d, (cx, 74), words, font(REGULAR, 13), fill=style.TEXT_DIM, anchor="mm")
    if pic.latest is not None:
        bx, by = pic.latest
        f = font(BOLD, 13)
        who = ellipsize(pic.who, f, BIG_W + 30)
        _text(d, (bx + BIG_W / 2, by - 4), who, f, fill=style.TEXT, anchor="md")
    if pic.big is not None:
        # In the header's own picture (it fits there: 22 + its face and side = 114 px), so
        # the channel's table has nothing to draw over its kept parts.
        scene = Scene(image, index=pic.index)
        scene.tile(TOP_LEFT, _placed(pic.big))
        scene.flush()
    return image


def _plate_lines(view: TableView, seat: SeatView, locale: str) -> list[tuple[str, str, int, Color]]:
    """Small lines under the name: the tile count, the score so far, declarations."""
    lines = []
    if seat.concealed is None:
        tiles, drawn = concealed_tiles(seat)
        count = _(locale, "{count} tiles", count=len(tiles)) + (" + 1" if drawn is not None else "")
        lines.append((count, REGULAR, 14, style.TEXT_DIM))
    tags = []
    if seat.net:
        tags.append(f"{seat.net:+d}")
    if seat.riichi:
        tags.append(_(locale, "riichi"))
    if tags:
        lines.append(("  ".join(tags), BOLD, 14, style.MARK if seat.net >= 0 else style.WIN))
    return lines


@dataclass(frozen=True, slots=True)
class BlockPicture:
    """Everything a seat's block shows: the key of the cache of finished blocks. The
    channel's table and every seat's table of the same moment share the blocks that look
    alike (all but the viewer's own), so most of a move's pictures paste them."""

    content: BlockContent
    size: tuple[int, int]
    label: str
    wind: int
    extra: tuple[tuple[str, str, int, Color], ...]
    turn: bool
    index: bool
    locale: str
    # Set by the layout from ``content`` and ``size`` (so not part of the key):
    plate: Rect = field(compare=False)
    river: Rect = field(compare=False)
    tiles: tuple[TileBox, ...] = field(compare=False)


def _block_picture(
    view: TableView,
    seat: SeatView,
    block: SeatBlock,
    name: str,
    turn: bool,
    index: bool,
    locale: str = FALLBACK,
    player: bool = True,
) -> BlockPicture:
    x, y, w, h = block.region

    def moved(r: Rect) -> Rect:
        return (r[0] - x, r[1] - y, r[2], r[3])

    return BlockPicture(
        content=block.content,
        size=(w, h),
        # A player knows their own name; someone watching their seat does not.
        label=_(locale, "You") if block.own and player else name,
        wind=seat.wind,
        extra=tuple(_plate_lines(view, seat, locale)),
        turn=turn,
        index=index,
        locale=locale,
        plate=moved(block.plate),
        river=moved(block.river),
        tiles=block.unlit,
    )


@lru_cache(maxsize=BLOCK_BASES)
def _block_base(size: tuple[int, int], turn: bool, river: Rect) -> Image.Image:
    """A block's box and the felt of its river, alike for every block of that size, turn and
    river (read-only: copy it). Painted afresh for each block, the felt alone (a colour
    through a rounded mask, 0.7 ms) was a fifth of a drawing process's time at 100 tables,
    where the finished blocks rarely stay cached (``benchmarks/bot.py``, py-spy)."""
    fill = style.SEAT_TURN if turn else style.SEAT_BLOCK
    outline = style.GOLD if turn else style.FELT_LINE
    image = stamps.rounded_box(size, 10, fill, outline, 4 if turn else 1, style.FELT).copy()
    rx, ry, rw, rh = river
    image.paste(style.FELT_DARK, (rx, ry), stamps.rounded_mask((rw, rh), 6))
    return image


@lru_cache(maxsize=48)
def _draw_block(pic: BlockPicture) -> Image.Image:
    """A seat's block, drawn once for all the pictures that show it alike."""
    fill = style.SEAT_TURN if pic.turn else style.SEAT_BLOCK
    image = _block_base(pic.size, pic.turn, pic.river).copy()
    scene = Scene(image, index=pic.index)
    d = scene.draw
    px, py, pw, ph = pic.plate
    plate, ty = _plate_base(
        pic.label, pic.wind, (pw, ph), fill, pic.turn, len(pic.extra), pic.locale
    )
    image.paste(plate, (px, py))
    ty += py
    for text, face, size, color in pic.extra:
        small = font(face, size)
        _text(d, (px + 6, ty), ellipsize(text, small, pw - 12), small, fill=color)
        ty += 18
    if pic.turn:
        _pointer(d, px + 6, py + ph - 26, _(pic.locale, "to play"))
    for box in pic.tiles:
        scene.tile(TOP_LEFT, _placed(box))
    scene.flush()
    return image


@lru_cache(maxsize=64)
def _plate_base(
    label: str,
    wind: int,
    size: tuple[int, int],
    fill: Color,
    turn: bool,
    extra: int,
    locale: str = FALLBACK,
) -> tuple[Image.Image, int]:
    """A name plate's lasting part (wind, dealer, the name fitted to the room left for
    ``extra`` small lines and the turn's pointer) and the ``y`` where the small lines go:
    the plate changes with the turn, the name fitting does not need to."""
    pw, ph = size
    image = Image.new("RGB", size, fill)
    d = ImageDraw.Draw(image)
    d.rounded_rectangle((0, 0, pw - 1, ph - 1), radius=8, fill=style.PANEL)
    r = 14
    _wind_badge(d, 6 + r, 6 + r, r, wind)
    tx = 2 * r + 12
    _text(
        d,
        (tx, 5),
        _(locale, WIND_NAMES[wind]),
        font(BOLD, 15),
        fill=style.GOLD if wind == 0 else style.TEXT_DIM,
    )
    if wind == 0:
        _text(d, (tx, 21), _(locale, "dealer"), font(REGULAR, 12), fill=style.TEXT_DIM)
    bottom = ph - 6 - (24 if turn else 0)
    room = bottom - 40 - 18 * extra
    f, lines = fit_lines(label, NAME_FACES, pw - 12, max(1, room // 19))
    ty = 40
    for line in lines:
        stamps.text(d, (6, ty), line, f, style.TEXT)
        ty += f.size + 3
    return image, ty + 2


def _placed(box: TileBox) -> Placed:
    return Placed(box.tile, box.x, box.y, box.width, box.sideways, box.dim, box.outline)


def _pointer(d: ImageDraw.ImageDraw, x: float, y: float, text: str) -> None:
    d.polygon([(x, y + 2), (x + 12, y + 10), (x, y + 18)], fill=style.GOLD)
    _text(d, (x + 17, y), text, font(BOLD, 16), fill=style.GOLD)


def _draw_hand_area(d: ImageDraw.ImageDraw, pic: OverlayPicture, top: int = 0) -> None:
    """The hand's area on ``d``, which draws the picture from row ``top`` down."""
    assert pic.drawn_slot is not None
    sx, sy, sw, sh = pic.drawn_slot
    sy -= top
    drawn = _(pic.locale, "drawn")
    # On its baseline, 3 px over the slot: 18 px lie between the block above and the slot,
    # and a line's full height (anchor "md") reached 1-3 px into the block's frame.
    _text(d, (sx + sw / 2, sy - 3), drawn, font(REGULAR, 14), fill=style.TEXT_DIM, anchor="ms")
    if not any(t.role == "drawn" for t in pic.extra):
        d.rounded_rectangle(
            (sx, sy, sx + sw - 1, sy + sh - 1), radius=sw // 6, outline=style.FELT_LINE, width=2
        )
    hw = pic.hand_width
    for box in pic.extra:
        if box.role in ("hand", "drawn") and box.tile in pic.marks:
            x, y, w, h = box.rect
            _mark(d, x, y - top + h + depth(hw) + 2, w)


def _mark(d: ImageDraw.ImageDraw, x: int, y: int, w: int) -> None:
    # A bar under the tile's side and a pointer beneath it: seen at a glance, and nothing
    # covers the face.
    d.rounded_rectangle((x + 4, y, x + w - 5, y + 4), radius=2, fill=style.MARK)
    cx = x + w / 2
    d.polygon([(cx - 7, y + 14), (cx + 7, y + 14), (cx, y + 7)], fill=style.MARK)


@dataclass(frozen=True, slots=True)
class _Parts:
    """A table picture's layout and the kept pictures it is assembled from."""

    layout: TableLayout
    header: HeaderPicture
    blocks: tuple[tuple[BlockPicture, tuple[int, int]], ...]  # and where each goes


def _parts(
    view: TableView, names: Sequence[str], western_index: bool, locale: str, player: bool
) -> _Parts:
    layout = layout_table(view)
    seats = {s.seat: s for s in view.seats}
    to_play = _to_play(view)
    blocks = []
    for block in layout.blocks:
        seat = seats[block.seat]
        name = _name(names, block.seat, locale)
        turn = block.seat == to_play
        pic = _block_picture(view, seat, block, name, turn, western_index, locale, player)
        blocks.append((pic, (block.region[0], block.region[1])))
    header = _header_picture(view, names, layout, locale, player, western_index)
    return _Parts(layout, header, tuple(blocks))


@dataclass(frozen=True, slots=True)
class OverlayPicture:
    """What is drawn over the header and the blocks: a seat's hand's area with the viewer's
    tiles in it (the latest discard drawn large is the header's own). The key of the cache
    of mapped hand areas: a member's hand stays as it is while the others play, and most
    of a member's pictures show someone else's move."""

    extra: tuple[TileBox, ...]  # the tiles outside the blocks, but the latest discard
    drawn_slot: Rect | None  # None: no hand (the channel's table)
    hand_width: int
    marks: frozenset[int]
    locale: str
    index: bool


def _overlay_picture(
    layout: TableLayout, marks: frozenset[int], western_index: bool, locale: str
) -> OverlayPicture:
    extra = tuple(box for box in layout.extra if box.role != "latest")
    hand = {box.tile for box in extra if box.role in ("hand", "drawn")}
    slot = layout.drawn_slot if layout.hand is not None else None
    return OverlayPicture(extra, slot, layout.hand_width, marks & hand, locale, western_index)


def _overlay(image: Image.Image, pic: OverlayPicture, top: int = 0) -> None:
    """Draw ``pic`` on ``image``, the picture from row ``top`` down."""
    scene = Scene(image, index=pic.index)
    if pic.drawn_slot is not None:
        _draw_hand_area(scene.draw, pic, top)
    frame = Frame(0, -top, (1, 0), (0, 1), 0)
    for box in pic.extra:
        scene.tile(frame, _placed(box))
    scene.flush()


def compose(
    view: TableView,
    names: Sequence[str],
    *,
    western_index: bool,
    marks: frozenset[int] = frozenset(),
    locale: str = FALLBACK,
    player: bool = True,
) -> Image.Image:
    """The channel table (``view.viewer`` None) or that seat's table, its words in
    ``locale`` (the server's for the channel, the member's for a DM). A seat's table speaks
    to its ``player`` ("You", "Your turn"); with ``player`` False it is the seat watched by
    someone else (a replay from another member's seat) and names the seat instead."""
    parts = _parts(view, names, western_index, locale, player)
    layout = parts.layout
    image = Image.new("RGB", (layout.width, layout.height), style.FELT)
    image.paste(_draw_header(parts.header), (0, 0))
    for pic, xy in parts.blocks:
        image.paste(_draw_block(pic), xy)
    _outline_latest(image, _lit(layout), HIGHLIGHT)
    _overlay(image, _overlay_picture(layout, marks, western_index, locale))
    return image


Lit = tuple[tuple[TileBox, tuple[int, int]], ...]  # the latest discard and its block's corner


def _lit(layout: TableLayout) -> Lit:
    return tuple((b.latest, b.region[:2]) for b in layout.blocks if b.latest is not None)


def _outline_latest(
    image: Image.Image, lit: Lit, color: Color | int, dx: int = 0, dy: int = 0
) -> None:
    """The latest discard's outline, over its block as the block's own scene drew it
    (outlines go over every tile: ``Scene.flush``); it lies inside the block's river.
    ``dx``, ``dy`` shift it (a framed palette canvas, a piece of a picture)."""
    for box, (bx, by) in lit:
        x, y, w, h = box.rect
        draw_outline(image, (x + bx + dx, y + by + dy, w, h), color, box.width)


def compose_indexed(
    view: TableView,
    names: Sequence[str],
    *,
    western_index: bool,
    marks: frozenset[int] = frozenset(),
    locale: str = FALLBACK,
    player: bool = True,
) -> Image.Image:
    """The picture :func:`compose` draws, in the fixed palette's indices and framed for a
    PNG's rows (``renderer.encode.framed_png``).

    Mapping each whole picture onto the palette was a fifth of a drawing process's time at
    200 tables (1.6 ms a picture, py-spy). The header and the blocks are mapped once, when
    drawn, and kept mapped (:data:`INDEXED_BLOCKS`: a block, unchanged since the table's
    last picture, is then neither drawn nor mapped again); only what is drawn over them
    (the hand's area) is drawn and mapped when it changes (:data:`OVERLAYS`). The palette maps
    each pixel on its own (no dithering), so the pixels are exactly those of the whole
    picture mapped: ``tests/test_renderer.py`` compares them over played games."""
    parts = _parts(view, names, western_index, locale, player)
    layout = parts.layout
    canvas = framed_canvas((layout.width, layout.height), style.FELT)
    canvas.paste(_indexed_header(parts.header), (1, 0))
    for pic, (x, y) in parts.blocks:
        canvas.paste(_indexed_block(pic), (x + 1, y))
    _outline_latest(canvas, _lit(layout), palette_index(HIGHLIGHT), dx=1)
    regions = tuple(_overlay_regions(layout, locale))
    if not regions:
        return canvas
    # What lies under the regions is part of the key: in the pictures drawn today nothing
    # does (the hand's area starts below the viewer's block), but a layout could change.
    header = parts.header if any(_overlap(r, layout.header) for r in regions) else None
    under = tuple(
        (pic, (x, y))
        for pic, (x, y) in parts.blocks
        if any(_overlap(r, (x, y, *pic.size)) for r in regions)
    )
    lit = tuple(pair for pair in _lit(layout) if any(xy == pair[1] for _, xy in under))
    over = _overlay_picture(layout, marks, western_index, locale)
    size = (layout.width, layout.height)
    for piece, (x, y) in _indexed_overlay(over, regions, size, header, under, lit):
        canvas.paste(piece, (x + 1, y))
    return canvas


@lru_cache(maxsize=OVERLAYS)
def _indexed_overlay(
    over: OverlayPicture,
    regions: tuple[Rect, ...],
    size: tuple[int, int],
    header: HeaderPicture | None,
    under: tuple[tuple[BlockPicture, tuple[int, int]], ...],
    lit: Lit,
) -> tuple[tuple[Image.Image, tuple[int, int]], ...]:
    """The regions of a picture holding what ``over`` draws, mapped, with where each goes.
    Drawn in RGB only from the regions' top row down (the hand's area: the bottom fifth)."""
    width, height = size
    top = min(r[1] for r in regions)
    image = Image.new("RGB", (width, height - top), style.FELT)
    if header is not None:
        image.paste(_draw_header(header), (0, -top))
    for pic, (x, y) in under:
        image.paste(_draw_block(pic), (x, y - top))
    _outline_latest(image, lit, HIGHLIGHT, dy=-top)
    _overlay(image, over, top)
    return tuple(
        (indexed(image.crop((x, y - top, x + w, y - top + h))), (x, y)) for x, y, w, h in regions
    )


@lru_cache(maxsize=16)
def _indexed_header(pic: HeaderPicture) -> Image.Image:
    return indexed(_draw_header(pic))


@lru_cache(maxsize=INDEXED_BLOCKS)
def _indexed_block(pic: BlockPicture) -> Image.Image:
    return indexed(_draw_block(pic))


def _overlay_regions(layout: TableLayout, locale: str) -> list[Rect]:
    """Rectangles holding everything :func:`_overlay` draws: each tile outside the blocks
    with its thickness and outline, and the hand's area from the "drawn" word above its
    slot down to the hint marks at the bottom."""
    regions: list[Rect] = []
    top = layout.height
    if layout.hand is not None and layout.drawn_slot is not None:
        sy = layout.drawn_slot[1]
        word = _(locale, "drawn")
        # The word's ink, anchored 3 px over the slot (``_draw_hand_area``) in the face
        # that draws it, and a pixel more. The area itself starts where the viewer's block
        # ends: a row more would need that block drawn again, unmapped, for most pictures
        # (the kept RGB blocks are few), a tenth of a seat picture's time at 200 tables.
        ink_top = like(font(REGULAR, 14), word).getbbox(word, anchor="ms")[1]
        top = min(sy, layout.hand[1], math.floor(sy - 3 + ink_top) - 1)
    for box in layout.extra:
        if box.role == "latest":
            continue  # drawn in the header's own picture
        x, y, w, h = box.rect
        pad = max(2, box.width // 12) + 1  # the outline lies outside the face by pad
        rect = (x - pad, y - pad, w + 2 * pad, h + depth(box.width) + 2 * pad)
        if rect[1] < top:
            regions.append(rect)
    if top < layout.height:
        regions.append((0, top, layout.width, layout.height - top))
    return [_clip(r, layout.width, layout.height) for r in regions if r[2] > 0 and r[3] > 0]


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _clip(r: Rect, width: int, height: int) -> Rect:
    x0, y0 = max(0, r[0]), max(0, r[1])
    x1, y1 = min(width, r[0] + r[2]), min(height, r[1] + r[3])
    return (x0, y0, x1 - x0, y1 - y0)


def compose_table(
    view: TableView, names: Sequence[str], *, western_index: bool, locale: str = FALLBACK
) -> Image.Image:
    return compose(view, names, western_index=western_index, locale=locale)


def compose_seat_table(
    view: TableView,
    names: Sequence[str],
    *,
    marks: frozenset[int],
    western_index: bool,
    locale: str = FALLBACK,
    player: bool = True,
) -> Image.Image:
    require_seat(view)
    return compose(
        view, names, western_index=western_index, marks=marks, locale=locale, player=player
    )


def require_seat(view: TableView) -> None:
    """A seat's table needs a view made for one seat (ValueError for the public view)."""
    if view.viewer is None:
        raise ValueError("render_seat_table needs a view made for one seat (viewer is None)")
