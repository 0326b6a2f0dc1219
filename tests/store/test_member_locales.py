"""Members' languages survive a restart (migration 0008, both backends): what an interaction
told is stored when it changes, and a bot started afterwards writes that member's DMs in it
before they click again."""

from __future__ import annotations

from types import SimpleNamespace

from bot.i18n.locales import MemberLocales, member_locale
from bot.store.backend import Database
from bot.store.member_settings_repo import MemberSettingsRepository
from tests.store.helpers import FakeClock


class Counting(MemberSettingsRepository):
    saved = 0

    async def save_member_locale(self, user_id: int, locale: str) -> None:
        self.saved += 1
        await super().save_member_locale(user_id, locale)


async def test_a_restarted_bot_knows_each_members_language(db: Database, clock: FakeClock) -> None:
    repo = Counting(db, clock=clock)
    before = MemberLocales()
    await before.load(repo)
    await before.remember(101, "zh-TW")
    await before.remember(101, "zh-TW")  # every click of a game: no write
    await before.remember(102, "fr")
    await before.remember(102, "zh-CN")  # a change is written
    await before.remember(103, None)  # nothing told: nothing kept
    assert repo.saved == 3
    assert await repo.all_member_locales() == {101: "zh-TW", 102: "zh-CN"}

    after = MemberLocales()
    await after.load(MemberSettingsRepository(db, clock=clock))
    guild = SimpleNamespace(preferred_locale="en-US")
    bot = SimpleNamespace(member_locales=after, get_guild=lambda _id: guild)
    assert member_locale(bot, 101, 1) == "zh-TW"
    assert member_locale(bot, 102, 1) == "zh-CN"
    assert member_locale(bot, 103, 1) == "en-US"  # never told: the server's language


async def test_an_interaction_before_loading_wins_over_the_stored_locale(
    db: Database, clock: FakeClock
) -> None:
    repo = MemberSettingsRepository(db, clock=clock)
    await repo.save_member_locale(101, "zh-CN")
    known = MemberLocales()
    await known.remember(101, "zh-TW")  # not stored yet: no store
    await known.load(repo)
    assert known.get(101) == "zh-TW"
