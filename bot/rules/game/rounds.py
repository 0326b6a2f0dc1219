"""The wind box: who is East next, the round wind, sets played, the end of the game.

Pung Chow p.13: "if the player representing East Wind wins, or if the game is a draw, he
remains East Wind. If he loses, the player to his right becomes East Wind". p.58-59: the box
goes to the right when East loses; "The East Wind round is over as soon as the fourth player to
be East Wind in turn loses. He ... hands the box to the original East Wind who now becomes the
first East Wind of the South Wind round ... four games make up a round and four rounds make up
a set." p.61: when the tiles are washed "East Wind retains the Cheung (wind box)".

With a dummy (Pung Chow p.76) the box skips the dummy's seat, and a round is over when the deal
comes back to the original East.

singapore Renchon: "when the East wins, and continues his turn as East. Each successive hand
after his first win, he places a chip on the table" -- ``renchon`` counts East's consecutive
wins; a drawn or washed hand leaves the count as it is, a loss clears it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.game.state import WASHING, HandResult, TableConfig


@dataclass(frozen=True, slots=True)
class Box:
    """Where the wind box stands before a deal."""

    dealer: int
    round_wind: int
    sets_done: int
    hands_played: int
    renchon: int


def next_dealer(dealer: int, occupied: tuple[bool, ...]) -> int:
    for step in range(1, 5):
        seat = (dealer + step) % 4
        if occupied[seat]:
            return seat
    return dealer


def advance(box: Box, result: HandResult, occupied: tuple[bool, ...]) -> Box:
    """The box after a hand (``hands_played`` already counts it, see :func:`played`)."""
    played = box.hands_played
    if result.winner is None or result.winner == box.dealer:
        renchon = box.renchon + (1 if result.winner == box.dealer else 0)
        return Box(box.dealer, box.round_wind, box.sets_done, played, renchon)
    dealer = next_dealer(box.dealer, occupied)
    round_wind, sets_done = box.round_wind, box.sets_done
    if dealer == 0:  # the deal is back with the original East: the round is over
        round_wind += 1
        if round_wind == 4:
            round_wind = 0
            sets_done += 1
    return Box(dealer, round_wind, sets_done, played, 0)


def played(hands_played: int, result: HandResult) -> int:
    """Hands played to a result: a washed hand is not played (Pung Chow p.61 "no play")."""
    return hands_played + (0 if result.kind == WASHING else 1)


def is_over(box: Box, config: TableConfig) -> bool:
    """The chosen number of sets or hands has been played."""
    if config.sets is not None and box.sets_done >= config.sets:
        return True
    return config.hands is not None and box.hands_played >= config.hands
