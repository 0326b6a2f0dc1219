"""singapore-simplified.txt at the table: Riichi, Furi Tem, Renchon, the four-kong rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.rules.game import (
    CLAIM,
    HAND_OVER,
    PLAY,
    DeclareFuriten,
    Discard,
    IllegalAction,
    Kong,
    MahJongg,
    NextHand,
    Pung,
    Riichi,
    apply,
    furiten_tiles,
    legal_actions,
    pending_seats,
)
from tests.game.helpers import play, table, tiles, time_out, wall_for

NO_FLOWERS = {"flowers": False}
OTHERS = ["258m258p258s4567z", "369m369p369s4567z", "147m147p147s4567z"]


def t(text: str) -> int:
    return tiles(text)[0]


def test_riichi_is_declared_with_a_discard_and_binds_the_hand() -> None:
    """ "Win after declaring Riichi: 2"; "Declared Riichi but did not win: 100 pts. to the
    winner" (docs/game.md: a concealed ready hand; afterwards the drawn tile is discarded and
    no set is claimed)."""
    hands = [
        "123m456m789m11p23s7z",
        "123p456p789p111z9s",
        "258m2468p258s234z",
        "369m357p369s4567z",
    ]
    state = table("singapore", hands, draws=["1p", None, None, "9s"], options=NO_FLOWERS)
    actions = legal_actions(state, 0)
    assert Riichi(0, t("7z")) in actions and Riichi(0, t("1m")) not in actions
    with pytest.raises(IllegalAction, match="ready"):
        apply(state, Riichi(0, t("1m")))
    state = apply(state, Riichi(0, t("7z")))
    assert state.seats[0].riichi
    # South discards a 1 of dots: East holds a pair but after Riichi is not asked to pung.
    assert state.turn == 1 and state.seats[1].drawn == t("1p")
    state = apply(state, Discard(1, t("1p")))
    assert Pung(0) not in legal_actions(state, 0)
    state = time_out(state, lambda s: s.phase == PLAY and s.turn == 0)
    assert legal_actions(state, 0) == [Discard(0, t("9s"))]
    with pytest.raises(IllegalAction, match="Riichi"):
        apply(state, Discard(0, t("1m")))
    state = play(state, Discard(0, t("9s")), MahJongg(1))
    assert state.result.winner == 1
    riichi = [p for p in state.result.payments if "Riichi" in p.reason]
    assert [(p.payer, p.payee, p.amount) for p in riichi] == [(0, 1, 100)]


FURITEN_HANDS = [
    "19p19s1234567z24p5s",
    "258m3p23568s1234z",
    "123m456m789m67p99s",
    "369m129p147s4567z",
]


def furiten_table():
    state = table("singapore", FURITEN_HANDS, draws=[None, "5p", "8p"], options=NO_FLOWERS)
    # West draws the 5 of dots, which would complete his hand, and lets it go.
    state = time_out(state, lambda s: s.phase in (PLAY, CLAIM) and t("5p") in s.seats[2].discards)
    assert furiten_tiles(state, 2) == {t("5p")}
    assert DeclareFuriten(2) in legal_actions(state, 2)
    return state


def north_discards_the_eight(state):
    return time_out(state, lambda s: s.phase == CLAIM and s.claim.tile == t("8p"))


def test_winning_in_an_undeclared_furi_ten_is_penalised() -> None:
    """FURI TEM: "If you fail to make this declaration and then win by picking up the same
    tile when another player has discarded it, you forfeit half the Maximum Points"."""
    state = north_discards_the_eight(furiten_table())
    assert MahJongg(2) in legal_actions(state, 2)
    state = apply(state, MahJongg(2))
    assert "furiten-undeclared" in state.result.win.flags
    assert [(p.payer, p.payee, p.amount) for p in state.result.payments] == [(2, 3, 1000)]


def test_a_declared_furi_ten_wins_normally() -> None:
    state = apply(furiten_table(), DeclareFuriten(2))
    assert state.seats[2].furiten == {t("5p")}
    with pytest.raises(IllegalAction, match="already"):
        apply(state, DeclareFuriten(2))
    state = play(north_discards_the_eight(state), MahJongg(2))
    assert "furiten-undeclared" not in state.result.win.flags
    assert all(p.payee == 2 for p in state.result.payments)


