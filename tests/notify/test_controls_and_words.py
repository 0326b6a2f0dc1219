"""The DM's buttons follow the picture (renderer.hand_order), with "Discard the drawn tile"
last on a row of its own; ids are unique and fit Discord's five rows. Options read as words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.game import Chow, Discard, Kong, MahJongg, Pass, Pung, Riichi
from bot.rules.tiles import short_name
from cogs.controls import DRAWN_LABEL, RIICHI_LABEL, describe_legal, move_controls
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


def _ids(view) -> set[str]:
    return {b.custom_id for b in _buttons(view)}


@settings(max_examples=300, deadline=None)
@given(
    concealed=st.lists(st.integers(0, 33), min_size=13, max_size=13),
    drawn=st.integers(0, 33),
    data=st.data(),
    mahjongg=st.booleans(),
)
def test_every_legal_move_has_a_control_within_five_rows_even_with_many_riichi_discards(
    concealed: list[int], drawn: int, data: st.DataObject, mahjongg: bool
) -> None:
    """A turn's moves (singapore: a dozen Riichi discards beside the discards, Mah-Jongg and
    kongs) each have a button, never cut by Discord's five rows of five: several Riichi
    discards are one "Riichi…" button whose choice view has them all (CI run 12 of issue 16:
    11 Riichi discards were offered 4)."""
    hand = [*concealed, drawn]
    tiles = sorted(set(hand))
    riichi = data.draw(st.lists(st.sampled_from(tiles), unique=True, max_size=len(tiles)))
    four = [t for t in tiles if hand.count(t) == 4]
    legal = [Discard(0, t) for t in tiles] + [Riichi(0, t) for t in riichi]
    legal += [Kong(0, t) for t in four] + ([MahJongg(0)] if mahjongg else [])
    view = move_controls(1, 9, legal, {}, drawn=drawn, concealed=tuple(concealed))
    buttons = _buttons(view)
    assert len(buttons) <= 25 and max(b.row for b in buttons) <= 4
    ids = _ids(view)
    assert len(ids) == len(buttons)
    for t in tiles:
        assert f"mj:1:9:discard:{t}" in ids or f"mj:1:9:discard:{t}:d" in ids, t
    for t in four:
        assert f"mj:1:9:kong:{t}" in ids
    assert ("mj:1:9:mahjong" in ids) == mahjongg
    riichi_ids = {i for i in ids if ":riichi" in i}
    if len(riichi) == 1:
        assert riichi_ids == {f"mj:1:9:riichi:{riichi[0]}"}
    elif not riichi:
        assert not riichi_ids
    else:
        assert riichi_ids == {"mj:1:9:riichi"}
        (button,) = [b for b in buttons if b.custom_id == "mj:1:9:riichi"]
        assert button.label == RIICHI_LABEL
        choice = move_controls(
            1, 9, legal, {}, drawn=drawn, concealed=tuple(concealed), choosing_riichi=True
        )
        chosen = _buttons(choice)
        assert len(chosen) <= 25 and max(b.row for b in chosen) <= 4
        offered = {int(b.custom_id.split(":")[4]) for b in chosen if ":riichi:" in b.custom_id}
        assert offered == set(riichi)
        assert [b.custom_id for b in chosen][-1] == "mj:1:9:back"
        assert len(_ids(choice)) == len(chosen)


def test_the_turn_sentence_names_riichi() -> None:
    legal = [Discard(0, 3), Riichi(0, 3), Riichi(0, 5), Discard(0, 5)]
    assert describe_legal(legal) == "discard a tile or declare Riichi"
