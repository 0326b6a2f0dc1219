"""Special events: washing (Pung Chow p.61), original hands, the first discard and the last
tile (p.62), the fourth tile of an exposed pung (p.62 bonus 6), false Mah-Jongg (p.67),
flowers (p.29; filipino-16 "Mahjong With the Seasons"), the dummy wall (p.76)."""

from __future__ import annotations

import pytest

from bot.rules.game import (
    CLAIM,
    HAND_OVER,
    PLAY,
    Chow,
    Discard,
    IllegalAction,
    MahJongg,
    NextHand,
    Pung,
    WashTiles,
    apply,
    legal_actions,
    pending_seats,
    view,
)
from bot.rules.game.seating import seat_players
from tests.game.helpers import play, table, tiles, time_out


def t(text: str) -> int:
    return tiles(text)[0]


def lines(state) -> list[str]:
    score = state.result.scores[state.result.winner]
    return [line.name for line in score.lines]


WASHER = "12349m1569p19s123z"  # nine different heads and five other tiles
OTHERS = ["258m258p258s4567z", "369m369p369s4567z", "147m147p147s4567z"]


def test_east_washes_the_tiles_and_keeps_the_box() -> None:
    """p.61: "a hand containing 9 or more different Heads on the original hand ... entitles the
    player to Wash Tiles ... East Wind retains the Cheung (wind box) and not collecting double"."""
    state = table("pung-chow-limit", [WASHER, *OTHERS])
    assert WashTiles(0) in legal_actions(state, 0)
    state = apply(state, WashTiles(0))
    assert state.phase == HAND_OVER and state.result.kind == "washing"
    assert sorted((p.payer, p.payee, p.amount) for p in state.result.payments) == [
        (1, 0, 50),
        (2, 0, 50),
        (3, 0, 50),
    ]
    assert state.hands_played == 0
    state = apply(state, NextHand())
    assert state.dealer == 0 and state.deal == 2 and state.phase == PLAY


def test_washing_is_not_offered_without_the_option_or_in_other_rule_sets() -> None:
    state = table("pung-chow-limit", [WASHER, *OTHERS], options={"washing": False})
    assert WashTiles(0) not in legal_actions(state, 0)
    state = table("pung-chow", [WASHER, *OTHERS])
    with pytest.raises(IllegalAction, match="nine or more different heads"):
        apply(state, WashTiles(0))


def test_washing_has_preference_over_a_win_on_the_first_discard() -> None:
    """p.62 bonus 5: "Washing cards have preference over this [win]"; a player other than East
    washes before he draws."""
    state = table(
        "pung-chow-limit",
        [
            "5s2468m2468s3s4567z",
            "19m19p19s123z5678m",
            "123p456p789p111s5s",
            "37m2467p237s4567z",
        ],
    )
    state = apply(state, Discard(0, t("5s")))
    assert state.phase == CLAIM and pending_seats(state) == {1, 2}
    assert WashTiles(1) in legal_actions(state, 1)
    assert MahJongg(2) in legal_actions(state, 2)
    state = play(state, MahJongg(2), WashTiles(1))
    assert state.result.kind == "washing" and state.result.caller == 1
    assert {(p.payer, p.amount) for p in state.result.payments} == {(0, 50), (2, 50), (3, 50)}


def test_east_wins_on_his_original_hand() -> None:
    """Pung Chow p.3: "For winning on original hand as drawn from the wall, double total score
    3 times"; the limit game makes it a limit hand (p.63, limit hand 6)."""
    hands = ["123m456m789m111p55p", *OTHERS]
    state = table("pung-chow", hands)
    state = apply(state, MahJongg(0))
    assert state.result.win.by == "dealt"
    assert "Winning on original hand" in lines(state)
    state = table("pung-chow-limit", hands)
    state = apply(state, MahJongg(0))
    assert state.result.scores[0].limit_hand.startswith("East wins on his original draw")
    assert state.dealer == 0


def test_winning_on_the_first_discard() -> None:
    """p.62 bonus 5: "To win on first card played a bonus of half the limit hand is given";
    singapore: "Another player wins with East's first discard" is a maximum hand."""
    hands = ["5s2468m2468s3s4567z", "123p456p789p111s5s", "2468p3579m12z689s", "37m13p237s4567z19m"]
    state = table("pung-chow-limit", hands)
    state = play(state, Discard(0, t("5s")), MahJongg(1))
    assert "first-discard" in state.result.win.flags
    assert "Winning on the first discard: half the limit" in lines(state)
    state = table("singapore", hands)
    state = play(state, Discard(0, t("5s")), MahJongg(1))
    assert state.result.scores[1].limit_hand == "Wins with East's first discard"


def test_winning_with_the_last_drawable_tile() -> None:
    """p.62 bonus 3: "For winning tile drawn by the player himself from the last tile which may
    be drawn in the wall doubles the total score once (i.e., the 15th tile from the end)"."""
    hands = ["234689s1234567z2p", "123m456m789m111p5p", "2468m2468p157s12z", "3579m367p9s34567z"]
    # 136 - 53 dealt - 14 dead = 69 draws; the 69th goes to South.
    state = table("pung-chow-limit", hands, draws=[*([None] * 68), "5p"])
    state = time_out(state, lambda s: s.phase == PLAY and s.wall.drawable == 0)
    assert state.turn == 1 and state.seats[1].drawn == t("5p")
    assert state.wall.remaining == 15 - 1
    state = apply(state, MahJongg(1))
    assert "last-tile" in state.result.win.flags
    assert "Winning tile drawn from the last tile of the wall" in lines(state)


