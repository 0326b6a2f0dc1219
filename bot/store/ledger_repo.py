"""Settlements, their parties, the double-entry ledger, the running accounts and the per-player
results the statistics count.

A settlement is posted once: its ``source_key`` is UNIQUE, its ledger rows are UNIQUE per
(settlement, payer, payee), and ``mark_posted`` only moves a *pending* settlement. The
``accounts`` row of each player is changed in the same transaction as the ledger rows it sums.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.store.base import Repository, StoreError, dumps, loads

KINDS = ("hand", "manual", "washing", "penalty")
# Settlement kinds that are hands played (counted in hands, wins and biggest hand).
HAND_KINDS = ("hand", "manual")


@dataclass(frozen=True, slots=True)
class Entry:
    """``amount`` chips from ``payer_id`` to ``payee_id``."""

    payer_id: int
    payee_id: int
    amount: int


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One player's part in a settlement, as the statistics count it."""

    user_id: int
    won: bool = False
    score: int = 0
    net: int = 0


@dataclass(frozen=True, slots=True)
class Party:
    """A player of a /settle: ``must_confirm`` for the paying players."""

    user_id: int
    seat: int | None = None
    display_name: str | None = None
    must_confirm: bool = False
    confirmed_at: int | None = None

    @property
    def confirmed(self) -> bool:
        return self.confirmed_at is not None


@dataclass(frozen=True, slots=True)
class Settlement:
    id: int
    guild_id: int
    kind: str
    status: str
    source_key: str
    ruleset: str
    description: str = ""
    table_id: int | None = None
    hand_no: int | None = None
    created_by: int | None = None
    details: dict[str, Any] = field(default_factory=dict)
    channel_id: int | None = None
    message_id: int | None = None
    created_at: int = 0
    posted_at: int | None = None
    entries: tuple[Entry, ...] = ()
    parties: tuple[Party, ...] = ()

    @property
    def waiting_for(self) -> list[Party]:
        """The paying players who have not confirmed yet."""
        return [p for p in self.parties if p.must_confirm and not p.confirmed]


