"""SQLite persistence: the schema, its migrations and the repositories (aiosqlite, WAL)."""
