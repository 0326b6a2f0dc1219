"""Moves for seats played by the computer: a computer player, or a member's seat while away.

The computer player sees only its seat's view (the same one the member would see), never the
state: that is the privacy rule for machines as for people.
"""

from __future__ import annotations

from bot.rules.game import Action, legal_actions, timeout_action, view
from bot.rules.game.state import GameState
from bot.rules.rulesets import get_ruleset


def computer_action(state: GameState, seat: int) -> Action:
    """The computer player's choice for ``seat`` among its legal actions."""
    from bot.players import decide

    legal = legal_actions(state, seat)
    if not legal:
        fallback = timeout_action(state, seat)
        if fallback is None:
            raise RuntimeError(f"seat {seat} has nothing to do")
        return fallback
    rules = get_ruleset(state.config.ruleset)
    return decide(view(state, seat), legal, rules, state.config.options)
