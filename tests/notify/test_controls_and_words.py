"""The DM's buttons follow the picture (renderer.hand_order), with "Discard the drawn tile"
last on a row of its own; ids are unique and fit Discord's five rows. Options read as words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.game import Chow, Discard, Pass, Pung
from bot.rules.tiles import short_name
from cogs.controls import DRAWN_LABEL, move_controls
from cogs.notify.words import option_words, options_in_words


def _buttons(view):
    return [getattr(c, "item", c) for c in view.children]


@settings(max_examples=200, deadline=None)
@given(
    concealed=st.lists(st.integers(0, 33), min_size=1, max_size=16),
    drawn=st.one_of(st.none(), st.integers(0, 33)),
)
def test_discard_buttons_follow_the_picture_and_the_drawn_tile_comes_last(
    concealed: list[int], drawn: int | None
) -> None:
    tiles = concealed + ([drawn] if drawn is not None else [])
    legal = [Discard(0, t) for t in sorted(set(tiles))]
    view = move_controls(1, 5, legal, {}, drawn=drawn, concealed=tuple(concealed))
    buttons = _buttons(view)
    ids = [b.custom_id for b in buttons]
    assert len(ids) == len(set(ids)), "Discord refuses twice the same custom id"
    rows = [b.row for b in buttons]
    assert rows == sorted(rows) and max(rows) <= 4
    in_rows = [b for b in buttons if b.label != DRAWN_LABEL]
    # The picture's order: concealed tiles sorted (renderer.hand_order), the drawn one apart.
    expected = sorted(set(concealed))
    assert [int(b.custom_id.split(":")[4]) for b in in_rows] == expected[: len(in_rows)]
    assert all(b.label == short_name(int(b.custom_id.split(":")[4])) for b in in_rows)
    if drawn is not None:
        last = buttons[-1]
        assert last.label == DRAWN_LABEL and last.custom_id == f"mj:1:5:discard:{drawn}:d"
        assert last.row > max((b.row for b in in_rows), default=-1)
    else:
        assert DRAWN_LABEL not in [b.label for b in buttons]


def test_claim_buttons_have_no_discards_and_pass_last() -> None:
    legal = [Pung(2), Chow(2, 3), Chow(2, 4), Pass(2)]
    labels = [b.label for b in _buttons(move_controls(1, 7, legal, {}))]
    assert labels == ["Pung", "Chow 4c-5c-6c", "Chow 5c-6c-7c", "Pass"]


def test_options_read_as_words() -> None:
    assert option_words("limit", None) == "no limit"
    assert option_words("flowers", False) == "no flowers"
    assert option_words("washing", True) == "washing"
    assert option_words("mahjong_bonus", 20) == "mahjong bonus 20"
    text = options_in_words({"limit": None, "flowers": False})
    assert "=" not in text and "None" not in text and "False" not in text
    assert options_in_words({}) == "the rule set's defaults"
