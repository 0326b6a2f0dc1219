"""Which catalogue a reader gets: their Discord locale in private, the server's in public.

Discord tells the member's locale with every interaction (``interaction.locale``) and the
server's as ``guild.preferred_locale``. A DM is no interaction, so the locale each member
last used is remembered (:class:`MemberLocales`, in memory: after a restart a member's DMs
follow the server's language until their next click, which every move is).
"""

from __future__ import annotations

from typing import Any

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


class MemberLocales:
    """The locale each member used last (``bot.member_locales``), fed by every interaction."""

    def __init__(self) -> None:
        self._by_user: dict[int, str] = {}

    def remember(self, user_id: int, locale: Any) -> None:
        if locale is not None:
            self._by_user[user_id] = catalogue_of(locale)

    def get(self, user_id: int | None) -> str | None:
        return self._by_user.get(user_id) if user_id is not None else None


def member_locale(bot: Any, user_id: int | None, guild_id: int | None = None) -> str:
    """A member's language for a DM: the locale of their last interaction, else the server's."""
    known = getattr(bot, "member_locales", None)
    found = known.get(user_id) if known is not None else None
    return found or guild_locale(bot, guild_id)
