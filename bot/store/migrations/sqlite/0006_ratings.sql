-- Skill ratings per server (issue 13.2), from the finished games of members. The model is
-- OpenSkill's Plackett-Luce (bot/service/ratings.py, docs/ratings.md): each member has a
-- skill estimate mu and its uncertainty sigma. Computer players have no rating and do not
-- count. games counts the rated games (a rating is provisional for the first few).
CREATE TABLE ratings (
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    mu         REAL    NOT NULL,
    sigma      REAL    NOT NULL CHECK (sigma > 0),
    games      INTEGER NOT NULL DEFAULT 0 CHECK (games >= 0),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

CREATE INDEX ratings_by_mu ON ratings (guild_id, mu);

-- Every finished table considered for ratings, once: the row is written in the same
-- transaction as the ratings it changes, so a restart (or a kill between two writes) can
-- never rate a game twice. A game with fewer than two members is recorded here and changes
-- nothing.
CREATE TABLE rated_games (
    table_id INTEGER PRIMARY KEY,
    guild_id INTEGER NOT NULL,
    members  INTEGER NOT NULL CHECK (members >= 0),
    rated_at INTEGER NOT NULL
);

-- What one game did to each member's rating: their place (1 first, ties share a place),
-- their chips won or lost at that table, and the rating before and after.
CREATE TABLE rating_changes (
    table_id     INTEGER NOT NULL REFERENCES rated_games (table_id),
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    place        INTEGER NOT NULL CHECK (place BETWEEN 1 AND 4),
    net          INTEGER NOT NULL,
    mu_before    REAL    NOT NULL,
    sigma_before REAL    NOT NULL,
    mu_after     REAL    NOT NULL,
    sigma_after  REAL    NOT NULL,
    games_after  INTEGER NOT NULL CHECK (games_after >= 1),
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (table_id, user_id)
);

CREATE INDEX rating_changes_by_user ON rating_changes (guild_id, user_id, created_at)
