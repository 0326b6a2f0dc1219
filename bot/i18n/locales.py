"""Which catalogue a reader gets: their Discord locale in private, the server's in public.

Discord tells the member's locale with every interaction (``interaction.locale``) and the
server's as ``guild.preferred_locale``. A DM is no interaction, so the locale each member
last used is remembered (:class:`MemberLocales`): in memory for every DM, and in the database
(``member_locales``, migration 0008) so that after a restart the DMs sent before a member's
next click are still in their language. Only a change is written (a member's locale rarely
changes), so the clicks of a game cost no writes. With several processes (PostgreSQL) each
reads the stored locales at start and learns later changes from its own interactions.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: The shipped catalogues, by Discord locale code; anything else reads English.
SHIPPED = ("zh-TW", "zh-CN")
FALLBACK = "en-US"


def catalogue_of(locale: Any) -> str:
    """The catalogue for a Discord locale (a ``discord.Locale``, its code, or None):
    ``zh-TW`` or ``zh-CN``, else :data:`FALLBACK`. Hong Kong Chinese reads Traditional."""
    code = str(getattr(locale, "value", locale) or "").replace("_", "-")
    if code in SHIPPED:
        return code
    if code.lower() in ("zh-hk", "zh-mo", "zh-hant"):
        return "zh-TW"
    if code.lower() in ("zh", "zh-sg", "zh-hans"):
        return "zh-CN"
    return FALLBACK


def guild_locale(bot: Any, guild_id: int | None) -> str:
    """The server's language (public messages): its preferred locale, English without one."""
    guild = bot.get_guild(guild_id) if guild_id is not None and bot is not None else None
    return catalogue_of(getattr(guild, "preferred_locale", None))


class LocaleStore(Protocol):
    async def all_member_locales(self) -> dict[int, str]: ...
    async def save_member_locale(self, user_id: int, locale: str) -> None: ...


class MemberLocales:
    """The locale each member used last (``bot.member_locales``), fed by every interaction;
    kept in ``store`` (a :class:`bot.store.member_settings_repo.MemberSettingsRepository`)
    once :meth:`load` has read it."""

    def __init__(self) -> None:
        self._by_user: dict[int, str] = {}  # user id -> the Discord locale code, as sent
        self.store: LocaleStore | None = None

    async def load(self, store: LocaleStore) -> None:
        """Read the stored locales (a few bytes a member) and keep writing changes there.
        A locale learnt meanwhile from an interaction wins over the stored one."""
        stored = await store.all_member_locales()
        self._by_user = {**stored, **self._by_user}
        self.store = store

    async def remember(self, user_id: int, locale: Any) -> None:
        code = str(getattr(locale, "value", locale) or "")
        if not code or self._by_user.get(user_id) == code:
            return
        self._by_user[user_id] = code
        if self.store is None:
            return
        try:
            await self.store.save_member_locale(user_id, code)
        except Exception as exc:  # a language is no game state: DMs fall back after a restart
            # One line, no traceback: at shut-down the database may close under this write.
            log.warning("could not store member %s's locale: %r", user_id, exc)

    def get(self, user_id: int | None) -> str | None:
        code = self._by_user.get(user_id) if user_id is not None else None
        return catalogue_of(code) if code else None


def answer_locale(interaction: Any, *, private: bool = False) -> str:
    """The language of a command's answer: a private (ephemeral) answer in the member's, a
    public one in a server in the server's, a public one anywhere else (a DM, a group DM) in
    the member's: there is no server there."""
    if private or getattr(interaction, "guild_id", None) is None:
        return catalogue_of(getattr(interaction, "locale", None))
    return catalogue_of(getattr(interaction, "guild_locale", None))


def member_locale(bot: Any, user_id: int | None, guild_id: int | None = None) -> str:
    """A member's language for a DM: the locale of their last interaction, else the server's."""
    known = getattr(bot, "member_locales", None)
    found = known.get(user_id) if known is not None else None
    return found or guild_locale(bot, guild_id)
