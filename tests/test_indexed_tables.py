"""The table pictures the bot sends are composed on the palette from kept blocks
(renderer/table.py, ``indexed``): byte for byte the PNG of the RGB picture mapped whole."""

from __future__ import annotations

import pytest

from bot.rules.game import view as game_view
from renderer import render_seat_table, render_table
from renderer.encode import png_bytes
from renderer.recent import Recent
from renderer.samples import NAMES, played_hand, sample_table
from renderer.table import _kept_parts, compose_seat_table, compose_table


def _moments() -> list:
    states = []
    for ruleset, seed, players in (
        ("pung-chow", 3, 4),
        ("filipino-16", 5, 4),
        ("singapore", 8, 4),
        ("pung-chow", 11, 2),
    ):
        hand = played_hand(ruleset, seed, players=players)
        states.extend([*hand[:: max(1, len(hand) // 9)], hand[-1]])
    return states


MOMENTS = _moments()


@pytest.mark.parametrize("index", range(len(MOMENTS)))
def test_every_seat_and_the_channel_are_the_rgb_picture_mapped_whole(index: int) -> None:
    state = MOMENTS[index]
    public = game_view(state, None)
    assert render_table(public, NAMES) == png_bytes(
        compose_table(public, NAMES, western_index=True)
    )
    for seat in range(len(state.seats)):
        view = game_view(state, seat)
        marks = frozenset(list(view.seats[seat].concealed or ())[:2])
        for western in (True, False):
            got = render_seat_table(view, NAMES, marks=marks, western_index=western)
            want = png_bytes(compose_seat_table(view, NAMES, marks=marks, western_index=western))
            assert got == want, (index, seat, western)


def test_the_sample_tables_in_other_words_and_watched_by_someone_else() -> None:
    for locale in ("zh-CN", "fil-PH", "en-US"):
        table = sample_table("pung-chow")
        assert render_table(table, NAMES, locale=locale) == png_bytes(
            compose_table(table, NAMES, western_index=True, locale=locale)
        )
        seat = sample_table("filipino-16", viewer=0)
        got = render_seat_table(seat, NAMES, locale=locale, player=False)
        want = compose_seat_table(
            seat, NAMES, marks=frozenset(), western_index=True, locale=locale, player=False
        )
        assert got == png_bytes(want)


def test_parts_seen_again_are_pasted_not_drawn() -> None:
    hand = played_hand("pung-chow", 21)
    _kept_parts.clear()
    for state in hand[20:30]:
        for seat in (0, 1):
            render_seat_table(game_view(state, seat), NAMES)
    # 20 pictures of 6 parts (header, 4 blocks, hand): a move changes the header, one or
    # two blocks, and the hand of one viewer in two.
    assert _kept_parts.hits + _kept_parts.misses == 120
    assert _kept_parts.hits > 50, (_kept_parts.hits, _kept_parts.misses)


def test_a_recent_cache_lets_go_of_what_went_unused_and_keeps_at_most_its_size() -> None:
    now = [0.0]
    made: list[int] = []

    def make(n: int):
        return lambda: made.append(n) or n

    kept: Recent[int, int] = Recent(10.0, 3, clock=lambda: now[0])
    assert [kept.get(n, make(n)) for n in (1, 2, 1)] == [1, 2, 1]
    assert made == [1, 2]
    now[0] = 6.0
    kept.get(2, make(2))  # 2 used again at 6; 1 last used at 0
    now[0] = 11.0
    kept.get(3, make(3))  # 1 has gone 11 s unused: let go
    assert len(kept) == 2
    kept.get(1, make(1))
    assert made == [1, 2, 3, 1]
    for n in (4, 5, 6):
        kept.get(n, make(n))
    assert len(kept) == 3  # never more than its size
    with pytest.raises(ValueError):
        Recent(0, 3)