def test_declaring_furi_ten_after_the_winning_discard_is_too_late() -> None:
    state = north_discards_the_eight(furiten_table())
    state = play(state, DeclareFuriten(2), MahJongg(2))
    assert "furiten-undeclared" in state.result.win.flags


EAST_WINS = ["123m456m789m111p55p", *OTHERS]


def test_renchon_antes_grow_with_easts_consecutive_wins() -> None:
    """RENCHON: "during the first Renchon game the losing players pay the winner 100 points
    each; during the second Renchon, 200 points"."""
    rig = wall_for("singapore", EAST_WINS)
    state = table("singapore", EAST_WINS, more=[rig, rig], options=NO_FLOWERS)
    antes = []
    for renchon in range(3):
        assert state.renchon == renchon and state.dealer == 0
        state = apply(state, MahJongg(0))
        paid = [p for p in state.result.payments if "Renchon" in p.reason]
        antes.append(sorted((p.payer, p.amount) for p in paid))
        state = apply(state, NextHand())
    assert antes == [[], [(1, 100), (2, 100), (3, 100)], [(1, 200), (2, 200), (3, 200)]]


def test_in_a_renchon_game_east_needs_a_bonus_to_win() -> None:
    """RENCHON: "after the first game, East must have at least one bonus to win"."""
    plain = ["123m456p345s77s99p1z", *OTHERS]
    rig = wall_for("singapore", plain, draws=["9p"])
    state = table("singapore", EAST_WINS, more=[rig], options=NO_FLOWERS)
    state = play(state, MahJongg(0), NextHand())
    assert state.renchon == 1
    state = play(state, Discard(0, t("1z")), Discard(1, t("9p")))
    assert state.phase == CLAIM and 0 in pending_seats(state)
    assert Pung(0) in legal_actions(state, 0) and MahJongg(0) not in legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="Renchon"):
        apply(state, MahJongg(0))


def test_four_kongs_by_two_players_draw_the_hand() -> None:
    """ "4 Kongs causes a draw unless one player makes all of them"."""
    hands = ["1111m2222m19p19s12z", "3333p4444p79s135z", "5678m5678p2345s4z", "349m129p6789s267z"]
    state = table("singapore", hands, loose="5z6z7z1s", options=NO_FLOWERS)
    state = play(state, Kong(0, t("1m")), Kong(0, t("2m")))
    assert state.phase == PLAY and len(state.seats[0].melds) == 2  # one player: play goes on
    state = apply(state, Discard(0, state.seats[0].drawn))
    state = time_out(state, lambda s: s.phase == PLAY and s.turn == 1)
    state = apply(state, Kong(1, t("3p")))
    assert state.phase == PLAY
    state = apply(state, Kong(1, t("4p")))
    assert state.phase == HAND_OVER and state.result.kind == "four-kongs"
    assert state.result.payments == () and state.dealer == 0


def test_the_ninth_renchon_game_pays_the_maximum() -> None:
    """RENCHON: "If East wins the ninth Renchon game, he receives the Maximum Points"."""
    plain = ["123m456p345s77s99p1z", *OTHERS]
    rig = wall_for("singapore", plain, draws=["9p"])
    state = table("singapore", EAST_WINS, more=[rig], options=NO_FLOWERS)
    state = play(state, MahJongg(0), NextHand())
    state = replace(state, renchon=9)  # as after nine wins in a row
    state = play(state, Discard(0, t("1z")), Discard(1, t("9p")))
    assert MahJongg(0) in legal_actions(state, 0)
    state = apply(state, MahJongg(0))
    assert state.result.scores[0].limit_hand == "East wins the ninth Renchon game"
    paid = sorted((p.payer, p.amount, p.reason) for p in state.result.payments)
    # In a Renchon game each loser pays his own share (East's maximum, 3000) and the
    # discarder double the ante ("the Renchon exception").
    assert (1, 1800, "Renchon ante x9") in paid and (2, 900, "Renchon ante x9") in paid
    assert sum(p.amount for p in state.result.payments if p.reason != "Renchon ante x9") == 9000
