-- A table may be played for a number of sets (four rounds each) as well as a number of hands;
-- NULL with hands_planned NULL means one set, as before.
ALTER TABLE tables ADD COLUMN sets_planned INTEGER
    CHECK (sets_planned IS NULL OR sets_planned > 0);
