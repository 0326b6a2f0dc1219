"""The image renderer: tile art, the table, the hand, the score card, emoji, the demo."""

from __future__ import annotations

import functools
import io
import itertools
import re
from collections import Counter
from dataclasses import replace
from importlib import resources

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont

from bot.rules.game import pending_seats
from bot.rules.game import view as game_view
from bot.rules.game.view import SeatView, TableView
from bot.rules.melds import Kind, Meld
from bot.rules.score import Payment, Score, ScoreLine
from renderer import (
    ALL_EMOJI_TILES,
    BACK,
    emoji_name,
    hand_order,
    render_hand,
    render_score_card,
    render_seat_table,
    render_table,
    render_tile_emoji,
    style,
)
from renderer.demo import write_demo, write_readme_images
from renderer.encode import framed_png, indexed
from renderer.fonts import BOLD, CJK, CONDENSED, REGULAR, font, latin_safe
from renderer.glyphs import CJK_TEXT
from renderer.hand import split_rows
from renderer.rows import claimed_position, concealed_tiles, meld_items
from renderer.samples import NAMES, played_hand, sample_scores, sample_table
from renderer.table import _draw_block, _draw_header, compose, compose_indexed
from renderer.table_layout import HEADER_H, HIGHLIGHT, TILE_W, layout_table
from renderer.tile_cache import depth, face_height, tile_sprite

MAX_BYTES = 200 * 1024


