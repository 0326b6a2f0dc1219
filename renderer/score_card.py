"""The reveal and score card: every hand laid open, the winning tile marked, each hand's
itemised score, and who paid whom, as one image.

The winner's block comes first, then the others in turn order from the winner. ``scores``
is indexed by physical seat; payments name physical seats (as the game engine settles).
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.rules.game.view import SeatView, TableView
from bot.rules.score import Payment, Score, ScoreLine
from renderer import style
from renderer.fonts import BOLD, CJK, REGULAR, font
from renderer.glyphs import WIND_GLYPHS
from renderer.layout import Frame, Placed, Scene, ellipsize
from renderer.rows import concealed_tiles, flow, line_height, meld_units, row_items
from renderer.tile_cache import depth

WIND_NAMES = ("East", "South", "West", "North")
WIDTH = 800
MARGIN = 18
TILE_W = 36
GAP = 12
LINE = 19
HEAD = 40
CAPTION = 22


def _name(names: Sequence[str], seat: int) -> str:
    if seat < len(names) and names[seat] and names[seat].strip():
        return names[seat].strip()
    return f"Seat {seat + 1}"


def _score_rows(score: Score | None) -> list[tuple[str, str]]:
    if score is None:
        return [("No score for this hand", "")]
    rows = [_line_text(line) for line in score.lines]
    if not rows:
        rows.append(("Nothing scores", "0"))
    if score.limit_hand:
        rows.append((f"Limit hand: {score.limit_hand}", ""))
    return rows


def _line_text(line: ScoreLine) -> tuple[str, str]:
    if line.doubles:
        return (line.name, "×2" if line.doubles == 1 else f"×2^{line.doubles}")
    return (line.name, str(line.points))


def _tile_lines(
    seat: SeatView, winning: int | None, max_length: float
) -> list[tuple[list[Placed], float]]:
    """The revealed tiles: concealed sorted, the drawn (or winning) tile apart, then melds
    and flowers wrapped to ``max_length``; the winning tile outlined in red."""
    w = TILE_W
    concealed, extra = concealed_tiles(seat)
    win_index: int | None = None
    if winning is not None and seat.concealed is not None:
        if extra == winning:
            win_index = len(concealed)
        elif winning in concealed:
            win_index = len(concealed) - 1 - concealed[::-1].index(winning)
        elif extra is None and not any(winning in m.tiles for m in seat.melds):
            # Won on a discard the view does not hold: show it apart, as if drawn.
            extra = winning
            win_index = len(concealed)
    items, u = row_items(concealed, w, 0)
    if extra is not None:
        more, u = row_items([extra], w, u + GAP)
        items += more
    if win_index is not None:
        items[win_index].outline = style.WIN
    units = [(items, u, 0.0), *meld_units(seat.melds, seat.seat, seat.flowers, w, 2 * GAP)]
    if winning is not None and win_index is None and seat.concealed is not None:
        # The winning tile completed a set now laid out: mark it there.
        for meld_items, _, _ in units[1:]:
            hit = next((item for item in meld_items if item.tile == winning), None)
            if hit is not None:
                hit.outline = style.WIN
                break
    return flow(units, max_length)


def _lines_height(lines: list[tuple[list[Placed], float]]) -> int:
    return sum(line_height(items) + depth(TILE_W) + CAPTION for items, _ in lines)


def _block_height(lines: list[tuple[list[Placed], float]], rows: int) -> int:
    text_lines = (rows + 1) // 2 if rows > 3 else rows
    return HEAD + _lines_height(lines) + 6 + max(text_lines, 1) * LINE + 12


def compose_score_card(
    view: TableView,
    names: Sequence[str],
    scores: Sequence[Score | None],
    payments: Sequence[Payment],
    *,
    winner: int | None,
    winning_tile: int | None,
) -> Image.Image:
    seats = [s for s in view.seats if s.occupied]
    if winner is not None:
        seats.sort(key=lambda s: (s.seat - winner) % 4)
    score_of = {s.seat: (scores[s.seat] if s.seat < len(scores) else None) for s in seats}
    rows_of = {s.seat: _score_rows(score_of[s.seat]) for s in seats}
    net = {s.seat: 0 for s in seats}
    for p in payments:
        net[p.payer] = net.get(p.payer, 0) - p.amount
        net[p.payee] = net.get(p.payee, 0) + p.amount

    room = WIDTH - 2 * MARGIN
    lines_of = {
        s.seat: _tile_lines(s, winning_tile if s.seat == winner else None, room) for s in seats
    }
    width = max(
        [WIDTH] + [int(length) + 2 * MARGIN for ls in lines_of.values() for _, length in ls]
    )
    title_h = 54
    heights = [_block_height(lines_of[s.seat], len(rows_of[s.seat])) for s in seats]
    height = title_h + sum(heights) + 10 * len(seats) + 34 + max(len(payments), 1) * LINE + MARGIN
    image = Image.new("RGB", (width, height), style.FELT)
    scene = Scene(image)
    d = scene.draw
    _title(d, view, names, winner, width)
    y = title_h
    for seat, h in zip(seats, heights, strict=True):
        _block(
            scene,
            d,
            seat,
            names,
            score_of[seat.seat],
            rows_of[seat.seat],
            lines_of[seat.seat],
            net[seat.seat],
            seat.seat == winner,
            y,
            h,
            width,
        )
        y += h + 10
    _payments(d, payments, names, net, y + 6, width)
    scene.flush()
    return image


def _title(
    d: ImageDraw.ImageDraw, view: TableView, names: Sequence[str], winner: int | None, width: int
) -> None:
    d.rectangle((0, 0, width, 44), fill=style.PANEL)
    title = "Hand over: a draw" if winner is None else f"Mah-Jongg! {_name(names, winner)} wins"
    d.text(
        (MARGIN, 10),
        ellipsize(title, font(BOLD, 20), width - 300),
        font=font(BOLD, 20),
        fill=style.GOLD,
    )
    sub = f"{WIND_NAMES[view.round_wind % 4]} round"
    if view.hand_number:  # 0: a hand scored on its own (/score), not one of a game's
        sub += f" · hand {view.hand_number}"
    d.text((width - MARGIN, 14), sub, font=font(REGULAR, 15), fill=style.TEXT_DIM, anchor="ra")


def _block(
    scene: Scene,
    d: ImageDraw.ImageDraw,
    seat: SeatView,
    names: Sequence[str],
    score: Score | None,
    rows: list[tuple[str, str]],
    lines: list[tuple[list[Placed], float]],
    net: int,
    is_winner: bool,
    y: int,
    h: int,
    width: int,
) -> None:
    x0, x1 = MARGIN - 8, width - MARGIN + 8
    d.rounded_rectangle(
        (x0, y, x1, y + h),
        radius=12,
        fill=style.PANEL,
        outline=style.GOLD if is_winner else style.FELT_LINE,
        width=3 if is_winner else 1,
    )
    r = 13
    cx, cy = MARGIN + r, y + 8 + r
    east = seat.wind == 0
    d.ellipse(
        (cx - r, cy - r, cx + r, cy + r),
        fill=style.RED if east else (236, 228, 204),
        outline=style.GOLD,
        width=2,
    )
    d.text(
        (cx, cy + 1),
        WIND_GLYPHS[seat.wind],
        font=font(CJK, 17),
        fill=style.IVORY if east else style.INK,
        anchor="mm",
    )
    label = f"{_name(names, seat.seat)} · {WIND_NAMES[seat.wind]}"
    f = font(BOLD, 17)
    d.text(
        (cx + r + 10, cy), ellipsize(label, f, width * 0.55), font=f, fill=style.TEXT, anchor="lm"
    )
    total = "" if score is None else f"{score.total} points"
    if score is not None and score.limit_hand:
        total += " (limit)"
    money = f"{net:+d}" if net else "±0"
    d.text(
        (x1 - 12, cy),
        money,
        font=font(BOLD, 18),
        fill=style.MARK if net > 0 else style.WIN if net < 0 else style.TEXT_DIM,
        anchor="rm",
    )
    if total:
        d.text((x1 - 90, cy), total, font=font(BOLD, 16), fill=style.GOLD, anchor="rm")

    ty = y + HEAD
    for items, _ in lines:
        base = ty + line_height(items)
        frame = Frame(MARGIN, base, (1, 0), (0, -1), 0)
        for item in items:
            rect = scene.tile(frame, item)
            if item.outline == style.WIN:
                d.text(
                    (rect[0] + rect[2] / 2, base + depth(TILE_W) + 7),
                    "won on",
                    font=font(BOLD, 11),
                    fill=style.WIN,
                    anchor="mt",
                )
        ty = base + depth(TILE_W) + CAPTION
    ty += 6
    two_cols = len(rows) > 3
    col_w = (width - 2 * MARGIN - 20) / (2 if two_cols else 1)
    per_col = (len(rows) + 1) // 2 if two_cols else len(rows)
    f_name, f_val = font(REGULAR, 15), font(BOLD, 15)
    for i, (name, value) in enumerate(rows):
        col, row = divmod(i, per_col) if per_col else (0, i)
        x = MARGIN + col * (col_w + 20)
        yy = ty + row * LINE
        d.text((x, yy), ellipsize(name, f_name, col_w - 60), font=f_name, fill=style.TEXT)
        if value:
            d.text((x + col_w - 8, yy), value, font=f_val, fill=style.GOLD, anchor="ra")


def _payments(
    d: ImageDraw.ImageDraw,
    payments: Sequence[Payment],
    names: Sequence[str],
    net: dict[int, int],
    y: int,
    width: int,
) -> None:
    d.text((MARGIN, y), "Payments", font=font(BOLD, 17), fill=style.GOLD)
    y += 26
    f = font(REGULAR, 15)
    if not payments:
        d.text((MARGIN, y), "Nothing is paid.", font=f, fill=style.TEXT_DIM)
        return
    for p in payments:
        who = f"{_name(names, p.payer)} → {_name(names, p.payee)}"
        d.text((MARGIN, y), ellipsize(who, f, width * 0.45), font=f, fill=style.TEXT)
        d.text(
            (MARGIN + width * 0.5, y),
            str(p.amount),
            font=font(BOLD, 15),
            fill=style.GOLD,
            anchor="ra",
        )
        if p.reason:
            d.text(
                (MARGIN + width * 0.5 + 14, y),
                ellipsize(p.reason, f, width * 0.45),
                font=f,
                fill=style.TEXT_DIM,
            )
        y += LINE
