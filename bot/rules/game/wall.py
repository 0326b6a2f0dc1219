"""The wall: built, broken and drawn as in the book.

Building (Pung Chow p.13-14): each player builds one side of the wall in front of him, 17 stacks
of two (18 with the flowers or seasons, p.29; filipino-16 "Each wall consists of eighteen pairs
of tiles"). Breaking (p.14): East throws the dice and counts to the right from himself to find
the breaker; the breaker throws, adds the two throws, and counts that many stacks from the right
end of his own side; the stack there is lifted out and its two tiles laid on top of the wall as
the *loose tiles*, marking the end of the wall. The hands are dealt from the stack after the
break onwards ("the first four tiles ... at the beginning of the wall"; filipino-16 "the first
four pieces to the left of the opening ... going in a clockwise direction around the wall").

Counting the break goes clockwise round the table (from a player's right end to his left end,
then on to the right end of the side of the player on his left); a sum above 17 carries on into
that next side. Seats are physical seats (0-3 counter-clockwise from the first East); the player
on the left of seat ``s`` is ``s - 1``.

The wall in play is one sequence of tiles: the *front* is where tiles are drawn; the *back* is
the end of the wall, which replenishes the loose tiles (p.22: "Usually the one farthest from the
end is taken, the one on the end moved up, and replaced by a tile from the end of the wall
itself"). At the back a stack gives its top tile first, so the sequence holds those stacks
bottom-first. filipino-16 replaces the loose tiles two at a time, once both are used ("Should
both loose tiles be used ... the two last pieces are placed on top of end of wall as new loose
tiles").

The dead wall: the last ``dead`` tiles, loose tiles included, are never drawn (Pung Chow p.60
"even a loose tile cannot be drawn if there are only 14 tiles left in the wall including the
loose tiles"; filipino-16 "none of these last sixteen pieces can be drawn ... the one or two
loose tiles ... are included in the sixteen").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.rules.game.evolve import evolve
from bot.rules.tiles import N_TILES, full_set

REFILL_ONE = "one"  # Pung Chow p.22: the loose tile taken is replaced at once
REFILL_PAIR = "pair"  # filipino-16: both are replaced once both are used


@dataclass(frozen=True, slots=True)
class WallBreak:
    """Where the wall was broken: East's throw, the breaker (a physical seat), his throw, and
    the stack counted from the right end of his side (1-based)."""

    east_throw: tuple[int, int]
    breaker: int
    breaker_throw: tuple[int, int]
    count: int
    thrown_for_dummy: bool = False

    def describe(self, breaker: str | None = None) -> str:
        """In words; ``breaker`` names the breaker (his wind), else his seat number."""
        a, b = self.east_throw
        c, d = self.breaker_throw
        who = breaker or f"seat {self.breaker}"
        dummy = " (East throwing for the dummy)" if self.thrown_for_dummy else ""
        return (
            f"East threw {a}+{b}={a + b}; {who} breaks the wall{dummy}, throwing {c}+{d}: "
            f"it is broken at stack {self.count} from the right end of his side"
        )


@dataclass(frozen=True, slots=True)
class Wall:
    """The live wall (``tiles[front:back]``) and the loose tiles on top of its end."""

    tiles: tuple[int, ...]
    front: int
    back: int
    loose: tuple[int, ...]
    dead: int = 0
    refill: str = REFILL_ONE

    @property
    def remaining(self) -> int:
        """Tiles left in the wall, the loose tiles included (what the dead wall is counted by)."""
        return self.back - self.front + len(self.loose)

    @property
    def drawable(self) -> int:
        """How many more tiles may be drawn before the dead wall is reached."""
        return max(0, self.remaining - self.dead)

    @property
    def can_draw(self) -> bool:
        return self.remaining > self.dead

    def live_tiles(self) -> tuple[int, ...]:
        """Every tile still in the wall (for checking tile conservation)."""
        return self.tiles[self.front : self.back] + self.loose

    def draw(self) -> tuple[int, Wall]:
        """The next tile from the front of the wall."""
        if not self.can_draw:
            raise ValueError("the wall is exhausted: no tile may be drawn")
        if self.front < self.back:
            return self.tiles[self.front], evolve(self, front=self.front + 1)
        # Only the loose tiles are left (a game without a dead wall, at its very end).
        return self.loose[0], evolve(self, loose=self.loose[1:])

    def draw_loose(self) -> tuple[int, Wall]:
        """A loose tile, after a kong or a flower (Pung Chow p.22, p.29), and its replacement."""
        if not self.can_draw:
            raise ValueError("the dead wall is reached: no loose tile may be drawn")
        if not self.loose:
            return self._take_back()
        tile, rest = self.loose[0], self.loose[1:]
        back = self.back
        if self.refill == REFILL_ONE or not rest:
            want = 2 if self.refill == REFILL_PAIR else len(rest) + 1
            refill: list[int] = []
            while len(rest) + len(refill) < want and back > self.front:
                back -= 1
                refill.append(self.tiles[back])
            rest = rest + tuple(refill)
        return tile, evolve(self, loose=rest, back=back)

    def _take_back(self) -> tuple[int, Wall]:
        if self.back > self.front:
            return self.tiles[self.back - 1], evolve(self, back=self.back - 1)
        raise ValueError("the wall is empty")


def stacks_per_side(with_bonus: bool) -> int:
    """17 stacks of two, 18 with the flowers or seasons (Pung Chow p.13, p.29)."""
    return 18 if with_bonus else 17


def build(
    shuffled: Sequence[int], breaker: int, count: int, *, dead: int = 0, refill: str = REFILL_ONE
) -> Wall:
    """Build the four sides from the shuffled tiles and break the wall (Pung Chow p.13-14).

    Side ``s`` (the one in front of physical seat ``s``) is made of ``shuffled[s*2L:(s+1)*2L]``,
    stack ``j`` (from the right end of that side) being tiles ``2j`` (top) and ``2j+1`` (bottom).
    """
    total = len(shuffled)
    per_side = total // 8
    if per_side * 8 != total:
        raise ValueError("a wall has four sides of stacks of two")
    sides = [
        [
            (shuffled[s * 2 * per_side + 2 * j], shuffled[s * 2 * per_side + 2 * j + 1])
            for j in range(per_side)
        ]
        for s in range(4)
    ]
    # Clockwise from seat 0's right end: seat 0's side, then seat 3's, seat 2's, seat 1's.
    ring = [stack for s in (0, 3, 2, 1) for stack in sides[s]]
    start = ((-breaker) % 4) * per_side
    k = (start + count - 1) % len(ring)
    loose_stack = ring[k]
    live = ring[k + 1 :] + ring[:k]
    half = len(live) // 2
    sequence: list[int] = []
    for index, (top, bottom) in enumerate(live):
        sequence.extend((top, bottom) if index < half else (bottom, top))
    return Wall(tuple(sequence), 0, len(sequence), loose_stack, dead, refill)


def from_sequence(sequence: Sequence[int], *, dead: int = 0, refill: str = REFILL_ONE) -> Wall:
    """A stacked wall, for tests and demonstrations: ``sequence[0:2]`` are the loose tiles (the
    first two loose draws), the rest is drawn from the front, and further loose tiles come from
    its end backwards. See :func:`stacked`."""
    tiles = tuple(sequence)
    return Wall(tiles[2:], 0, len(tiles) - 2, tiles[:2], dead, refill)


def deal_order(hand_size: int, seats: int) -> list[tuple[int, int]]:
    """Who takes how many tiles in turn when dealing (Pung Chow p.16): four at a time round the
    table until each has ``hand_size`` less the remainder, then one apiece, then East one more.
    Returns ``(index in dealing order, tiles)``; index 0 is East.
    """
    order: list[tuple[int, int]] = []
    for _ in range(hand_size // 4):
        order.extend((i, 4) for i in range(seats))
    for _ in range(hand_size % 4):
        order.extend((i, 1) for i in range(seats))
    order.append((0, 1))
    return order


def stacked(
    hands: Sequence[Sequence[int]],
    draws: Sequence[int] = (),
    loose: Sequence[int] = (),
    *,
    hand_size: int = 13,
    with_bonus: bool = False,
) -> tuple[int, ...]:
    """A wall sequence that deals ``hands`` (in dealing order, East first with one extra tile),
    then gives ``draws`` from the front and ``loose`` as the loose tiles in the order drawn.

    The remaining tiles of the set fill the middle in a fixed order. For scenario tests.
    """
    hands = [list(h) for h in hands]
    if len(hands[0]) != hand_size + 1 or any(len(h) != hand_size for h in hands[1:]):
        sizes = ", ".join(str(len(h)) for h in hands)
        raise ValueError(
            f"East needs {hand_size + 1} tiles and the others {hand_size}, not {sizes}"
        )
    pool = [0] * N_TILES
    for tile in full_set(with_bonus):
        pool[tile] += 1
    used = [t for h in hands for t in h] + list(draws) + list(loose)
    for tile in used:
        pool[tile] -= 1
        if pool[tile] < 0:
            raise ValueError(f"tile {tile} is used more often than the set holds")
    dealt: list[int] = []
    cursor = [0] * len(hands)
    for index, n in deal_order(hand_size, len(hands)):
        dealt.extend(hands[index][cursor[index] : cursor[index] + n])
        cursor[index] += n
    filler = [tile for tile in range(N_TILES) for _ in range(pool[tile])]
    head = list(loose[:2])
    while len(head) < 2:
        head.append(filler.pop())
    back = list(reversed(loose[2:]))
    return tuple(head + dealt + list(draws) + filler + back)