def png(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("index", [True, False])
def test_every_tile_renders_and_differs_from_every_other(index: bool) -> None:
    tiles = [*range(42), BACK]
    pixels = {tile: tile_sprite(tile, 34, 0, index).tobytes() for tile in tiles}
    for a, b in itertools.combinations(tiles, 2):
        assert pixels[a] != pixels[b], (a, b)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_sprite_size_follows_rotation(rotation: int) -> None:
    sprite = tile_sprite(5, 30, rotation)
    w, h = (30, face_height(30)) if rotation in (0, 180) else (face_height(30), 30)
    assert sprite.size == (w, h + depth(30))
    assert sprite.mode == "RGBA"


def test_cache_returns_the_same_object() -> None:
    assert tile_sprite(12, 34, 90, True) is tile_sprite(12, 34, 90, True)
    assert render_tile_emoji(7) is render_tile_emoji(7)


def test_western_index_changes_tiles_and_images() -> None:
    assert tile_sprite(4, 34, 0, True).tobytes() != tile_sprite(4, 34, 0, False).tobytes()
    view = sample_table(7)
    assert render_table(view, NAMES) != render_table(view, NAMES, western_index=False)
    mine = sample_table(7, viewer=0)
    assert render_hand(mine) != render_hand(mine, western_index=False)


@pytest.mark.parametrize(
    ("players", "hand_size", "turns"),
    [(4, 13, 40), (3, 13, 45), (2, 13, 70), (4, 16, 36), (2, 16, 90)],
)
def test_table_images(players: int, hand_size: int, turns: int) -> None:
    view = sample_table(11, players=players, hand_size=hand_size, turns=turns)
    assert sum(s.occupied for s in view.seats) == players
    data = render_table(view, NAMES)
    image = png(data)
    assert len(data) < MAX_BYTES
    assert image.width == 600
    assert image.height >= image.width  # taller than wide: a phone scrolls down
    for viewer in (0, 1):
        mine = sample_table(11, players=players, hand_size=hand_size, turns=turns, viewer=viewer)
        assert len(render_table(mine, NAMES)) < MAX_BYTES


def test_filipino_hand_of_seventeen_tiles() -> None:
    view = sample_table(5, hand_size=16, turns=0, viewer=None)
    dealer = view.dealer
    mine = sample_table(5, hand_size=16, turns=0, viewer=dealer)
    seat = next(s for s in mine.seats if s.seat == dealer)
    assert seat.concealed is not None and seat.drawn is not None
    assert len(seat.concealed) + 1 == 17
    hand = png(render_hand(mine))
    assert hand.width <= 1000
    assert len(render_table(mine, NAMES)) < MAX_BYTES
    # The public table shows seventeen backs for the dealer, the last one set apart.
    public = next(s for s in view.seats if s.seat == dealer)
    tiles, apart = concealed_tiles(public)
    assert len(tiles) == 16 and apart == BACK


def _hidden_variants(view: TableView) -> list[TableView]:
    """The same table with different tiles behind the seats the viewer cannot see.

    The view withholds their concealed tiles (None); here a careless caller also leaves a
    drawn tile in, a different one each time. Whichever it is, the image must not change.
    """
    out = []
    for offset in (0, 5, 13, 29):
        seats = []
        for seat in view.seats:
            holding = getattr(seat, "holding_drawn", seat.seat == view.turn)
            if seat.concealed is None and seat.occupied and holding:
                seat = replace(seat, drawn=(offset + 3 * seat.seat) % 34)
            seats.append(seat)
        out.append(replace(view, seats=tuple(seats)))
    return out


@pytest.mark.parametrize("viewer", [None, 0, 2])
def test_hidden_hands_never_show_a_face(viewer: int | None) -> None:
    view = sample_table(3, viewer=viewer, turns=25)
    images = {render_table(v, NAMES) for v in _hidden_variants(view)}
    assert len(images) == 1
    # The check has teeth: revealing one of the hidden hands does change the image.
    hidden = next(s for s in view.seats if s.concealed is None and s.occupied)
    shown = replace(hidden, concealed=tuple(range(hidden.concealed_count)))
    seats = tuple(shown if s.seat == hidden.seat else s for s in view.seats)
    assert render_table(replace(view, seats=seats), NAMES) not in images


def test_hand_image() -> None:
    view = sample_table(7, viewer=1)
    seat = next(s for s in view.seats if s.seat == 1)
    data = render_hand(view)
    image = png(data)
    assert len(data) < MAX_BYTES
    assert 360 <= image.width <= 1000 and image.height < 400
    marked = render_hand(view, marks=frozenset(seat.concealed or ()))
    assert marked != data


def test_hand_needs_a_seat_view() -> None:
    with pytest.raises(ValueError):
        render_hand(sample_table(7))


def test_score_card() -> None:
    view = sample_table(9, turns=30, revealed=True)
    winner = view.turn
    seat = next(s for s in view.seats if s.seat == winner)
    tile = seat.drawn if seat.drawn is not None else (seat.concealed or (0,))[-1]
    scores, payments = sample_scores(view, winner)
    data = render_score_card(view, NAMES, scores, payments, winner=winner, winning_tile=tile)
    image = png(data)
    assert len(data) < MAX_BYTES
    assert image.width == 600  # like the tables: shown ~400 px wide, text ~11 px there
    other = render_score_card(view, NAMES, scores, payments, winner=winner, winning_tile=None)
    assert other != data


def test_score_card_names_the_hand_number_only_in_a_game(monkeypatch) -> None:
    """A hand scored on its own (/score, hand_number 0) says its round, not "hand 0"."""
    view = sample_table(9, turns=30, revealed=True)
    scores, payments = sample_scores(view, view.turn)
    drawn = _drawn_texts(monkeypatch)
    for number in (12, 0):
        render_score_card(
            replace(view, hand_number=number),
            NAMES,
            scores,
            payments,
            winner=view.turn,
            winning_tile=None,
        )
    texts = [t for t, _ in drawn]
    rounds = [t for t in texts if t.endswith(" round") or " round · hand " in t]
    assert [t.split(" round")[1] for t in rounds] == [" · hand 12", ""]


def test_score_card_of_a_drawn_hand_with_missing_scores() -> None:
    view = sample_table(9, players=3, turns=30, revealed=True)
    data = render_score_card(view, ("", "Bo", "Cy"), [None] * 4, [], winner=None, winning_tile=None)
    png(data)


def test_score_card_long_lines_and_limit() -> None:
    view = sample_table(2, turns=20, revealed=True)
    lines = tuple(ScoreLine("A very long score line " * 5, 1000) for _ in range(12))
    score = Score((*lines, ScoreLine("Double", doubles=3)), 2000, limit_hand="Heavenly Hand")
    payments = [Payment(s, 0, 99999, "limit " * 20) for s in (1, 2, 3)]
    png(render_score_card(view, NAMES, [score] * 4, payments, winner=0, winning_tile=5))


def test_emoji() -> None:
    names = set()
    for tile in ALL_EMOJI_TILES:
        data = render_tile_emoji(tile)
        image = png(data)
        assert image.size == (128, 128)
        assert image.mode == "RGBA"
        assert len(data) <= 256 * 1024
        name = emoji_name(tile)
        assert re.fullmatch(r"[A-Za-z0-9_]{2,32}", name)
        names.add(name)
    assert len(names) == len(ALL_EMOJI_TILES)
    assert emoji_name(13) == "mj_5d"
    assert emoji_name(27) == "mj_E"
    assert emoji_name(31) == "mj_Wh"
    assert emoji_name(BACK) == "mj_back"
    with pytest.raises(ValueError):
        render_tile_emoji(42)


def test_claimed_tile_sits_on_the_side_it_came_from() -> None:
    pung = Meld(Kind.PUNG, 5, claimed=5, from_seat=3)
    assert claimed_position(pung, 0) == 0  # from the left neighbour
    assert claimed_position(replace(pung, from_seat=2), 0) == 1  # from across
    assert claimed_position(replace(pung, from_seat=1), 0) == 2  # from the right neighbour
    kong = Meld(Kind.KONG, 5, claimed=5, from_seat=1)
    assert claimed_position(kong, 0) == 3
    items, _ = meld_items(Meld(Kind.KONG, 5, concealed=True), 0, 30, 0)
    assert [i.tile for i in items] == [BACK, 5, 5, BACK]
    added, _ = meld_items(replace(pung, kind=Kind.KONG, added=True), 0, 30, 0)
    assert len(added) == 4 and sum(i.sideways for i in added) == 2


def test_chow_claimed_tile_lies_in_its_slot() -> None:
    chow = Meld(Kind.CHOW, 2, claimed=3, from_seat=3)  # 3-4-5 of characters, the 4 claimed
    items, _ = meld_items(chow, 0, 30, 0)
    assert [(i.tile, i.sideways) for i in items] == [(3, True), (2, False), (4, False)]
    items, _ = meld_items(replace(chow, from_seat=2), 0, 30, 0)
    assert [(i.tile, i.sideways) for i in items] == [(2, False), (3, True), (4, False)]


def test_long_hands_split_in_two_rows_at_a_suit_change() -> None:
    short = [0, 1, 2, 9, 10]
    assert split_rows(short, True) == (short, [])
    hand = [0, 1, 2, 3, 4, 9, 10, 11, 12, 18, 19, 20, 27, 27, 31, 31]
    first, second = split_rows(hand, True)
    assert first + second == hand
    assert abs(len(first) - (len(second) + 1)) <= 3
    assert first[-1] // 9 != second[0] // 9


def _ink(f: ImageFont.FreeTypeFont, text: str) -> bytes:
    image = Image.new("L", (400, 64))
    ImageDraw.Draw(image).text((4, 4), text, font=f, fill=255)
    assert image.getbbox() is not None, text
    return image.tobytes()


def test_bundled_fonts_hold_every_glyph_drawn() -> None:
    # The subset must carry every character the tiles use: a missing one would draw the
    # empty .notdef box, the same as a character that is certainly not in it.
    cjk = font(CJK, 48)
    missing = _ink(cjk, "龍")
    for ch in CJK_TEXT:
        assert _ink(cjk, ch) != missing, ch
    for name in (BOLD, REGULAR, CONDENSED):
        latin = font(name, 20)
        notdef = _ink(latin, "龍")
        for ch in "AzÿŁΩДж→":
            assert _ink(latin, ch) != notdef, ch
    root = resources.files("renderer") / "assets"
    for asset in ("OFL.txt", "DejaVu-LICENSE.txt", "build_font.py", CJK):
        assert (root / asset).is_file()
    assert (root / CJK).stat().st_size < 40_000


def test_names_outside_the_font_are_replaced() -> None:
    assert latin_safe("Zoë Łukasz Ωmega Дима") == "Zoë Łukasz Ωmega Дима"
    assert latin_safe("Nguyễn") == "Nguyen"
    assert latin_safe("🀄🀄 king") == "? king"
    view = sample_table(7)
    png(render_table(view, ("🀄", "", "王小明", "x" * 200)))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(seed=1928, players=4, hand_size=13, turns=79)  # a kong drew the wall's last tile
@given(
    seed=st.integers(0, 10_000),
    players=st.sampled_from([2, 3, 4]),
    hand_size=st.sampled_from([13, 16]),
    turns=st.integers(0, 80),
)
def test_any_sample_table_renders(seed: int, players: int, hand_size: int, turns: int) -> None:
    view = sample_table(seed, players=players, hand_size=hand_size, turns=turns)
    assert len(render_table(view, NAMES)) < MAX_BYTES


def test_unknown_and_empty_seats() -> None:
    view = sample_table(7)
    seats = tuple(s if s.seat != 1 else replace(s, occupied=False) for s in view.seats)
    png(render_table(replace(view, seats=seats), NAMES))
    three = replace(view, seats=tuple(s for s in view.seats if s.seat != 3))
    png(render_table(three, NAMES))
    lone = SeatView(seat=0, wind=0, concealed=None, concealed_count=0)
    png(render_table(replace(view, seats=(lone,), last_discard=None), NAMES))


def test_write_demo(tmp_path) -> None:
    paths = write_demo(tmp_path)
    names = {p.name for p in paths}
    for expected in (
        "table_4p.png",
        "table_3p.png",
        "table_2p.png",
        "hand.png",
        "hand_filipino16.png",
        "seat_table.png",
        "seat_table_filipino16.png",
        "score_card.png",
        "mj_5d.png",
    ):
        assert expected in names
    assert all(p.stat().st_size > 0 for p in paths)
    readme = write_readme_images(tmp_path / "readme")
    assert {p.name for p in readme} == {"table.png", "seat-table.png", "score-card.png"}
    assert all(len(p.read_bytes()) < MAX_BYTES for p in readme)


# --- the tables read on a phone -------------------------------------------------------------

# Seeded games of the engine played by the computer players (renderer.samples.played_hand),
# picked for long hands: many discards and several exposed sets late in the hand.
PLAYED = {
    "4 players": ("pung-chow", 27, 4),
    "3 players": ("pung-chow", 33, 3),
    "2 players": ("pung-chow", 0, 2),
    "filipino-16": ("filipino-16", 24, 4),
    "filipino-16, 2 players": ("filipino-16", 35, 2),
}
PHONE = 400  # px: how wide Discord shows an embed image
READABLE = 24  # px: the narrowest a discard or exposed tile may be at that width


@functools.cache
def _played(name: str) -> list:
    ruleset, seed, players = PLAYED[name]
    return played_hand(ruleset, seed, players=players)


def _moments(name: str) -> dict[str, object]:
    states = _played(name)
    n = len(states)
    return {
        "early": states[n // 6],
        "middle": states[n // 2],
        "late": states[-2],
        "over": states[-1],
    }


def _views(state) -> list[TableView]:
    """The channel's view and the view of every occupied seat."""
    seats = [s for s in range(4) if state.occupied[s]]
    return [game_view(state, None), *(game_view(state, s) for s in seats)]


@pytest.mark.parametrize("name", PLAYED)
def test_late_moments_have_many_discards_and_sets(name: str) -> None:
    """The games below are long enough to test what they claim to."""
    late = _moments(name)["late"]
    assert max(len(s.discards) for s in late.seats) >= 15
    assert sum(len(s.melds) for s in late.seats) >= 3


@pytest.mark.parametrize("name", PLAYED)
def test_tiles_are_readable_at_phone_width(name: str) -> None:
    """Scaled to 400 px wide, every discard and exposed tile of every table (the channel's
    and each seat's, early, midway, late and laid open) is at least 24 px wide, measured on
    the layout the drawing used; the viewer's own hand too."""
    for moment, state in _moments(name).items():
        for view in _views(state):
            layout = layout_table(view)
            image = png(render_table(view, NAMES))
            assert image.size == (layout.width, layout.height)
            scale = PHONE / layout.width
            counted = Counter(t.role for t in layout.tiles)
            discards = sum(len(s.discards) for s in view.seats if s.occupied)
            melds = sum(m.size for s in view.seats if s.occupied for m in s.melds)
            assert counted["discard"] == discards, (moment, view.viewer)
            assert counted["meld"] == melds, (moment, view.viewer)
            for box in layout.tiles:
                if box.role in ("back", "latest"):
                    continue
                x, y, w, h = box.rect
                assert min(w, h) * scale >= READABLE, (moment, view.viewer, box)
                assert x >= 0 and x + w <= layout.width and y >= 0 and y + h <= layout.height


def _distance(point: tuple[float, float], rect: tuple[int, int, int, int]) -> float:
    x, y, w, h = rect
    dx = max(x - point[0], 0, point[0] - (x + w))
    dy = max(y - point[1], 0, point[1] - (y + h))
    return (dx * dx + dy * dy) ** 0.5


def _inside(rect: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    x, y, w, h = rect
    ox, oy, ow, oh = outer
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


@pytest.mark.parametrize("name", PLAYED)
def test_sets_lie_beside_their_owner(name: str) -> None:
    """Each seat's sets, flowers, hand and discards lie inside that seat's block (the
    viewer's own sets in the hand area right under its block), and the name plate nearest
    each of them is their owner's: on every table size, in the channel and in a DM."""
    checked = 0
    for state in _moments(name).values():
        for view in _views(state):
            layout = layout_table(view)
            occupied = {s.seat for s in view.seats if s.occupied}
            assert {b.seat for b in layout.blocks} == occupied
            for box in layout.tiles:
                if box.role == "latest":
                    continue
                block = layout.block(box.seat)
                region = block.region
                if block.own and box.role in ("meld", "flower", "hand", "drawn"):
                    assert layout.hand is not None
                    region = layout.hand
                assert _inside(box.rect, region), (view.viewer, box)
                x, y, w, h = box.rect
                centre = (x + w / 2, y + h / 2)
                nearest = min(layout.blocks, key=lambda b: _distance(centre, b.plate))
                assert nearest.seat == box.seat, (view.viewer, box)
                checked += box.role == "meld"
    assert checked > 0


@pytest.mark.parametrize("name", ["4 players", "filipino-16", "2 players"])
def test_seat_table_keeps_its_size_and_places_all_hand(name: str) -> None:
    """A seat's picture keeps its height, its hand row and the drawn tile's place from the
    deal to the last move (while no seat shows more sets than a line holds), so the buttons
    under it never move; its hand is drawn in ``hand_order``."""
    states = _played(name)[:-1]
    viewer = next(s for s in range(4) if states[0].occupied[s])
    layouts = []
    for state in states:
        view = game_view(state, viewer)
        if max(len(s.melds) for s in view.seats) >= 4:
            break
        layout = layout_table(view)
        layouts.append(layout)
        hand = sorted((t for t in layout.tiles if t.role == "hand"), key=lambda t: t.x)
        drawn = [t for t in layout.tiles if t.role == "drawn"]
        assert [t.tile for t in hand + drawn] == hand_order(view)
        for i, tile in enumerate(hand):
            assert (tile.x, tile.y) == (hand[0].x + i * layout.hand_width, hand[0].y)
        if drawn:
            assert drawn[0].rect == layout.drawn_slot
    assert len(layouts) > len(states) // 2
    assert len({(lay.height, lay.hand, lay.drawn_slot, lay.hand_width) for lay in layouts}) == 1
    hand_rows = {next(t.y for t in lay.tiles if t.role == "hand") for lay in layouts}
    assert len(hand_rows) == 1
    assert layouts[0].hand_width * PHONE / layouts[0].width >= READABLE


@pytest.mark.parametrize("name", PLAYED)
def test_the_seat_to_play_is_framed_in_gold(name: str) -> None:
    state = next(s for s in _played(name) if s.phase == "play")
    view = game_view(state, None)
    layout = layout_table(view)
    image = png(render_table(view, NAMES)).convert("RGB")
    for block in layout.blocks:
        x, y, _, h = block.region
        edge = image.getpixel((x + 1, y + h // 2))
        gold = sum(abs(a - b) for a, b in zip(edge, style.GOLD, strict=True)) < 30
        assert gold == (block.seat == view.turn), block


@pytest.mark.parametrize("viewer", [0, 2])
def test_seat_table_never_shows_another_hand(viewer: int) -> None:
    view = sample_table(3, viewer=viewer, turns=25)
    images = {render_seat_table(v, NAMES) for v in _hidden_variants(view)}
    assert len(images) == 1
    hidden = next(s for s in view.seats if s.concealed is None and s.occupied)
    shown = replace(hidden, concealed=tuple(range(hidden.concealed_count)))
    seats = tuple(shown if s.seat == hidden.seat else s for s in view.seats)
    assert render_seat_table(replace(view, seats=seats), NAMES) not in images


def test_seat_table_marks_and_errors() -> None:
    view = sample_table(7, viewer=1)
    plain = render_seat_table(view, NAMES)
    assert len(plain) < MAX_BYTES
    own = next(s for s in view.seats if s.seat == 1)
    marked = render_seat_table(view, NAMES, marks=frozenset(own.concealed or ()))
    assert marked != plain
    assert png(marked).size == png(plain).size
    with pytest.raises(ValueError):
        render_seat_table(sample_table(7), NAMES)
    with pytest.raises(ValueError):
        hand_order(sample_table(7))


def test_names_nothing_can_draw_become_the_seat() -> None:
    view = sample_table(7)
    # (A Chinese name is drawn now: tests/i18n/test_fonts.py.)
    odd = png(render_table(view, ("🀄🀄", "🀄", "", "  ")))
    plain = png(render_table(view, ("Seat 1", "Seat 2", "Seat 3", "Seat 4")))
    assert odd.tobytes() == plain.tobytes()


# -- the score card's text: measured, never overlapping or cut (issue 11) ----------------------


def _longest_line_names(ruleset: str, count: int = 10) -> list[str]:
    """The longest score-line and limit-hand names the rule set writes, from many random
    complete hands won every way at every seat (flowers on, every flag)."""
    import random

    from bot.rules.hand import Situation, Win
    from bot.rules.rulesets import HandError, get_ruleset
    from bot.rules.sampling import random_complete_hand

    rules = get_ruleset(ruleset)
    options = rules.options({"flowers": True})
    rng = random.Random(5)
    names: set[str] = set()
    flags = ("original-hand", "last-tile", "last-discard", "first-discard", "robbing-kong")
    for i in range(1500):
        hand, win = random_complete_hand(rng, rules.sets_needed)
        if rng.random() < 0.3:
            hand = replace(hand, flowers=tuple(rng.sample(range(34, 42), rng.randint(1, 4))))
        seat = rng.randrange(4)
        if win.from_seat == seat:
            win = replace(win, from_seat=(seat + 1) % 4)
        win = Win(win.tile, win.by, win.from_seat, frozenset(rng.sample(flags, i % 3)))
        situation = Situation(seat, rng.randrange(4), {"renchon": i % 10} if seat == 0 else {})
        try:
            score = rules.score(hand, situation, win, options)
        except HandError:
            continue
        names.update(line.name for line in score.lines)
        if score.limit_hand:
            names.add(f"Limit hand: {score.limit_hand}")
    return sorted(names, key=lambda n: (-len(n), n))[:count]


def _drawn_texts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[float, ...]]]:
    """Every text a card draws on itself, with its measured box (not the tiles' own index
    numbers, drawn on tile pictures of their own: those are narrower than any card)."""
    drawn: list[tuple[str, tuple[float, ...]]] = []
    original = ImageDraw.ImageDraw.text

    def text(self, xy, text, fill=None, font=None, anchor=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.im.size[0] >= 400:
            drawn.append((text, self.textbbox(xy, text, font=font, anchor=anchor)))
        return original(self, xy, text, fill, font, anchor, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    return drawn


@pytest.mark.parametrize("ruleset", ["pung-chow", "pung-chow-limit", "filipino-16", "singapore"])
def test_score_card_text_never_overlaps_or_is_cut(ruleset: str, monkeypatch) -> None:
    longest = _longest_line_names(ruleset)
    assert longest and len(longest[0]) > 20
    lines = (
        *(ScoreLine(name, 99999) for name in longest[:-1]),
        ScoreLine(longest[-1], doubles=12),
    )
    widest = Score(lines, 99_999_999, limit_hand=None)
    view = sample_table(9, turns=30, revealed=True)
    names = ["W" * 32, "Ẃide Ñame " * 3, "M" * 32, "Bo"]
    payments = [
        Payment(s, 0, 999_999_999, reason) for s, reason in ((1, longest[0]), (2, "Mah-Jongg"))
    ] + [Payment(3, 1, 999_999_999, "difference of scores")]
    drawn = _drawn_texts(monkeypatch)
    image = png(
        render_score_card(
            view, names, [widest] * 4, payments, winner=0, winning_tile=None, title=None
        )
    )
    texts = [t for t, _ in drawn]
    boxes = [b for _, b in drawn]
    for (text_a, a), (text_b, b) in itertools.combinations(drawn, 2):
        overlap = a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
        assert not overlap, f"{text_a!r} {a} overlaps {text_b!r} {b}"
    for text, box in zip(texts, boxes, strict=True):
        assert box[0] >= 0 and box[1] >= 0, text
        assert box[2] <= image.width and box[3] <= image.height, (text, box, image.size)
    # Every score line is there whole (wrapped maybe, never ellipsized); only names are cut.
    joined = "".join("".join(texts).split())
    for line in lines:
        assert "".join(line.name.split()) in joined, line.name
    shown_names = [latin_safe(name) for name in names]
    for text in texts:
        if "…" in text:  # only a name is shortened: what is left of it starts that name
            for part in text.split(" → "):
                kept = part.split(" · ")[0].removeprefix("Mah-Jongg! ").rstrip("…")
                assert any(name.startswith(kept) for name in shown_names), (text, part)
    for text in texts:  # both sides of a payment stay readable, however long the names
        if " → " in text:
            for side in text.split(" → "):
                assert not side.endswith("…") or len(side.rstrip("…")) >= 3, text
    for amount in ("999999999", "99999999 points", "+1999999998", "-999999999"):
        assert amount in texts


def test_a_losing_hand_is_never_called_a_draw(monkeypatch) -> None:
    view = sample_table(9, turns=30, revealed=True)
    scores, _ = sample_scores(view, view.turn)
    drawn = _drawn_texts(monkeypatch)
    render_score_card(view, NAMES, scores, [], winner=None, winning_tile=None)
    render_score_card(view, NAMES, scores, [], winner=None, winning_tile=None, title="A hand")
    texts = [t for t, _ in drawn]
    assert "Hand over: nobody won" in texts and "A hand" in texts
    called = [t for t in texts if re.search(r"\bdraw\b|\bdrawn hand\b", t.lower())]
    assert not called, called


@pytest.mark.parametrize("name", ["4 players", "3 players"])
def test_a_discard_open_to_claims_is_drawn_large(name: str) -> None:
    """In a claim window the discard lies outlined at the end of its owner's discards and
    again, larger, in the header, on the channel's table and on the asked seat's table; the
    public picture frames nobody as to play (who is asked is private)."""
    states = [s for s in _played(name) if s.phase == "claim"]
    assert states
    for state in states[:5]:
        asked = min(pending_seats(state))
        for view in (game_view(state, None), game_view(state, asked)):
            layout = layout_table(view)
            seat, tile = view.last_discard
            (big,) = [t for t in layout.tiles if t.role == "latest"]
            assert big.tile == tile and big.width >= 1.5 * TILE_W
            # Drawn inside the header's own picture, which ends 6 px above the blocks.
            assert big.y + face_height(big.width) + depth(big.width) <= HEADER_H - 6
            outlined = [t for t in layout.tiles if t.role == "discard" and t.outline]
            assert [(t.seat, t.tile) for t in outlined] == [(seat, tile)]
            assert layout.latest == (seat, len(view.seats[seat].discards) - 1)
        image = png(render_table(game_view(state, None), NAMES)).convert("RGB")
        for block in layout_table(game_view(state, None)).blocks:
            x, y, _, h = block.region
            edge = image.getpixel((x + 1, y + h // 2))
            assert sum(abs(a - b) for a, b in zip(edge, style.GOLD, strict=True)) >= 30
        for view in (game_view(state, None), game_view(state, asked)):
            _assert_outlined(view)


def _assert_outlined(view: TableView) -> None:
    """The picture of ``view`` shows the latest discard's outline, in its colour, all round
    the tile (the outline goes over the kept blocks, which are drawn without it)."""
    layout = layout_table(view)
    draw = render_table if view.viewer is None else render_seat_table
    image = png(draw(view, NAMES)).convert("RGB")
    orange = indexed(Image.new("RGB", (1, 1), HIGHLIGHT)).convert("RGB").getpixel((0, 0))
    (lit,) = [b for b in layout.blocks if b.latest is not None]
    x, y, w, h = lit.latest.rect
    x, y = x + lit.region[0], y + lit.region[1]
    pad = max(2, TILE_W // 12)
    for point in ((x - pad, y + h // 2), (x + w + pad - 1, y + h // 2), (x + w // 2, y - pad)):
        assert image.getpixel(point) == orange, (view.viewer, point)
    assert not any(b.latest for b in layout.blocks if b is not lit)


def test_only_the_channel_shows_the_wall_count() -> None:
    """A DM picture does not change when only the wall count does (the DM's text says it),
    so a message need not be re-uploaded for it; the channel's table shows the number."""
    state = _played("4 players")[40]
    mine = game_view(state, state.turn)
    fewer = replace(mine, wall_remaining=mine.wall_remaining - 7)
    assert render_seat_table(fewer, NAMES) == render_seat_table(mine, NAMES)
    public = game_view(state, None)
    fewer_public = replace(public, wall_remaining=public.wall_remaining - 7)
    assert render_table(fewer_public, NAMES) != render_table(public, NAMES)


def test_a_seat_watched_by_someone_else_names_its_player() -> None:
    """A replay from another member's seat (player=False): the seat's plate, the turn line
    and the latest discard's owner name the seat's player where the player's own DM says
    You / Your turn / yours / Your call; the player's own picture is unchanged."""
    from renderer.table import _block_picture, _header_picture

    states = _played("4 players")
    playing = next(s for s in states[8:] if s.phase == "play")
    claiming = next(s for s in states if s.phase == "claim" and pending_seats(s))

    def words(state, seat: int, player: bool) -> tuple[str, str, str, str]:
        view = game_view(state, seat)
        layout = layout_table(view)
        block = next(b for b in layout.blocks if b.own)
        own = next(s for s in view.seats if s.seat == seat)
        head = _header_picture(view, NAMES, layout, "en-US", player)
        pic = _block_picture(view, own, block, NAMES[seat], False, True, "en-US", player)
        return head.turn, head.tail, pic.label, head.who

    seat = playing.turn
    assert words(playing, seat, True)[:3] == ("", "Your turn", "You")
    assert words(playing, seat, False)[:3] == (NAMES[seat], " to play", NAMES[seat])
    asked = min(pending_seats(claiming))
    assert words(claiming, asked, True)[:2] == ("", "Your call: claim it or pass")
    assert words(claiming, asked, False)[:2] == (NAMES[asked], " may claim it or pass")
    discarder = claiming.turn
    assert words(claiming, discarder, True)[3] == "yours"
    assert words(claiming, discarder, False)[3] == NAMES[discarder]
    view = game_view(playing, seat)
    assert render_seat_table(view, NAMES, player=False) != render_seat_table(view, NAMES)
    assert render_seat_table(view, NAMES, player=True) == render_seat_table(view, NAMES)


def test_blocks_drawn_over_a_shared_base_leave_it_as_it_was() -> None:
    """A block is drawn over a copy of its kept box and river (``_block_base``): every
    picture of a hand's moments, drawn one after another with the bases kept, is the same
    picture drawn alone with nothing kept."""
    from renderer import table

    states = played_hand("pung-chow", 5)[:-1:4]
    views = [game_view(s, None) for s in states] + [game_view(s, s.turn) for s in states]

    def draw(view: TableView) -> bytes:
        if view.viewer is None:
            return render_table(view, NAMES)
        return render_seat_table(view, NAMES)

    in_turn = [draw(v) for v in views]
    assert table._block_base.cache_info().hits > 0  # the bases were shared
    for view, drawn in zip(views, in_turn, strict=True):
        table._block_base.cache_clear()
        table._draw_block.cache_clear()
        assert draw(view) == drawn


@pytest.mark.parametrize("name", PLAYED)
@pytest.mark.parametrize("locale", ["en-US", "zh-TW"])
def test_a_table_assembled_from_kept_parts_is_the_whole_picture_mapped(
    name: str, locale: str
) -> None:
    """``compose_indexed`` pastes the header and the blocks mapped onto the palette once and
    maps only what is drawn over them: every pixel is the one the whole picture mapped at
    once has (the channel's and each seat's table, early to laid open, with hint marks and
    Chinese names), and the PNG written from it holds those pixels."""
    names = ("Alice", "Bartholomew the Magnificent", "陳大文", "Dolores")
    for moment, state in _moments(name).items():
        for view in _views(state):
            own = next((s for s in view.seats if s.seat == view.viewer), None)
            marks = frozenset((own.concealed or ())[:2]) if own is not None else frozenset()
            kwargs = {"western_index": True, "locale": locale}
            if view.viewer is not None:
                kwargs["marks"] = marks
            # The whole picture drawn afresh, its kept parts forgotten: a part kept under a
            # key that misses something it shows would be pasted into both pictures alike.
            _draw_header.cache_clear()
            _draw_block.cache_clear()
            whole = indexed(compose(view, names, **kwargs))
            assembled = compose_indexed(view, names, **kwargs)
            assert assembled.getpixel((0, 0)) == 0  # each row's filter byte
            written = png(framed_png(assembled))
            assert written.mode == "P" and written.getpalette() == whole.getpalette()
            assert written.tobytes() == whole.tobytes(), (moment, view.viewer)


def test_a_kept_part_is_never_pasted_for_a_moment_it_does_not_show() -> None:
    """Every moment of a played hand in turn, the channel's and a seat's table: each
    assembled from kept parts is the picture drawn afresh (parts forgotten) and mapped. A
    part kept under a key that misses something it shows is found again at a later moment
    that differs only there (a block drawn with the latest discard's outline in it, under a
    key without it, fails; so do the header and the hand's area kept without the tiles'
    western index, which alternates here)."""
    import renderer.table as table_module

    names = ("Alice", "Bo", "Cy", "Dolores")
    for number, state in enumerate(_played("4 players")):
        for viewer in (None, number % 4):
            view = game_view(state, viewer)
            if viewer is not None and not state.occupied[viewer]:
                continue
            for index in (number % 2 == 0, number % 2 == 1):
                assembled = compose_indexed(view, names, western_index=index)
                _draw_header.cache_clear()
                _draw_block.cache_clear()
                table_module._block_base.cache_clear()
                whole = indexed(compose(view, names, western_index=index))
                assert png(framed_png(assembled)).tobytes() == whole.tobytes(), (
                    number,
                    viewer,
                    index,
                )
