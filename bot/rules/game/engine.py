"""The game engine: ``new_game``, ``apply``, ``legal_actions``, ``pending_seats``,
``timeout_action``, ``replay``.

The procedure follows Pung Chow Part I p.13-28 (and Part II p.57-62 for the limit game),
filipino-16 and the singapore text; each step below cites its line. ``apply`` never changes a
state: it builds the next one (a small transaction object collects the changes) or raises
``IllegalAction`` with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.rules.analysis import is_complete, is_seven_pairs, is_thirteen_heads, waits
from bot.rules.game import actions as ev
from bot.rules.game import claims, rounds, scoring
from bot.rules.game.actions import (
    CLAIMED,
    DEALT,
    DISCARDED,
    DRAWN_HAND,
    DREW,
    FALSE_MAHJONG,
    FLOWER,
    FURITEN,
    KONG,
    LOOSE,
    PASSED,
    RIICHI,
    SEATED,
    WASHED,
    WON,
    Action,
    Chow,
    DeclareFuriten,
    Discard,
    Event,
    Kong,
    MahJongg,
    NextHand,
    Pass,
    Pung,
    Riichi,
    WashTiles,
)
from bot.rules.game.dice import counted_seat, hand_seed, rng, seed_hash, throw
from bot.rules.game.evolve import evolve
from bot.rules.game.seating import seat_players
from bot.rules.game.shanten import shanten
from bot.rules.game.state import (
    CLAIM,
    FOUR_KONGS,
    GAME_OVER,
    HAND_OVER,
    PLAY,
    ClaimWindow,
    GameState,
    HandResult,
    IllegalAction,
    SeatState,
    TableConfig,
)
from bot.rules.game.wall import (
    REFILL_ONE,
    REFILL_PAIR,
    Wall,
    WallBreak,
    build,
    deal_order,
    from_sequence,
)
from bot.rules.hand import DEALT as BY_DEALT
from bot.rules.hand import DISCARD, LOOSE_TILE, SELF_DRAW, Hand, Situation, Win
from bot.rules.melds import Kind, Meld, chow_is_legal
from bot.rules.rulesets import get_ruleset
from bot.rules.rulesets.pung_chow_limit import different_heads
from bot.rules.rulesets.singapore import renchon_bonus_ok
from bot.rules.tiles import (
    N_KINDS,
    WIND_NAMES,
    counts_of,
    full_set,
    is_bonus,
    tile_name,
)

LIMIT_GAME = "pung-chow-limit"
SINGAPORE = "singapore"
_EMPTY_SEAT = SeatState()


# -- opening the table ------------------------------------------------------------------------


def new_game(
    ruleset: str | TableConfig,
    options: Mapping[str, Any] | None = None,
    seed: int | str = 0,
    *,
    players: int = 4,
    sets: int | None = 1,
    hands: int | None = None,
    strict: bool = False,
    rig: Iterable[Sequence[int]] = (),
) -> GameState:
    """Open a table: seat the players (Pung Chow p.13; p.57-59 for the limit game) and deal
    the first hand. ``sets`` or ``hands`` says how long the game is (None: no end)."""
    if isinstance(ruleset, TableConfig):
        config = ruleset
    else:
        rules = get_ruleset(ruleset)
        config = TableConfig(
            rules.name,
            rules.options(options),
            seed,
            players,
            sets,
            hands,
            strict,
            tuple(tuple(r) for r in rig),
        )
    if config.players not in (2, 3, 4):
        raise ValueError("a table has two, three or four players (Pung Chow p.76)")
    for name, value in (("sets", config.sets), ("hands", config.hands)):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be at least 1")
    record = seat_players(config.players, config.seed, wind_box=config.ruleset == LIMIT_GAME)
    occupied = tuple(p is not None for p in record.seats)
    state = GameState(
        config=config,
        seating=record,
        occupied=occupied,
        phase=HAND_OVER,
        deal=0,
        hands_played=0,
        dealer=0,
        round_wind=0,
        sets_done=0,
        renchon=0,
        hand_seed="",
        seed_hash="",
        wall_break=None,
        wall=Wall((), 0, 0, ()),
        seats=(_EMPTY_SEAT,) * 4,
        turn=0,
        claim=None,
        discards=0,
        last_discard=None,
        last_tile=False,
        result=None,
        results=(),
        net=(0, 0, 0, 0),
        move=0,
        events=(),
    )
    tx = _Tx(state)
    tx.event(SEATED, None, text=record.describe())
    tx.deal()
    return tx.finish(count_move=False)


def replay(config: TableConfig, actions: Iterable[Action]) -> GameState:
    """The state reached from the table's configuration by the accepted actions."""
    state = new_game(config)
    for action in actions:
        state = apply(state, action)
    return state


# -- reading the state --------------------------------------------------------------------------


def pending_seats(state: GameState) -> frozenset[int]:
    """Whose decision the table waits for: the seat to discard, the seats asked in a claim
    window that have not answered, every player once a hand is over; none when the game is."""
    if state.phase == PLAY:
        return frozenset((state.turn,))
    if state.phase == CLAIM:
        assert state.claim is not None
        return claims.awaited(state.claim.options, state.claim.responses)
    if state.phase == HAND_OVER:
        return frozenset(state.active_seats)
    return frozenset()


