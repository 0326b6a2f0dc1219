"""Claims on a discard: who may claim what, and which claim takes the tile.

Pung Chow p.18-21 and filipino-16 "To Chow"/"To Pung":

* only the latest discard may be taken ("a tile discarded ... and allowed to remain in discard
  until the next player discards, becomes dead", p.20);
* chow only the discard of the player on your left, in your turn, with the other two tiles of
  the sequence in hand (p.18);
* pung any discard with a pair in hand, kong it with three (p.19, p.22);
* any discard that completes a hand may be taken for Mah-Jongg, to complete a pair or any set
  (p.20 rule 2);
* precedence: Mah-Jongg over pung (rule 5), pung over chow (rule 4); two Mah-Jongg claims go to
  the claimant "nearest to the discarder in a counter-clockwise direction" (rule 6);
* washing the tiles has preference over winning on the first discard (p.62, bonus 5).

A claim window asks every seat that has a claim and no other seat, and resolves once every asked
seat has answered, so a slow pung still beats a quick chow (filipino-16 "Suggestions for Play":
"he will give way to another player who calls Pung ... even though the player who PUNGS may be
rather slow in claiming").
"""

from __future__ import annotations

from bot.rules.game.actions import Action, Chow, Kong, MahJongg, Pass, Pung, WashTiles

RANKS: dict[type, int] = {WashTiles: 4, MahJongg: 3, Kong: 2, Pung: 2, Chow: 1, Pass: 0}


def rank(action: Action) -> int:
    return RANKS.get(type(action), 0)


def claim_key(action: Action, discarder: int) -> tuple[int, int]:
    """Higher is stronger: the claim's rank, then nearness to the discarder counter-clockwise."""
    seat = action.seat if action.seat is not None else 0
    return rank(action), -((seat - discarder) % 4)


def best_claim(responses: tuple[Action | None, ...], discarder: int) -> Action | None:
    """The claim that takes the tile among those made (None if all passed)."""
    made = [a for a in responses if a is not None and rank(a) > 0]
    if not made:
        return None
    return max(made, key=lambda a: claim_key(a, discarder))


def awaited(
    options: tuple[tuple[Action, ...] | None, ...], responses: tuple[Action | None, ...]
) -> frozenset[int]:
    """Seats asked that have not answered."""
    return frozenset(
        seat
        for seat, choices in enumerate(options)
        if choices is not None and responses[seat] is None
    )
