"""Seeded sample tables for the demo, the tests and the benchmark.

The game engine is written separately; this plays a crude random hand (draw, sometimes
claim a pung or chow, sometimes declare a kong, discard) only to fill a TableView with
plausible contents. It follows no rule set beyond counting tiles right.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass, field, replace
from typing import Any

from bot.rules.game.view import SeatView, TableView
from bot.rules.melds import Kind, Meld
from bot.rules.score import Payment, Score, ScoreLine

NAMES = ("Alice", "Bartholomew the Magnificent", "Chen", "Dolores")


@dataclass
class _Seat:
    seat: int
    occupied: bool
    concealed: list[int] = field(default_factory=list)
    drawn: int | None = None
    melds: list[Meld] = field(default_factory=list)
    flowers: list[int] = field(default_factory=list)
    discards: list[int] = field(default_factory=list)
    claimed: set[int] = field(default_factory=set)


class _WallEmpty(Exception):
    """The sample game drew the wall's last tile."""


class _Deal:
    def __init__(self, rng: random.Random, seats: tuple[int, ...], hand_size: int, dealer: int):
        self.rng = rng
        self.wall = [t for t in range(34) for _ in range(4)] + list(range(34, 42))
        rng.shuffle(self.wall)
        self.dead = 14 if hand_size == 13 else 16
        self.dead_wall = [self.wall.pop() for _ in range(self.dead)]
        self.seats = [_Seat(s, s in seats) for s in range(4)]
        self.order = [s for s in range(dealer, dealer + 4) if s % 4 in seats]
        self.order = [s % 4 for s in self.order]
        self.turn = dealer
        self.last_action = ""
        self.last_discard: tuple[int, int] | None = None
        for s in self.order:
            for _ in range(hand_size):
                self._take(s)
        self._draw(dealer)

    def _take(self, s: int) -> int:
        seat = self.seats[s]
        while True:
            if not self.wall:
                raise _WallEmpty
            tile = self.wall.pop()
            if tile < 34:
                seat.concealed.append(tile)
                return tile
            seat.flowers.append(tile)

    def _draw(self, s: int) -> None:
        tile = self._take(s)
        self.seats[s].concealed.remove(tile)
        self.seats[s].drawn = tile

    def _discard(self, s: int) -> int:
        seat = self.seats[s]
        hand = seat.concealed + ([seat.drawn] if seat.drawn is not None else [])
        # Throw a lonely tile if there is one, as a beginner would.
        lonely = [
            t
            for t in hand
            if hand.count(t) == 1
            and not any(
                u in hand for u in (t - 2, t - 1, t + 1, t + 2) if t < 27 and u // 9 == t // 9
            )
        ]
        tile = self.rng.choice(lonely or hand)
        hand.remove(tile)
        seat.concealed, seat.drawn = sorted(hand), None
        seat.discards.append(tile)
        self.last_discard = (s, tile)
        return tile

    def _next(self, s: int) -> int:
        i = self.order.index(s)
        return self.order[(i + 1) % len(self.order)]

    def play(self, turns: int, names: tuple[str, ...]) -> None:
        """``turns`` turns of beginner's play, or fewer when the wall runs out (a kong's or
        a claim's draw can take its last tile): the sample then shows the table as it is."""
        with contextlib.suppress(_WallEmpty):
            self._play(turns, names)

    def _play(self, turns: int, names: tuple[str, ...]) -> None:
        s = self.turn
        for _ in range(turns):
            self.turn = s
            seat = self.seats[s]
            # Concealed kong now and then.
            hand = seat.concealed + ([seat.drawn] if seat.drawn is not None else [])
            fours = [t for t in set(hand) if hand.count(t) == 4]
            if fours and self.rng.random() < 0.7:
                t = fours[0]
                for _ in range(4):
                    hand.remove(t)
                seat.concealed, seat.drawn = sorted(hand), None
                seat.melds.append(Meld(Kind.KONG, t, concealed=True))
                self._draw(s)
                continue
            tile = self._discard(s)
            self.last_action = f"{names[s]} discarded {_tile_words(tile)}"
            claimer = self._claim(s, tile, names)
            if claimer is None:
                s = self._next(s)
                if len(self.wall) <= 0:
                    break
                self._draw(s)
                self.last_discard = None
            else:
                s = claimer
                self.last_discard = None
                if (
                    self.seats[s].drawn is None
                    and (len(self.seats[s].concealed) + 3 * len(self.seats[s].melds)) % 3 != 2
                ):
                    self._draw(s)
        self.turn = s

    def _claim(self, s: int, tile: int, names: tuple[str, ...]) -> int | None:
        for other in self.order:
            if other == s:
                continue
            seat = self.seats[other]
            if seat.concealed.count(tile) >= 2 and self.rng.random() < 0.6:
                kong = seat.concealed.count(tile) == 3 and self.rng.random() < 0.5
                for _ in range(3 if kong else 2):
                    seat.concealed.remove(tile)
                kind = Kind.KONG if kong else Kind.PUNG
                seat.melds.append(Meld(kind, tile, claimed=tile, from_seat=s))
                self.seats[s].claimed.add(len(self.seats[s].discards) - 1)
                self.last_action = (
                    f"{names[other]} claimed {tile_words_kind(kind)} of {_tile_words(tile)}"
                )
                if kong:
                    self._draw(other)
                return other
        nxt = self._next(s)
        seat = self.seats[nxt]
        if tile < 27 and self.rng.random() < 0.5:
            for start in (tile - 2, tile - 1, tile):
                run = [start, start + 1, start + 2]
                if start < 0 or start // 9 != (start + 2) // 9 or start // 9 != tile // 9:
                    continue
                need = [t for t in run if t != tile]
                if all(t in seat.concealed for t in need):
                    for t in need:
                        seat.concealed.remove(t)
                    seat.melds.append(Meld(Kind.CHOW, start, claimed=tile, from_seat=s))
                    self.seats[s].claimed.add(len(self.seats[s].discards) - 1)
                    self.last_action = f"{names[nxt]} claimed a chow with {_tile_words(tile)}"
                    return nxt
        return None

    def view(
        self,
        viewer: int | None,
        *,
        ruleset: str,
        round_wind: int,
        hand_number: int,
        dealer: int,
        revealed: bool = False,
        phase: str = "play",
    ) -> TableView:
        seats = []
        for st in self.seats:
            show = st.occupied and (revealed or st.seat == viewer)
            seats.append(
                SeatView(
                    seat=st.seat,
                    wind=(st.seat - dealer) % 4,
                    concealed=tuple(sorted(st.concealed)) if show else None,
                    concealed_count=len(st.concealed),
                    drawn=st.drawn if show else None,
                    melds=tuple(st.melds),
                    flowers=tuple(st.flowers),
                    discards=tuple(st.discards),
                    claimed=frozenset(st.claimed),
                    occupied=st.occupied,
                )
            )
        seats = [
            _with_holding(sv, st.drawn is not None)
            for sv, st in zip(seats, self.seats, strict=False)
        ]
        return TableView(
            viewer=viewer,
            ruleset=ruleset,
            seats=tuple(seats),
            round_wind=round_wind,
            hand_number=hand_number,
            dealer=dealer,
            turn=self.turn,
            wall_remaining=len(self.wall),
            dead_wall=self.dead,
            last_discard=self.last_discard,
            last_action=self.last_action,
            phase=phase,
            revealed=revealed,
        )


