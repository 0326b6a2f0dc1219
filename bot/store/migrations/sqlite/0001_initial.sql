-- The whole bot's schema, version 1.
--
-- Conventions (no semicolons in comments: the migration runner splits on them):
--   * times are INTEGER Unix seconds (UTC), written by the repositories from their clock
--   * JSON columns are TEXT checked with json_valid()
--   * player ids are Discord user ids, computer players are -1..-4 (computer in seat 0..3)
--     so that every hand's ledger still balances, and leaderboards leave out ids below zero
--   * tables.status: lobby and playing are "open" (one open table per channel),
--     finished and cancelled are closed

-- Per-server defaults: the rule set and its options for new tables, the chips a member
-- starts with, the timers, and the channels where tables may be opened (empty: all).
CREATE TABLE guild_settings (
    guild_id         INTEGER PRIMARY KEY,
    ruleset          TEXT    NOT NULL DEFAULT 'pung-chow',
    options          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
    starting_chips   INTEGER NOT NULL DEFAULT 1000 CHECK (starting_chips >= 0),
    turn_seconds     INTEGER NOT NULL DEFAULT 60 CHECK (turn_seconds >= 0),
    claim_seconds    INTEGER NOT NULL DEFAULT 15 CHECK (claim_seconds > 0),
    allowed_channels TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(allowed_channels)),
    updated_at       INTEGER NOT NULL
);

-- A table of the bot: its lobby, then its game. Everything it is can be rebuilt from events.
CREATE TABLE tables (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    host_id       INTEGER NOT NULL,
    ruleset       TEXT    NOT NULL,
    options       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
    seed          TEXT,
    status        TEXT    NOT NULL DEFAULT 'lobby'
                  CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    turn_seconds  INTEGER NOT NULL DEFAULT 60 CHECK (turn_seconds >= 0),
    claim_seconds INTEGER NOT NULL DEFAULT 15 CHECK (claim_seconds > 0),
    hands_planned INTEGER CHECK (hands_planned IS NULL OR hands_planned > 0),
    message_id    INTEGER,
    created_at    INTEGER NOT NULL,
    finished_at   INTEGER,
    CHECK ((status IN ('finished', 'cancelled')) = (finished_at IS NOT NULL))
);

CREATE UNIQUE INDEX tables_one_open_per_channel
    ON tables (channel_id) WHERE status IN ('lobby', 'playing');

CREATE INDEX tables_open ON tables (status) WHERE status IN ('lobby', 'playing');

CREATE INDEX tables_by_guild ON tables (guild_id, created_at);

-- Who sits at a table, in the order they joined (the engine's player index, 0-3).
CREATE TABLE seats (
    table_id     INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat         INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id      INTEGER,
    display_name TEXT    NOT NULL,
    is_computer  INTEGER NOT NULL DEFAULT 0 CHECK (is_computer IN (0, 1)),
    joined_at    INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat),
    CHECK (is_computer = 1 OR user_id IS NOT NULL)
);

CREATE UNIQUE INDEX seats_one_per_user ON seats (table_id, user_id) WHERE user_id IS NOT NULL;

CREATE INDEX seats_by_user ON seats (user_id) WHERE user_id IS NOT NULL;

-- The append-only log of every table: replaying it rebuilds the table exactly.
CREATE TABLE events (
    id         INTEGER PRIMARY KEY,
    table_id   INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    kind       TEXT    NOT NULL,
    payload    TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
    created_at INTEGER NOT NULL,
    UNIQUE (table_id, seq)
);

-- The result of every finished hand of a table, with its seed revealed for checking.
CREATE TABLE hands (
    table_id     INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    hand_no      INTEGER NOT NULL CHECK (hand_no >= 1),
    ruleset      TEXT    NOT NULL,
    kind         TEXT    NOT NULL DEFAULT 'win',
    winner_seat  INTEGER CHECK (winner_seat IS NULL OR winner_seat BETWEEN 0 AND 3),
    winner_id    INTEGER,
    scores       TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(scores)),
    payments     TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(payments)),
    seed         TEXT    NOT NULL DEFAULT '',
    seed_hash    TEXT    NOT NULL DEFAULT '',
    finished_at  INTEGER NOT NULL,
    PRIMARY KEY (table_id, hand_no)
);

