"""House rules (issue 13.3): every open reading of docs/rules.md is a table option whose
default is the bot's reading. Each is tried on one hand with both values: it changes exactly
the score or the payments it should and nothing else, and a table result names it only when
it changed something."""

from __future__ import annotations

import pytest

from bot.rules.notation import parse_hand
from bot.rules.rulesets import RULESETS
from bot.rules.table_score import SeatHand, TableRequest, score_table
from tests.rules.helpers import score, settle

S, F, PCL, PC = "singapore", "filipino-16", "pung-chow-limit", "pung-chow"


def house(rules: str) -> set[str]:
    return {s.name for s in RULESETS[rules].option_specs if s.house}


def test_every_house_rule_defaults_to_the_texts_reading_and_names_its_source() -> None:
    for rules in RULESETS.values():
        for spec in rules.option_specs:
            if spec.house:
                assert spec.source, spec.name
                assert spec.choices or spec.kind is bool, spec.name
                assert rules.options()[spec.name] == spec.default
    assert house(S) == {
        "four_chows_eyes",
        "three_pungs_drawn",
        "three_chows",
        "furiten_penalty",
        "ninth_renchon_antes",
    }
    assert house(F) == {"limit_applies", "false_mahjong", "loose_tile_bonus"}
    assert house(PCL) == {"first_discard_bonus"} and house(PC) == {"dead_hand"}


def _bonus_names(result) -> list[str]:
    return [line.name for line in result.lines if line.doubles]


# -- singapore: scoring --------------------------------------------------------------------------


def test_four_chows_eyes() -> None:
    terminal_eyes = "234m 456m 567p 345s 99p win 3s from W"
    text = score(S, terminal_eyes)
    club = score(S, terminal_eyes, four_chows_eyes="any")
    assert "4 chows, all middle numbers" not in _bonus_names(text)
    assert "4 chows, all middle numbers" in _bonus_names(club)
    assert club.total == text.total * 4  # x4, nothing else changes
    assert _bonus_names(club) == [*_bonus_names(text), "4 chows, all middle numbers"]
    # Middle eyes: both readings give the bonus, so the option changes nothing.
    middle_eyes = "234m 456m 567p 345s 55p win 3s from W"
    assert score(S, middle_eyes).total == score(S, middle_eyes, four_chows_eyes="any").total
    # A chow of 1-2-3 is no middle chow, whatever the option.
    edge = "123m 456m 567p 345s 99p win 3s from W"
    assert score(S, edge).total == score(S, edge, four_chows_eyes="any").total


def test_three_pungs_drawn() -> None:
    exposed = "[222m] [333p] [444s] 567m 88p win 8p self-draw"
    text = score(S, exposed)
    club = score(S, exposed, three_pungs_drawn="hidden")
    assert "3 pungs, won by drawing from the wall" in _bonus_names(text)
    assert "3 pungs, won by drawing from the wall" not in _bonus_names(club)
    assert text.total == club.total * 4
    hidden = "222m 333p 444s 567m 88p win 8p self-draw"
    assert score(S, hidden).total == score(S, hidden, three_pungs_drawn="hidden").total


def test_three_chows() -> None:
    gaps = "123s 345s 789s EEE 99p win 9p from W"
    text = score(S, gaps)
    club = score(S, gaps, three_chows="any")
    assert "3 chows of one suit" in _bonus_names(club)
    assert not [n for n in _bonus_names(text) if "chows of one suit" in n]
    # The text's reading gives the hidden hand's 10 instead ("no other bonus"): 20 + 8 + 2
    # + 10 = 40; the house rule's bonus takes that 10 away and doubles: (20 + 8 + 2 -> 30) x2.
    assert (text.total, club.total) == (40, 60)
    run = "123s 456s 789s EEE 99p win 9p from W"  # 1-9: both readings, one bonus
    assert score(S, run).total == score(S, run, three_chows="any").total


# -- singapore: settling -------------------------------------------------------------------------


