"""``evolve`` (bot/rules/game/evolve.py) is ``dataclasses.replace``, only faster."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.game import new_game
from bot.rules.game.evolve import evolve
from bot.rules.game.state import GameState, SeatState


@given(drawn=st.none() | st.integers(0, 41), discards=st.lists(st.integers(0, 33), max_size=5))
def test_evolve_equals_replace_on_a_seat(drawn: int | None, discards: list[int]) -> None:
    seat = SeatState(concealed=(1, 2, 3), discards=(9,))
    changes = {"drawn": drawn, "discards": tuple(discards)}
    new = evolve(seat, **changes)
    assert new == dataclasses.replace(seat, **changes)
    assert type(new) is SeatState and seat.discards == (9,)  # the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.drawn = 1  # type: ignore[misc]


def test_evolve_equals_replace_on_a_game_state() -> None:
    state = new_game("singapore", seed=4, hands=1)
    assert evolve(state) == state
    moved = evolve(state, move=state.move + 3, turn=(state.turn + 1) % 4)
    assert moved == dataclasses.replace(state, move=state.move + 3, turn=(state.turn + 1) % 4)
    assert all(
        getattr(moved, f.name) is getattr(state, f.name)
        for f in dataclasses.fields(GameState)
        if f.name not in ("move", "turn")
    )


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError, match="no field"):
        evolve(SeatState(), colour="red")


def test_a_class_it_cannot_copy_exactly_goes_to_replace() -> None:
    @dataclasses.dataclass
    class Checked:
        value: int
        double: int = dataclasses.field(init=False)

        def __post_init__(self) -> None:
            self.double = 2 * self.value

    assert evolve(Checked(2), value=5).double == 10