def test_winning_with_the_fourth_tile_of_an_exposed_pung() -> None:
    """p.62 bonus 6: "if a player has an exposed set of 3 of a kind and he draws ... the fourth
    tile, and if this very tile is the winning tile, he may double the total score once"."""
    hands = ["5p2468m2468s12346z", "55p34p111m999m22s7z", "3579m1379p1379s5z", "3567m2678p56s457z"]
    state = table("pung-chow-limit", hands, draws=[None, None, None, "5p"])
    state = apply(state, Discard(0, t("5p")))
    assert {Pung(1), Chow(1, t("3p"))} <= set(legal_actions(state, 1))
    state = play(state, Pung(1), Discard(1, t("7z")))
    state = time_out(state, lambda s: s.phase == PLAY and s.turn == 1)
    assert state.seats[1].drawn == t("5p")
    state = apply(state, MahJongg(1))
    assert "Completing the hand with the fourth tile of an exposed set" in lines(state)


def test_a_false_mahjong_is_refused_or_penalised_at_a_strict_table() -> None:
    """p.67 penalty 1: "the player making the error must pay to each of the other 3 players half
    of the limit. East Wind receiving full limit or paying full limit"."""
    hands = ["5s2468m2468s3s4567z", *OTHERS]
    lax = table("pung-chow-limit", hands)
    with pytest.raises(IllegalAction, match="not complete"):
        apply(lax, MahJongg(0))
    strict = table("pung-chow-limit", hands, strict=True)
    after = apply(strict, Discard(0, t("5s")))
    assert after.phase == PLAY and after.turn == 1  # nobody could claim: South drew
    with pytest.raises(IllegalAction, match="turn"):
        apply(after, MahJongg(2))  # out of turn is refused even at a strict table
    after = apply(after, MahJongg(1))
    assert after.result.kind == "false-mahjong" and after.result.caller == 1
    paid = {(p.payer, p.payee): p.amount for p in after.result.payments}
    assert paid == {(1, 0): 300, (1, 2): 150, (1, 3): 150}
    east = apply(strict, MahJongg(0))
    assert sorted(p.amount for p in east.result.payments) == [300, 300, 300]
    singapore = apply(table("singapore", hands, strict=True), MahJongg(0))
    assert sorted(p.amount for p in singapore.result.payments) == [500, 500, 500]


def test_flowers_are_exposed_and_replaced() -> None:
    """filipino-16: Seasons in the original draw are declared before East's first discard and
    replaced by loose tiles; one drawn later "he immediately exposes it and draws a loose
    tile"."""
    hands = ["5s2468m2468s3s4567z", "1f123p456p789p111s", *OTHERS[1:]]
    state = table("singapore", hands, draws=["2f"], loose="6z7z1z")
    south = state.seats[1]
    assert south.flowers == (t("1f"),)
    assert t("6z") in south.concealed and len(south.concealed) == 13
    state = apply(state, Discard(0, t("5s")))
    state = time_out(state, lambda s: s.phase == PLAY and s.turn == 1)
    south = state.seats[1]
    assert south.flowers == (t("1f"), t("2f"))
    assert south.drawn == t("7z") and south.source == "loose"
    public = view(state, 2).seats[1]
    assert public.flowers == (t("1f"), t("2f")) and public.concealed is None
    assert public.drawn is None and public.holding_drawn


def test_three_players_with_the_dummy_wall() -> None:
    """p.76: "This fourth side is regarded as the dummy wall ... East Wind acts for the dummy,
    throwing the dice for it ... ignore the dummy the rest of the game, playing in regular
    routine and omitting the dummy's turn of play"."""
    seed = next(s for s in range(100) if seat_players(3, s).seats[1] is None)
    hands = ["5m19p19s1234567z19m", "46m258p258s1234z9s", "147m147p147s4567z"]
    state = table("pung-chow", hands, players=3, seed=seed)
    assert state.occupied == (True, False, True, True)
    assert state.seats[1].concealed == () and state.wall.remaining == 136 - 40
    assert state.wall_break.thrown_for_dummy == (not state.occupied[state.wall_break.breaker])
    state = apply(state, Discard(0, t("5m")))
    # West follows East, the dummy's turn omitted: West may chow East's discard.
    assert pending_seats(state) == {2}
    state = apply(state, Chow(2, t("4m")))
    assert state.seats[2].melds[0].from_seat == 0
    seen = view(state, None)
    assert not seen.seats[1].occupied and seen.seats[1].concealed is None


def test_the_discarder_of_a_third_dragon_pays_for_all() -> None:
    """p.67-68 penalty 2: with "two sets of dragons ... exposed", the discarder of the third
    dragon "must bear the entire losses of all other players"."""
    hands = ["2468m2468p2468s15z", "3579m3579p357s23z", "55z66z77z123m99p1s9s", "1469m168p2689s34z"]
    state = table("pung-chow-limit", hands, draws=["6z", "7z"])
    state = play(state, Discard(0, t("5z")), Pung(2), Discard(2, t("1s")))
    assert state.turn == 3 and state.seats[3].drawn == t("6z")
    state = play(state, Discard(3, t("6z")), Pung(2), Discard(2, t("9s")))
    assert state.seats[3].drawn == t("7z")
    state = play(state, Discard(3, t("7z")), MahJongg(2))
    result = state.result
    assert result.winner == 2 and result.liable == 3
    assert result.scores[2].limit_hand.startswith("Three sets of dragons")
    assert sorted((p.payer, p.payee, p.amount) for p in result.payments) == [
        (3, 2, 300),
        (3, 2, 300),
        (3, 2, 600),
    ]
