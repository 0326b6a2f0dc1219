"""Hints in words from real hands: stacked deals played through the engine, and whole games of
computer players checked against the full table (which the hints never see)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.players import decide
from bot.rules.game import (
    CLAIM,
    GAME_OVER,
    HAND_OVER,
    Discard,
    NextHand,
    apply,
    legal_actions,
    new_game,
    pending_seats,
    view,
)
from bot.rules.hand import DISCARD, SELF_DRAW, Hand, Situation, Win
from bot.rules.melds import Kind, Meld
from bot.rules.rulesets import RULESETS, get_ruleset
from bot.rules.tiles import parse_tiles
from bot.service.hints import seat_hints
from tests.game.helpers import table, time_out

OTHERS = ("147m 258p 369s 1234z", "147p 258s 369m 567z 4z", "111z 222z 333z 4z 55z 6z")


def tile(text: str) -> int:
    return parse_tiles(text)[0]


def test_before_a_discard_the_hint_names_the_tiles_that_make_the_hand_ready() -> None:
    state = table("pung-chow", ["123m 456m 789p 22s 35s 9p", *OTHERS])
    hints = seat_hints(view(state, 0))
    assert hints.lines == ("Discard 9d to be ready.",)
    assert hints.ready_discards == (tile("9p"),)


def test_two_ways_to_be_ready_are_both_named() -> None:
    # 123m 456m 789p and 22s 34s 6s: dropping 2s leaves 234s and waits on 6s, dropping 3s
    # the pair and 4-6 (waits on 5s), dropping 6s the pair and 3-4 (2s or 5s); 4s: nothing.
    state = table("pung-chow", ["123m 456m 789p 22s 34s 6s", *OTHERS])
    hints = seat_hints(view(state, 0))
    assert hints.lines[0] == "Discard 2b, 3b or 6b to be ready."


def test_a_ready_hand_hears_its_waits_unseen_copies_and_scores() -> None:
    # South draws 4s and (timing out) discards it: one copy is then in sight of East.
    state = table("pung-chow", ["123m 456m 789p 22s 35s 9p", *OTHERS], draws=["4s"])
    state = apply(state, Discard(0, tile("9p")))
    state = time_out(state, lambda s: s.phase == CLAIM and s.last_discard == (1, tile("4s")))
    hints = seat_hints(view(state, 0))
    assert hints.lines[0] == "Waiting on 4b (3 unseen)."
    (wait,) = hints.waits
    rules = get_ruleset("pung-chow")
    hand = Hand(tuple(sorted(parse_tiles("123m 456m 789p 22s 345s"))))
    drawn = rules.score(hand, Situation(0, 0), Win(tile("4s"), SELF_DRAW))
    claimed = rules.score(hand, Situation(0, 0), Win(tile("4s"), DISCARD, 1))
    assert (wait.self_draw, wait.discard) == (drawn.total, claimed.total)
    assert hints.lines[1] == f"Mah-Jongg on 4b: {drawn.total} drawn, {claimed.total} on a discard."
    # The other seats are not ready and hear nothing; the public view never has hints.
    assert not seat_hints(view(state, 2))
    assert not seat_hints(view(state, None))


def test_singapore_furi_tem_is_warned_before_and_after_the_discard() -> None:
    # A complete hand (22s 345s): dropping the 5s waits on 2s or 5s, the tile just thrown.
    state = table("singapore", ["123m 456m 789p 22s 34s 5s", *OTHERS])
    before = seat_hints(view(state, 0))
    assert tile("5s") in before.ready_discards
    (furi_tem,) = before.warnings
    assert furi_tem.startswith("Discarding ") and "5b puts you in Furi Tem" in furi_tem
    state = apply(state, Discard(0, tile("5s")))
    after = seat_hints(view(state, 0))
    assert after.lines[0].startswith("Waiting on 2b, 5b (")
    assert all(w.discard is None and w.self_draw is not None for w in after.waits)
    assert any(w.startswith("Furi Tem: you discarded 5b") for w in after.warnings)
    # Declared: the warning says so and the discard is no longer closed.
    declared = replace(view(state, 0), seats=_with(view(state, 0), 0, furiten=True))
    told = seat_hints(declared)
    assert told.warnings == ("Furi Tem declared: you discarded 5b, which you wait on.",)
    assert all(w.discard is not None for w in told.waits)


def test_the_limit_game_warns_of_a_discard_that_makes_you_pay_for_everyone() -> None:
    state = table("pung-chow-limit", ["123m 456m 789p 22s 35s 7z", *OTHERS])
    seen = view(state, 0)
    two_dragons = (Meld(Kind.PUNG, tile("5z")), Meld(Kind.PUNG, tile("6z")))
    risky = replace(seen, seats=_with(seen, 1, melds=two_dragons))
    warnings = seat_hints(risky).warnings
    assert warnings == (
        "Careful: South shows two sets of dragons. If your discard of Red Dragon lets them "
        "win, you pay for everyone (Pung Chow p.67).",
    )
    one_dragon = replace(seen, seats=_with(seen, 1, melds=two_dragons[:1]))
    assert seat_hints(one_dragon).warnings == ()
    # The unlimited game has no such penalty.
    free = table("pung-chow", ["123m 456m 789p 22s 35s 7z", *OTHERS])
    assert (
        seat_hints(
            replace(view(free, 0), seats=_with(view(free, 0), 1, melds=two_dragons))
        ).warnings
        == ()
    )


def test_singapore_renchon_east_cannot_win_without_a_bonus() -> None:
    # East waits on 9s alone: drawn it doubles (won by drawing from the wall), on a discard it
    # has no bonus, and "after the first game, East must have at least one bonus to win".
    state = table("singapore", ["123m 456m 789p 111s 9s 7z", *OTHERS])
    state = apply(state, Discard(0, tile("7z")))
    rules = get_ruleset("singapore")
    hand = Hand(tuple(sorted(parse_tiles("123m 456m 789p 111s 99s"))))
    renchon = Situation(0, 0, {"renchon": 1})
    drawn = rules.score(hand, renchon, Win(tile("9s"), SELF_DRAW))
    on_discard = rules.score(hand, renchon, Win(tile("9s"), DISCARD, 3))
    assert on_discard.doubles == 0 and on_discard.limit_hand is None and drawn.doubles
    plain = seat_hints(view(state, 0))
    assert plain.waits[0].discard is not None
    hints = seat_hints(replace(view(state, 0), renchon=1))
    (wait,) = hints.waits
    assert (wait.self_draw, wait.discard) == (drawn.total, None)
    assert hints.lines[1] == (
        f"Mah-Jongg on 9b: {drawn.total} drawn; not on a discard: no bonus, which East needs "
        "in a Renchon game."
    )
    # Only East is held to it.
    south = replace(view(state, 0), renchon=1, seats=_with(view(state, 0), 0, wind=1))
    assert seat_hints(south).waits[0].discard is not None


def _with(seen, seat: int, **changes):
    return tuple(replace(s, **changes) if s.seat == seat else s for s in seen.seats)


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_over_whole_games_every_wait_wins_and_unseen_counts_the_hidden_copies(rules: str) -> None:
    """Computer players play; after each move each seat's hints are checked against the whole
    table: a wait completes the hand under the rule set, a ready discard leaves waits, and
    "unseen" is exactly the copies in the wall and in the other players' hands."""
    ruleset = get_ruleset(rules)
    state = new_game(rules, None, 11, players=4, sets=None, hands=3)
    checked = 0
    while state.phase != GAME_OVER:
        if state.phase == HAND_OVER:
            state = apply(state, NextHand(None))
            continue
        for seat in range(4):
            hints = seat_hints(view(state, seat))
            st = state.seats[seat]
            for w in hints.waits:
                hand = Hand(tuple(sorted([*st.tiles(), w.tile])), st.melds, st.flowers)
                assert ruleset.is_winning(hand), (rules, hand, w)
                hidden = list(state.wall.live_tiles())
                for other in range(4):
                    if other != seat:
                        hidden.extend(state.seats[other].tiles())
                assert w.unseen == hidden.count(w.tile)
                checked += 1
            for t in hints.ready_discards:
                assert t in st.tiles()
        seat = min(pending_seats(state))
        legal = legal_actions(state, seat)
        state = apply(state, decide(view(state, seat), legal, ruleset, state.config.options))
    assert checked > 0
