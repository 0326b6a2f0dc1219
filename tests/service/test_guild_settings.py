"""GuildSettingsService: defaults, validated updates through the rule set's options, persistence."""

from __future__ import annotations

import pytest

from bot.service.guild_settings import GuildSettingsService, SettingsError
from bot.store.backend import Database
from bot.store.settings_repo import SettingsRepository


async def test_a_new_server_gets_the_defaults(settings: GuildSettingsService) -> None:
    s = await settings.get(1)
    assert (s.ruleset, dict(s.options), s.starting_chips) == ("pung-chow", {}, 1000)
    assert (s.turn_seconds, s.claim_seconds, s.allowed_channels) == (60, 15, ())
    assert s.allows(12345)
    assert s.resolved_options()["mahjong_bonus"] == 20


async def test_updates_are_validated_and_persist(
    db: Database, settings: GuildSettingsService
) -> None:
    updated = await settings.update(
        1,
        ruleset="pung-chow-limit",
        options={"limit": "600", "washing": "off"},
        starting_chips=5000,
        turn_seconds=0,
        claim_seconds=20,
        allowed_channels=[10, 11, 10],
    )
    assert updated.options == {"limit": 600, "washing": False}
    assert updated.allowed_channels == (10, 11)
    assert not updated.allows(12)
    assert updated.allows(500, parent_id=11)  # a thread of an allowed channel
    assert not updated.allows(500, parent_id=12)
    fresh = await fresh_service(db).get(1)  # no cache: read back from the store
    assert fresh == updated
    other = await fresh_service(db).get(2)
    assert other.ruleset == "pung-chow"


def fresh_service(db: Database) -> GuildSettingsService:
    return GuildSettingsService(SettingsRepository(db))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ruleset": "riichi"}, "unknown rule set"),
        ({"options": {"colour": "red"}}, "unknown option"),
        ({"options": {"mahjong_bonus": 15}}, "must be one of 10, 20"),
        ({"starting_chips": -1}, "between 0 and"),
        ({"turn_seconds": 601}, "between 0 and 600"),
        ({"claim_seconds": 2}, "between 5 and 120"),
        ({"claim_seconds": "15"}, "whole number"),
    ],
)
async def test_bad_settings_are_refused_and_change_nothing(
    settings: GuildSettingsService, change: dict, message: str
) -> None:
    with pytest.raises(SettingsError, match=message):
        await settings.update(1, **change)
    assert await settings.get(1) == await fresh_service(settings.repo.db).get(1)
    assert (await settings.get(1)).ruleset == "pung-chow"


async def test_options_follow_the_rule_set(settings: GuildSettingsService) -> None:
    await settings.update(1, options={"limit": 300})
    kept = await settings.update(1, ruleset="filipino-16")  # filipino-16 has a limit too
    assert kept.options == {"limit": 300}
    dropped = await settings.update(1, ruleset="singapore")  # singapore has no 'limit'
    assert dropped.options == {}
    assert (await settings.update(1, options={"maximum": 1000})).options == {"maximum": 1000}


async def test_allow_channel(settings: GuildSettingsService) -> None:
    await settings.allow_channel(1, 10, True)
    await settings.allow_channel(1, 11, True)
    s = await settings.allow_channel(1, 10, False)
    assert s.allowed_channels == (11,)
