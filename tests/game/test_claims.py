"""Turns and claims: Pung Chow p.16-24 and filipino-16 "To Chow", "To Pung", "To Kong"."""

from __future__ import annotations

import pytest

from bot.rules.game import (
    CLAIM,
    HAND_OVER,
    PLAY,
    Chow,
    Discard,
    IllegalAction,
    Kong,
    MahJongg,
    Pass,
    Pung,
    apply,
    legal_actions,
    pending_seats,
)
from bot.rules.melds import Kind
from tests.game.helpers import names, play, table, tiles, time_out

# Seat 0 East, 1 South (on East's right), 2 West, 3 North.
FILL = "1z2z3z4z"


def t(text: str) -> int:
    return tiles(text)[0]


def test_east_discards_first_and_play_goes_to_the_right() -> None:
    """p.16: East starts by discarding; "The play then goes to the right"."""
    state = table(
        "pung-chow",
        ["19m19p19s1234567z9s", "258m258p258s1234z", "369m369p369s1234z", "147m147p147s4567z"],
        draws=["5z"],
    )
    assert state.phase == PLAY and state.turn == 0
    assert len(state.seats[0].concealed) == 13 and state.seats[0].drawn == t("9s")
    assert pending_seats(state) == {0}
    state = apply(state, Discard(0, t("9s")))
    # Nobody can use a 9 of bamboo: South draws at once.
    assert state.phase == PLAY and state.turn == 1
    assert state.seats[1].drawn == t("5z")


def test_pung_beats_chow_and_the_skipped_player_loses_his_turn() -> None:
    """p.21 rule 4: "A Pung has precedence over a Chow"; p.19 "one or even two players are
    liable to lose their turn"."""
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "46m258p258s1234z9s", "355m369p369s1234z", "147m147p147s4567z"],
    )
    state = apply(state, Discard(0, t("5m")))
    assert state.phase == CLAIM
    assert pending_seats(state) == {1, 2}
    assert Chow(1, t("4m")) in legal_actions(state, 1)
    assert Pung(2) in legal_actions(state, 2)
    assert legal_actions(state, 3) == []  # North cannot claim and is never asked
    state = apply(state, Chow(1, t("4m")))
    assert state.phase == CLAIM  # the window waits for West's answer
    state = apply(state, Pung(2))
    assert state.phase == PLAY and state.turn == 2
    meld = state.seats[2].melds[0]
    assert (meld.kind, meld.tile, meld.claimed, meld.from_seat) == (Kind.PUNG, t("5m"), t("5m"), 0)
    assert state.seats[1].melds == ()
    assert state.seats[0].claimed == {0}
    assert state.seats[2].drawn is None and len(state.seats[2].concealed) == 11
    state = apply(state, Discard(2, t("1z")))
    state = time_out(state, lambda s: s.phase == PLAY)
    assert state.turn == 3  # North plays next, South lost his turn


def test_mahjong_beats_pung() -> None:
    """p.21 rule 5: a pung completing the hand beats a pung completing a set."""
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "55m258p258s1234z6z", "123m789m111p999s5m", "369m2369p36s4567z"],
    )
    state = apply(state, Discard(0, t("5m")))
    assert MahJongg(2) in legal_actions(state, 2)
    state = play(state, Pung(1), MahJongg(2))
    assert state.phase == HAND_OVER
    assert state.result.winner == 2 and state.result.discarder == 0
    assert state.result.win.by == "discard"


def test_two_mahjong_claims_go_to_the_nearest_counter_clockwise() -> None:
    """p.21 rule 6: precedence "to the player claiming the tile nearest to the discarder in a
    counter-clockwise direction"."""
    # East discards: South (one step) beats North (three steps).
    state = table(
        "pung-chow",
        [
            "5p1234567z2468s3p7p",
            "123m456m789m111p5p",
            "2468m2468p12345z",
            "123s456s789s999p5p",
        ],
    )
    state = apply(state, Discard(0, t("5p")))
    assert pending_seats(state) == {1, 3}
    state = play(state, MahJongg(3), MahJongg(1))
    assert state.result.winner == 1
    # South discards: West (one step) beats East (three steps).
    state = table(
        "pung-chow",
        [
            "123m456m789m111p5p7z",
            "123456z2468p9m99s",
            "123s456s789s999p5p",
            "2468m3p7p123456z8s",
        ],
        draws=["5p"],
    )
    state = apply(state, Discard(0, t("7z")))
    assert state.turn == 1 and state.seats[1].drawn == t("5p")
    state = apply(state, Discard(1, t("5p")))
    assert pending_seats(state) == {0, 2}
    state = play(state, MahJongg(0), MahJongg(2))
    assert state.result.winner == 2


def test_only_the_latest_discard_may_be_taken() -> None:
    """p.20 rule 1: a discard left until the next player discards "becomes dead"."""
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "258p258s1234z369m", "55m147m258p258s34z", "147m147p147s4567z"],
        draws=["6z"],
    )
    state = apply(state, Discard(0, t("5m")))
    state = apply(state, Pass(2))  # West lets the 5 of characters go
    assert state.phase == PLAY and state.turn == 1
    with pytest.raises(IllegalAction, match="only the latest discard"):
        apply(state, Pung(2))
    state = apply(state, Discard(1, t("6z")))
    assert Pung(2) not in legal_actions(state, 2)