def timeout_action(state: GameState, seat: int) -> Action | None:
    """What a seat does when its time runs out: discard the drawn tile (or the last tile of
    the hand after a claim), pass a claim, deal the next hand."""
    if state.phase == PLAY and seat == state.turn:
        st = state.seats[seat]
        return Discard(seat, st.drawn if st.drawn is not None else st.concealed[-1])
    if state.phase == CLAIM and seat in pending_seats(state):
        return Pass(seat)
    if state.phase == HAND_OVER:
        return NextHand(seat)
    return None


def legal_actions(state: GameState, seat: int | None) -> list[Action]:
    """Every action ``seat`` may take now (only seats asked are given claims)."""
    if seat is not None and not (0 <= seat < 4 and state.occupied[seat]):
        return []
    if state.phase == HAND_OVER:
        return [NextHand(seat)]
    if state.phase == GAME_OVER or seat is None:
        return []
    ctx = _Ctx(state)
    out: list[Action] = []
    if state.phase == PLAY:
        if seat == state.turn:
            out.extend(ctx.turn_actions(seat))
    else:
        window = state.claim
        assert window is not None
        choices = window.options[seat]
        if choices is not None and window.responses[seat] is None:
            out.extend(choices)
            out.append(Pass(seat))
    if ctx.is_singapore and ctx.furiten_uncovered(seat):
        out.append(DeclareFuriten(seat))
    return out


def furiten_tiles(state: GameState, seat: int) -> frozenset[int]:
    """The tiles this seat waits on that it discarded itself (singapore "FURI TEM")."""
    return _Ctx(state).furiten_tiles(seat)


# -- applying an action -------------------------------------------------------------------------


def apply(state: GameState, action: Action) -> GameState:
    """The state after ``action``; raises IllegalAction (with the reason) if it is not allowed."""
    if not isinstance(action, _ACTION_CLASSES):
        raise IllegalAction(f"{action!r} is not a table action")
    handler = _HANDLERS[type(action)]
    tx = _Tx(state)
    handler(tx, action)
    return tx.finish()


