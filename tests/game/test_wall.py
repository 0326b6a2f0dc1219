"""Building, breaking, dealing and drawing the wall (Pung Chow p.13-16, p.22, p.60;
filipino-16 "Opening the Wall", "The Draw", "Draw")."""

from __future__ import annotations

import pytest

from bot.rules.game import HAND_OVER, PLAY, Discard, Kong, apply, legal_actions, new_game
from bot.rules.game.wall import REFILL_ONE, REFILL_PAIR, build, deal_order, from_sequence
from tests.game.helpers import table, tiles, time_out


def stack(side: int, j: int) -> tuple[int, int]:
    """Tile ids of stack ``j`` (0-based from the right end) of a side, 17 stacks a side."""
    base = side * 34 + 2 * j
    return base, base + 1


def test_the_books_example_break() -> None:
    """p.14-15, Illustration 7: East threw 7, designating West; West threw 7: "the 14th tile
    from the right end of his side" is lifted out and laid on top as the loose tiles."""
    wall = build(list(range(136)), breaker=2, count=14)
    assert wall.loose == stack(2, 13)
    # The hands are drawn from the next stacks ("the first four tiles ... at the beginning").
    assert wall.tiles[:4] == stack(2, 14) + stack(2, 15)
    # After West's left end comes the right end of the side of the player on West's left
    # (South), drawing clockwise round the wall.
    assert wall.tiles[6:8] == stack(1, 0)
    assert wall.remaining == 136 and len(wall.tiles) == 134


def test_a_count_beyond_the_side_carries_on_to_the_next() -> None:
    wall = build(list(range(136)), breaker=0, count=20)
    assert wall.loose == stack(3, 2)  # East's left neighbour is North


def test_loose_tiles_are_replaced_from_the_end_of_the_wall() -> None:
    """p.22: "the one on the end moved up, and replaced by a tile from the end of the wall"."""
    wall = build(list(range(136)), breaker=2, count=14)
    end_top, end_bottom = stack(2, 12)  # the stack just to the right of the break
    tile, wall = wall.draw_loose()
    assert tile == stack(2, 13)[0]
    assert wall.loose == (stack(2, 13)[1], end_top)
    tile, wall = wall.draw_loose()
    assert wall.loose == (end_top, end_bottom)
    assert wall.remaining == 134


def test_filipino_replaces_the_loose_tiles_two_at_a_time() -> None:
    """filipino-16: "Should both loose tiles be used ... the two last pieces are placed on top
    of end of wall as new loose tiles"."""
    wall = from_sequence(list(range(40)), refill=REFILL_PAIR)
    tile, wall = wall.draw_loose()
    assert (tile, wall.loose) == (0, (1,))
    tile, wall = wall.draw_loose()
    assert (tile, wall.loose) == (1, (39, 38))
    single = from_sequence(list(range(40)), refill=REFILL_ONE)
    _, single = single.draw_loose()
    assert single.loose == (1, 39)


def test_dealing_four_at_a_time() -> None:
    """p.16: four tiles each "three times", then "one tile apiece", East an extra tile;
    filipino-16: four at a time "until each man has sixteen pieces", then the dealer one more."""
    thirteen = deal_order(13, 4)
    assert thirteen[:4] == [(0, 4), (1, 4), (2, 4), (3, 4)]
    assert thirteen[12:] == [(0, 1), (1, 1), (2, 1), (3, 1), (0, 1)]
    assert sum(n for _, n in thirteen) == 53
    sixteen = deal_order(16, 4)
    assert len(sixteen) == 17 and sixteen[-1] == (0, 1)
    assert sum(n for _, n in sixteen) == 65


@pytest.mark.parametrize(
    ("rules", "hand", "side"),
    [("pung-chow", 13, 17), ("filipino-16", 16, 17), ("singapore", 13, 18)],
)
def test_a_fresh_deal(rules: str, hand: int, side: int) -> None:
    state = new_game(rules, seed=3)
    total = side * 8
    assert state.wall.remaining + sum(s.tile_count() + len(s.flowers) for s in state.seats) == total
    assert [s.tile_count() for s in state.seats] == [hand + 1, hand, hand, hand]
    assert state.wall_break is not None and 2 <= state.wall_break.count <= 24


@pytest.mark.parametrize(
    ("rules", "dead"),
    [("pung-chow", 0), ("pung-chow-limit", 14), ("filipino-16", 16), ("singapore", 14)],
)
def test_the_dead_wall_is_never_drawn(rules: str, dead: int) -> None:
    """p.60: "the last 14 tiles in the wall are never drawn and the game ends and is a draw";
    filipino-16: "only sixteen pieces (eight twos) left in the wall, none of these ... can be
    drawn"; Part I draws the whole wall."""
    state = new_game(rules, seed=5, sets=None, hands=2)
    state = time_out(state, lambda s: s.phase == HAND_OVER)
    assert state.result.kind == "draw"
    assert state.wall.remaining == dead
    assert state.wall.drawable == 0
    assert state.dealer == 0  # "if the game is a draw, he remains East Wind"


def test_the_last_drawable_tile_and_no_kong_at_the_dead_wall() -> None:
    """p.60: "even a loose tile cannot be drawn if there are only 14 tiles left"."""
    hands = ["1111m19p19s12345z9s", "2222m258p258s123z", "3333m369p369s126z", "4444m147p47s5677z"]
    state = table("pung-chow-limit", hands)
    assert Kong(0, tiles("1m")[0]) in legal_actions(state, 0)
    state = time_out(state, lambda s: s.phase == PLAY and s.wall.drawable == 0)
    assert state.last_tile
    seat = state.turn
    assert not any(isinstance(a, Kong) for a in legal_actions(state, seat))
    state = apply(state, Discard(seat, state.seats[seat].drawn))
    state = time_out(state, lambda s: s.phase == HAND_OVER)
    assert state.result.kind == "draw" and state.wall.remaining == 14
