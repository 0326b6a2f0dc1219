"""Checks that hold after every event: the simulator and the property tests call them.

* Tile conservation: the wall, the hands, the melds, the discards lying on the table and the
  exposed flowers hold the whole set (136 tiles, 144 with the flowers), so no tile is lost,
  doubled or fifth.
* Hand sizes: every seat holds ``hand_size`` tiles counted as the texts count them (a kong as
  three, Pung Chow p.24); the seat in turn, or the winner at the end, one more.
* The wall: the front has not passed the back, the dead wall is untouched while the hand is
  played, at most two loose tiles.
"""

from __future__ import annotations

from bot.rules.game.state import CLAIM, GAME_OVER, HAND_OVER, PLAY, GameState
from bot.rules.rulesets import get_ruleset
from bot.rules.tiles import N_TILES, full_set, is_bonus, tile_name


class InvariantError(AssertionError):
    """A state no legal sequence of actions could reach."""


def check_invariants(state: GameState) -> None:
    """Raise InvariantError describing the first broken invariant."""
    rules = get_ruleset(state.config.ruleset)
    expected = [0] * N_TILES
    for tile in full_set(bool(state.config.options.get("flowers", False))):
        expected[tile] += 1
    have = [0] * N_TILES
    wall = state.wall
    if not 0 <= wall.front <= wall.back <= len(wall.tiles):
        raise InvariantError(f"the wall's front {wall.front} passed its back {wall.back}")
    if len(wall.loose) > 2:
        raise InvariantError("more than two loose tiles")
    for tile in wall.live_tiles():
        have[tile] += 1
    for seat in range(4):
        st = state.seats[seat]
        if not state.occupied[seat]:
            if st.concealed or st.melds or st.discards or st.drawn is not None:
                raise InvariantError(f"the dummy at seat {seat} holds tiles")
            continue
        for tile in st.tiles():
            if is_bonus(tile):
                raise InvariantError(f"seat {seat} holds {tile_name(tile)} unexposed")
            have[tile] += 1
        for meld in st.melds:
            for tile in meld.tiles:
                have[tile] += 1
        for tile in st.flowers:
            have[tile] += 1
        for index, tile in enumerate(st.discards):
            if index not in st.claimed:
                have[tile] += 1
        if list(st.concealed) != sorted(st.concealed):
            raise InvariantError(f"seat {seat}'s concealed tiles are not kept sorted")
        size = st.tile_count()
        extra = _may_hold_extra(state, seat)
        if size != rules.hand_size and not (extra and size == rules.hand_size + 1):
            raise InvariantError(
                f"seat {seat} holds {size} tiles (a kong counted as three), "
                f"expected {rules.hand_size}{' or one more' if extra else ''}"
            )
    for tile in range(N_TILES):
        if have[tile] != expected[tile]:
            raise InvariantError(
                f"{tile_name(tile)}: {have[tile]} on the table, the set has {expected[tile]}"
            )
    if state.phase in (PLAY, CLAIM) and wall.remaining < wall.dead:
        raise InvariantError(f"the dead wall was drawn into: {wall.remaining} tiles left")
    if state.phase == CLAIM and state.claim is None:
        raise InvariantError("a claim phase without a claim window")
    if state.phase in (HAND_OVER, GAME_OVER) and state.result is None:
        raise InvariantError("a finished hand without a result")
    if sum(state.net) != 0:
        raise InvariantError(f"the chips do not balance: {state.net}")


def _may_hold_extra(state: GameState, seat: int) -> bool:
    if state.phase == PLAY:
        return seat == state.turn
    if state.phase in (HAND_OVER, GAME_OVER) and state.result is not None:
        result = state.result
        return seat in (result.winner, result.caller) or (
            result.winner is None and seat == state.turn and state.seats[seat].drawn is not None
        )
    return False
