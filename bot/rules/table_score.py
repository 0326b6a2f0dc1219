"""Scoring a whole table from given hands or given scores: who scores what, who pays whom.

This is what ``mahjong-score``, ``/score`` and ``/settle`` share: people playing with real
tiles describe the hands (or just the scores) and the winner; the rule set does the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.rules.hand import DEALT, DISCARD, WIN_FLAGS, WIN_METHODS, Hand, Situation, Win
from bot.rules.house_rules import changed_by_house_rules
from bot.rules.melds import KIND_BY_NAME, meld_from_tiles
from bot.rules.rulesets import HandError, Outcome, get_ruleset
from bot.rules.rulesets.pung_chow_limit import PungChowLimit, discarder_is_liable
from bot.rules.rulesets.singapore import Singapore, renchon_bonus_ok
from bot.rules.score import Payment, Score, net_of
from bot.rules.tiles import NotationError, is_bonus, parse_tiles, tile_from_compact

SEAT_LETTERS = "ESWN"
MAX_RENCHON = 9  # singapore: the ninth Renchon game won by East is a maximum hand
MAX_GIVEN_SCORE = 10**9
MAX_TEXT = 300  # characters of one hand or meld written in the JSON form


class RequestError(ValueError):
    """A scoring request that cannot be understood; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class SeatHand:
    seat: int
    hand: Hand
    dead: bool = False


@dataclass(frozen=True, slots=True)
class TableRequest:
    """A table to score: hands (``players``) and the win, or bare ``scores`` and ``winner``."""

    ruleset: str
    options: Mapping[str, Any] = field(default_factory=dict)
    round_wind: int = 0
    players: tuple[SeatHand, ...] = ()
    win_seat: int | None = None
    win: Win | None = None
    scores: Mapping[int, int] | None = None
    winner: int | None = None
    seats: tuple[int, ...] = (0, 1, 2, 3)
    false_mahjong: int | None = None
    riichi: frozenset[int] = frozenset()
    renchon: int = 0


@dataclass(frozen=True, slots=True)
class TableResult:
    scores: dict[int, Score]
    values: dict[int, int]
    payments: list[Payment]
    net: dict[int, int]
    liable: int | None = None
    # House rules (name=value) that changed a score or a payment (bot/rules/house_rules.py).
    house_rules: tuple[str, ...] = ()


def seat_of(text: Any, what: str = "seat") -> int:
    """A seat wind from ``E``/``S``/``W``/``N`` (or the full name)."""
    if isinstance(text, str):
        key = text.strip().upper()[:1]
        if (
            key
            and key in SEAT_LETTERS
            and text.strip().lower()
            in (
                key.lower(),
                ("east", "south", "west", "north")[SEAT_LETTERS.index(key)],
            )
        ):
            return SEAT_LETTERS.index(key)
    raise RequestError(f"{what} must be one of E, S, W, N, not {text!r}")


def check_request(request: TableRequest) -> None:
    """Refuse a table that could not have been played, before anything is scored (issue 16:
    each of these used to be accepted and paid wrongly): seats repeated or without East, a
    Renchon count out of range, a discard win that does not say who discarded (the
    discarder would escape paying), a win on the dealt hand by anyone but East, and a winner
    together with a false Mah-Jongg (the false call would silently drop the win)."""
    seats = request.seats
    if len(set(seats)) != len(seats):
        raise RequestError("a seat is listed twice in 'seats'")
    if not 2 <= len(seats) <= 4:
        raise RequestError("a table has two to four seats")
    if 0 not in seats:
        raise RequestError("every table has an East (the dealer): list E among the seats")
    renchon = request.renchon
    if isinstance(renchon, bool) or not isinstance(renchon, int):
        raise RequestError("renchon must be a whole number")
    if not 0 <= renchon <= MAX_RENCHON:
        raise RequestError(
            f"renchon counts East's wins in a row before this hand: 0 to {MAX_RENCHON}"
        )
    for seat in request.riichi:
        if seat not in seats:
            raise RequestError(f"riichi: seat {SEAT_LETTERS[seat]} is not at this table")
    won = request.winner is not None or request.win is not None
    if request.false_mahjong is not None:
        if request.false_mahjong not in seats:
            raise RequestError("false_mahjong: that seat is not at this table")
        if won:
            raise RequestError(
                "a hand ends with a Mah-Jongg or with a false Mah-Jongg, not both: give "
                "either the winner or false_mahjong"
            )
    win = request.win
    if win is None:
        return
    if win.by == DISCARD:
        if win.from_seat is None:
            raise RequestError(
                "a win on a discard must say who discarded it ('from <wind>'): the discarder "
                "pays differently"
            )
        if win.from_seat not in seats:
            raise RequestError(f"seat {SEAT_LETTERS[win.from_seat]} is not at this table")
        if win.from_seat == request.win_seat:
            raise RequestError("a player cannot win on his own discard")
    elif win.from_seat is not None:
        raise RequestError(f"'from' names a discarder, but the hand was won by {win.by}")
    if win.by == DEALT and request.win_seat != 0:
        raise RequestError("only East wins on the hand as dealt (East alone is dealt 14 tiles)")


