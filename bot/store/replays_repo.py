"""What replays look up: a table and its event log, the tables a replay code may name, and a
member's last finished hand (issue 13). Reads only, but for the tables' seed hashes.

A replay code is the start of the SHA-256 of the table's seed and a hand number. The seed is
only in the table's ``start`` event, so the hash is kept in ``tables.seed_hash`` (migration
0007), written the first time the replay service rebuilds the table, and for a code nobody
opened by table yet, by :meth:`ReplaysRepository.unhashed` (tables with a finished hand but
no hash, with their start event) before the code is looked up again.
"""

from __future__ import annotations

from typing import Any

from bot.store.base import Repository, loads


class ReplaysRepository(Repository):
    async def table(self, table_id: int) -> tuple[dict[str, Any], list[tuple[str, dict]]] | None:
        """The table's row and its events in order, read in one snapshot (None: no table)."""
        async with self.reading():
            row = await self.fetchone("SELECT * FROM tables WHERE id = ?", (table_id,))
            if row is None:
                return None
            out = dict(row)
            out["options"] = loads(out["options"], {})
            out["hands"] = out["hands_planned"]
            out["sets"] = out.get("sets_planned")
            events = await self.fetchall(
                "SELECT kind, payload FROM events WHERE table_id = ? ORDER BY seq", (table_id,)
            )
        return out, [(e["kind"], loads(e["payload"], {})) for e in events]

    async def set_seed_hash(self, table_id: int, seed_hash: str) -> None:
        await self.write(
            "UPDATE tables SET seed_hash = ? WHERE id = ? AND seed_hash IS NULL",
            (seed_hash, table_id),
        )

    async def by_seed_hash(self, guild_id: int | None, prefix: str) -> list[int]:
        """Tables (of the server; any with ``guild_id`` None) whose seed hash starts with
        ``prefix`` (lower-case hex)."""
        # A range rather than LIKE: it uses the index on both backends ('g' follows every
        # hex digit).
        where = "seed_hash >= ? AND seed_hash < ?"
        params: tuple[Any, ...] = (prefix, prefix + "g")
        if guild_id is not None:
            where = "guild_id = ? AND " + where
            params = (guild_id, *params)
        async with self.reading():
            rows = await self.fetchall(f"SELECT id FROM tables WHERE {where} ORDER BY id", params)
        return [r["id"] for r in rows]

    async def unhashed(self, guild_id: int | None) -> list[tuple[int, str]]:
        """``(table id, seed)`` of the tables (of the server) that have a finished hand but no
        seed hash yet."""
        where = "t.seed_hash IS NULL"
        params: tuple[Any, ...] = ()
        if guild_id is not None:
            where += " AND t.guild_id = ?"
            params = (guild_id,)
        async with self.reading():
            rows = await self.fetchall(
                "SELECT t.id AS id, e.payload AS payload FROM tables t "
                "JOIN events e ON e.table_id = t.id AND e.kind = 'start' "
                f"WHERE {where} AND EXISTS (SELECT 1 FROM hands h WHERE h.table_id = t.id) "
                "ORDER BY t.id",
                params,
            )
        out = []
        for row in rows:
            seed = loads(row["payload"], {}).get("seed")
            if seed:
                out.append((row["id"], str(seed)))
        return out

    async def last_hand(self, guild_id: int, user_id: int) -> tuple[int, int] | None:
        """``(table id, hand number)`` of the latest finished hand the member was seated for
        in the server, or None."""
        async with self.reading():
            row = await self.fetchone(
                "SELECT h.table_id AS table_id, h.hand_no AS hand_no FROM hands h "
                "JOIN tables t ON t.id = h.table_id "
                "WHERE t.guild_id = ? AND EXISTS (SELECT 1 FROM seats s "
                "WHERE s.table_id = h.table_id AND s.user_id = ?) "
                "ORDER BY h.finished_at DESC, h.table_id DESC, h.hand_no DESC LIMIT 1",
                (guild_id, user_id),
            )
        return None if row is None else (row["table_id"], row["hand_no"])
