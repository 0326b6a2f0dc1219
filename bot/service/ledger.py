"""LedgerService: each server's chips, as a double-entry ledger, and the statistics.

Every movement of chips is a *settlement* (a hand of a table, a /settle of a game played with
real tiles, washing the tiles, a penalty) made of ledger rows, each moving a positive amount
from a payer to a payee. So the chips of a server always sum to zero, a member's balance is
the chips they started with plus what they received minus what they paid, and a settlement is
posted at most once: its ``source_key`` is unique (``table:12:hand:3``), and a retry returns the
settlement already posted.

A member's starting chips are fixed (``starting_chips``, migration 0004) in the transaction
that posts their first settlement, at the server's setting of that moment: changing the
setting later applies to members who have not played yet and never rewrites a balance.

Computer players are ledger parties under the ids -1..-4 (the seat they sat in), so a hand
against the computer balances like any other; rankings leave them out.

Who can write here (reviewed for issue 11 item 10, "a settlement nobody agreed to"):

- a table's hands (``post_settlement``, from ``TableService``): the engine played them, with
  every seat's moves made by its member (or a computer player), so nothing is claimed;
- ``/settle`` (``propose``, then ``confirm``): a claim by one member about others, so it is
  kept *pending* (no ledger rows, no accounts, no player results, no names: it counts nowhere:
  not in ``/chips``, ``/history``, ``/stats`` or any leaderboard) until every player other
  than the proposer has confirmed it, whatever the scores (a hand nobody pays still records
  wins and hands). It expires ``PENDING_SECONDS`` after it was proposed; any of its players
  may cancel it (declining), as may the proposer and a server manager.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from bot.i18n import N_
from bot.store.ledger_repo import (
    KINDS,
    Entry,
    LedgerRepository,
    Party,
    PlayerResult,
    Settlement,
)
from bot.store.stats_repo import BoardRow, HistoryRow, StatsRepository

log = logging.getLogger(__name__)

METRICS = ("chips", "wins", "biggest-hand", "win-rate")
PERIODS = {"week": 7 * 86400, "month": 30 * 86400, "all": None}  # rolling windows, in seconds
MIN_HANDS_FOR_WIN_RATE = 5
MAX_AMOUNT = 10**12
PENDING_SECONDS = 24 * 3600  # a /settle not confirmed by everyone within a day expires

__all__ = [
    "METRICS",
    "MIN_HANDS_FOR_WIN_RATE",
    "PENDING_SECONDS",
    "PERIODS",
    "Entry",
    "HistoryRow",
    "LeaderboardEntry",
    "LedgerError",
    "LedgerService",
    "Party",
    "PlayerResult",
    "PlayerStats",
    "Settlement",
    "SettlementExpired",
    "entries_of",
    "expires_at",
    "others_of",
    "status_of",
]


class LedgerError(ValueError):
    """A settlement or a request that cannot be accepted; the message says why."""


class SettlementExpired(LedgerError):
    """A pending settlement pressed after its time ran out (nothing was ever recorded)."""


def expires_at(settlement: Settlement) -> int:
    """When a pending ``/settle`` stops accepting confirmations."""
    return settlement.created_at + PENDING_SECONDS


def status_of(settlement: Settlement, now: int) -> str:
    """``pending``, ``posted``, ``cancelled``, or ``expired`` (pending past its time: it
    stays pending in the store and counts nowhere, exactly like a cancelled one)."""
    if settlement.status == "pending" and now >= expires_at(settlement):
        return "expired"
    return settlement.status


def others_of(settlement: Settlement) -> list[Party]:
    """The players who must confirm a /settle: every party but its proposer."""
    return [p for p in settlement.parties if p.user_id != settlement.created_by]


@dataclass(frozen=True, slots=True)
class PlayerStats:
    user_id: int
    hands: int
    wins: int
    biggest_hand: int | None
    best_streak: int
    current_streak: int
    net: int
    balance: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One rank. ``value`` is what the metric ranks by: chips (a balance for ``all``, the
    net won in the period otherwise), wins, the biggest winning score, or the win rate 0-1."""

    rank: int
    user_id: int
    value: float
    hands: int
    wins: int
    biggest: int | None
    net: int


