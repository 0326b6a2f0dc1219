"""Helpers for scripted table scenarios: stacked walls and short ways to play."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.rules.game import (
    GameState,
    apply,
    new_game,
    pending_seats,
    timeout_action,
)
from bot.rules.game.actions import Action
from bot.rules.game.wall import stacked
from bot.rules.rulesets import get_ruleset
from bot.rules.tiles import N_TILES, full_set, parse_tiles


def tiles(text: str) -> list[int]:
    return parse_tiles(text)


def wall_for(
    rules: str,
    hands: Sequence[str],
    draws: Iterable[str | None] = (),
    loose: str = "",
    *,
    flowers: bool = False,
) -> tuple[int, ...]:
    """A stacked wall dealing ``hands`` (East first, with his extra tile last) and then giving
    ``draws`` from the front in order (None: any unused tile) and ``loose`` as loose tiles."""
    size = get_ruleset(rules).hand_size
    parsed = [tiles(h) for h in hands]
    wanted = [None if d is None else tiles(d)[0] for d in draws]
    used = [t for h in parsed for t in h] + [t for t in wanted if t is not None] + tiles(loose)
    pool = [0] * N_TILES
    for tile in full_set(flowers):
        pool[tile] += 1
    for tile in used:
        pool[tile] -= 1
    spare = iter([t for t in range(N_TILES) for _ in range(pool[t])])
    filled = [t if t is not None else next(spare) for t in wanted]
    return stacked(parsed, filled, tiles(loose), hand_size=size, with_bonus=flowers)


def table(
    rules: str,
    hands: Sequence[str],
    draws: Iterable[str | None] = (),
    loose: str = "",
    *,
    more: Sequence[tuple[int, ...]] = (),
    options: dict | None = None,
    players: int = 4,
    **kwargs,
) -> GameState:
    """A table whose first deal is stacked (seat 0 is East; hands in turn order)."""
    opts = dict(options or {})
    flowers = bool(get_ruleset(rules).options(opts).get("flowers", False))
    rig = [wall_for(rules, hands, draws, loose, flowers=flowers), *more]
    kwargs.setdefault("sets", None)
    kwargs.setdefault("hands", 10)
    return new_game(rules, opts, kwargs.pop("seed", 1), players=players, rig=rig, **kwargs)


def play(state: GameState, *actions: Action) -> GameState:
    for action in actions:
        state = apply(state, action)
    return state


def time_out(state: GameState, until, limit: int = 2000) -> GameState:
    """Apply timeout actions (discard the drawn tile, pass) until ``until(state)``."""
    for _ in range(limit):
        if until(state):
            return state
        seat = min(pending_seats(state))
        action = timeout_action(state, seat)
        assert action is not None
        state = apply(state, action)
    raise AssertionError("the condition was never reached")


def names(actions: Iterable[Action]) -> set[str]:
    return {type(a).__name__ for a in actions}
