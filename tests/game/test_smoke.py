"""Random legal play reaches the end of the game for every rule set and table size."""

from __future__ import annotations

import random

import pytest

from bot.rules.game import (
    GAME_OVER,
    MahJongg,
    apply,
    check_invariants,
    legal_actions,
    new_game,
    pending_seats,
)
from bot.rules.rulesets import RULESETS


@pytest.mark.parametrize("rules", sorted(RULESETS))
@pytest.mark.parametrize("players", [4, 3, 2])
def test_random_legal_play_ends(rules: str, players: int) -> None:
    state = new_game(rules, seed=11, players=players, sets=None, hands=3)
    chooser = random.Random(3)
    for _ in range(5000):
        check_invariants(state)
        if state.phase == GAME_OVER:
            break
        seat = min(pending_seats(state))
        actions = legal_actions(state, seat)
        wins = [a for a in actions if isinstance(a, MahJongg)]
        state = apply(state, wins[0] if wins else chooser.choice(actions))
    assert state.phase == GAME_OVER
    assert sum(state.net) == 0
