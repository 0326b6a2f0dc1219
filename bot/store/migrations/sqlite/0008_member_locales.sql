-- Each member's Discord locale (issue 13.4), as their last interaction told it: a DM is no
-- interaction, so a restarted bot writes a member's DMs in the language they last used
-- (bot/i18n/locales.py MemberLocales). The code Discord sent ('zh-TW', 'fr'), not the
-- catalogue it reads today, so a language shipped later reaches its members at once.
CREATE TABLE member_locales (
    user_id    INTEGER PRIMARY KEY,
    locale     TEXT NOT NULL CHECK (length(locale) BETWEEN 1 AND 16),
    updated_at INTEGER NOT NULL
);
