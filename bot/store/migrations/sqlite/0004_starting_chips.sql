-- The chips each member started with in a server, fixed when they first take part in a posted
-- settlement (a table's hand, a confirmed /settle). A balance is that amount plus the
-- member's net, so changing the server's starting chips applies to members who have not
-- played yet and never rewrites anyone's balance (issue 16). The double-entry ledger still
-- sums to zero: starting chips are what each member brings, not a movement between members.
CREATE TABLE starting_chips (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    amount      INTEGER NOT NULL CHECK (amount >= 0),
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;

-- Members who have already played keep what their balance showed when this was added: the
-- server's starting chips of that moment (1000 where the server never set them).
INSERT INTO starting_chips (guild_id, user_id, amount, recorded_at)
SELECT a.guild_id, a.user_id, COALESCE(g.starting_chips, 1000), CAST(strftime('%s', 'now') AS INTEGER)
FROM accounts a LEFT JOIN guild_settings g ON g.guild_id = a.guild_id
WHERE a.user_id > 0