class _Ctx:
    """Questions about a state (shared by legal_actions and the transaction)."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.rules = get_ruleset(state.config.ruleset)
        self.options = state.config.options
        self.is_singapore = self.rules.name == SINGAPORE

    # Positions read through properties so that the transaction can override them.
    @property
    def seats(self) -> Sequence[SeatState]:
        return self.state.seats

    @property
    def wall(self) -> Wall:
        return self.state.wall

    @property
    def dealer(self) -> int:
        return self.state.dealer

    def wind_of(self, seat: int) -> int:
        return (seat - self.dealer) % 4

    def complete(self, tiles: Sequence[int], melds: Sequence[Meld]) -> bool:
        """Sets and a pair with the declared melds, or a special the rule set allows."""
        counts = counts_of(tiles)
        if is_complete(counts):
            return True
        specials = self.rules.specials
        if not specials or melds or len(tiles) != 14:
            return False
        return ("thirteen-heads" in specials and is_thirteen_heads(counts)) or (
            "seven-pairs" in specials and is_seven_pairs(counts)
        )

    def may_complete(self, concealed: Sequence[int], tile: int, melds: Sequence[Meld]) -> bool:
        """False when ``tile`` cannot complete the hand, told without counting it: a tile with
        no copy in hand and no neighbour of its suit within two belongs to no pair, set or run,
        so only thirteen heads (no melds) could take it. Every discard asks each other seat
        (``claim_options``); most are such tiles, and replaying a table at start-up is mostly
        this question (issue 12)."""
        if tile in concealed:
            return True
        if tile < 27:
            low = tile - tile % 9
            for near in (tile - 2, tile - 1, tile + 1, tile + 2):
                if low <= near < low + 9 and near in concealed:
                    return True
        return not melds and "thirteen-heads" in (self.rules.specials or ())

    def washable(self, seat: int) -> bool:
        """Pung Chow p.61: nine or more different heads in the original hand, no drawing."""
        if self.rules.name != LIMIT_GAME or not self.options.get("washing", True):
            return False
        st = self.seats[seat]
        if not st.original or st.discards:
            return False
        return different_heads(st.tiles()) >= 9

    def furiten_tiles(self, seat: int) -> frozenset[int]:
        st = self.seats[seat]
        if not st.discards or st.tile_count() != self.rules.hand_size:
            return frozenset()
        counts = counts_of(st.concealed)
        held = counts_of(st.tiles() + [t for m in st.melds for t in m.tiles])
        found = waits(counts, held=held, specials=bool(self.rules.specials) and not st.melds)
        if not found:
            return frozenset()
        return frozenset(found) & frozenset(st.discards)

    def furiten_uncovered(self, seat: int) -> bool:
        """In Furi Tem and not covered by an earlier declaration."""
        if not self.is_singapore:
            return False
        tiles = self.furiten_tiles(seat)
        return bool(tiles) and not tiles <= self.seats[seat].furiten

    def win_flags(
        self, seat: int, by: str, window: ClaimWindow | None, last_tile: bool
    ) -> frozenset[str]:
        st = self.seats[seat]
        flags: set[str] = set()
        if st.riichi:
            flags.add("riichi")
        if by in (SELF_DRAW, LOOSE_TILE):
            claimed = any(m.claimed is not None for m in st.melds)
            if not st.discards and not claimed:
                flags.add("original-hand")
            if last_tile:
                flags.add("last-tile")
        elif by == DISCARD and window is not None:
            if window.number == 1:
                flags.add("first-discard")
            if window.last:
                flags.add("last-discard")
            if any(isinstance(r, Kong) and r.seat != seat for r in window.responses):
                flags.add("robbing-kong")
            if self.is_singapore:
                tiles = self.furiten_tiles(seat)
                covered = tiles <= st.furiten and st.furiten_at < window.number
                if tiles and not covered:
                    flags.add("furiten-undeclared")
        return frozenset(flags)

    def make_win(
        self,
        seat: int,
        tile: int | None,
        by: str,
        discarder: int | None,
        window: ClaimWindow | None,
        last_tile: bool,
    ) -> Win:
        flags = self.win_flags(seat, by, window, last_tile)
        if by == BY_DEALT:
            return Win(None, BY_DEALT, None, flags)
        from_wind = None if discarder is None else self.wind_of(discarder)
        return Win(tile, by, from_wind, flags)

    def renchon_allows(self, seat: int, tiles: Sequence[int], win: Win) -> bool:
        """singapore Renchon: "after the first game, East must have at least one bonus to win"
        (docs/game.md: in every Renchon game)."""
        if not self.is_singapore or self.state.renchon < 1 or self.wind_of(seat) != 0:
            return True
        st = self.seats[seat]
        hand = Hand(tuple(sorted(tiles)), st.melds, st.flowers)
        situation = Situation(0, self.state.round_wind, {"renchon": self.state.renchon})
        score = self.rules.score(hand, situation, win, self.options)
        return renchon_bonus_ok(score)

    def self_win(self, seat: int) -> Win | None:
        """The Win if ``seat`` (in turn) may call Mah-Jongg on its own tiles."""
        st = self.seats[seat]
        if st.drawn is None:
            return None
        tiles = st.tiles()
        if not self.complete(tiles, st.melds):
            return None
        by = {"dealt": BY_DEALT, "loose": LOOSE_TILE}.get(st.source, SELF_DRAW)
        win = self.make_win(seat, st.drawn, by, None, None, self.last_tile)
        if not self.renchon_allows(seat, tiles, win):
            return None
        return win

    @property
    def last_tile(self) -> bool:
        return self.state.last_tile

    def kong_tiles(self, seat: int) -> list[int]:
        """Concealed kongs and drawn fourths to exposed pungs this seat may declare now
        (Pung Chow p.22-23: "never a claimed fourth")."""
        st = self.seats[seat]
        if st.riichi or not self.wall.can_draw:
            return []
        counts = counts_of(st.tiles())
        found = [t for t in range(34) if counts[t] == 4]
        for meld in st.melds:
            if meld.kind is Kind.PUNG and not meld.concealed and counts[meld.tile]:
                found.append(meld.tile)
        return sorted(found)

    def riichi_tiles(self, seat: int) -> list[int]:
        """Discards after which the seat is ready, for a Riichi declaration (singapore):
        a concealed hand (concealed kongs allowed), not yet declared, a tile still to draw."""
        if not self.is_singapore:
            return []
        st = self.seats[seat]
        if st.riichi or not self.wall.can_draw or any(not m.concealed for m in st.melds):
            return []
        tiles = st.tiles()
        counts = counts_of(tiles)
        specials = bool(self.rules.specials) and not st.melds
        needed = self.rules.sets_needed - len(st.melds)
        if shanten(counts, needed, self.rules.specials if specials else ()) > 0:
            return []  # no discard leaves the hand ready
        held = counts_of(tiles + [t for m in st.melds for t in m.tiles])
        out = []
        for tile in sorted(set(tiles)):
            counts[tile] -= 1
            if waits(counts, held=held, specials=specials):
                out.append(tile)
            counts[tile] += 1
        return out

    def turn_actions(self, seat: int) -> list[Action]:
        st = self.seats[seat]
        out: list[Action] = []
        if self.self_win(seat) is not None:
            out.append(MahJongg(seat))
        if seat == self.dealer and self.washable(seat):
            out.append(WashTiles(seat))
        out.extend(Kong(seat, t) for t in self.kong_tiles(seat))
        if st.riichi:
            assert st.drawn is not None
            out.append(Discard(seat, st.drawn))
        else:
            out.extend(Discard(seat, t) for t in sorted(set(st.tiles())))
            out.extend(Riichi(seat, t) for t in self.riichi_tiles(seat))
        return out

    def claim_options(
        self, seat: int, discarder: int, tile: int, number: int, last: bool
    ) -> tuple[Action, ...] | None:
        """What ``seat`` may do with the discard (None: it is not asked)."""
        st = self.seats[seat]
        out: list[Action] = []
        if self.washable(seat):
            out.append(WashTiles(seat))
        if self.may_complete(st.concealed, tile, st.melds) and self.complete(
            tiles := [*st.concealed, tile], st.melds
        ):
            window = ClaimWindow(discarder, tile, number, (), (None,) * 4, last)
            win = self.make_win(seat, tile, DISCARD, discarder, window, False)
            if self.renchon_allows(seat, tiles, win):
                out.append(MahJongg(seat))
        if not st.riichi:
            held = st.concealed.count(tile)
            if held == 3 and self.wall.can_draw:
                out.append(Kong(seat, tile))
            if held >= 2:
                out.append(Pung(seat))
            if tile < 27 and seat == self.next_seat(discarder):
                have = set(st.concealed)
                for start in (tile - 2, tile - 1, tile):
                    if start < 0 or start // 9 != tile // 9 or not chow_is_legal(start):
                        continue
                    if all(t == tile or t in have for t in (start, start + 1, start + 2)):
                        out.append(Chow(seat, start))
        return tuple(out) if out else None

    def next_seat(self, seat: int) -> int:
        occupied = self.state.occupied
        for step in range(1, 5):
            candidate = (seat + step) % 4
            if occupied[candidate]:
                return candidate
        return seat


class _Tx(_Ctx):
    """The changes one action makes, gathered before the next state is built."""

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        self.fields: dict[str, Any] = {}
        self._seats = list(state.seats)
        self._wall = state.wall
        self.events: list[Event] = []

    # -- mutable views of the state -------------------------------------------------------
    @property
    def seats(self) -> Sequence[SeatState]:
        return self._seats

    @property
    def wall(self) -> Wall:
        return self._wall

    @property
    def dealer(self) -> int:
        return self.get("dealer")

    @property
    def last_tile(self) -> bool:
        return self.get("last_tile")

    def get(self, name: str) -> Any:
        if name in self.fields:
            return self.fields[name]
        return getattr(self.state, name)

    def set(self, **changes: Any) -> None:
        self.fields.update(changes)

    def seat_update(self, seat: int, **changes: Any) -> None:
        self._seats[seat] = evolve(self._seats[seat], **changes)

    def event(
        self,
        kind: str,
        seat: int | None,
        tile: int | None = None,
        *,
        text: str = "",
        private: int | None = None,
    ) -> None:
        self.events.append(Event(kind, seat, tile, text, private))

    def snapshot(self) -> GameState:
        """The state as it stands inside the transaction (for scoring)."""
        return evolve(self.state, seats=tuple(self._seats), wall=self._wall, **self.fields)

    def finish(self, *, count_move: bool = True) -> GameState:
        move = self.state.move + (1 if count_move else 0)
        texts = [e.text for e in self.events if e.text]
        return evolve(
            self.state,
            seats=tuple(self._seats),
            wall=self._wall,
            move=move,
            events=tuple(self.events),
            last_text=texts[-1] if texts else self.state.last_text,
            **self.fields,
        )

    def name(self, seat: int) -> str:
        return WIND_NAMES[self.wind_of(seat)]

    # -- dealing ----------------------------------------------------------------------------
    def deal(self) -> None:
        """Build, break and deal the wall (Pung Chow p.13-16; filipino-16 "The Draw")."""
        config = self.state.config
        number = self.get("deal") + 1
        seed = hand_seed(config.seed, number)
        dealer = self.get("dealer")
        dice = rng(seed, "dice")
        east_throw = throw(dice)
        breaker = counted_seat(dealer, sum(east_throw))
        breaker_throw = throw(dice)
        count = sum(east_throw) + sum(breaker_throw)
        wall_break = WallBreak(
            east_throw, breaker, breaker_throw, count, not self.state.occupied[breaker]
        )
        refill = REFILL_PAIR if self.rules.name == "filipino-16" else REFILL_ONE
        dead = self.rules.dead_wall
        if number - 1 < len(config.rig):
            wall = from_sequence(config.rig[number - 1], dead=dead, refill=refill)
        else:
            tiles = full_set(bool(self.options.get("flowers", False)))
            rng(seed, "wall").shuffle(tiles)
            wall = build(tiles, breaker, count, dead=dead, refill=refill)
        order = [(dealer + i) % 4 for i in range(4) if self.state.occupied[(dealer + i) % 4]]
        hands: list[list[int]] = [[] for _ in range(4)]
        front = wall.front
        for index, n in deal_order(self.rules.hand_size, len(order)):
            hands[order[index]].extend(wall.tiles[front : front + n])
            front += n
        self._wall = evolve(wall, front=front)
        extra = hands[dealer].pop()
        self._seats = [
            SeatState(concealed=tuple(sorted(hands[s]))) if self.state.occupied[s] else _EMPTY_SEAT
            for s in range(4)
        ]
        self._seats[dealer] = evolve(self._seats[dealer], drawn=extra, source="dealt")
        self.set(
            deal=number,
            hand_seed=seed,
            seed_hash=seed_hash(seed),
            wall_break=wall_break,
            phase=PLAY,
            turn=dealer,
            claim=None,
            discards=0,
            last_discard=None,
            last_tile=False,
            result=None,
        )
        self.event(
            DEALT,
            None,
            text=f"hand {number}: {wall_break.describe(self.name(breaker))}",
        )
        # Flowers and seasons are declared before East's first discard, East first, each
        # replaced by a loose tile (filipino-16 "Mahjong With the Seasons").
        for seat in order:
            if not self.replace_bonus(seat):
                return

    def replace_bonus(self, seat: int) -> bool:
        """Expose every flower or season the seat holds and draw loose tiles for them (Pung
        Chow p.29). False if the hand ended because no loose tile could be drawn."""
        while True:
            st = self._seats[seat]
            # Most turns hold no bonus tile: tell that without building the hand's list.
            if (st.drawn is None or st.drawn < N_KINDS) and max(st.concealed, default=0) < N_KINDS:
                return True
            bonus = [t for t in st.tiles() if is_bonus(t)]
            if not bonus:
                return True
            for tile in bonus:
                st = self._seats[seat]
                if st.drawn == tile:
                    self.seat_update(seat, drawn=None, source="", flowers=(*st.flowers, tile))
                    into_drawn = True
                else:
                    concealed = list(st.concealed)
                    concealed.remove(tile)
                    self.seat_update(seat, concealed=tuple(concealed), flowers=(*st.flowers, tile))
                    into_drawn = False
                self.event(FLOWER, seat, tile, text=f"{self.name(seat)} exposes {tile_name(tile)}")
                if not self._wall.can_draw:
                    self.end_drawn("no loose tile could be drawn for a flower")
                    return False
                loose, self._wall = self._wall.draw_loose()
                st = self._seats[seat]
                if into_drawn:
                    self.seat_update(seat, drawn=loose, source="loose")
                else:
                    self.seat_update(seat, concealed=tuple(sorted((*st.concealed, loose))))
                self.set(last_tile=not self._wall.can_draw)
                self.event(LOOSE, seat, text=f"{self.name(seat)} draws a loose tile", private=loose)

    # -- turns ------------------------------------------------------------------------------
    def begin_turn(self, seat: int) -> None:
        """The next player draws (Pung Chow p.16) unless only the dead wall is left."""
        self.set(claim=None)
        if not self._wall.can_draw:
            self.end_drawn()
            return
        tile, self._wall = self._wall.draw()
        self.seat_update(seat, drawn=tile, source="wall", original=False)
        self.set(phase=PLAY, turn=seat, last_tile=not self._wall.can_draw)
        self.event(DREW, seat, text=f"{self.name(seat)} draws", private=tile)
        self.replace_bonus(seat)

    def draw_loose_for(self, seat: int) -> bool:
        """A loose tile after a kong (Pung Chow p.22); flowers drawn are replaced too."""
        tile, self._wall = self._wall.draw_loose()
        st = self._seats[seat]
        concealed = st.concealed
        if st.drawn is not None:
            concealed = tuple(sorted((*concealed, st.drawn)))
        self.seat_update(seat, concealed=concealed, drawn=tile, source="loose", original=False)
        self.set(last_tile=not self._wall.can_draw)
        self.event(LOOSE, seat, text=f"{self.name(seat)} draws a loose tile", private=tile)
        return self.replace_bonus(seat)

    def remove(self, seat: int, tiles: Sequence[int]) -> None:
        """Take tiles out of a seat's hand (the drawn tile joins the concealed first)."""
        st = self._seats[seat]
        hand = st.tiles()
        for tile in tiles:
            hand.remove(tile)
        self.seat_update(seat, concealed=tuple(sorted(hand)), drawn=None, source="")

    def discard(self, seat: int, tile: int, riichi: bool = False) -> None:
        st = self._seats[seat]
        if st.drawn == tile:
            concealed = st.concealed
        else:
            rest = list(st.concealed)
            rest.remove(tile)
            if st.drawn is not None:
                rest.append(st.drawn)
                rest.sort()
            concealed = tuple(rest)
        self.seat_update(
            seat,
            concealed=concealed,
            drawn=None,
            source="",
            discards=(*st.discards, tile),
            original=False,
            riichi=st.riichi or riichi,
        )
        number = self.get("discards") + 1
        self.set(discards=number, last_discard=(seat, tile))
        if riichi:
            self.event(RIICHI, seat, tile, text=f"{self.name(seat)} declares Riichi")
        self.event(DISCARDED, seat, tile, text=f"{self.name(seat)} discards {tile_name(tile)}")
        self.open_window(seat, tile, number)

    def open_window(self, discarder: int, tile: int, number: int) -> None:
        """Ask every seat that can claim the discard, and no other (Pung Chow p.18-21)."""
        last = not self._wall.can_draw
        options: list[tuple[Action, ...] | None] = [None] * 4
        for seat in range(4):
            if seat != discarder and self.state.occupied[seat]:
                options[seat] = self.claim_options(seat, discarder, tile, number, last)
        window = ClaimWindow(discarder, tile, number, tuple(options), (None,) * 4, last)
        self.set(phase=CLAIM, claim=window, turn=discarder)
        self.try_resolve()

    def try_resolve(self) -> None:
        window: ClaimWindow = self.get("claim")
        if claims.awaited(window.options, window.responses):
            return
        best = claims.best_claim(window.responses, window.discarder)
        if best is None:
            self.begin_turn(self.next_seat(window.discarder))
            return
        self.take(best, window)

    def mark_claimed(self, window: ClaimWindow) -> None:
        st = self._seats[window.discarder]
        self.seat_update(window.discarder, claimed=st.claimed | {len(st.discards) - 1})
        self.set(last_discard=None)

    def take(self, claim: Action, window: ClaimWindow) -> None:
        """The winning claim takes the discard."""
        seat = claim.seat
        assert seat is not None
        tile = window.tile
        who = self.name(seat)
        if isinstance(claim, WashTiles):
            self.wash(seat)
            return
        if isinstance(claim, MahJongg):
            win = self.make_win(seat, tile, DISCARD, window.discarder, window, False)
            self.mark_claimed(window)
            self.seat_update(seat, drawn=tile, source="discard")
            self.win(seat, win, window.discarder)
            return
        self.mark_claimed(window)
        self.set(claim=None, phase=PLAY, turn=seat)
        if isinstance(claim, Chow):
            others = [t for t in (claim.tile, claim.tile + 1, claim.tile + 2) if t != tile]
            self.remove(seat, others)
            meld = Meld(Kind.CHOW, claim.tile, False, tile, window.discarder)
            self.add_meld(seat, meld)
            self.event(CLAIMED, seat, tile, text=f"{who} chows {tile_name(tile)}")
            return
        if isinstance(claim, Pung):
            self.remove(seat, [tile, tile])
            self.add_meld(seat, Meld(Kind.PUNG, tile, False, tile, window.discarder))
            self.event(CLAIMED, seat, tile, text=f"{who} pungs {tile_name(tile)}")
            return
        assert isinstance(claim, Kong)
        self.remove(seat, [tile, tile, tile])
        self.add_meld(seat, Meld(Kind.KONG, tile, False, tile, window.discarder))
        self.event(CLAIMED, seat, tile, text=f"{who} kongs {tile_name(tile)}")
        self.after_kong(seat)

    def add_meld(self, seat: int, meld: Meld) -> None:
        st = self._seats[seat]
        self.seat_update(seat, melds=(*st.melds, meld), original=False)

    def after_kong(self, seat: int) -> None:
        """The singapore four-kong rule, then the loose tile (Pung Chow p.22)."""
        if self.is_singapore:
            owners = {s for s in range(4) for m in self._seats[s].melds if m.kind is Kind.KONG}
            total = sum(1 for s in range(4) for m in self._seats[s].melds if m.kind is Kind.KONG)
            if total >= 4 and len(owners) > 1:
                self.end_drawn("four kongs by more than one player", kind=FOUR_KONGS)
                return
        self.draw_loose_for(seat)

    # -- the end of a hand ------------------------------------------------------------------
    def win(self, seat: int, win: Win, discarder: int | None) -> None:
        riichi = [s for s in range(4) if self._seats[s].riichi]
        self.set(claim=None)
        result = scoring.win_on_hand(self.snapshot(), seat, win, discarder, riichi)
        how = "on a discard" if discarder is not None else "on own draw"
        self.event(WON, seat, win.tile, text=f"{self.name(seat)} wins {how}: Mah-Jongg")
        self.end_hand(result)

    def wash(self, seat: int) -> None:
        self.set(claim=None)
        result = scoring.washing(self.snapshot(), seat)
        self.event(WASHED, seat, text=f"{self.name(seat)} washes the tiles: no play")
        self.end_hand(result)

    def end_drawn(self, note: str = "the wall reached the dead wall", kind: str = "") -> None:
        self.set(claim=None)
        result = scoring.drawn_hand(self.snapshot(), note)
        if kind:
            result = evolve(result, kind=kind)
        self.event(DRAWN_HAND, None, text=f"drawn hand: {note}")
        self.end_hand(result)

    def false_mahjong(self, seat: int) -> None:
        self.set(claim=None)
        result = scoring.false_mahjong(self.snapshot(), seat)
        self.event(FALSE_MAHJONG, seat, text=f"{self.name(seat)} called Mah-Jongg falsely")
        self.end_hand(result)

    def end_hand(self, result: HandResult) -> None:
        net = tuple(a + b for a, b in zip(self.get("net"), result.net, strict=True))
        self.set(hands_played=rounds.played(self.get("hands_played"), result))
        box = rounds.advance(self.box(), result, self.state.occupied)
        over = rounds.is_over(box, self.state.config)
        if over:
            self.set(sets_done=box.sets_done)
        self.set(
            result=result,
            results=(*self.get("results"), result),
            net=net,
            phase=GAME_OVER if over else HAND_OVER,
            claim=None,
        )
        self.event(ev.HAND_OVER, None, text=f"hand {result.number} is over ({result.kind})")
        if over:
            self.event(ev.GAME_OVER, None, text="the game is over")

    def box(self) -> rounds.Box:
        return rounds.Box(
            self.get("dealer"),
            self.get("round_wind"),
            self.get("sets_done"),
            self.get("hands_played"),
            self.get("renchon"),
        )


