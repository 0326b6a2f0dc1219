"""Per-server settings (``guild_settings``): one row per server that changed a default."""

from __future__ import annotations

from typing import Any

from bot.store.base import Repository, dumps, loads

# The columns a caller may set, with how each is stored.
_JSON = {"options", "allowed_channels"}
COLUMNS = (
    "ruleset",
    "options",
    "starting_chips",
    "turn_seconds",
    "claim_seconds",
    "allowed_channels",
    "lobby_minutes",
    "idle_minutes",
    "max_tables_per_member",
    "max_tables_per_channel",
    "max_tables_per_guild",
)


class SettingsRepository(Repository):
    async def get(self, guild_id: int) -> dict[str, Any] | None:
        """The stored row as plain values (JSON decoded), or None for a server never set."""
        async with self.reading():
            row = await self.fetchone(
                "SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,)
            )
        if row is None:
            return None
        out = dict(row)
        out["options"] = loads(out["options"], {})
        out["allowed_channels"] = loads(out["allowed_channels"], [])
        return out

    async def upsert(self, guild_id: int, values: dict[str, Any]) -> None:
        """Create the row with the column defaults, then set ``values`` (validated above)."""
        unknown = set(values) - set(COLUMNS)
        if unknown:
            raise ValueError(f"unknown settings {sorted(unknown)}")
        stored = {k: dumps(v) if k in _JSON else v for k, v in values.items()}
        async with self.transaction():
            await self.execute(
                "INSERT INTO guild_settings (guild_id, updated_at) VALUES (?, ?) "
                "ON CONFLICT (guild_id) DO NOTHING",
                (guild_id, self.now()),
            )
            if stored:
                # Column names come from COLUMNS above, never from the caller.
                assignments = ", ".join(f"{name} = ?" for name in stored)
                await self.execute(
                    f"UPDATE guild_settings SET {assignments}, updated_at = ? WHERE guild_id = ?",
                    (*stored.values(), self.now(), guild_id),
                )
