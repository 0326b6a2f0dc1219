-- Tables in threads, members' own settings, and the limits that keep tables from living
-- forever (the lifecycle of issues 11 and 16).
--
-- A table PLAYS in channel_id: its own thread, or the text channel itself when it has no
-- thread. home_channel_id is the text channel holding its one summary message (NULL without
-- a thread). While its thread is being opened, channel_id = home_channel_id: such a row does
-- not hold the channel, so several tables may share a channel, one per thread.
ALTER TABLE tables ADD COLUMN home_channel_id BIGINT;

ALTER TABLE tables ADD COLUMN summary_message_id BIGINT;

-- Hints in words beside a player's hand (off for competitive tables).
ALTER TABLE tables ADD COLUMN hints INTEGER NOT NULL DEFAULT 1 CHECK (hints IN (0, 1));

-- A permission the table needs is missing: no timer runs down until it returns.
ALTER TABLE tables ADD COLUMN paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1));

ALTER TABLE tables ADD COLUMN pause_reason TEXT NOT NULL DEFAULT '';

DROP INDEX tables_one_open_per_channel;

CREATE UNIQUE INDEX tables_one_open_per_channel
    ON tables (channel_id)
    WHERE status IN ('lobby', 'playing')
      AND (home_channel_id IS NULL OR home_channel_id <> channel_id);

CREATE INDEX tables_by_home ON tables (home_channel_id) WHERE home_channel_id IS NOT NULL;

-- Each member's own choices for every table they play (/mahjong settings).
CREATE TABLE member_settings (
    user_id                  BIGINT PRIMARY KEY,
    pings                    INTEGER NOT NULL DEFAULT 1 CHECK (pings IN (0, 1)),
    auto_pass_chows          INTEGER NOT NULL DEFAULT 0 CHECK (auto_pass_chows IN (0, 1)),
    discard_drawn_on_timeout INTEGER NOT NULL DEFAULT 1
                             CHECK (discard_drawn_on_timeout IN (0, 1)),
    updated_at               BIGINT NOT NULL
);

-- Per server: minutes before an unstarted lobby expires, minutes a table may go on with no
-- member playing before it ends, and caps on open tables per member, channel and server.
ALTER TABLE guild_settings ADD COLUMN lobby_minutes INTEGER NOT NULL DEFAULT 30
    CHECK (lobby_minutes > 0);

ALTER TABLE guild_settings ADD COLUMN idle_minutes INTEGER NOT NULL DEFAULT 30
    CHECK (idle_minutes > 0);

ALTER TABLE guild_settings ADD COLUMN max_tables_per_member INTEGER NOT NULL DEFAULT 3
    CHECK (max_tables_per_member > 0);

ALTER TABLE guild_settings ADD COLUMN max_tables_per_channel INTEGER NOT NULL DEFAULT 10
    CHECK (max_tables_per_channel > 0);

ALTER TABLE guild_settings ADD COLUMN max_tables_per_guild INTEGER NOT NULL DEFAULT 50
    CHECK (max_tables_per_guild > 0)
