-- Replay codes (issue 13): a finished hand is opened by the first characters of the SHA-256
-- of its table's seed and the hand's number, for example 3fa9c02b-2. The hash is written by
-- the replay service when it first rebuilds a table (the seed itself is only in the table's
-- start event), and looked up by server and prefix.
ALTER TABLE tables ADD COLUMN seed_hash TEXT;

CREATE INDEX tables_by_seed_hash ON tables (guild_id, seed_hash) WHERE seed_hash IS NOT NULL