def score_table(request: TableRequest) -> TableResult:
    """Score every described hand and settle the table, naming the house rules that changed
    the outcome (each scored again at the text's reading). Raises RequestError/HandError."""
    ruleset = get_ruleset(request.ruleset)
    options = ruleset.options(request.options)
    result = _score_table(request, options)

    def outcome_of(opts: Mapping[str, Any]) -> tuple[dict[int, int], list[Payment]]:
        other = _score_table(request, opts)
        return other.values, other.payments

    house = changed_by_house_rules(
        ruleset.option_specs, options, outcome_of, (result.values, result.payments)
    )
    return replace(result, house_rules=house) if house else result


def _score_table(request: TableRequest, options: Mapping[str, Any]) -> TableResult:
    check_request(request)
    ruleset = get_ruleset(request.ruleset)
    seats = set(request.seats)
    for player in request.players:
        if player.seat not in seats:
            raise RequestError(f"seat {SEAT_LETTERS[player.seat]} is not at this table")
    if len({p.seat for p in request.players}) != len(request.players):
        raise RequestError("a seat is listed twice")
    scores: dict[int, Score] = {}
    values: dict[int, int] = dict.fromkeys(sorted(seats), 0)
    winner = request.winner
    liable: int | None = None
    if request.scores is not None:
        for seat, value in request.scores.items():
            if seat not in seats:
                raise RequestError(f"seat {SEAT_LETTERS[seat]} is not at this table")
            if not 0 <= value <= MAX_GIVEN_SCORE:
                raise RequestError(f"a score is between 0 and {MAX_GIVEN_SCORE}")
            values[seat] = value
        if winner is not None and winner not in seats:
            raise RequestError("the winner must be one of the seats")
    else:
        winner = request.win_seat if request.win is not None else None
        if winner is not None and winner not in {p.seat for p in request.players}:
            raise RequestError("the winner's hand must be listed among the players")
        by_seat = {p.seat: p for p in request.players}
        _check_tiles_across_table(request.players)
        for player in request.players:
            # singapore Renchon: East's count of consecutive wins (the ninth is a maximum hand).
            renchon = isinstance(ruleset, Singapore) and player.seat == 0 and request.renchon
            extras = {"renchon": request.renchon} if renchon else {}
            situation = Situation(player.seat, request.round_wind, extras)
            if player.dead:
                scores[player.seat] = Score((), 0, dead=True)
                continue
            win = request.win if player.seat == winner else None
            if win is None and not ruleset.losers_score:
                scores[player.seat] = Score((), 0)
                continue
            scores[player.seat] = ruleset.score(player.hand, situation, win, options)
            values[player.seat] = scores[player.seat].total
            if win is not None and extras and not renchon_bonus_ok(scores[player.seat]):
                raise HandError(
                    "in a Renchon game East must have at least one bonus to win "
                    '(singapore: "after the first game, East must have at least one bonus")'
                )
        win = request.win
        if (
            winner is not None
            and win is not None
            and win.by == DISCARD
            and win.from_seat is not None
            and isinstance(ruleset, PungChowLimit)
        ):
            discarder = by_seat.get(win.from_seat)
            if discarder_is_liable(
                by_seat[winner].hand,
                win,
                None if discarder is None else discarder.hand,
                None if discarder is None else Situation(win.from_seat, request.round_wind),
            ):
                liable = win.from_seat
    dead = frozenset(p.seat for p in request.players if p.dead)
    discarder = None
    if request.win is not None and request.win.by == DISCARD:
        discarder = request.win.from_seat
    outcome = Outcome(
        scores=values,
        winner=winner,
        discarder=discarder,
        dead=dead,
        liable=liable,
        false_mahjong=request.false_mahjong,
        riichi=request.riichi,
        renchon=request.renchon,
        extras={
            "furiten": bool(request.win and "furiten-undeclared" in request.win.flags),
        },
    )
    payments = ruleset.settle(outcome, options)
    net_list = net_of(payments)
    net = {seat: net_list[seat] for seat in sorted(seats)}
    return TableResult(scores, values, payments, net, liable)


