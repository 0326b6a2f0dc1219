"""Skill ratings (``ratings``, ``rated_games``, ``rating_changes``; migration 0006).

``claim_game`` is what makes rating idempotent: the ``rated_games`` row of a table is
inserted in the same transaction as the ratings it changes, and a second attempt (a
restart, a retry, another process) finds it and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.store.base import Repository, loads


@dataclass(frozen=True, slots=True)
class RatingRow:
    user_id: int
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """One member's rating change from one game."""

    table_id: int
    user_id: int
    place: int
    net: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games_after: int
    created_at: int = 0


_CHANGE_COLUMNS = (
    "table_id, user_id, place, net, mu_before, sigma_before, mu_after, sigma_after, "
    "games_after, created_at"
)


def _rating(row: Any) -> RatingRow:
    return RatingRow(row["user_id"], float(row["mu"]), float(row["sigma"]), row["games"])


def _change(row: Any) -> ChangeRow:
    return ChangeRow(**{name: row[name] for name in ChangeRow.__slots__})


class RatingsRepository(Repository):
    # -- which games are rated ------------------------------------------------------------
    async def unrated_games(self, guild_id: int) -> list[int]:
        """The server's finished tables not rated yet, in the order they finished."""
        async with self.reading():
            rows = await self.fetchall(
                "SELECT t.id FROM tables t WHERE t.guild_id = ? AND t.status = 'finished' "
                "AND NOT EXISTS (SELECT 1 FROM rated_games r WHERE r.table_id = t.id) "
                "ORDER BY t.finished_at, t.id",
                (guild_id,),
            )
        return [r["id"] for r in rows]

    async def guild_of(self, table_id: int) -> int | None:
        async with self.reading():
            row = await self.fetchone("SELECT guild_id FROM tables WHERE id = ?", (table_id,))
        return None if row is None else row["guild_id"]

    async def claim_game(self, table_id: int, guild_id: int, members: int) -> bool:
        """Mark a table rated, inside the caller's transaction; False if it already was."""
        result = await self.execute(
            "INSERT INTO rated_games (table_id, guild_id, members, rated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (table_id) DO NOTHING",
            (table_id, guild_id, members, self.now()),
        )
        return result.rowcount == 1

    async def game_nets(self, table_id: int) -> dict[int, int]:
        """Each member's chips won or lost at a table (computer players, ids below zero, left
        out), inside the caller's transaction or reading."""
        rows = await self.fetchall(
            "SELECT user_id, CAST(SUM(net) AS BIGINT) AS net FROM player_results "
            "WHERE table_id = ? AND user_id > 0 GROUP BY user_id",
            (table_id,),
        )
        return {r["user_id"]: int(r["net"]) for r in rows}

    async def seat_events(self, table_id: int) -> list[tuple[str, dict[str, Any]]]:
        """The table's joins, unjoins and leaves in order (who sat where, who left), inside
        the caller's transaction or reading."""
        rows = await self.fetchall(
            "SELECT kind, payload FROM events WHERE table_id = ? "
            "AND kind IN ('join', 'unjoin', 'leave') ORDER BY seq",
            (table_id,),
        )
        return [(r["kind"], loads(r["payload"], {})) for r in rows]

    async def hands_settled(self, table_id: int) -> int:
        """How many of the table's hands were settled (computer players' results count)."""
        row = await self.fetchone(
            "SELECT COUNT(DISTINCT hand_no) AS n FROM player_results WHERE table_id = ?",
            (table_id,),
        )
        return int(row["n"]) if row else 0

    # -- ratings --------------------------------------------------------------------------
    async def ratings_of(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, RatingRow]:
        ids = sorted(set(user_ids))
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = await self.fetchall(
            f"SELECT user_id, mu, sigma, games FROM ratings WHERE guild_id = ? "
            f"AND user_id IN ({marks})",
            (guild_id, *ids),
        )
        return {
            r["user_id"]: RatingRow(r["user_id"], r["mu"], r["sigma"], r["games"]) for r in rows
        }

    async def save_changes(self, guild_id: int, changes: Sequence[ChangeRow]) -> None:
        """The new ratings and the changes that made them, inside the caller's transaction."""
        now = self.now()
        for c in changes:
            await self.execute(
                "INSERT INTO ratings (guild_id, user_id, mu, sigma, games, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET "
                "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
                "updated_at = excluded.updated_at",
                (guild_id, c.user_id, c.mu_after, c.sigma_after, c.games_after, now),
            )
            await self.execute(
                f"INSERT INTO rating_changes (guild_id, {_CHANGE_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    guild_id,
                    c.table_id,
                    c.user_id,
                    c.place,
                    c.net,
                    c.mu_before,
                    c.sigma_before,
                    c.mu_after,
                    c.sigma_after,
                    c.games_after,
                    now,
                ),
            )

    # -- reading ----------------------------------------------------------------------------
    async def changes_of_game(self, table_id: int) -> list[ChangeRow]:
        async with self.reading():
            rows = await self.fetchall(
                f"SELECT {_CHANGE_COLUMNS} FROM rating_changes WHERE table_id = ? "
                "ORDER BY place, user_id",
                (table_id,),
            )
        return [_change(r) for r in rows]

    async def rating(
        self, guild_id: int, user_id: int
    ) -> tuple[RatingRow | None, ChangeRow | None]:
        """A member's rating and the change their last rated game made to it."""
        async with self.reading():
            found = await self.ratings_of(guild_id, [user_id])
            row = await self.fetchone(
                f"SELECT {_CHANGE_COLUMNS} FROM rating_changes WHERE guild_id = ? AND user_id = ? "
                "ORDER BY created_at DESC, table_id DESC LIMIT 1",
                (guild_id, user_id),
            )
        return found.get(user_id), None if row is None else _change(row)

    async def board(self, guild_id: int) -> list[RatingRow]:
        """Every rated member of a server, highest skill estimate first."""
        async with self.reading():
            rows = await self.fetchall(
                "SELECT user_id, mu, sigma, games FROM ratings WHERE guild_id = ? "
                "ORDER BY mu DESC, games DESC, user_id",
                (guild_id,),
            )
        return [_rating(r) for r in rows]
