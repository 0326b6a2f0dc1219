"""GuildSettingsService: each server's defaults for new tables and for the ledger.

A server that never changed anything gets the defaults below. Options are validated through
the rule set's own option specs (``get_ruleset(name).options(...)``), so a setting that a
table could not be opened with is refused when it is set, not when a table opens. Only the
options a server chose are stored, so the rule set's documented defaults apply to the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from bot.rules.options import OptionError
from bot.rules.rulesets import HandError, get_ruleset
from bot.store.settings_repo import SettingsRepository

DEFAULT_RULESET = "pung-chow"
DEFAULT_STARTING_CHIPS = 1000
DEFAULT_TURN_SECONDS = 60
DEFAULT_CLAIM_SECONDS = 15
MAX_STARTING_CHIPS = 1_000_000_000
TURN_RANGE = (0, 600)  # 0: no turn timer
CLAIM_RANGE = (5, 120)
MAX_ALLOWED_CHANNELS = 50
# How long things live (minutes) and how many open tables at once: see docs/tables.md.
LIFETIME_RANGE = (1, 7 * 24 * 60)
CAP_RANGE = (1, 1000)
LIMITS: dict[str, tuple[int, tuple[int, int]]] = {
    # name: (default, (low, high))
    "lobby_minutes": (30, LIFETIME_RANGE),
    "idle_minutes": (30, LIFETIME_RANGE),
    "max_tables_per_member": (3, CAP_RANGE),
    "max_tables_per_channel": (10, CAP_RANGE),
    "max_tables_per_guild": (50, CAP_RANGE),
}


class SettingsError(ValueError):
    """A setting that cannot be used; the message says what is allowed."""


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """One server's settings. ``allowed_channels`` empty: tables are allowed everywhere.
    ``starting_chips`` is what a member who has not played yet starts with: each member's is
    fixed at their first posted settlement (``LedgerService.start_of``), so a change never
    rewrites a balance."""

    guild_id: int
    ruleset: str = DEFAULT_RULESET
    options: Mapping[str, Any] = field(default_factory=dict)
    starting_chips: int = DEFAULT_STARTING_CHIPS
    turn_seconds: int = DEFAULT_TURN_SECONDS
    claim_seconds: int = DEFAULT_CLAIM_SECONDS
    allowed_channels: tuple[int, ...] = ()
    lobby_minutes: int = LIMITS["lobby_minutes"][0]  # an unstarted lobby expires
    idle_minutes: int = LIMITS["idle_minutes"][0]  # a table with no member playing ends
    max_tables_per_member: int = LIMITS["max_tables_per_member"][0]
    max_tables_per_channel: int = LIMITS["max_tables_per_channel"][0]
    max_tables_per_guild: int = LIMITS["max_tables_per_guild"][0]

    def allows(self, channel_id: int, parent_id: int | None = None) -> bool:
        """Whether tables may open here; a thread is allowed where its channel is."""
        if not self.allowed_channels:
            return True
        return channel_id in self.allowed_channels or parent_id in self.allowed_channels

    def resolved_options(self) -> Mapping[str, Any]:
        """Every option of the server's rule set: its choices over the documented defaults."""
        return get_ruleset(self.ruleset).options(self.options)


_UNSET: Any = object()


