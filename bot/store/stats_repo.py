"""Statistics and leaderboards from ``player_results`` (and ``accounts`` for all-time chips).

Every query is bounded by the server and, for a player, by the player: the indexes
``player_results_by_user (guild_id, user_id, created_at, ...)`` and
``player_results_by_time (guild_id, created_at, ...)`` cover them, so a leaderboard reads one
index range and never the table. Negative ids (computer players) are left out of rankings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.store.base import Repository

_COUNTED = "kind IN ('hand', 'manual')"
# Portable aggregates (PostgreSQL sums no booleans and answers SUM(BIGINT) with a decimal).
_HANDS = f"CAST(SUM(CASE WHEN {_COUNTED} THEN 1 ELSE 0 END) AS BIGINT)"
_WINS = f"CAST(SUM(CASE WHEN won = 1 AND {_COUNTED} THEN 1 ELSE 0 END) AS BIGINT)"
_BIGGEST = f"MAX(CASE WHEN won = 1 AND {_COUNTED} THEN score END)"
_NET = "CAST(SUM(net) AS BIGINT)"


@dataclass(frozen=True, slots=True)
class HistoryRow:
    settlement_id: int
    created_at: int
    kind: str
    ruleset: str
    description: str
    table_id: int | None
    hand_no: int | None
    won: bool
    score: int
    net: int


@dataclass(frozen=True, slots=True)
class Totals:
    hands: int
    wins: int
    biggest: int | None
    net: int


@dataclass(frozen=True, slots=True)
class BoardRow:
    user_id: int
    hands: int
    wins: int
    biggest: int | None
    net: int


class StatsRepository(Repository):
    async def history(self, guild_id: int, user_id: int, limit: int) -> list[HistoryRow]:
        """The player's latest settlements, newest first."""
        async with self.reading():
            rows = await self.fetchall(
                "SELECT r.settlement_id, r.created_at, r.kind, r.table_id, r.hand_no, r.won, "
                "r.score, r.net, s.ruleset, s.description FROM player_results r "
                "JOIN settlements s ON s.id = r.settlement_id "
                "WHERE r.guild_id = ? AND r.user_id = ? "
                "ORDER BY r.created_at DESC, r.id DESC LIMIT ?",
                (guild_id, user_id, limit),
            )
        return [
            HistoryRow(
                r["settlement_id"],
                r["created_at"],
                r["kind"],
                r["ruleset"],
                r["description"],
                r["table_id"],
                r["hand_no"],
                bool(r["won"]),
                r["score"],
                r["net"],
            )
            for r in rows
        ]

    async def totals(self, guild_id: int, user_id: int) -> tuple[Totals, list[bool]]:
        """Hands, wins, biggest winning score and net; and every hand's won flag in order
        (for the streaks)."""
        async with self.reading():
            row = await self.fetchone(
                f"SELECT {_HANDS} AS hands, {_WINS} AS wins, {_BIGGEST} AS biggest, "
                f"{_NET} AS net FROM player_results WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )
            flags = await self.fetchall(
                f"SELECT won FROM player_results WHERE guild_id = ? AND user_id = ? AND {_COUNTED} "
                "ORDER BY created_at, id",
                (guild_id, user_id),
            )
        totals = Totals(
            hands=(row["hands"] or 0) if row else 0,
            wins=(row["wins"] or 0) if row else 0,
            biggest=row["biggest"] if row else None,
            net=(row["net"] or 0) if row else 0,
        )
        return totals, [bool(f["won"]) for f in flags]

    async def board(self, guild_id: int, since: int | None) -> list[BoardRow]:
        """Every ranked player's totals since ``since`` (None: all time)."""
        where = "guild_id = ? AND user_id > 0"
        params: list[Any] = [guild_id]
        if since is not None:
            where += " AND created_at >= ?"
            params.append(since)
        async with self.reading():
            rows = await self.fetchall(
                f"SELECT user_id, {_HANDS} AS hands, {_WINS} AS wins, {_BIGGEST} AS biggest, "
                f"{_NET} AS net FROM player_results WHERE {where} GROUP BY user_id",
                params,
            )
        return [
            BoardRow(r["user_id"], r["hands"] or 0, r["wins"] or 0, r["biggest"], r["net"] or 0)
            for r in rows
        ]

    async def accounts(self, guild_id: int) -> dict[int, int]:
        """Every ranked player's all-time net from the running accounts."""
        async with self.reading():
            rows = await self.fetchall(
                "SELECT user_id, net FROM accounts WHERE guild_id = ? AND user_id > 0", (guild_id,)
            )
        return {r["user_id"]: r["net"] for r in rows}

    async def names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
        """The last display names stored for these players."""
        ids = list(dict.fromkeys(user_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        async with self.reading():
            rows = await self.fetchall(
                f"SELECT user_id, display_name FROM player_names WHERE guild_id = ? "
                f"AND user_id IN ({marks})",
                (guild_id, *ids),
            )
        return {r["user_id"]: r["display_name"] for r in rows}