# -- handlers ---------------------------------------------------------------------------------


def _in_play(tx: _Tx, seat: int | None) -> int:
    if tx.state.phase in (HAND_OVER, GAME_OVER):
        raise IllegalAction("the hand is over")
    if seat is None or not 0 <= seat < 4 or not tx.state.occupied[seat]:
        raise IllegalAction("that seat is not playing at this table")
    return seat


def _my_turn(tx: _Tx, seat: int | None) -> int:
    seat = _in_play(tx, seat)
    if tx.state.phase == CLAIM:
        raise IllegalAction("a discard is waiting for claims: claim it or pass")
    if seat != tx.state.turn:
        raise IllegalAction(f"it is {tx.name(tx.state.turn)}'s turn, not yours")
    return seat


def _do_discard(tx: _Tx, action: Discard) -> None:
    seat = _my_turn(tx, action.seat)
    st = tx.seats[seat]
    if action.tile not in st.tiles():
        raise IllegalAction(f"you do not hold {tile_name(action.tile)}")
    if st.riichi and action.tile != st.drawn:
        raise IllegalAction("after declaring Riichi you discard the tile you drew")
    tx.discard(seat, action.tile)


def _do_riichi(tx: _Tx, action: Riichi) -> None:
    seat = _my_turn(tx, action.seat)
    if not tx.is_singapore:
        raise IllegalAction("Riichi is declared only in the singapore rules")
    st = tx.seats[seat]
    if st.riichi:
        raise IllegalAction("you have already declared Riichi")
    if action.tile not in st.tiles():
        raise IllegalAction(f"you do not hold {tile_name(action.tile)}")
    if action.tile not in tx.riichi_tiles(seat):
        raise IllegalAction(
            "Riichi needs a concealed hand that is ready to win after this discard, "
            "with tiles still to draw"
        )
    tx.discard(seat, action.tile, riichi=True)