def _check_tiles_across_table(players: Sequence[SeatHand]) -> None:
    """No tile may appear more than four times across all the described hands."""
    totals = [0] * 34
    bonus: set[int] = set()
    for player in players:
        for tile in player.hand.all_tiles():
            totals[tile] += 1
        for tile in player.hand.flowers:
            if tile in bonus:
                raise HandError("the same flower or season is listed in two hands")
            bonus.add(tile)
    for tile, n in enumerate(totals):
        if n > 4:
            from bot.rules.tiles import tile_name

            raise HandError(f"{n} copies of {tile_name(tile)} across the table: a set has four")


# -- the JSON interchange form (mahjong-score --json) -----------------------------------------


def request_from_json(doc: Any) -> TableRequest:
    """Read the JSON document described in the README; raise RequestError on any fault
    (every field's type is checked: a wrong one is named, never a traceback)."""
    if not isinstance(doc, dict):
        raise RequestError("expected a JSON object")
    ruleset = doc.get("ruleset")
    if not isinstance(ruleset, str):
        raise RequestError(
            "'ruleset' is required: pung-chow, pung-chow-limit, filipino-16 or singapore"
        )
    options = doc.get("options") or {}
    if not isinstance(options, dict):
        raise RequestError("'options' must be an object")
    round_wind = seat_of(doc.get("round", "E"), "round")
    seats = (0, 1, 2, 3)
    if "seats" in doc:
        seats = tuple(seat_of(s, "seats") for s in _list(doc["seats"], "seats"))
    extras: dict[str, Any] = {}
    if doc.get("false_mahjong") is not None:
        extras["false_mahjong"] = seat_of(doc["false_mahjong"], "false_mahjong")
    if doc.get("riichi") is not None:
        extras["riichi"] = frozenset(seat_of(s, "riichi") for s in _list(doc["riichi"], "riichi"))
    if doc.get("renchon") is not None:
        extras["renchon"] = _int(doc["renchon"], "renchon")
    if "scores" in doc:
        raw = doc["scores"]
        if not isinstance(raw, dict):
            raise RequestError("'scores' must map seats to scores, e.g. {\"E\": 480}")
        scores = {seat_of(k): _int(v, f"score of {k}") for k, v in raw.items()}
        winner = doc.get("winner")
        return TableRequest(
            ruleset,
            options,
            round_wind,
            scores=scores,
            winner=None if winner is None else seat_of(winner, "winner"),
            seats=seats,
            **extras,
        )
    if doc.get("winner") is not None:
        raise RequestError("'winner' goes with 'scores'; with 'players' say who won in 'win'")
    players_doc = doc.get("players")
    if not isinstance(players_doc, list) or not players_doc:
        raise RequestError("give 'players' (the hands) or 'scores' with 'winner'")
    players = tuple(_player_from_json(p) for p in players_doc)
    win_doc = doc.get("win")
    win_seat: int | None = None
    win: Win | None = None
    if win_doc is not None:
        if not isinstance(win_doc, dict):
            raise RequestError("'win' must be an object or null")
        win_seat = seat_of(win_doc.get("seat"), "win.seat")
        if win_seat not in {p.seat for p in players}:
            raise RequestError("the winner's hand must be listed among the players")
        by = win_doc.get("by", "self-draw")
        if not isinstance(by, str) or by not in WIN_METHODS:
            raise RequestError(f"win.by must be one of {', '.join(WIN_METHODS)}")
        flags = _list(win_doc.get("flags") or [], "win.flags")
        unknown = [f for f in flags if not isinstance(f, str) or f not in WIN_FLAGS]
        if unknown:
            raise RequestError(f"unknown flag {unknown[0]!r} (known: {', '.join(WIN_FLAGS)})")
        tile_text = win_doc.get("tile")
        tile = None
        if tile_text is not None:
            try:
                tile = tile_from_compact(_text(tile_text, "win.tile"))
            except NotationError as exc:
                raise RequestError(f"win.tile: {exc}") from None
        elif by != DEALT:
            raise RequestError("win.tile is required unless the hand was dealt complete")
        from_seat = win_doc.get("from")
        win = Win(
            tile,
            by,
            None if from_seat is None else seat_of(from_seat, "win.from"),
            frozenset(flags),
        )
        if win.by == DISCARD and win.from_seat == win_seat:
            raise RequestError("a player cannot win on his own discard")
        if tile is None:
            hand = next(p.hand for p in players if p.seat == win_seat)
            win = Win(hand.concealed[-1] if hand.concealed else None, by, None, win.flags)
    return TableRequest(ruleset, options, round_wind, players, win_seat, win, seats=seats, **extras)


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{what} must be a whole number")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise RequestError(f'\'{what}\' must be a list, e.g. ["E", "S"]')
    if len(value) > 32:
        raise RequestError(f"'{what}' is too long")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise RequestError(f"'{what}' must be a string of tiles, e.g. \"123m55p\"")
    if len(value) > MAX_TEXT:
        raise RequestError(f"'{what}' is too long (at most {MAX_TEXT} characters)")
    return value


