"""The closed tables the notifier has let go of (``DiscordTableNotifier._release``).

Work for a table that was already on its way when the table was let go (an update waiting for
its turn at Discord, a drawing in the pool) must not bring the table's state back: kept from
then on, a live DM or a picture's bytes would stay for the rest of the bot's life, one set a
game (the 1-hour soak's growing memory)."""

from __future__ import annotations

KEPT = 1024  # the newest closed tables remembered (an int each; older work has long ended)


class LetGo:
    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._ids: dict[int, None] = {}  # oldest first

    def add(self, table_id: int) -> None:
        self._ids[table_id] = None
        while len(self._ids) > self.kept:
            del self._ids[next(iter(self._ids))]

    def __contains__(self, table_id: object) -> bool:
        return table_id in self._ids
