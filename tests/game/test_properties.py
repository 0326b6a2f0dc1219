"""Property tests over seeded random games for every rule set and table size.

Every state reached by legal play keeps the invariants; games end; the accepted actions replay
to the identical state; no view shows a tile its viewer may not see; ``legal_actions`` is
exactly what ``apply`` accepts; the timeout action is always legal.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.players import decide
from bot.rules.game import (
    CLAIM,
    GAME_OVER,
    HAND_OVER,
    Chow,
    DeclareFuriten,
    Discard,
    GameState,
    IllegalAction,
    Kong,
    MahJongg,
    NextHand,
    Pass,
    Pung,
    Riichi,
    WashTiles,
    apply,
    check_invariants,
    legal_actions,
    new_game,
    pending_seats,
    replay,
    timeout_action,
    view,
)
from bot.rules.rulesets import RULESETS, get_ruleset

RULES = sorted(RULESETS)
TABLES = st.tuples(
    st.sampled_from(RULES),
    st.sampled_from([4, 4, 3, 2]),
    st.integers(0, 2**32),
    st.booleans(),
)


def candidates(state: GameState, seat: int) -> list:
    """A spread of actions, legal or not, for the given seat."""
    near = set(state.seats[seat].tiles())
    if state.claim is not None:
        near |= {state.claim.tile + d for d in range(-2, 3) if 0 <= state.claim.tile + d < 34}
    near |= {0, 33}
    out = [Pung(seat), MahJongg(seat), Pass(seat), WashTiles(seat), DeclareFuriten(seat)]
    for tile in sorted(near):
        out.extend((Discard(seat, tile), Chow(seat, tile), Kong(seat, tile), Riichi(seat, tile)))
    return out


def check_view(state: GameState) -> None:
    revealed = state.phase in (HAND_OVER, GAME_OVER)
    for viewer in (None, 0, 1, 2, 3):
        seen = view(state, viewer)
        assert seen.viewer == viewer and seen.move == state.move
        assert (seen.seed is not None) == revealed
        assert (seen.result is not None) == revealed
        assert seen.awaiting <= ({viewer} if viewer is not None else set())
        for other in seen.seats:
            st_ = state.seats[other.seat]
            assert other.melds == st_.melds and other.discards == st_.discards
            assert other.concealed_count == len(st_.concealed)
            if revealed or other.seat == viewer:
                assert other.concealed == (st_.concealed if other.occupied else None)
                assert other.drawn == st_.drawn
            else:
                assert other.concealed is None and other.drawn is None
        # Public words never name a tile only one seat saw.
        for event in state.events:
            if event.private_tile is not None:
                assert event.tile is None
            if event.kind == "passed":
                assert not event.text


def check_pass_is_silent(before: GameState, after: GameState, passer: int) -> None:
    """A pass that leaves the claim window open shows nobody else anything: the public view
    and every other seat's view are as before (apart from the move counter and the event
    log, which no picture or message shows), so no one learns a seat was asked."""
    for viewer in (None, *(s for s in range(4) if s != passer)):
        then, now = view(before, viewer), view(after, viewer)
        assert dataclasses.replace(now, move=0, events=()) == dataclasses.replace(
            then, move=0, events=()
        ), f"a pass by seat {passer} changed what {viewer} sees"


def play_game(rules: str, players: int, seed: int, strict: bool, probe: bool) -> None:
    state = new_game(rules, seed=seed, players=players, sets=None, hands=2, strict=strict)
    ruleset = get_ruleset(rules)
    chooser = random.Random(seed)
    accepted = []
    for step in range(6000):
        check_invariants(state)
        check_view(state)
        if state.phase == GAME_OVER:
            break
        seat = min(pending_seats(state))
        legal = legal_actions(state, seat)
        assert legal, f"seat {seat} is pending with nothing to do"
        fallback = timeout_action(state, seat)
        assert fallback in legal or isinstance(fallback, NextHand)
        if probe and step % 5 == 0 and state.phase != HAND_OVER:
            for other in {seat, chooser.randrange(4)}:
                allowed = legal_actions(state, other)
                for action in candidates(state, other):
                    if strict and isinstance(action, MahJongg):
                        continue
                    try:
                        apply(state, action)
                    except IllegalAction:
                        assert action not in allowed, f"{action} listed but refused"
                    else:
                        assert action in allowed, f"{action} accepted but not listed"
        if chooser.random() < 0.6:
            action = decide(view(state, seat), legal, ruleset, state.config.options)
            assert action in legal
        else:
            wins = [a for a in legal if isinstance(a, MahJongg)]
            action = wins[0] if wins else chooser.choice(legal)
        before, state = state, apply(state, action)
        accepted.append(action)
        if isinstance(action, Pass) and state.phase == CLAIM:
            check_pass_is_silent(before, state, action.seat)
    assert state.phase == GAME_OVER, "the game did not end"
    assert sum(state.net) == 0
    assert replay(state.config, accepted) == state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TABLES)
def test_random_games_keep_the_invariants_and_replay(table: tuple) -> None:
    rules, players, seed, strict = table
    play_game(rules, players, seed, strict, probe=False)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TABLES)
def test_legal_actions_are_exactly_what_apply_accepts(table: tuple) -> None:
    rules, players, seed, strict = table
    play_game(rules, players, seed, strict, probe=True)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TABLES, st.booleans())
def test_many_more_random_games(table: tuple, probe: bool) -> None:
    rules, players, seed, strict = table
    play_game(rules, players, seed, strict, probe=probe)


def test_claim_windows_only_ask_seats_that_can_claim() -> None:
    for rules in RULES:
        state = new_game(rules, seed=4, sets=None, hands=3)
        for _ in range(3000):
            if state.phase == GAME_OVER:
                break
            if state.phase == CLAIM:
                for seat in pending_seats(state):
                    assert any(
                        not isinstance(a, Pass | DeclareFuriten) for a in legal_actions(state, seat)
                    )
            seat = min(pending_seats(state))
            state = apply(state, timeout_action(state, seat))


def test_the_same_seed_deals_the_same_wall_and_publishes_its_hash() -> None:
    import hashlib

    a = new_game("singapore", seed="table-7")
    b = new_game("singapore", seed="table-7")
    c = new_game("singapore", seed="table-8")
    assert a == b and a.wall != c.wall
    assert a.seed_hash == hashlib.sha256(a.hand_seed.encode()).hexdigest()
    assert view(a, 0).seed is None and view(a, 0).seed_hash == a.seed_hash