def _respond(tx: _Tx, action: Action) -> bool:
    """Record a claim-window answer; False if the seat has no such claim."""
    seat = action.seat
    window: ClaimWindow = tx.state.claim  # type: ignore[assignment]
    choices = window.options[seat] if seat is not None else None
    if choices is None:
        return False
    if window.responses[seat] is not None:
        raise IllegalAction("you have already answered this discard")
    if not isinstance(action, Pass) and action not in choices:
        return False
    responses = list(window.responses)
    responses[seat] = action
    tx.set(claim=evolve(window, responses=tuple(responses)))
    if isinstance(action, Pass):
        tx.event(PASSED, seat)  # no public words: that a seat was asked tells about its hand
    tx.try_resolve()
    return True


def _claim_phase(tx: _Tx, seat: int | None, what: str) -> int:
    seat = _in_play(tx, seat)
    if tx.state.phase != CLAIM:
        raise IllegalAction(f"there is no discard to {what}: only the latest discard may be taken")
    window = tx.state.claim
    assert window is not None
    if seat == window.discarder:
        raise IllegalAction("you cannot claim your own discard")
    return seat


def _do_pass(tx: _Tx, action: Pass) -> None:
    _claim_phase(tx, action.seat, "pass on")
    if not _respond(tx, action):
        raise IllegalAction("you are not asked about this discard")