def _with_holding(view: SeatView, holding: bool) -> SeatView:
    # The engine's SeatView may carry ``holding_drawn``; the committed one may not.
    if "holding_drawn" in getattr(SeatView, "__slots__", ()):
        return replace(view, holding_drawn=holding)
    return view


def tile_words_kind(kind: Kind) -> str:
    return {Kind.PUNG: "a pung", Kind.KONG: "a kong", Kind.CHOW: "a chow"}.get(kind, "a set")


def _tile_words(tile: int) -> str:
    from bot.rules.tiles import tile_name

    return tile_name(tile)


SEATS_BY_PLAYERS = {4: (0, 1, 2, 3), 3: (0, 1, 2), 2: (0, 2)}


def sample_table(
    seed: int = 7,
    *,
    players: int = 4,
    hand_size: int = 13,
    turns: int = 40,
    viewer: int | None = None,
    revealed: bool = False,
) -> TableView:
    """A table in the middle of a hand, seen by ``viewer`` (None: the public view)."""
    rng = random.Random(seed)
    dealer = rng.choice(SEATS_BY_PLAYERS[players])
    deal = _Deal(rng, SEATS_BY_PLAYERS[players], hand_size, dealer)
    deal.play(turns, NAMES)
    ruleset = "filipino16" if hand_size == 16 else "pung_chow"
    return deal.view(
        viewer,
        ruleset=ruleset,
        round_wind=rng.randrange(4),
        hand_number=rng.randint(1, 16),
        dealer=dealer,
        revealed=revealed,
    )