def _payment(item: Any) -> tuple[int, int, int]:
    if hasattr(item, "amount"):
        return item.payer, item.payee, item.amount
    payer, payee, amount = item
    return payer, payee, amount


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LedgerError(f"{what} must be a whole number, not {value!r}")
    return value


def entries_of(payments: Iterable[Any]) -> list[Entry]:
    """Ledger rows for ``payments`` ((payer, payee, amount) or objects with those fields):
    what passes between each two players is netted into one row (so a table's liable
    discarder paying for three losers is one row), zero amounts dropped. Every player's net
    is unchanged."""
    flows: dict[tuple[int, int], int] = {}
    for item in payments:
        payer, payee, amount = (
            _int(v, w) for v, w in zip(_payment(item), ("payer", "payee", "amount"), strict=True)
        )
        if amount < 0 or amount > MAX_AMOUNT:
            raise LedgerError(f"a payment must be between 0 and {MAX_AMOUNT}, not {amount}")
        if payer == payee:
            raise LedgerError(f"player {payer} cannot pay themselves")
        if amount == 0:
            continue
        low, high = sorted((payer, payee))
        flows[(low, high)] = flows.get((low, high), 0) + (amount if payer == low else -amount)
    out = []
    for (low, high), flow in flows.items():
        if flow > 0:
            out.append(Entry(low, high, flow))
        elif flow < 0:
            out.append(Entry(high, low, -flow))
    return out


def net_of(entries: Iterable[Entry]) -> dict[int, int]:
    net: dict[int, int] = {}
    for e in entries:
        net[e.payer_id] = net.get(e.payer_id, 0) - e.amount
        net[e.payee_id] = net.get(e.payee_id, 0) + e.amount
    return net


def results_of(entries: Sequence[Entry], results: Iterable[Any] | None) -> list[PlayerResult]:
    """The per-player results to record: those given, checked against the payments (a
    player's ``net`` must be what the payments make it), plus every other paying or paid
    player with no win and no score."""
    net = net_of(entries)
    out: list[PlayerResult] = []
    seen: set[int] = set()
    for item in results or ():
        r = item if isinstance(item, PlayerResult) else PlayerResult(*item)
        user_id = _int(r.user_id, "user id")
        if user_id in seen:
            raise LedgerError(f"player {user_id} has two results in one settlement")
        seen.add(user_id)
        if r.net != net.get(user_id, 0):
            raise LedgerError(
                f"player {user_id}'s result says {r.net:+} but the payments make it "
                f"{net.get(user_id, 0):+}"
            )
        out.append(PlayerResult(user_id, bool(r.won), _int(r.score, "score"), r.net))
    for user_id, amount in net.items():
        if user_id not in seen:
            out.append(PlayerResult(user_id, False, 0, amount))
    return out