-- One movement of chips among players: a hand of a table, a /settle of a game played with
-- real tiles, washing the tiles, a penalty. source_key makes posting the same thing twice
-- impossible (for example table:12:hand:3). A /settle stays pending until every paying player
-- confirmed. table_id has no foreign key on purpose: the ledger outlives pruned table logs.
CREATE TABLE settlements (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('hand', 'manual', 'washing', 'penalty')),
    table_id    INTEGER,
    hand_no     INTEGER,
    ruleset     TEXT    NOT NULL,
    description TEXT    NOT NULL DEFAULT '',
    created_by  INTEGER,
    status      TEXT    NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'posted', 'cancelled')),
    source_key  TEXT    NOT NULL UNIQUE,
    details     TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(details)),
    channel_id  INTEGER,
    message_id  INTEGER,
    created_at  INTEGER NOT NULL,
    posted_at   INTEGER,
    CHECK ((status = 'posted') = (posted_at IS NOT NULL))
);

CREATE INDEX settlements_by_guild ON settlements (guild_id, created_at);

CREATE INDEX settlements_pending ON settlements (guild_id) WHERE status = 'pending';

-- The players of a settlement: who takes part and who must confirm (the paying players).
CREATE TABLE settlement_parties (
    settlement_id INTEGER NOT NULL REFERENCES settlements (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    seat          INTEGER CHECK (seat IS NULL OR seat BETWEEN 0 AND 3),
    display_name  TEXT,
    must_confirm  INTEGER NOT NULL DEFAULT 0 CHECK (must_confirm IN (0, 1)),
    confirmed_at  INTEGER,
    PRIMARY KEY (settlement_id, user_id),
    CHECK (confirmed_at IS NULL OR must_confirm = 1)
);

CREATE INDEX settlement_parties_by_user ON settlement_parties (user_id);

-- Double entry: each row moves amount chips from payer to payee, so the chips in a server
-- always sum to zero. One row per settlement and pair: a retry can never post twice.
CREATE TABLE ledger (
    id            INTEGER PRIMARY KEY,
    settlement_id INTEGER NOT NULL REFERENCES settlements (id),
    guild_id      INTEGER NOT NULL,
    payer_id      INTEGER NOT NULL,
    payee_id      INTEGER NOT NULL,
    amount        INTEGER NOT NULL CHECK (amount > 0),
    created_at    INTEGER NOT NULL,
    UNIQUE (settlement_id, payer_id, payee_id),
    CHECK (payer_id <> payee_id)
);

CREATE INDEX ledger_by_payer ON ledger (guild_id, payer_id, amount);

CREATE INDEX ledger_by_payee ON ledger (guild_id, payee_id, amount);

CREATE INDEX ledger_by_time ON ledger (guild_id, created_at);

-- Each player's running net (received minus paid), kept in the same transaction as the
-- ledger rows it sums: a balance is starting chips + net, and the chips leaderboard reads it
-- through an index instead of summing the whole ledger.
CREATE TABLE accounts (
    guild_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    net      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;

CREATE INDEX accounts_by_net ON accounts (guild_id, net);

-- One row per player per posted settlement: what the statistics and leaderboards count.
-- kind copies the settlement's, so hands (hand, manual) are told from washing and penalties.
CREATE TABLE player_results (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    settlement_id INTEGER NOT NULL REFERENCES settlements (id),
    kind          TEXT    NOT NULL,
    table_id      INTEGER,
    hand_no       INTEGER,
    won           INTEGER NOT NULL DEFAULT 0 CHECK (won IN (0, 1)),
    score         INTEGER NOT NULL DEFAULT 0,
    net           INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    UNIQUE (settlement_id, user_id)
);

CREATE INDEX player_results_by_user
    ON player_results (guild_id, user_id, created_at, kind, won, score, net);

CREATE INDEX player_results_by_time
    ON player_results (guild_id, created_at, user_id, kind, won, score, net);

-- The last display name seen for a player, the fallback when the member cannot be looked up.
CREATE TABLE player_names (
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;
