"""The game itself: wall, turns, claims and the views each seat may see (no Discord).

The public API::

    state = new_game("pung-chow", options, seed, players=4, sets=1)
    legal_actions(state, seat) -> list[Action]
    state = apply(state, action)          # raises IllegalAction(reason)
    view(state, seat | None) -> TableView
    pending_seats(state), timeout_action(state, seat), replay(config, actions)
    check_invariants(state)
"""

from bot.rules.game.actions import (
    ACTION_TYPES,
    Action,
    Chow,
    DeclareFuriten,
    Discard,
    Event,
    Kong,
    MahJongg,
    NextHand,
    Pass,
    Pung,
    Riichi,
    WashTiles,
)
from bot.rules.game.engine import (
    apply,
    furiten_tiles,
    legal_actions,
    new_game,
    pending_seats,
    replay,
    timeout_action,
)
from bot.rules.game.invariants import InvariantError, check_invariants
from bot.rules.game.state import (
    CLAIM,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    ClaimWindow,
    GameState,
    HandResult,
    IllegalAction,
    SeatState,
    TableConfig,
)
from bot.rules.game.view import SeatView, TableView, view

__all__ = [
    "ACTION_TYPES",
    "CLAIM",
    "GAME_OVER",
    "HAND_OVER",
    "PLAY",
    "Action",
    "Chow",
    "ClaimWindow",
    "DeclareFuriten",
    "Discard",
    "Event",
    "GameState",
    "HandResult",
    "IllegalAction",
    "InvariantError",
    "Kong",
    "MahJongg",
    "NextHand",
    "Pass",
    "Pung",
    "Riichi",
    "SeatState",
    "SeatView",
    "TableConfig",
    "TableView",
    "WashTiles",
    "apply",
    "check_invariants",
    "furiten_tiles",
    "legal_actions",
    "new_game",
    "pending_seats",
    "replay",
    "timeout_action",
    "view",
]