def _do_chow(tx: _Tx, action: Chow) -> None:
    seat = _claim_phase(tx, action.seat, "chow")
    window = tx.state.claim
    assert window is not None
    if seat != tx.next_seat(window.discarder):
        raise IllegalAction(
            "you may chow only the discard of the player on your left, in your turn "
            "(Pung Chow p.18)"
        )
    if tx.seats[seat].riichi:
        raise IllegalAction("after declaring Riichi you may only claim a discard to win")
    if not _respond(tx, action):
        raise IllegalAction(
            f"you need the other two tiles of {tile_name(action.tile)} to "
            f"{tile_name(action.tile + 2)} in hand to chow {tile_name(window.tile)}"
        )


def _do_pung(tx: _Tx, action: Pung) -> None:
    _claim_phase(tx, action.seat, "pung")
    window = tx.state.claim
    assert window is not None
    if not _respond(tx, action):
        raise IllegalAction(
            f"you need a pair of {tile_name(window.tile)} in hand to pung it (Pung Chow p.19)"
        )


def _do_kong(tx: _Tx, action: Kong) -> None:
    seat = _in_play(tx, action.seat)
    if tx.state.phase == CLAIM:
        _claim_phase(tx, seat, "kong")
        window = tx.state.claim
        assert window is not None
        if action.tile != window.tile:
            raise IllegalAction("a kong in a claim window takes the latest discard")
        if not _respond(tx, action):
            raise IllegalAction(
                f"you need three {tile_name(window.tile)} in hand to kong it, and a loose tile "
                "to draw; a claimed fourth is never added to an exposed pung (Pung Chow p.23)"
            )
        return
    _my_turn(tx, seat)
    if action.tile not in tx.kong_tiles(seat):
        if not tx.wall.can_draw:
            raise IllegalAction("no loose tile may be drawn now: the dead wall is reached")
        raise IllegalAction(
            f"you need four {tile_name(action.tile)} in hand, or an exposed pung of it and the "
            "fourth in hand (Pung Chow p.22-23)"
        )
    st = tx.seats[seat]
    pung = next((m for m in st.melds if m.kind is Kind.PUNG and m.tile == action.tile), None)
    if pung is not None:
        tx.remove(seat, [action.tile])
        st = tx.seats[seat]
        melds = tuple(
            Meld(Kind.KONG, m.tile, False, m.claimed, m.from_seat, added=True) if m is pung else m
            for m in st.melds
        )
        tx.seat_update(seat, melds=melds, original=False)
        text = f"{tx.name(seat)} adds the fourth {tile_name(action.tile)} to the pung"
    else:
        tx.remove(seat, [action.tile] * 4)
        tx.add_meld(seat, Meld(Kind.KONG, action.tile, True))
        text = f"{tx.name(seat)} declares a concealed kong of {tile_name(action.tile)}"
    tx.event(KONG, seat, action.tile, text=text)
    tx.after_kong(seat)


