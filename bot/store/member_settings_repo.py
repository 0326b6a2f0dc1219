"""Each member's own settings (``member_settings``, migration 0003): one row per member who
changed something; the table service keeps them all in memory (a few bytes a member). And
each member's last Discord locale (``member_locales``, migration 0008), kept in memory by
:class:`bot.i18n.locales.MemberLocales` for the language of their DMs."""

from __future__ import annotations

from bot.store.base import Repository

FIELDS = ("pings", "auto_pass_chows", "discard_drawn_on_timeout")


class MemberSettingsRepository(Repository):
    async def all_member_settings(self) -> dict[int, dict[str, bool]]:
        async with self.reading():
            rows = await self.fetchall(
                "SELECT user_id, pings, auto_pass_chows, discard_drawn_on_timeout "
                "FROM member_settings"
            )
        return {r["user_id"]: {name: bool(r[name]) for name in FIELDS} for r in rows}

    async def save_member_settings(self, user_id: int, values: dict[str, bool]) -> None:
        """Store every field of the member's settings (validated by the service)."""
        stored = [int(bool(values[name])) for name in FIELDS]
        await self.write(
            "INSERT INTO member_settings (user_id, pings, auto_pass_chows, "
            "discard_drawn_on_timeout, updated_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET pings = excluded.pings, "
            "auto_pass_chows = excluded.auto_pass_chows, "
            "discard_drawn_on_timeout = excluded.discard_drawn_on_timeout, "
            "updated_at = excluded.updated_at",
            (user_id, *stored, self.now()),
        )

    async def all_member_locales(self) -> dict[int, str]:
        """Each member's last Discord locale (``member_locales``, migration 0008)."""
        async with self.reading():
            rows = await self.fetchall("SELECT user_id, locale FROM member_locales")
        return {r["user_id"]: r["locale"] for r in rows}

    async def save_member_locale(self, user_id: int, locale: str) -> None:
        await self.write(
            "INSERT INTO member_locales (user_id, locale, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale, "
            "updated_at = excluded.updated_at",
            (user_id, locale[:16], self.now()),
        )
