"""A player's row of tiles (concealed, drawn, melds, flowers) laid out in the seat's frame.

Shared by the table, the private hand and the score card so that a meld looks the same
everywhere: the claimed tile turned sideways on the side of the player it came from (left
neighbour: left end; opposite: middle; right neighbour: right end), a kong made by adding a
drawn tile to an exposed pung has that tile stacked on the sideways one, and a concealed
kong shows its two end tiles face down.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.rules.game.view import SeatView
from bot.rules.melds import Kind, Meld
from renderer.layout import Placed
from renderer.style import Color
from renderer.tile_art import BACK
from renderer.tile_cache import face_height


def concealed_tiles(seat: SeatView) -> tuple[list[int], int | None]:
    """The tiles to draw for the concealed part and the one to set apart (or None).

    A hidden hand is all backs: its count is public, its tiles never reach the image (not
    even a ``drawn`` tile left in by mistake: only whether the seat holds one counts). The
    engine says so in ``holding_drawn``; without it, a hand one tile over a complete count
    (drawn, not yet discarded) has its last back set apart.
    """
    if seat.concealed is None:
        holding = getattr(seat, "holding_drawn", None)
        if holding is None:
            holding = seat.drawn is not None
        n = seat.concealed_count
        if holding:
            return [BACK] * n, BACK
        if n > 0 and (n + 3 * len(seat.melds)) % 3 == 2:
            return [BACK] * (n - 1), BACK
        return [BACK] * n, None
    return sorted(seat.concealed), seat.drawn


def row_items(
    tiles: Iterable[int],
    width: int,
    u: float,
    *,
    dim: bool = False,
    marks: frozenset[int] = frozenset(),
    mark_color: Color | None = None,
) -> tuple[list[Placed], float]:
    """Upright tiles side by side from ``u``; returns the items and the ``u`` after them."""
    items = []
    for tile in tiles:
        outline = mark_color if tile in marks and tile != BACK else None
        items.append(Placed(tile, u, 0, width, dim=dim, outline=outline))
        u += width
    return items, u


def claimed_position(meld: Meld, seat: int) -> int | None:
    """Which slot of a meld holds the claimed tile (turned sideways), or None."""
    if meld.claimed is None or meld.concealed:
        return None
    last = meld.size - 1
    if meld.from_seat is None:
        return 0
    relative = (meld.from_seat - seat) % 4
    return {3: 0, 2: 1, 1: last}.get(relative, 0)


def meld_items(meld: Meld, seat: int, width: int, u: float) -> tuple[list[Placed], float]:
    """One meld laid from ``u``; returns the items and the ``u`` after it."""
    tiles = list(meld.tiles)
    if meld.kind is Kind.KONG and meld.concealed:
        tiles[0] = tiles[-1] = BACK
        return row_items(tiles, width, u)
    slot = claimed_position(meld, seat)
    if meld.kind is Kind.CHOW and meld.claimed is not None and slot is not None:
        # The claimed tile goes where it lies sideways, the other two in order around it.
        rest = list(meld.tiles)
        if meld.claimed in rest:
            rest.remove(meld.claimed)
            tiles = [*rest[:slot], meld.claimed, *rest[slot:]]
    if meld.added and meld.kind is Kind.KONG:
        # An added kong: three tiles in a row, the fourth stacked on the sideways one.
        tiles = tiles[:3]
        slot = 0 if slot is None else min(slot, 2)
    items: list[Placed] = []
    h = face_height(width)
    for i, tile in enumerate(tiles):
        if i == slot:
            items.append(Placed(tile, u, 0, width, sideways=True))
            if meld.added and meld.kind is Kind.KONG:
                items.append(Placed(tile, u, width, width, sideways=True))
            u += h
        else:
            items.append(Placed(tile, u, 0, width))
            u += width
    return items, u


def melds_items(
    melds: Sequence[Meld], seat: int, width: int, u: float, gap: float
) -> tuple[list[Placed], float]:
    items: list[Placed] = []
    for i, meld in enumerate(melds):
        if i:
            u += gap
        placed, u = meld_items(meld, seat, width, u)
        items.extend(placed)
    return items, u


def melds_length(melds: Sequence[Meld], seat: int, width: int, gap: float) -> float:
    return melds_items(melds, seat, width, 0, gap)[1]


Unit = tuple[list[Placed], float, float]  # items laid from u=0, their length, gap before


def meld_units(
    melds: Sequence[Meld], seat: int, flowers: Sequence[int], width: int, gap: float
) -> list[Unit]:
    """The melds, then the flowers one by one, as units that :func:`flow` may wrap."""
    units: list[Unit] = []
    for meld in melds:
        items, length = meld_items(meld, seat, width, 0)
        units.append((items, length, gap))
    for i, flower in enumerate(flowers):
        items, length = row_items([flower], width, 0)
        units.append((items, length, gap if i == 0 else 0.0))
    return units


def flow(units: Sequence[Unit], max_length: float) -> list[tuple[list[Placed], float]]:
    """Wrap units into lines no longer than ``max_length`` (a unit longer than that gets a
    line of its own); returns each line's items, shifted along, and the line's length."""
    lines: list[tuple[list[Placed], float]] = []
    items: list[Placed] = []
    u = 0.0
    for unit_items, length, gap in units:
        start = u + gap if items else 0.0
        if items and start + length > max_length:
            lines.append((items, u))
            items, start = [], 0.0
        for item in unit_items:
            items.append(
                Placed(
                    item.tile,
                    item.u + start,
                    item.v,
                    item.width,
                    item.sideways,
                    item.dim,
                    item.outline,
                )
            )
        u = start + length
    if items:
        lines.append((items, u))
    return lines


def line_height(items: Sequence[Placed]) -> int:
    """How far a line of tiles reaches from its base (a stacked tile reaches further)."""
    return max((int(i.v) + i.dv for i in items), default=0)