def sample_scores(view: TableView, winner: int) -> tuple[list[Score | None], list[Payment]]:
    """Made-up itemised scores and payments (physical seats) for a revealed table."""
    scores: list[Score | None] = []
    for seat in view.seats:
        if not seat.occupied:
            scores.append(None)
            continue
        lines = [ScoreLine("Mah-Jongg", 20, source="Pung Chow p.29")] if seat.seat == winner else []
        for meld in seat.melds:
            kind = {Kind.PUNG: "pung", Kind.KONG: "kong", Kind.CHOW: "chow"}[meld.kind]
            where = "concealed" if meld.concealed else "exposed"
            points = {Kind.PUNG: 2, Kind.KONG: 8, Kind.CHOW: 0}[meld.kind]
            if meld.concealed:
                points *= 2
            if meld.tile >= 27 or meld.tile % 9 in (0, 8):
                points *= 2
            lines.append(
                ScoreLine(f"{where.capitalize()} {kind} of {_tile_words(meld.tile)}", points)
            )
        for flower in seat.flowers:
            lines.append(ScoreLine(f"{_tile_words(flower)}", 4))
        if seat.seat == winner:
            lines.append(ScoreLine("Going out with a drawn tile", 2))
            lines.append(ScoreLine("Pung of dragons", doubles=1))
        total = sum(line.points for line in lines) << sum(line.doubles for line in lines)
        scores.append(Score(tuple(lines), total, winner=seat.seat == winner))
    payments = []
    for seat in view.seats:
        if seat.occupied and seat.seat != winner:
            amount = (scores[winner].total if scores[winner] else 0) * (2 if seat.wind == 0 else 1)
            payments.append(Payment(seat.seat, winner, amount, "Mah-Jongg"))
    return scores, payments


def play_game(ruleset: str, seed: int, *, players: int = 4, moves: int | None = None) -> Any:
    """A seeded game of the engine played by the computer players: its state ``moves``
    actions in, or at the end of the first hand (its reveal) when ``moves`` is None."""
    return played_hand(ruleset, seed, players=players, stop=moves)[-1]


def played_hand(ruleset: str, seed: int, *, players: int = 4, stop: int | None = None) -> list[Any]:
    """Every state of the first hand of a seeded game played by the computer players, from
    the deal to its reveal (or to ``stop`` actions in): the real tables players see."""
    from bot.players import decide
    from bot.rules.game import (
        GAME_OVER,
        HAND_OVER,
        apply,
        legal_actions,
        new_game,
        pending_seats,
        view,
    )
    from bot.rules.rulesets import get_ruleset

    state = new_game(ruleset, {}, f"demo-{seed}", players=players, hands=2)
    rules = get_ruleset(ruleset)
    states = [state]
    while state.phase not in (HAND_OVER, GAME_OVER) and (stop is None or len(states) <= stop):
        seat = min(pending_seats(state))
        legal = legal_actions(state, seat)
        state = apply(state, decide(view(state, seat), legal, rules, state.config.options))
        states.append(state)
    return states