def _do_mahjongg(tx: _Tx, action: MahJongg) -> None:
    seat = _in_play(tx, action.seat)
    strict = tx.state.config.strict
    if tx.state.phase == CLAIM:
        window = tx.state.claim
        assert window is not None
        if seat == window.discarder:
            raise IllegalAction("you cannot win on your own discard")
        choices = window.options[seat]
        if choices is not None and action in choices:
            _respond(tx, action)
            return
        if choices is not None and window.responses[seat] is not None:
            raise IllegalAction("you have already answered this discard")
        reason = _incomplete_reason(tx, seat, window.tile)
        if strict:
            tx.false_mahjong(seat)
            return
        raise IllegalAction(reason)
    _my_turn(tx, seat)
    win = tx.self_win(seat)
    if win is None:
        st = tx.seats[seat]
        if st.drawn is None:
            raise IllegalAction("after a claim you must discard: Mah-Jongg comes with a tile")
        reason = _incomplete_reason(tx, seat, None)
        if strict:
            tx.false_mahjong(seat)
            return
        raise IllegalAction(reason)
    tx.win(seat, win, None)


def _incomplete_reason(tx: _Tx, seat: int, tile: int | None) -> str:
    st = tx.seats[seat]
    tiles = st.tiles() + ([tile] if tile is not None else [])
    if tx.complete(tiles, st.melds):
        if tx.is_singapore and tx.state.renchon >= 1 and tx.wind_of(seat) == 0:
            return "in a Renchon game East must have at least one bonus to win (singapore)"
        return "you may not claim this tile now"
    need = tx.rules.sets_needed
    return (
        f"your hand is not complete: it does not make {need} sets and a pair with this tile"
        if tile is not None
        else f"your hand is not complete: it does not make {need} sets and a pair"
    )