def test_chow_only_from_the_player_on_the_left() -> None:
    """p.18: "he may Chow only tiles discarded by the player to his left"."""
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "55m258p258s1234z9s", "346m258p258s1234z", "147m147p147s4567z"],
    )
    state = apply(state, Discard(0, t("5m")))
    assert Chow(2, t("4m")) not in legal_actions(state, 2)
    with pytest.raises(IllegalAction, match="player on your left"):
        apply(state, Chow(2, t("4m")))
    with pytest.raises(IllegalAction, match="discard is waiting"):
        apply(state, Discard(2, t("4m")))


def test_concealed_kong_draws_a_loose_tile_which_is_replaced() -> None:
    """p.22: the kong is laid down, "the two end tiles face down", and a loose tile drawn;
    "the one on the end moved up, and replaced by a tile from the end of the wall"."""
    state = table(
        "pung-chow",
        ["1111m19p19s12345z9s", "258m258p258s1234z", "369m369p369s1234z", "34m2468p2468s567z"],
        loose="6z7z5p",
    )
    remaining = state.wall.remaining
    assert Kong(0, t("1m")) in legal_actions(state, 0)
    state = apply(state, Kong(0, t("1m")))
    meld = state.seats[0].melds[0]
    assert (meld.kind, meld.concealed) == (Kind.KONG, True)
    assert state.seats[0].drawn == t("6z")  # the first loose tile
    assert state.wall.loose == (t("7z"), t("5p"))  # moved up, replaced from the end
    assert state.wall.remaining == remaining - 1
    assert state.phase == PLAY and state.turn == 0


def test_a_claimed_fourth_never_joins_an_exposed_pung_but_a_drawn_one_does() -> None:
    """p.23: "the rule ... bars him from appropriating some one else's discard to make a fourth
    for an exposed set"; drawing the fourth "he may add it on to his set of 3"."""
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "55m258p258s1234z9s", "469m369p369s1234z", "147m147p147s4567z"],
        draws=[None, None, "5m", "2m"],
        loose="6z",
    )
    state = play(state, Discard(0, t("5m")), Pung(1), Discard(1, t("1z")))
    state = time_out(state, lambda s: s.phase == PLAY and s.turn == 0)
    # East draws and discards the fourth 5 of characters: South is not asked.
    assert state.seats[0].drawn == t("5m")
    state = apply(state, Discard(0, t("5m")))
    assert state.phase == PLAY and state.turn == 1  # South was not asked; he draws
    assert not any(isinstance(m, Kong) for m in legal_actions(state, 1))
    with pytest.raises(IllegalAction):
        apply(state, Kong(1, t("5m")))


def test_adding_a_drawn_fourth_to_an_exposed_pung() -> None:
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "55m258p258s1234z9s", "469m369p369s1234z", "147m147p147s4567z"],
        draws=[None, None, "1p", "5m"],
        loose="6z",
    )
    state = play(state, Discard(0, t("5m")), Pung(1), Discard(1, t("1z")))
    state = time_out(state, lambda s: s.phase == PLAY and s.turn == 1)
    assert state.seats[1].drawn == t("5m")
    assert Kong(1, t("5m")) in legal_actions(state, 1)
    state = apply(state, Kong(1, t("5m")))
    meld = state.seats[1].melds[0]
    assert (meld.kind, meld.added, meld.concealed) == (Kind.KONG, True, False)
    assert state.seats[1].drawn == t("6z")


def test_exposed_kong_from_a_discard() -> None:
    """p.22: "A player may complete a set of four of a kind either by draw ... or punging"."""
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "555m258p258s123z9s", "469m369p369s1234z", "147m147p147s4567z"],
        loose="6z",
    )
    state = apply(state, Discard(0, t("5m")))
    assert names(legal_actions(state, 1)) >= {"Kong", "Pung", "Pass"}
    state = apply(state, Kong(1, t("5m")))
    meld = state.seats[1].melds[0]
    assert (meld.kind, meld.concealed, meld.from_seat) == (Kind.KONG, False, 0)
    assert state.seats[1].drawn == t("6z") and state.turn == 1


def test_illegal_actions_are_refused_with_a_reason() -> None:
    state = table(
        "pung-chow",
        ["5m19p19s1234567z19m", "55m258p258s1234z9s", "469m369p369s1234z", "147m147p147s4567z"],
    )
    with pytest.raises(IllegalAction, match="turn"):
        apply(state, Discard(1, t("5p")))
    with pytest.raises(IllegalAction, match="do not hold"):
        apply(state, Discard(0, t("5p")))
    with pytest.raises(IllegalAction, match="not complete"):
        apply(state, MahJongg(0))
    with pytest.raises(IllegalAction, match="no discard"):
        apply(state, Pass(1))
    after = apply(state, Discard(0, t("5m")))
    with pytest.raises(IllegalAction, match="own discard"):
        apply(after, Pung(0))
    with pytest.raises(IllegalAction, match="not asked"):
        apply(after, Pass(3))
    assert FILL  # the filler honours keep the other hands from claiming