class LedgerRepository(Repository):
    # -- reading settlements -----------------------------------------------------------------
    async def get(self, settlement_id: int) -> Settlement | None:
        async with self.reading():
            row = await self.fetchone("SELECT * FROM settlements WHERE id = ?", (settlement_id,))
            return None if row is None else await self._settlement(row)

    async def by_key(self, source_key: str) -> Settlement | None:
        async with self.reading():
            row = await self.fetchone(
                "SELECT * FROM settlements WHERE source_key = ?", (source_key,)
            )
            return None if row is None else await self._settlement(row)

    async def _settlement(self, row: Any) -> Settlement:
        entries = await self.fetchall(
            "SELECT payer_id, payee_id, amount FROM ledger WHERE settlement_id = ? ORDER BY id",
            (row["id"],),
        )
        parties = await self.fetchall(
            "SELECT * FROM settlement_parties WHERE settlement_id = ? "
            "ORDER BY COALESCE(seat, 9), user_id",
            (row["id"],),
        )
        return Settlement(
            id=row["id"],
            guild_id=row["guild_id"],
            kind=row["kind"],
            status=row["status"],
            source_key=row["source_key"],
            ruleset=row["ruleset"],
            description=row["description"],
            table_id=row["table_id"],
            hand_no=row["hand_no"],
            created_by=row["created_by"],
            details=loads(row["details"], {}),
            channel_id=row["channel_id"],
            message_id=row["message_id"],
            created_at=row["created_at"],
            posted_at=row["posted_at"],
            entries=tuple(Entry(e["payer_id"], e["payee_id"], e["amount"]) for e in entries),
            parties=tuple(
                Party(
                    p["user_id"],
                    p["seat"],
                    p["display_name"],
                    bool(p["must_confirm"]),
                    p["confirmed_at"],
                )
                for p in parties
            ),
        )

    # -- writing (each joins the caller's transaction) ---------------------------------------
    async def insert(
        self,
        *,
        guild_id: int,
        kind: str,
        source_key: str,
        ruleset: str,
        description: str = "",
        table_id: int | None = None,
        hand_no: int | None = None,
        created_by: int | None = None,
        details: Mapping[str, Any] | None = None,
        channel_id: int | None = None,
    ) -> int:
        """A new pending settlement (the caller checked ``source_key`` is free)."""
        if kind not in KINDS:
            raise StoreError(f"unknown settlement kind {kind!r}")
        result = await self.write(
            "INSERT INTO settlements (guild_id, kind, table_id, hand_no, ruleset, "
            "description, created_by, source_key, details, channel_id, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                guild_id,
                kind,
                table_id,
                hand_no,
                ruleset,
                description,
                created_by,
                source_key,
                dumps(dict(details or {})),
                channel_id,
                self.now(),
            ),
        )
        return result.lastrowid

    async def add_parties(self, settlement_id: int, parties: Iterable[Party]) -> None:
        async with self.transaction():
            for p in parties:
                await self.execute(
                    "INSERT INTO settlement_parties (settlement_id, user_id, seat, display_name, "
                    "must_confirm) VALUES (?, ?, ?, ?, ?)",
                    (settlement_id, p.user_id, p.seat, p.display_name, int(p.must_confirm)),
                )

    async def post(
        self,
        settlement_id: int,
        guild_id: int,
        kind: str,
        entries: Sequence[Entry],
        results: Sequence[PlayerResult],
        *,
        table_id: int | None = None,
        hand_no: int | None = None,
    ) -> bool:
        """Post a pending settlement: its ledger rows, the accounts they change, the players'
        results, and the status. False (and nothing written) if it was not pending."""
        async with self.transaction():
            now = self.now()
            result = await self.execute(
                "UPDATE settlements SET status = 'posted', posted_at = ? "
                "WHERE id = ? AND status = 'pending'",
                (now, settlement_id),
            )
            if result.rowcount != 1:
                return False
            if any(e.amount <= 0 or e.payer_id == e.payee_id for e in entries):
                raise StoreError("a ledger row moves a positive amount between two players")
            for e in entries:
                await self.execute(
                    "INSERT INTO ledger (settlement_id, guild_id, payer_id, payee_id, amount, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (settlement_id, guild_id, e.payer_id, e.payee_id, e.amount, now),
                )
                await self._move(guild_id, e.payer_id, -e.amount)
                await self._move(guild_id, e.payee_id, e.amount)
            for r in results:
                await self.execute(
                    "INSERT INTO player_results (guild_id, user_id, settlement_id, kind, "
                    "table_id, hand_no, won, score, net, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        guild_id,
                        r.user_id,
                        settlement_id,
                        kind,
                        table_id,
                        hand_no,
                        int(r.won),
                        r.score,
                        r.net,
                        now,
                    ),
                )
        return True

    async def _move(self, guild_id: int, user_id: int, delta: int) -> None:
        await self.execute(
            "INSERT INTO accounts (guild_id, user_id, net) VALUES (?, ?, ?) "
            "ON CONFLICT (guild_id, user_id) DO UPDATE SET net = accounts.net + excluded.net",
            (guild_id, user_id, delta),
        )

    async def confirm_party(self, settlement_id: int, user_id: int) -> bool:
        """Record a paying player's confirmation; False if already confirmed (or not one)."""
        result = await self.write(
            "UPDATE settlement_parties SET confirmed_at = ? WHERE settlement_id = ? "
            "AND user_id = ? AND must_confirm = 1 AND confirmed_at IS NULL",
            (self.now(), settlement_id, user_id),
        )
        return result.rowcount == 1

    async def cancel(self, settlement_id: int) -> bool:
        """Cancel a pending settlement; False if it was not pending."""
        result = await self.write(
            "UPDATE settlements SET status = 'cancelled' WHERE id = ? AND status = 'pending'",
            (settlement_id,),
        )
        return result.rowcount == 1

    async def set_message(self, settlement_id: int, channel_id: int, message_id: int) -> None:
        await self.write(
            "UPDATE settlements SET channel_id = ?, message_id = ? WHERE id = ?",
            (channel_id, message_id, settlement_id),
        )

    async def remember_names(self, guild_id: int, names: Mapping[int, str]) -> None:
        """Keep the last display name of each player (the fallback for the leaderboards)."""
        async with self.transaction():
            for user_id, name in names.items():
                if not name:
                    continue
                await self.execute(
                    "INSERT INTO player_names (guild_id, user_id, display_name, updated_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
                    "display_name = excluded.display_name, updated_at = excluded.updated_at",
                    (guild_id, user_id, name[:100], self.now()),
                )

    # -- starting chips (migration 0004) ---------------------------------------------------
    async def record_starts(self, guild_id: int, user_ids: Iterable[int], amount: int) -> None:
        """Fix ``amount`` as the starting chips of each member (ids > 0) who has none yet; a
        member's recorded amount never changes (joins the caller's transaction)."""
        async with self.transaction():
            for user_id in sorted({u for u in user_ids if u > 0}):
                await self.execute(
                    "INSERT INTO starting_chips (guild_id, user_id, amount, recorded_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO NOTHING",
                    (guild_id, user_id, amount, self.now()),
                )

    async def start_of(self, guild_id: int, user_id: int) -> int | None:
        """The member's recorded starting chips; None if they have not played yet."""
        async with self.reading():
            row = await self.fetchone(
                "SELECT amount FROM starting_chips WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )
        return None if row is None else row["amount"]

    async def starts(self, guild_id: int) -> dict[int, int]:
        """Every recorded starting amount of the server's members."""
        async with self.reading():
            rows = await self.fetchall(
                "SELECT user_id, amount FROM starting_chips WHERE guild_id = ?", (guild_id,)
            )
        return {r["user_id"]: r["amount"] for r in rows}

    # -- balances ----------------------------------------------------------------------------
    async def net(self, guild_id: int, user_id: int) -> int:
        """Chips received minus chips paid, from the running account."""
        async with self.reading():
            row = await self.fetchone(
                "SELECT net FROM accounts WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
            )
        return row["net"] if row else 0

    async def net_from_entries(self, guild_id: int, user_id: int) -> int:
        """The same, summed from the ledger rows themselves (what ``accounts`` must equal)."""
        async with self.reading():
            received = await self.fetchone(
                "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS n FROM ledger "
                "WHERE guild_id = ? AND payee_id = ?",
                (guild_id, user_id),
            )
            paid = await self.fetchone(
                "SELECT CAST(COALESCE(SUM(amount), 0) AS BIGINT) AS n FROM ledger "
                "WHERE guild_id = ? AND payer_id = ?",
                (guild_id, user_id),
            )
        return (received["n"] if received else 0) - (paid["n"] if paid else 0)
