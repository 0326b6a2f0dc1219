"""The reveal and score card: every hand laid open, the winning tile marked, each hand's
itemised score, and who paid whom, as one image.

The winner's block comes first, then the others in turn order from the winner. ``scores``
is indexed by physical seat; payments name physical seats (as the game engine settles).

Every text is measured before it is placed: a score line too long for its column wraps onto
more lines (the block grows), a total and a payment never run into each other, however wide
the numbers; only players' names are shortened with an ellipsis, never a score line
(issue 11: singapore lines were cut, and "5760 points+23040" ran together).
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import FALLBACK, _
from bot.i18n.score_words import score_words
from bot.i18n.tiles import wind_words
from bot.rules.game.view import SeatView, TableView
from bot.rules.score import Payment, Score, ScoreLine
from renderer import style
from renderer.fonts import BOLD, CJK, REGULAR, drawable, font, like
from renderer.glyphs import WIND_GLYPHS
from renderer.layout import Frame, Placed, Scene, ellipsize
from renderer.rows import concealed_tiles, flow, line_height, meld_units, row_items
from renderer.tile_cache import depth

WIDTH = 600  # shown ~400 px wide in Discord: text stays ~11 px there
MARGIN = 18
TILE_W = 36
GAP = 12
LINE = 22
HEAD = 40
CAPTION = 22


def _name(names: Sequence[str], seat: int, locale: str = FALLBACK) -> str:
    if seat < len(names) and names[seat] and names[seat].strip():
        return names[seat].strip()
    return _(locale, "Seat {number}", number=seat + 1)


def _score_rows(score: Score | None, locale: str = FALLBACK) -> list[tuple[str, str]]:
    """Each score line (its name in the card's language: bot/i18n/score_words.py)."""
    if score is None:
        return [(_(locale, "No score for this hand"), "")]
    rows = [_line_text(line, locale) for line in score.lines]
    if not rows:
        rows.append((_(locale, "Nothing scores"), "0"))
    if score.limit_hand:
        rows.append((score_words(locale, f"Limit hand: {score.limit_hand}"), ""))
    return rows


def _line_text(line: ScoreLine, locale: str = FALLBACK) -> tuple[str, str]:
    name = score_words(locale, line.name)
    if line.doubles:
        return (name, "×2" if line.doubles == 1 else f"×2^{line.doubles}")
    return (name, str(line.points))


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
        for meld_items, _end, _gap in units[1:]:
            hit = next((item for item in meld_items if item.tile == winning), None)
            if hit is not None:
                hit.outline = style.WIN
                break
    return flow(units, max_length)


def _lines_height(lines: list[tuple[list[Placed], float]]) -> int:
    return sum(line_height(items) + depth(TILE_W) + CAPTION for items, _length in lines)


ROW_FONT = (REGULAR, 17)
VALUE_FONT = (BOLD, 17)
COLUMN_GAP = 20
INDENT = 14


def wrap_whole(text: str, f: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    """``text`` wrapped to ``max_width`` pixels on as many lines as it needs (greedy, by
    words; a word wider than a line is broken between characters). Nothing is left out."""
    lines: list[str] = []
    current = ""

    def length(part: str) -> float:
        return like(f, part).getlength(part)

    for word in drawable(text).split():
        trial = f"{current} {word}".strip()
        if length(trial) <= max_width:
            current = trial
            continue
        if current:
            lines.append(current)
        current = word
        while length(current) > max_width and len(current) > 1:
            cut = len(current) - 1
            while cut > 1 and length(current[:cut]) > max_width:
                cut -= 1
            lines.append(current[:cut])
            current = current[cut:]
    lines.append(current)
    return lines


def _row_layout(
    rows: list[tuple[str, str]], width: int
) -> tuple[list[tuple[float, float, list[str], str, float]], int]:
    """Where each score line goes: (x, y offset, wrapped name lines, value, value's right
    edge), and the height of them all. Two columns when there are more than three lines."""
    inner = width - 2 * MARGIN
    f_name, f_val = font(*ROW_FONT), font(*VALUE_FONT)
    half = (inner - COLUMN_GAP) / 2

    def fits(name: str, value: str, col_w: float) -> bool:
        room = col_w - 8 - (f_val.getlength(value) + 14 if value else 0)
        shown = drawable(name)
        return like(f_name, shown).getlength(shown) <= room - INDENT

    # Two columns only when every line fits in one without wrapping: a card read on a phone
    # is easier in one column of whole lines than in two of broken ones.
    two_cols = len(rows) > 3 and all(fits(n, v, half) for n, v in rows)
    col_w = half if two_cols else inner
    per_col = (len(rows) + 1) // 2 if two_cols else len(rows)
    placed = []
    heights = [0, 0]
    for i, (name, value) in enumerate(rows):
        col = i // per_col if per_col else 0
        x = MARGIN + col * (col_w + COLUMN_GAP)
        right = x + col_w - 8
        room = col_w - 8 - (f_val.getlength(value) + 14 if value else 0)
        lines = wrap_whole(name, f_name, room - INDENT)
        placed.append((x, heights[col], lines, value, right))
        heights[col] += LINE * len(lines)
    return placed, max(max(heights), LINE)


def _block_height(lines: list[tuple[list[Placed], float]], rows_height: int) -> int:
    return HEAD + _lines_height(lines) + 6 + rows_height + 12


def compose_score_card(
    view: TableView,
    names: Sequence[str],
    scores: Sequence[Score | None],
    payments: Sequence[Payment],
    *,
    winner: int | None,
    winning_tile: int | None,
    title: str | None = None,
    locale: str = FALLBACK,
) -> Image.Image:
    """The card's image; ``locale``: the language of its words (the channel's for a reveal,
    the asker's or the server's for ``/score``)."""
    seats = [s for s in view.seats if s.occupied]
    if winner is not None:
        seats.sort(key=lambda s: (s.seat - winner) % 4)
    score_of = {s.seat: (scores[s.seat] if s.seat < len(scores) else None) for s in seats}
    rows_of = {s.seat: _score_rows(score_of[s.seat], locale) for s in seats}
    net = {s.seat: 0 for s in seats}
    for p in payments:
        net[p.payer] = net.get(p.payer, 0) - p.amount
        net[p.payee] = net.get(p.payee, 0) + p.amount

    room = WIDTH - 2 * MARGIN
    lines_of = {
        s.seat: _tile_lines(s, winning_tile if s.seat == winner else None, room) for s in seats
    }
    width = max(
        [WIDTH] + [int(length) + 2 * MARGIN for ls in lines_of.values() for _items, length in ls]
    )
    title_h = 54
    layouts = {s.seat: _row_layout(rows_of[s.seat], width) for s in seats}
    heights = [_block_height(lines_of[s.seat], layouts[s.seat][1]) for s in seats]
    paid = _payment_layout(payments, names, width, locale)
    paid_h = sum(LINE * len(reason) for _who, _amount, reason in paid) if paid else LINE
    height = title_h + sum(heights) + 10 * len(seats) + 34 + paid_h + MARGIN
    image = Image.new("RGB", (width, height), style.FELT)
    scene = Scene(image)
    d = scene.draw
    _title(d, view, names, winner, width, title, locale)
    y = title_h
    for seat, h in zip(seats, heights, strict=True):
        _block(
            scene,
            d,
            seat,
            names,
            score_of[seat.seat],
            layouts[seat.seat][0],
            lines_of[seat.seat],
            net[seat.seat],
            seat.seat == winner,
            y,
            h,
            width,
            locale,
        )
        y += h + 10
    _payments(d, paid, y + 6, width, locale)
    scene.flush()
    return image


def _title(
    d: ImageDraw.ImageDraw,
    view: TableView,
    names: Sequence[str],
    winner: int | None,
    width: int,
    title: str | None = None,
    locale: str = FALLBACK,
) -> None:
    d.rectangle((0, 0, width, 44), fill=style.PANEL)
    if title is None:
        title = (
            _(locale, "Hand over: nobody won")
            if winner is None
            else _(locale, "Mah-Jongg! {name} wins", name=_name(names, winner, locale))
        )
    wind = wind_words(locale, view.round_wind)
    if view.hand_number:  # 0: a hand scored on its own (/score), not one of a game's
        sub = _(locale, "{wind} round · hand {number}", wind=wind, number=view.hand_number)
    else:
        sub = _(locale, "{wind} round", wind=wind)
    f_sub = like(font(REGULAR, 15), sub)
    d.text((width - MARGIN, 14), sub, font=f_sub, fill=style.TEXT_DIM, anchor="ra")
    room = width - 2 * MARGIN - f_sub.getlength(sub) - 24
    size = 20
    while size > 14 and like(font(BOLD, size), title).getlength(drawable(title)) > room:
        size -= 1
    f = font(BOLD, size)
    shown = ellipsize(title, f, room)
    d.text((MARGIN, 22), shown, font=like(f, shown), fill=style.GOLD, anchor="lm")


def _block(
    scene: Scene,
    d: ImageDraw.ImageDraw,
    seat: SeatView,
    names: Sequence[str],
    score: Score | None,
    rows: list[tuple[float, float, list[str], str, float]],
    lines: list[tuple[list[Placed], float]],
    net: int,
    is_winner: bool,
    y: int,
    h: int,
    width: int,
    locale: str = FALLBACK,
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
    total = "" if score is None else _(locale, "{points} points", points=score.total)
    if score is not None and score.limit_hand:
        total = _(locale, "{points} points (limit)", points=score.total)
    money = f"{net:+d}" if net else "±0"
    f_money, f_total, f_label = font(BOLD, 18), font(BOLD, 16), font(BOLD, 17)
    right = x1 - 12
    d.text(
        (right, cy),
        money,
        font=f_money,
        fill=style.MARK if net > 0 else style.WIN if net < 0 else style.TEXT_DIM,
        anchor="rm",
    )
    left_of_numbers = right - f_money.getlength(money) - 18
    if total:
        f_total = like(f_total, total)
        d.text((left_of_numbers, cy), total, font=f_total, fill=style.GOLD, anchor="rm")
        left_of_numbers -= f_total.getlength(total) + 18
    label = f"{_name(names, seat.seat, locale)} · {wind_words(locale, seat.wind)}"
    label_x = cx + r + 10
    shown = ellipsize(label, f_label, left_of_numbers - label_x)
    d.text((label_x, cy), shown, font=like(f_label, shown), fill=style.TEXT, anchor="lm")

    ty = y + HEAD
    for items, _length in lines:
        base = ty + line_height(items)
        frame = Frame(MARGIN, base, (1, 0), (0, -1), 0)
        for item in items:
            rect = scene.tile(frame, item)
            if item.outline == style.WIN:
                won_on = _(locale, "won on")
                d.text(
                    (rect[0] + rect[2] / 2, base + depth(TILE_W) + 7),
                    won_on,
                    font=like(font(BOLD, 11), won_on),
                    fill=style.WIN,
                    anchor="mt",
                )
        ty = base + depth(TILE_W) + CAPTION
    ty += 6
    f_name, f_val = font(*ROW_FONT), font(*VALUE_FONT)
    for x, dy, name_lines, value, value_right in rows:
        for k, text in enumerate(name_lines):
            indent = INDENT if k else 0  # a wrapped line's rest, set in: one line, not two
            d.text((x + indent, ty + dy + k * LINE), text, font=like(f_name, text), fill=style.TEXT)
        if value:
            d.text((value_right, ty + dy), value, font=f_val, fill=style.GOLD, anchor="ra")


def _payment_layout(
    payments: Sequence[Payment], names: Sequence[str], width: int, locale: str = FALLBACK
) -> list[tuple[str, str, list[str]]]:
    """Each payment as (who, amount, reason wrapped into the room right of the amount)."""
    f = font(*ROW_FONT)
    amount_right = MARGIN + width * 0.5
    room = width - MARGIN - (amount_right + 14)
    out = []
    f_amount = font(*VALUE_FONT)
    for p in payments:
        amount = str(p.amount)
        who = _who_pays(
            _name(names, p.payer, locale),
            _name(names, p.payee, locale),
            f,
            amount_right - f_amount.getlength(amount) - 16 - MARGIN,
        )
        reason = wrap_whole(score_words(locale, p.reason), f, room) if p.reason else [""]
        out.append((who, amount, reason))
    return out


def _who_pays(payer: str, payee: str, f: ImageFont.FreeTypeFont, room: float) -> str:
    """ "payer → payee" in ``room`` pixels: when it does not fit, each name is shortened to
    half the room, so both stay readable (never the payee cut away)."""
    whole = f"{payer} → {payee}"
    if like(f, whole).getlength(drawable(whole)) <= room:
        return whole
    names_room = room - f.getlength(" → ")
    payee_room = min(like(f, payee).getlength(drawable(payee)), names_room / 2)
    payee_text = ellipsize(payee, f, payee_room)
    payer_room = names_room - like(f, payee_text).getlength(payee_text)
    return f"{ellipsize(payer, f, payer_room)} → {payee_text}"


def _payments(
    d: ImageDraw.ImageDraw,
    paid: list[tuple[str, str, list[str]]],
    y: int,
    width: int,
    locale: str = FALLBACK,
) -> None:
    heading = _(locale, "Payments")
    d.text((MARGIN, y), heading, font=like(font(BOLD, 17), heading), fill=style.GOLD)
    y += 26
    f, f_amount = font(*ROW_FONT), font(*VALUE_FONT)
    if not paid:
        nothing = _(locale, "Nothing is paid.")
        d.text((MARGIN, y), nothing, font=like(f, nothing), fill=style.TEXT_DIM)
        return
    amount_right = MARGIN + width * 0.5
    for who, amount, reason in paid:
        d.text((MARGIN, y), drawable(who), font=like(f, drawable(who)), fill=style.TEXT)
        d.text((amount_right, y), amount, font=f_amount, fill=style.GOLD, anchor="ra")
        for k, text in enumerate(reason):
            if text:
                d.text(
                    (amount_right + 14, y + k * LINE), text, font=like(f, text), fill=style.TEXT_DIM
                )
        y += LINE * len(reason)