def test_furiten_penalty() -> None:
    furi = {"extras": {"furiten": True}, "discarder": 2}
    east_won = {"E": 100, "S": 0, "W": 0, "N": 0}
    assert settle(S, east_won, "E", **furi) == {("E", "W"): 1000}
    club = {"furiten_penalty": "half-east-maximum"}
    assert settle(S, east_won, "E", options=club, **furi) == {("E", "W"): 1500}
    # East neither won nor discarded: half the maximum either way.
    south_won = {"E": 0, "S": 100, "W": 0, "N": 0}
    assert settle(S, south_won, "S", **furi) == settle(S, south_won, "S", options=club, **furi)
    assert settle(S, south_won, "S", **furi) == {("S", "W"): 1000}


def test_ninth_renchon_antes() -> None:
    ninth = {"E": 2000, "S": 0, "W": 0, "N": 0}
    text = settle(S, ninth, "E", renchon=9)
    club = settle(S, ninth, "E", renchon=9, options={"ninth_renchon_antes": False})
    assert text == {("S", "E"): 3000 + 900, ("W", "E"): 3000 + 900, ("N", "E"): 3000 + 900}
    assert club == {("S", "E"): 3000, ("W", "E"): 3000, ("N", "E"): 3000}
    # The eighth: antes either way.
    eighth = settle(S, ninth, "E", renchon=8, options={"ninth_renchon_antes": False})
    assert eighth == settle(S, ninth, "E", renchon=8)


# -- pung-chow-limit ----------------------------------------------------------------------------


def test_first_discard_bonus() -> None:
    hand = "123m 456m 789s 55s 22p win 2p from E first-discard"
    text = score(PCL, hand)
    club = score(PCL, hand, first_discard_bonus="half-limit-hand")
    last = text.lines[-1]
    assert (last.name, last.points) == ("Winning on the first discard: half the limit", 150)
    assert text.total == 162  # Mah-Jongg 10, the pung of twos 2 (by the discard), + 150
    assert club.total == 150 and [line.points for line in club.lines] == [150]
    # Without the first discard the option changes nothing.
    plain = "123m 456m 789s 55s 22p win 2p from E"
    assert score(PCL, plain).total == score(PCL, plain, first_discard_bonus="half-limit-hand").total


# -- filipino-16 ---------------------------------------------------------------------------------


def test_limit_applies() -> None:
    # North wins 50; South lost with 500, West with 100 (no East: no doubling).
    scores = {"S": 500, "W": 100, "N": 50}
    to_winner = {("S", "N"): 50, ("W", "N"): 50}
    payments = settle(F, scores, "N")
    winner = settle(F, scores, "N", options={"limit_applies": "winner"})
    scores_held = settle(F, scores, "N", options={"limit_applies": "scores"})
    assert payments == {**to_winner, ("W", "S"): 300}
    assert winner == {**to_winner, ("W", "S"): 400}
    assert scores_held == {**to_winner, ("W", "S"): 200}
    # Differences under the limit: the same under all three.
    small = {"S": 120, "W": 20, "N": 50}
    for applies in ("winner", "scores"):
        assert settle(F, small, "N", options={"limit_applies": applies}) == settle(F, small, "N")


def test_loose_tile_bonus() -> None:
    season = "123m 456m 789m 123p 456p 99s 5f win 9s loose-tile"  # a season's loose tile
    text = score(F, season, flowers=True)
    club = score(F, season, flowers=True, loose_tile_bonus="any")
    before = [line.name for line in text.lines]
    added = [line.name for line in club.lines if line.name not in before]
    assert added == ["Winning on a draw from the loose tiles"]
    assert club.points == text.points + 10 and club.doubles == text.doubles
    kong = "123m 456m 789m 123p [5555p] 99s win 9s loose-tile"  # a kong: both readings give it
    assert "Winning on a draw from the loose tiles" in [line.name for line in score(F, kong).lines]
    assert score(F, kong).total == score(F, kong, loose_tile_bonus="any").total