class LedgerService:
    def __init__(
        self, repo: LedgerRepository, stats_repo: StatsRepository, guild_settings: Any
    ) -> None:
        """The repositories come from ``bot/services.py`` (on either backend)."""
        self.guild_settings = guild_settings
        self.repo = repo
        self.stats_repo = stats_repo

    def now(self) -> int:
        return self.repo.now()

    # -- posting -----------------------------------------------------------------------------
    async def post_settlement(
        self,
        guild_id: int,
        kind: str,
        payments: Iterable[Any],
        *,
        source_key: str,
        table_id: int | None = None,
        hand_no: int | None = None,
        ruleset: str,
        description: str = "",
        results: Iterable[Any] | None = None,
        created_by: int | None = None,
        names: Mapping[int, str] | None = None,
    ) -> Settlement:
        """Post a settlement in one transaction, at most once per ``source_key``.

        ``payments`` are (payer_id, payee_id, amount); ``results`` (user_id, won, score, net)
        per player, for the statistics (checked against the payments; players left out are
        recorded with their net). A retry with a key already used changes nothing and returns
        the settlement stored under it.
        """
        if kind not in KINDS:
            raise LedgerError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        entries = entries_of(payments)
        player_results = results_of(entries, results)
        _check_balanced(entries)
        start = await self.starting_chips(guild_id)
        async with self.repo.transaction():
            existing = await self.repo.by_key(source_key)
            if existing is not None:
                if existing.status == "posted" and set(existing.entries) != set(entries):
                    log.warning("settlement %s retried with other payments; kept", source_key)
                return existing
            settlement_id = await self.repo.insert(
                guild_id=guild_id,
                kind=kind,
                source_key=source_key,
                ruleset=ruleset,
                description=description,
                table_id=table_id,
                hand_no=hand_no,
                created_by=created_by,
            )
            await self.repo.post(
                settlement_id,
                guild_id,
                kind,
                entries,
                player_results,
                table_id=table_id,
                hand_no=hand_no,
            )
            await self.repo.record_starts(guild_id, _members_of(entries, player_results), start)
            if names:
                await self.repo.remember_names(guild_id, names)
            settlement = await self.repo.get(settlement_id)
        assert settlement is not None
        return settlement

    # -- settlements waiting for confirmation (/settle) --------------------------------------
    async def propose(
        self,
        guild_id: int,
        payments: Iterable[Any],
        *,
        source_key: str,
        ruleset: str,
        description: str,
        created_by: int,
        parties: Sequence[Party],
        results: Iterable[Any],
        details: Mapping[str, Any] | None = None,
        channel_id: int | None = None,
        kind: str = "manual",
    ) -> Settlement:
        """Store a settlement as pending: it reaches the ledger once every party but the
        proposer (``created_by``) has confirmed (see :meth:`confirm`), whatever it pays: a
        settlement where nobody pays still records hands and wins. Every such party must be
        marked ``must_confirm``; the proposer, if a party, is not asked again."""
        entries = entries_of(payments)
        player_results = results_of(entries, results)
        _check_balanced(entries)
        party_ids = [p.user_id for p in parties]
        if len(set(party_ids)) != len(party_ids):
            raise LedgerError(N_("a player is listed twice"))
        if not any(p.user_id != created_by for p in parties):
            raise LedgerError(N_("a settlement needs another player to confirm it"))
        if any(p.user_id != created_by and not p.must_confirm for p in parties):
            raise LedgerError(N_("every player but the proposer must confirm"))
        involved = {e.payer_id for e in entries} | {e.payee_id for e in entries}
        involved |= {r.user_id for r in player_results}
        if involved - set(party_ids):
            raise LedgerError(N_("every player paid, paying or counted must be a party"))
        stored = dict(details or {})
        stored["entries"] = [[e.payer_id, e.payee_id, e.amount] for e in entries]
        stored["results"] = [[r.user_id, r.won, r.score, r.net] for r in player_results]
        async with self.repo.transaction():
            existing = await self.repo.by_key(source_key)
            if existing is not None:
                return existing
            settlement_id = await self.repo.insert(
                guild_id=guild_id,
                kind=kind,
                source_key=source_key,
                ruleset=ruleset,
                description=description,
                created_by=created_by,
                details=stored,
                channel_id=channel_id,
            )
            await self.repo.add_parties(settlement_id, parties)
            settlement = await self.repo.get(settlement_id)
        assert settlement is not None
        return settlement

    async def _post_pending(self, settlement_id: int, start: int) -> bool:
        """Post a pending /settle whose players have all confirmed (checked again here, so
        a settlement stored under older rules, when only the payers confirmed, can never
        post without everyone)."""
        settlement = await self.repo.get(settlement_id)
        assert settlement is not None
        if any(not (p.must_confirm and p.confirmed) for p in others_of(settlement)):
            return False
        entries = [Entry(*e) for e in settlement.details.get("entries", [])]
        results = [PlayerResult(*r) for r in settlement.details.get("results", [])]
        _check_balanced(entries)
        posted = await self.repo.post(
            settlement_id,
            settlement.guild_id,
            settlement.kind,
            entries,
            results,
            table_id=settlement.table_id,
            hand_no=settlement.hand_no,
        )
        if posted:
            members = _members_of(entries, results)
            await self.repo.record_starts(settlement.guild_id, members, start)
        names = {p.user_id: p.display_name for p in settlement.parties if p.display_name}
        if posted and names:
            await self.repo.remember_names(settlement.guild_id, names)
        return posted

    async def get(self, settlement_id: int) -> Settlement | None:
        return await self.repo.get(settlement_id)

    async def confirm(
        self, settlement_id: int, user_id: int, *, guild_id: int | None = None
    ) -> tuple[Settlement, bool]:
        """A player of the settlement (not its proposer) confirms. Returns the settlement
        and whether this confirmation posted it (the last one missing). Double clicks,
        strangers, the proposer and clicks after expiry raise LedgerError and change
        nothing; the posting happens exactly once."""
        known = await self.repo.get(settlement_id)
        start = await self.starting_chips(known.guild_id if known is not None else 0)
        async with self.repo.transaction():
            settlement = await self._pending(settlement_id, guild_id)
            if user_id == settlement.created_by:
                raise LedgerError(
                    "You proposed this settlement: that counts as your confirmation. "
                    "The other players confirm it."
                )
            party = next((p for p in settlement.parties if p.user_id == user_id), None)
            if party is None or not party.must_confirm:
                raise LedgerError(N_("Only the players of this settlement confirm it."))
            if not await self.repo.confirm_party(settlement_id, user_id):
                raise LedgerError(N_("You have already confirmed this settlement."))
            posted = False
            if len(settlement.waiting_for) == 1:  # this was the last one
                posted = await self._post_pending(settlement_id, start)
            updated = await self.repo.get(settlement_id)
        assert updated is not None
        return updated, posted

    async def cancel(
        self,
        settlement_id: int,
        user_id: int,
        *,
        can_manage: bool = False,
        guild_id: int | None = None,
    ) -> Settlement:
        """The proposer, any of its players (declining it) or a server manager withdraws a
        settlement not yet posted."""
        async with self.repo.transaction():
            settlement = await self._pending(settlement_id, guild_id)
            players = {p.user_id for p in settlement.parties}
            if user_id != settlement.created_by and user_id not in players and not can_manage:
                raise LedgerError(
                    "Only the players of this settlement and the member who proposed it can "
                    "cancel it."
                )
            await self.repo.cancel(settlement_id)
            updated = await self.repo.get(settlement_id)
        assert updated is not None
        return updated

    async def _pending(self, settlement_id: int, guild_id: int | None) -> Settlement:
        settlement = await self.repo.get(settlement_id)
        if settlement is None or (guild_id is not None and settlement.guild_id != guild_id):
            raise LedgerError(N_("That settlement does not exist."))
        if settlement.status == "posted":
            raise LedgerError(N_("That settlement is already posted to the ledger."))
        if settlement.status == "cancelled":
            raise LedgerError(N_("That settlement was cancelled."))
        if status_of(settlement, self.now()) == "expired":
            raise SettlementExpired(
                f"That settlement expired {_hours(PENDING_SECONDS)} after it was proposed, "
                "before everyone had confirmed: nothing was recorded. Propose it again with "
                "/settle if you like."
            )
        return settlement

    async def set_message(self, settlement_id: int, channel_id: int, message_id: int) -> None:
        await self.repo.set_message(settlement_id, channel_id, message_id)

    # -- reading -----------------------------------------------------------------------------
    async def starting_chips(self, guild_id: int) -> int:
        settings = await self.guild_settings.get(guild_id)
        return int(getattr(settings, "starting_chips", 1000))

    async def start_of(self, guild_id: int, user_id: int) -> int:
        """The chips this member started with: fixed at their first posted settlement, or
        the server's starting chips now if they have not played yet."""
        recorded = await self.repo.start_of(guild_id, user_id)
        return recorded if recorded is not None else await self.starting_chips(guild_id)

    async def balance(self, guild_id: int, user_id: int) -> int:
        """The chips the member started with + chips received - chips paid."""
        return await self.start_of(guild_id, user_id) + await self.repo.net(guild_id, user_id)

    async def history(self, guild_id: int, user_id: int, limit: int = 10) -> list[HistoryRow]:
        """The player's latest settlements, newest first."""
        limit = max(1, min(int(limit), 100))
        return await self.stats_repo.history(guild_id, user_id, limit)

    async def stats(self, guild_id: int, user_id: int) -> PlayerStats:
        """Hands played (table hands and /settle), wins, biggest winning score, the best and
        the current run of consecutive wins, chips won or lost, and the balance."""
        totals, flags = await self.stats_repo.totals(guild_id, user_id)
        best = run = 0
        for won in flags:
            run = run + 1 if won else 0
            best = max(best, run)
        return PlayerStats(
            user_id=user_id,
            hands=totals.hands,
            wins=totals.wins,
            biggest_hand=totals.biggest,
            best_streak=best,
            current_streak=run,
            net=totals.net,
            balance=await self.balance(guild_id, user_id),
        )

    async def leaderboard(
        self, guild_id: int, metric: str = "chips", period: str = "all", limit: int = 10
    ) -> list[LeaderboardEntry]:
        """The server's ranks by ``metric`` over ``period`` (the last 7 or 30 days, or all).

        Ties: equal players share a rank ("1, 2, 2, 4") after these tie-breaks: chips, then
        more wins, then fewer hands; wins, then fewer hands (the better rate), then chips;
        biggest hand, then more wins; win rate (at least 5 hands), then more hands.
        """
        if metric not in METRICS:
            raise LedgerError(f"metric must be one of {', '.join(METRICS)}")
        if period not in PERIODS:
            raise LedgerError(f"period must be one of {', '.join(PERIODS)}")
        limit = max(1, min(int(limit), 50))
        window = PERIODS[period]
        since = None if window is None else self.now() - window
        rows = {r.user_id: r for r in await self.stats_repo.board(guild_id, since)}
        ranked: list[tuple[tuple[Any, ...], float, BoardRow]] = []
        if metric == "chips":
            if period == "all":
                start = await self.starting_chips(guild_id)
                starts = await self.repo.starts(guild_id)
                accounts = await self.stats_repo.accounts(guild_id)
                for user_id, net in accounts.items():
                    row = rows.get(user_id) or BoardRow(user_id, 0, 0, None, net)
                    row = BoardRow(user_id, row.hands, row.wins, row.biggest, net)
                    balance = starts.get(user_id, start) + net
                    ranked.append(((-balance, -row.wins, row.hands), balance, row))
            else:
                for row in rows.values():
                    ranked.append(((-row.net, -row.wins, row.hands), row.net, row))
        elif metric == "wins":
            for row in rows.values():
                if row.wins:
                    ranked.append(((-row.wins, row.hands, -row.net), row.wins, row))
        elif metric == "biggest-hand":
            for row in rows.values():
                if row.biggest is not None:
                    ranked.append(((-row.biggest, -row.wins), row.biggest, row))
        else:
            for row in rows.values():
                if row.hands >= MIN_HANDS_FOR_WIN_RATE:
                    rate = Fraction(row.wins, row.hands)
                    ranked.append(((-rate, -row.hands), float(rate), row))
        ranked.sort(key=lambda item: (item[0], item[2].user_id))
        out: list[LeaderboardEntry] = []
        previous: tuple[Any, ...] | None = None
        rank = 0
        for position, (key, value, row) in enumerate(ranked[:limit], start=1):
            if key != previous:
                rank, previous = position, key
            out.append(
                LeaderboardEntry(
                    rank, row.user_id, value, row.hands, row.wins, row.biggest, row.net
                )
            )
        return out

    async def names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
        """The last display names stored for these players (a fallback for lookups)."""
        return await self.stats_repo.names(guild_id, user_ids)

    async def remember_names(self, guild_id: int, names: Mapping[int, str]) -> None:
        await self.repo.remember_names(guild_id, names)


def _members_of(entries: Sequence[Entry], results: Sequence[PlayerResult]) -> set[int]:
    """The members (ids > 0) a settlement involves: they have now played."""
    ids = {e.payer_id for e in entries} | {e.payee_id for e in entries}
    ids |= {r.user_id for r in results}
    return {i for i in ids if i > 0}


def _hours(seconds: int) -> str:
    hours = seconds // 3600
    return "a day" if hours == 24 else f"{hours} hours"


def _check_balanced(entries: Sequence[Entry]) -> None:
    """Double entry: what the payers give is what the payees get, for every settlement."""
    net = net_of(entries)
    if sum(net.values()) != 0:  # pragma: no cover - impossible by construction
        raise LedgerError(N_("a settlement must sum to zero"))