def _do_wash(tx: _Tx, action: WashTiles) -> None:
    seat = _in_play(tx, action.seat)
    if tx.state.phase == CLAIM:
        window = tx.state.claim
        assert window is not None
        if seat != window.discarder and _respond(tx, action):
            return
    elif seat == tx.state.turn and tx.washable(seat):
        tx.wash(seat)
        return
    raise IllegalAction(
        "washing the tiles needs nine or more different heads in the original hand, before "
        "drawing (Pung Chow p.61, pung-chow-limit)"
    )


def _do_furiten(tx: _Tx, action: DeclareFuriten) -> None:
    seat = _in_play(tx, action.seat)
    if not tx.is_singapore:
        raise IllegalAction("Furi Tem is declared only in the singapore rules")
    tiles = tx.furiten_tiles(seat)
    if not tiles:
        raise IllegalAction("you are not in Furi Tem: none of your waits is among your discards")
    if tiles <= tx.seats[seat].furiten:
        raise IllegalAction("you have already declared Furi Tem")
    tx.seat_update(seat, furiten=tiles, furiten_at=tx.get("discards"))
    names = ", ".join(tile_name(t) for t in sorted(tiles))
    tx.event(FURITEN, seat, text=f"{tx.name(seat)} declares Furi Tem ({names})")


def _do_next(tx: _Tx, action: NextHand) -> None:
    if tx.state.phase == GAME_OVER:
        raise IllegalAction("the game is over")
    if tx.state.phase != HAND_OVER:
        raise IllegalAction("the hand is still being played")
    result = tx.state.result
    assert result is not None
    box = rounds.advance(tx.box(), result, tx.state.occupied)
    tx.set(
        dealer=box.dealer,
        round_wind=box.round_wind,
        sets_done=box.sets_done,
        hands_played=box.hands_played,
        renchon=box.renchon,
    )
    tx.deal()


_HANDLERS: dict[type, Any] = {
    Discard: _do_discard,
    Riichi: _do_riichi,
    Chow: _do_chow,
    Pung: _do_pung,
    Kong: _do_kong,
    MahJongg: _do_mahjongg,
    Pass: _do_pass,
    WashTiles: _do_wash,
    DeclareFuriten: _do_furiten,
    NextHand: _do_next,
}
_ACTION_CLASSES = tuple(_HANDLERS)
