-- Skill ratings per server (issue 13.2), from the finished games of members. The model is
-- OpenSkill's Plackett-Luce (bot/service/ratings.py, docs/ratings.md): each member has a
-- skill estimate mu and its uncertainty sigma. Computer players have no rating and do not
-- count. games counts the rated games (a rating is provisional for the first few).
CREATE TABLE ratings (
    guild_id   BIGINT  NOT NULL,
    user_id    BIGINT  NOT NULL,
    mu         DOUBLE PRECISION NOT NULL,
    sigma      DOUBLE PRECISION NOT NULL CHECK (sigma > 0),
    games      BIGINT  NOT NULL DEFAULT 0 CHECK (games >= 0),
    updated_at BIGINT  NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

CREATE INDEX ratings_by_mu ON ratings (guild_id, mu);

-- Every finished table considered for ratings, once: the row is written in the same
-- transaction as the ratings it changes, so a restart (or a kill between two writes) can
-- never rate a game twice. A game with fewer than two members is recorded here and changes
-- nothing.
CREATE TABLE rated_games (
    table_id BIGINT  PRIMARY KEY,
    guild_id BIGINT  NOT NULL,
    members  BIGINT  NOT NULL CHECK (members >= 0),
    rated_at BIGINT  NOT NULL
);

-- What one game did to each member's rating: their place (1 first, ties share a place),
-- their chips won or lost at that table, and the rating before and after.
CREATE TABLE rating_changes (
    table_id     BIGINT  NOT NULL REFERENCES rated_games (table_id),
    guild_id     BIGINT  NOT NULL,
    user_id      BIGINT  NOT NULL,
    place        BIGINT  NOT NULL CHECK (place BETWEEN 1 AND 4),
    net          BIGINT  NOT NULL,
    mu_before    DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after     DOUBLE PRECISION NOT NULL,
    sigma_after  DOUBLE PRECISION NOT NULL,
    games_after  BIGINT  NOT NULL CHECK (games_after >= 1),
    created_at   BIGINT  NOT NULL,
    PRIMARY KEY (table_id, user_id)
);

CREATE INDEX rating_changes_by_user ON rating_changes (guild_id, user_id, created_at)
