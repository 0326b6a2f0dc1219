-- Which process runs each open table (several bot processes on one database, issue 15).
-- A process owns a table while its lease has not expired and renews it by heartbeat. Every
-- change of owner adds one to generation, the fencing token: an event written under a lease
-- names the generation it holds, and the write is refused once another process has taken the
-- table over (see bot/store/leases_repo.py). Rows are never deleted while the table lives
-- (a release only expires the lease), so a generation is never handed out twice.
-- Times are milliseconds since the epoch (a lease lasts seconds).
CREATE TABLE table_leases (
    table_id   BIGINT  PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
    owner      TEXT    NOT NULL,
    generation BIGINT  NOT NULL CHECK (generation >= 1),
    expires_at BIGINT  NOT NULL,
    last_seq   BIGINT  NOT NULL DEFAULT 0
);

CREATE INDEX table_leases_by_owner ON table_leases (owner, expires_at);
