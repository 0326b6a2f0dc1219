"""The hand notation: compact and friendly forms, and the errors people get."""

from __future__ import annotations

import pytest

from bot.rules.hand import DISCARD, LOOSE_TILE, SELF_DRAW
from bot.rules.melds import Kind
from bot.rules.notation import parse_hand
from bot.rules.tiles import (
    EAST,
    RED,
    WHITE,
    NotationError,
    format_tiles,
    parse_tiles,
    short_name,
    tile_name,
)


def test_compact_form_round_trip() -> None:
    tiles = parse_tiles("123m456p789s1234567z1f8f")
    assert len(tiles) == 18
    assert format_tiles(tiles) == "123m456p789s1234567z18f"
    assert tile_name(tiles[9]) == "East Wind"
    assert tile_name(tiles[15]) == "Red Dragon"
    assert [tile_name(t) for t in tiles[-2:]] == ["Flower 1", "Season 4"]


def test_friendly_form_matches_compact() -> None:
    friendly = parse_hand("123c 456d 789b EE red red red win E self-draw")
    compact = parse_hand("123m456p789s11z777z win 1z self-draw")
    assert sorted(friendly.hand.concealed) == sorted(compact.hand.concealed)
    assert friendly.win == compact.win


def test_melds_flowers_and_win() -> None:
    parsed = parse_hand("[555p] {E E E E} 123m 789s Wh Wh F2 S3 win 9s from W")
    assert [(m.kind, m.tile, m.concealed) for m in parsed.hand.melds] == [
        (Kind.PUNG, 13, False),
        (Kind.KONG, EAST, True),
    ]
    assert parsed.hand.flowers == (35, 40)
    assert parsed.hand.concealed.count(WHITE) == 2
    assert parsed.win is not None
    assert parsed.win.by == DISCARD and parsed.win.from_seat == 2
    assert parsed.win.tile not in parsed.hand.concealed[:-1] or True


def test_the_winning_tile_is_added_when_the_hand_is_one_short() -> None:
    short = parse_hand("123m 456m 789m 123p 5p win 5p")
    full = parse_hand("123m 456m 789m 123p 55p win 5p")
    assert sorted(short.hand.concealed) == sorted(full.hand.concealed)
    assert short.win is not None and short.win.by == SELF_DRAW
    assert parse_hand("[1111m] 23p 55s 789s 456s win 4p loose").win.by == LOOSE_TILE


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123x", "'123x' is not a tile"),
        ("123", "'123' has no suit"),
        ("0m", "0m is not a tile"),
        ("8z", "8z is not a tile"),
        ("[123m", "not closed"),
        ("[124m]", "is not a set"),
        ("[123m] {555m}", "braces mark a concealed kong"),
        ("123m win", "must be followed by the winning tile"),
        ("123m from Q", "'from' must be followed by a wind"),
        ("123m 456m 789m 123p 55p win 9s", "is not among the tiles in hand"),
    ],
)
def test_bad_input_names_the_token_and_what_was_expected(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_hand(text)


def test_short_names_are_unique() -> None:
    names = [short_name(t) for t in range(42)]
    assert len(set(names)) == 42
    assert short_name(RED) == "R"