def _player_from_json(doc: Any) -> SeatHand:
    if not isinstance(doc, dict):
        raise RequestError("each player must be an object with 'seat' and 'concealed'")
    seat = seat_of(doc.get("seat"), "player seat")
    where = f"player {SEAT_LETTERS[seat]}"
    dead = doc.get("dead", False)
    if not isinstance(dead, bool):
        raise RequestError(f"{where}: 'dead' is true or false")
    try:
        concealed = parse_tiles(_text(doc.get("concealed", ""), f"{where}: concealed"))
        flowers = parse_tiles(_text(doc.get("flowers", ""), f"{where}: flowers"))
        melds = []
        for meld in _list(doc.get("melds") or [], f"{where}: melds"):
            if not isinstance(meld, dict) or "tiles" not in meld:
                raise RequestError(f"{where}: each meld needs 'tiles' (and 'kind')")
            kind = meld.get("kind")
            if kind is not None and (not isinstance(kind, str) or kind not in KIND_BY_NAME):
                raise RequestError(f"{where}: meld kind must be chow, pung or kong")
            concealed_meld = meld.get("concealed", False)
            if not isinstance(concealed_meld, bool):
                raise RequestError(f"{where}: a meld's 'concealed' is true or false")
            melds.append(
                meld_from_tiles(
                    parse_tiles(_text(meld["tiles"], f"{where}: meld tiles")),
                    concealed=concealed_meld,
                    kind_name=kind,
                )
            )
    except NotationError as exc:
        raise RequestError(f"{where}: {exc}") from None
    if any(is_bonus(t) for t in concealed):
        raise RequestError(f"{where}: flowers and seasons go in 'flowers', not 'concealed'")
    if any(not is_bonus(t) for t in flowers):
        raise RequestError(f"{where}: 'flowers' holds only 1f-8f")
    return SeatHand(seat, Hand(tuple(concealed), tuple(melds), tuple(flowers)), dead)


def result_to_json(result: TableResult) -> dict[str, Any]:
    players = []
    for seat, sc in sorted(result.scores.items()):
        players.append(
            {
                "seat": SEAT_LETTERS[seat],
                "score": sc.total,
                "limit_hand": sc.limit_hand,
                "dead": sc.dead,
                "lines": [
                    {
                        "name": line.name,
                        "points": line.points,
                        "doubles": line.doubles,
                        "source": line.source,
                    }
                    for line in sc.lines
                ],
                "arrangement": list(sc.arrangement),
            }
        )
    if not players:
        players = [{"seat": SEAT_LETTERS[s], "score": v} for s, v in sorted(result.values.items())]
    doc: dict[str, Any] = {
        "players": players,
        "payments": [
            {
                "from": SEAT_LETTERS[p.payer],
                "to": SEAT_LETTERS[p.payee],
                "amount": p.amount,
                "reason": p.reason,
            }
            for p in result.payments
        ],
        "net": {SEAT_LETTERS[s]: n for s, n in result.net.items()},
    }
    if result.liable is not None:
        doc["liable"] = SEAT_LETTERS[result.liable]
    return doc