class GuildSettingsService:
    def __init__(self, repo: SettingsRepository) -> None:
        """The repository comes from ``bot/services.py`` (on either backend)."""
        self.repo = repo
        self._cache: dict[int, GuildSettings] = {}

    async def get(self, guild_id: int) -> GuildSettings:
        """The server's settings, the defaults where it set nothing."""
        cached = self._cache.get(guild_id)
        if cached is not None:
            return cached
        row = await self.repo.get(guild_id)
        settings = GuildSettings(guild_id)
        if row is not None:
            settings = GuildSettings(
                guild_id=guild_id,
                ruleset=row["ruleset"],
                options=dict(row["options"]),
                starting_chips=row["starting_chips"],
                turn_seconds=row["turn_seconds"],
                claim_seconds=row["claim_seconds"],
                allowed_channels=tuple(int(c) for c in row["allowed_channels"]),
                **{name: row[name] for name in LIMITS if row.get(name) is not None},
            )
        self._cache[guild_id] = settings
        return settings

    async def update(
        self,
        guild_id: int,
        *,
        ruleset: str = _UNSET,
        options: Mapping[str, Any] = _UNSET,
        starting_chips: int = _UNSET,
        turn_seconds: int = _UNSET,
        claim_seconds: int = _UNSET,
        allowed_channels: Iterable[int] = _UNSET,
        **limits: int,
    ) -> GuildSettings:
        """Change some settings (the others stay). Raises SettingsError, changing nothing.

        Changing the rule set keeps the stored options only if the new rule set accepts them
        (they are per rule set: ``limit`` means something else in ``singapore``).
        """
        current = await self.get(guild_id)
        values: dict[str, Any] = {}
        new = current
        if ruleset is not _UNSET:
            try:
                name = get_ruleset(str(ruleset)).name
            except HandError as exc:
                raise SettingsError(str(exc)) from None
            values["ruleset"] = name
            new = replace(new, ruleset=name)
            if options is _UNSET and current.options:
                try:
                    get_ruleset(name).options(current.options)
                except OptionError:
                    values["options"] = {}
                    new = replace(new, options={})
        if options is not _UNSET:
            chosen = _validate_options(new.ruleset, options)
            values["options"] = chosen
            new = replace(new, options=chosen)
        if starting_chips is not _UNSET:
            chips = _whole(starting_chips, "starting chips", 0, MAX_STARTING_CHIPS)
            values["starting_chips"] = chips
            new = replace(new, starting_chips=chips)
        if turn_seconds is not _UNSET:
            seconds = _whole(turn_seconds, "turn seconds", *TURN_RANGE)
            values["turn_seconds"] = seconds
            new = replace(new, turn_seconds=seconds)
        if claim_seconds is not _UNSET:
            seconds = _whole(claim_seconds, "claim seconds", *CLAIM_RANGE)
            values["claim_seconds"] = seconds
            new = replace(new, claim_seconds=seconds)
        if allowed_channels is not _UNSET:
            channels = tuple(dict.fromkeys(int(c) for c in allowed_channels))
            if len(channels) > MAX_ALLOWED_CHANNELS:
                raise SettingsError(f"at most {MAX_ALLOWED_CHANNELS} channels can be listed")
            values["allowed_channels"] = list(channels)
            new = replace(new, allowed_channels=channels)
        for name, value in limits.items():
            if name not in LIMITS:
                raise SettingsError(f"unknown setting {name}")
            number = _whole(value, name.replace("_", " "), *LIMITS[name][1])
            values[name] = number
            new = replace(new, **{name: number})
        await self.repo.upsert(guild_id, values)
        self._cache[guild_id] = new
        return new

    async def allow_channel(self, guild_id: int, channel_id: int, allowed: bool) -> GuildSettings:
        """Add a channel to (or take it off) the list where tables may be opened."""
        current = await self.get(guild_id)
        channels = [c for c in current.allowed_channels if c != channel_id]
        if allowed:
            channels.append(channel_id)
        return await self.update(guild_id, allowed_channels=channels)


def _validate_options(ruleset: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The chosen options, coerced by the rule set's specs (names with ``_``)."""
    rules = get_ruleset(ruleset)
    try:
        resolved = rules.options(options)
    except OptionError as exc:
        raise SettingsError(str(exc)) from None
    return {name.replace("-", "_"): resolved[name.replace("-", "_")] for name in options}


def _whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{what} must be a whole number")
    if not low <= value <= high:
        raise SettingsError(f"{what} must be between {low} and {high}")
    return value
