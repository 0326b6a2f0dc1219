"""ScoringService: ``/score`` (the itemised score of a hand played with real tiles), ``/rules``
(the rule texts in short) and ``/settle`` (recording a game played with real tiles).

Scoring goes through the rules engine's one entry point for whole tables, ``score_table``,
exactly as ``mahjong-score`` does: for ``/score`` the other seats hold hands scoring nothing, so
the payments shown are what the hand alone collects. A ``/settle`` computes the payments the
same way, from the players' scores or their hands, and keeps them *pending* until every player
but the proposer has confirmed, whatever the scores (see :meth:`LedgerService.confirm`): no
one can be made to pay, or be recorded as losing, by another. Unconfirmed, it expires.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.i18n import N_, _
from bot.rules.hand import Hand, Win
from bot.rules.notation import format_hand, parse_hand
from bot.rules.options import OptionError
from bot.rules.rulesets import HandError, get_ruleset
from bot.rules.score import Payment, Score
from bot.rules.table_score import RequestError, SeatHand, TableRequest, score_table, seat_of
from bot.rules.tiles import NotationError, short_name
from bot.service.ledger import (
    LedgerError,
    LedgerService,
    Party,
    Settlement,
    expires_at,
    status_of,
)
from bot.service.rules_topics import TOPICS, Topic, find_topic, in_language

WINDS = ("East", "South", "West", "North")
MAX_HAND_TEXT = 300
MAX_SCORE = 10_000_000
_NUMBER = re.compile(r"^\s*\+?(\d{1,9})\s*$")


class ScoringError(ValueError):
    """Input that cannot be scored or settled; the message tells the user what to fix."""


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """A hand scored for ``/score``: the itemised score, and what the seat collects (or pays)
    with the other hands scoring nothing. Seats are winds (0 East)."""

    ruleset: str
    title: str
    seat: int
    round_wind: int
    hand: Hand
    win: Win | None
    score: Score
    payments: tuple[Payment, ...]
    net: dict[int, int]
    options: Mapping[str, Any]
    limit: int | None
    text: str  # the hand in the compact notation
    house_rules: tuple[str, ...] = ()  # house rules (name=value) that changed the score

    @property
    def winner(self) -> bool:
        return self.win is not None


@dataclass(frozen=True, slots=True)
class SettlePlayer:
    """A player of a ``/settle``: a member, the wind they sat at, and their score (an int, or
    text holding a number or a hand; None: nothing scored)."""

    user_id: int
    seat: int | str
    result: int | str | None = None
    name: str = ""


@dataclass(frozen=True, slots=True)
class Proposal:
    """A ``/settle`` checked and scored, not yet stored."""

    guild_id: int
    payments: tuple[tuple[int, int, int], ...]
    source_key: str
    ruleset: str
    description: str
    created_by: int
    parties: tuple[Party, ...]
    results: tuple[tuple[int, bool, int, int], ...]
    details: dict[str, Any]
    channel_id: int | None = None


@dataclass(frozen=True, slots=True)
class _Scored:
    values: dict[int, int]
    scores: dict[int, Score] = field(default_factory=dict)
    payments: tuple[Payment, ...] = ()
    winner: int | None = None


class ScoringService:
    def __init__(self, ledger: LedgerService) -> None:
        self.ledger = ledger

    # -- /score ------------------------------------------------------------------------------
    async def score(
        self,
        hand_text: str,
        *,
        guild_id: int | None = None,
        rules: str | None = None,
        seat: int | str = 0,
        round_wind: int | str = 0,
        win: str | None = None,
        options: Mapping[str, Any] | None = None,
        renchon: int = 0,
    ) -> ScoreResult:
        """Score one hand (the friendly notation; ``win`` may give the winning part apart).
        Raises ScoringError with the reason: a bad token, an impossible hand, an unknown rule
        set or option."""
        ruleset, chosen = await self._rules(guild_id, rules, options)
        seat_no = _wind(seat, "seat")
        round_no = _wind(round_wind, "round")
        text = f"{hand_text} {win}" if win else hand_text
        parsed = _parse(text)
        if parsed.win is None:
            _check_not_a_win(get_ruleset(ruleset), parsed.hand)
        chosen = _with_flowers(chosen, [parsed.hand], options)
        if parsed.win is not None and parsed.win.from_seat == seat_no:
            raise ScoringError(
                f"you sit {WINDS[seat_no]}: 'from {'ESWN'[seat_no]}' would be your own discard"
            )
        request = TableRequest(
            ruleset,
            chosen,
            round_no,
            (SeatHand(seat_no, parsed.hand),),
            seat_no if parsed.win is not None else None,
            parsed.win,
            renchon=renchon,
        )
        result = _run(request)
        rules_obj = get_ruleset(ruleset)
        resolved = rules_obj.options(chosen)
        return ScoreResult(
            ruleset=ruleset,
            title=rules_obj.title,
            seat=seat_no,
            round_wind=round_no,
            hand=parsed.hand,
            win=parsed.win,
            score=result.scores[seat_no],
            payments=tuple(result.payments),
            net=dict(result.net),
            options=resolved,
            limit=rules_obj.limit_of(resolved),
            text=format_hand(parsed.hand, parsed.win),
            house_rules=result.house_rules,
        )

    async def _rules(
        self, guild_id: int | None, rules: str | None, options: Mapping[str, Any] | None
    ) -> tuple[str, dict[str, Any]]:
        """The rule set (given, or the server's) and the options: the server's own when its
        rule set is used, then those given."""
        chosen: dict[str, Any] = {}
        name = rules
        if guild_id is not None:
            settings = await self.ledger.guild_settings.get(guild_id)
            default = getattr(settings, "ruleset", "pung-chow")
            if name is None or name == default:
                name = default
                chosen.update(getattr(settings, "options", {}) or {})
        name = name or "pung-chow"
        try:
            ruleset = get_ruleset(name)
            chosen.update(options or {})
            ruleset.options(chosen)
        except (HandError, OptionError) as exc:
            raise ScoringError(str(exc)) from None
        return ruleset.name, chosen

    # -- /rules ------------------------------------------------------------------------------
    def rules_text(self, topic: str | None = None, locale: str = "en-US") -> Topic:
        """The summary for ``topic`` (a key such as ``washing``, an alias, or the start of
        one); the list of topics when ``topic`` is empty. Raises ScoringError if unknown.
        In ``locale`` (the topics' words are catalogue messages)."""
        if not topic or not topic.strip():
            lines = [f"`{t.key}`: {in_language(t, locale).summary}" for t in TOPICS.values()]
            return Topic(
                "topics",
                _(locale, "Rules: topics"),
                _(locale, "the topics"),
                _(locale, "Ask `/rules topic:<name>` for one of these:") + "\n" + "\n".join(lines),
            )
        found = find_topic(topic)
        if found is None:
            known = ", ".join(TOPICS)
            raise ScoringError(f"no rules topic '{topic.strip()[:40]}' (topics: {known})")
        return in_language(found, locale)

    @staticmethod
    def topics() -> list[Topic]:
        return list(TOPICS.values())

    # -- /settle -----------------------------------------------------------------------------
    async def propose_settlement(self, *args: Any, **kwargs: Any) -> Settlement:
        """Score a game played with real tiles and store it as a pending settlement:
        :meth:`prepare_settlement` (same arguments), then :meth:`store_settlement`."""
        return await self.store_settlement(await self.prepare_settlement(*args, **kwargs))

    async def prepare_settlement(
        self,
        guild_id: int,
        channel_id: int | None,
        created_by: int,
        ruleset: str | None,
        players: Sequence[SettlePlayer],
        winner: int | None,
        *,
        round_wind: int | str = 0,
        options: Mapping[str, Any] | None = None,
        source_key: str | None = None,
    ) -> Proposal:
        """Check and score a game played with real tiles, writing nothing: every mistake of
        the user's is found here, so ``/settle`` answers it privately before acknowledging.

        ``players`` (2-4 members, each at a different wind) give a score or their hand;
        ``winner`` is the member who went Mah-Jongg (None: a drawn hand, nothing to pay).
        Given hands are scored, and when every player gave one the table is scored as a whole
        (so a liable discarder or a singapore discarder pays as the rules say). Every player
        but the proposer must confirm before anything is recorded.
        """
        name, chosen = await self._rules(guild_id, ruleset, options)
        round_no = _wind(round_wind, "round")
        if not 2 <= len(players) <= 4:
            raise ScoringError(N_("a game has two to four players"))
        seats: dict[int, SettlePlayer] = {}
        users: set[int] = set()
        for player in players:
            seat = _wind(player.seat, "seat")
            if seat in seats:
                raise ScoringError(f"two players sit {WINDS[seat]}")
            if player.user_id in users:
                raise ScoringError(f"{player.name or player.user_id} is listed twice")
            seats[seat] = player
            users.add(player.user_id)
        if 0 not in seats:
            raise ScoringError(N_("someone sits East: every game has an East (the dealer)"))
        winner_seat = None
        if winner is not None:
            winner_seat = next((s for s, p in seats.items() if p.user_id == winner), None)
            if winner_seat is None:
                raise ScoringError(N_("the winner must be one of the players"))
        scored = self._settle_scores(name, chosen, round_no, seats, winner_seat, options)
        by_seat = {s: p.user_id for s, p in seats.items()}
        payments = [(by_seat[p.payer], by_seat[p.payee], p.amount) for p in scored.payments]
        net = {s: 0 for s in seats}
        for p in scored.payments:
            net[p.payer] -= p.amount
            net[p.payee] += p.amount
        parties = [
            Party(p.user_id, s, p.name or None, must_confirm=p.user_id != created_by)
            for s, p in sorted(seats.items())
        ]
        results = [
            (p.user_id, s == scored.winner, scored.values.get(s, 0), net[s])
            for s, p in sorted(seats.items())
        ]
        details = {
            "round": round_no,
            "options": dict(chosen),
            "winner": None if scored.winner is None else by_seat[scored.winner],
            "players": [
                {
                    "user_id": p.user_id,
                    "seat": s,
                    "name": p.name,
                    "score": scored.values.get(s, 0),
                    "limit_hand": (scored.scores[s].limit_hand if s in scored.scores else None),
                    "hand": isinstance(p.result, str) and not _NUMBER.match(p.result),
                    "net": net[s],
                }
                for s, p in sorted(seats.items())
            ],
            "payments": [
                {
                    "payer": by_seat[p.payer],
                    "payee": by_seat[p.payee],
                    "amount": p.amount,
                    "reason": p.reason,
                }
                for p in scored.payments
                if p.amount > 0
            ],
        }
        won = seats[scored.winner].name if scored.winner is not None else None
        description = (
            f"{name}: {won or 'a player'} won"
            if scored.winner is not None
            else (f"{name}: a drawn hand")
        )
        return Proposal(
            guild_id=guild_id,
            payments=tuple(payments),
            source_key=source_key or f"settle:{uuid.uuid4().hex}",
            ruleset=name,
            description=description,
            created_by=created_by,
            parties=tuple(parties),
            results=tuple(results),
            details=details,
            channel_id=channel_id,
        )

    async def store_settlement(self, proposal: Proposal) -> Settlement:
        """Store a prepared settlement as pending (nothing counts until confirmed)."""
        try:
            return await self.ledger.propose(
                proposal.guild_id,
                proposal.payments,
                source_key=proposal.source_key,
                ruleset=proposal.ruleset,
                description=proposal.description,
                created_by=proposal.created_by,
                parties=proposal.parties,
                results=proposal.results,
                details=proposal.details,
                channel_id=proposal.channel_id,
            )
        except LedgerError as exc:
            raise ScoringError(str(exc)) from None

    def _settle_scores(
        self,
        ruleset: str,
        options: dict[str, Any],
        round_no: int,
        seats: Mapping[int, SettlePlayer],
        winner: int | None,
        given: Mapping[str, Any] | None = None,
    ) -> _Scored:
        numbers: dict[int, int] = {}
        hands: dict[int, SeatHand] = {}
        wins: dict[int, Win] = {}
        for seat, player in seats.items():
            result = player.result
            if result is None:
                numbers[seat] = 0
            elif isinstance(result, int) and not isinstance(result, bool):
                numbers[seat] = result
            elif isinstance(result, str) and _NUMBER.match(result):
                numbers[seat] = int(_NUMBER.match(result).group(1))  # type: ignore[union-attr]
            elif isinstance(result, str):
                who = f"{WINDS[seat]} ({player.name})" if player.name else WINDS[seat]
                parsed = _parse(result, f"{who}'s hand")
                hands[seat] = SeatHand(seat, parsed.hand)
                if parsed.win is not None:
                    wins[seat] = parsed.win
            else:
                raise ScoringError(f"{WINDS[seat]}: a score is a whole number or a hand")
        for seat, value in numbers.items():
            if not 0 <= value <= MAX_SCORE:
                raise ScoringError(f"{WINDS[seat]}'s score must be between 0 and {MAX_SCORE}")
        if len(wins) > 1:
            raise ScoringError(N_("only the winner's hand may say how it was won ('win ...')"))
        if wins:
            (win_seat,) = wins
            if winner is None:
                winner = win_seat
            elif win_seat != winner:
                raise ScoringError(
                    f"{WINDS[win_seat]}'s hand says how it won, but the winner sits {WINDS[winner]}"
                )
        if winner is not None and winner in hands and winner not in wins:
            raise ScoringError(
                f"the winner's hand ({WINDS[winner]}) must say how it won: add 'win <tile>', "
                "and 'from <wind>' for a discard"
            )
        options = _with_flowers(options, [h.hand for h in hands.values()], given)
        table = tuple(sorted(seats))
        if hands and not numbers:
            request = TableRequest(
                ruleset,
                options,
                round_no,
                tuple(hands[s] for s in table),
                winner,
                wins.get(winner) if winner is not None else None,
                seats=table,
            )
            result = _run(request)
            return _Scored(dict(result.values), dict(result.scores), tuple(result.payments), winner)
        scores: dict[int, Score] = {}
        for seat, seat_hand in hands.items():
            win = wins.get(seat)
            one = _run(
                TableRequest(
                    ruleset,
                    options,
                    round_no,
                    (seat_hand,),
                    seat if win is not None else None,
                    win,
                    seats=table,
                )
            )
            scores[seat] = one.scores[seat]
            numbers[seat] = one.values[seat]
        result = _run(
            TableRequest(ruleset, options, round_no, scores=numbers, winner=winner, seats=table)
        )
        return _Scored(dict(result.values), scores, tuple(result.payments), winner)

    async def confirm(
        self, settlement_id: int, user_id: int, *, guild_id: int | None = None
    ) -> tuple[Settlement, bool]:
        """A player confirms; returns the settlement and whether it is now posted. Double
        clicks, strangers, the proposer and late clicks get a ScoringError; nothing changes."""
        try:
            return await self.ledger.confirm(settlement_id, user_id, guild_id=guild_id)
        except LedgerError as exc:
            raise ScoringError(str(exc)) from None

    async def cancel(
        self,
        settlement_id: int,
        user_id: int,
        *,
        can_manage: bool = False,
        guild_id: int | None = None,
    ) -> Settlement:
        try:
            return await self.ledger.cancel(
                settlement_id, user_id, can_manage=can_manage, guild_id=guild_id
            )
        except LedgerError as exc:
            raise ScoringError(str(exc)) from None

    async def get_settlement(self, settlement_id: int) -> Settlement | None:
        return await self.ledger.get(settlement_id)

    def settlement_status(self, settlement: Settlement) -> str:
        """pending, posted, cancelled or expired (now, by the ledger's clock)."""
        return status_of(settlement, self.ledger.now())

    @staticmethod
    def expires_at(settlement: Settlement) -> int:
        return expires_at(settlement)


def _wind(value: int | str, what: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value <= 3:
            return value
        raise ScoringError(f"{what} must be one of E, S, W, N")
    try:
        return seat_of(value, what)
    except RequestError as exc:
        raise ScoringError(str(exc)) from None


def _parse(text: str, what: str = "the hand") -> Any:
    if len(text) > MAX_HAND_TEXT:
        raise ScoringError(f"{what} is too long ({len(text)} characters; at most {MAX_HAND_TEXT})")
    try:
        return parse_hand(text)
    except NotationError as exc:
        prefix = "" if what == "the hand" else f"{what}: "
        raise ScoringError(f"{prefix}{exc}") from None


def _check_not_a_win(rules: Any, hand: Hand) -> None:
    """A hand one tile over a losing hand's count, with no ``win``: the newcomer most likely
    typed a complete hand (issue 11: told "a losing hand has 13 tiles"). Say which option
    completes it, with a tile of their own hand as the example."""
    have = hand.tile_count()
    if have != rules.hand_size + 1 or not hand.concealed:
        return
    if rules.is_winning(hand):
        example = short_name(hand.concealed[-1])
        raise ScoringError(
            f"this hand has {have} tiles: say which tile completed it, e.g. win:{example} "
            f"(add 'from W' if it was W's discard, or 'self-draw'); a losing hand has "
            f"{rules.hand_size}"
        )
    raise ScoringError(
        f"this hand has {have} tiles but does not make {rules.sets_needed} sets and a pair; "
        f"a losing hand has {rules.hand_size} (a kong counting as three): check the tiles"
    )


def _with_flowers(
    chosen: dict[str, Any], hands: Sequence[Hand], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Listing flowers in a hand means playing with them, unless ``flowers`` was given."""
    if any(h.flowers for h in hands) and "flowers" not in (given or {}):
        return {**chosen, "flowers": True}
    return chosen


def _run(request: TableRequest) -> Any:
    try:
        return score_table(request)
    except (HandError, RequestError, OptionError, NotationError) as exc:
        raise ScoringError(str(exc)) from None