def test_false_mahjong() -> None:
    scores = {"E": 10, "S": 20, "W": 30, "N": 40}
    text = settle(F, scores, None, false_mahjong=2)
    assert text == {("W", "E"): 300, ("W", "S"): 150, ("W", "N"): 150}
    club = settle(F, scores, None, false_mahjong=2, options={"false_mahjong": "dead-hand"})
    # The dead hand (West) pays every other hand its score (East double) and the others
    # settle their differences.
    assert club[("W", "E")] == 20 and club[("W", "S")] == 20 and club[("W", "N")] == 40
    assert club[("S", "N")] == 20 and club[("E", "N")] == 60 and club[("E", "S")] == 20


# -- pung-chow ------------------------------------------------------------------------------------


def test_dead_hand() -> None:
    scores = {"E": 10, "S": 20, "W": 30, "N": 40}
    text = settle(PC, scores, None, false_mahjong=2)
    club = settle(PC, scores, None, false_mahjong=2, options={"dead_hand": "draw"})
    dead_pays = {("W", "E"): 20, ("W", "S"): 20, ("W", "N"): 40}
    assert club == dead_pays
    assert text == {**dead_pays, ("S", "N"): 20, ("E", "N"): 60, ("E", "S"): 20}


# -- naming the house rules that changed a hand -----------------------------------------------


@pytest.mark.parametrize(
    ("rules", "text", "options", "named"),
    [
        (S, "234m 456m 567p 345s 99p win 3s from W", {"four_chows_eyes": "any"}, True),
        (S, "234m 456m 567p 345s 55p win 3s from W", {"four_chows_eyes": "any"}, False),
        (
            S,
            "[222m] [333p] [444s] 567m 88p win 8p self-draw",
            {"three_pungs_drawn": "hidden"},
            True,
        ),
        (
            PCL,
            "123m 456m 789s 55s 22p win 2p from E",
            {"first_discard_bonus": "half-limit-hand"},
            False,
        ),
    ],
)
def test_a_table_result_names_only_the_house_rules_that_changed_it(
    rules: str, text: str, options: dict, named: bool
) -> None:
    parsed = parse_hand(text)
    request = TableRequest(rules, options, 0, (SeatHand(1, parsed.hand),), 1, parsed.win)
    result = score_table(request)
    expected = tuple(f"{k}={v}" for k, v in options.items()) if named else ()
    assert result.house_rules == expected
    assert (
        score_table(
            TableRequest(rules, {}, 0, (SeatHand(1, parsed.hand),), 1, parsed.win)
        ).house_rules
        == ()
    )


# -- the game names them in each hand's result ---------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"four_chows_eyes": "any"}])
def test_the_reveal_names_the_house_rule_that_changed_a_played_hand(options: dict) -> None:
    """A stacked singapore deal: South draws the 9 of dots to four middle chows with terminal
    eyes. Only the house rule gives "4 chows, all middle numbers", and the hand's result
    (what the reveal shows) names it then."""
    from bot.rules.game import Discard, MahJongg
    from cogs.notify.words import house_rules_words
    from tests.game.helpers import play, table, tiles, time_out

    state = table(
        S,
        ["19m19p19s1234567z8m", "234m456m567p345s9p", "147m258p369s1234z", "369m147p258s5567z"],
        draws=["9p"],
        options=options,
    )
    state = play(state, Discard(0, tiles("8m")[0]))
    state = time_out(state, lambda st: st.turn == 1 and st.seats[1].drawn is not None)
    state = play(state, MahJongg(1))
    (result,) = state.results
    assert result.winner == 1
    bonus = "4 chows, all middle numbers" in _bonus_names(result.scores[1])
    assert bonus == bool(options)
    assert result.house_rules == (("four_chows_eyes=any",) if options else ())
    words = house_rules_words(result.house_rules)
    assert ("`four_chows_eyes=any` changed this hand" in words) == bool(options)
    # The reveal as the channel sees it.
    from bot.service.tables.model import LiveTable, Player
    from cogs.notify.words import reveal_embed

    live = LiveTable(1, 1, 1, 1, S, options, 60, 15, 1, state=state, status="playing")
    live.players = [Player(10 + i, name) for i, name in enumerate(("ann", "bo", "cy", "di"))]
    fields = {f.name: f.value for f in reveal_embed(live, result).fields}
    assert (fields.get("House rules") == words) if options else ("House rules" not in fields)
