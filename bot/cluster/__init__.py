"""Several bot processes on one PostgreSQL database (issue 15, docs/scaling.md): which process
runs each table (``ownership``; the table service's side is bot/service/tables/ownership.py),
and presses for a table another process runs handed over to it (``forwarding``)."""
