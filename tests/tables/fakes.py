"""In-memory stand-ins for the store, the ledger and the notifier, to test TableService alone."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.service.tables import LiveTable


class MemoryStore:
    """Keeps tables and their event logs as the SQLite repository would (for service tests)."""

    def __init__(self) -> None:
        self.rows: dict[int, dict[str, Any]] = {}
        self.events: dict[int, list[tuple[int, str, dict]]] = {}
        self.hands: dict[int, list[int]] = {}
        self.seats: dict[int, list[Any]] = {}

    async def create_table(self, table: LiveTable) -> int:
        table_id = len(self.rows) + 1
        self.rows[table_id] = {
            "id": table_id,
            "guild_id": table.guild_id,
            "channel_id": table.channel_id,
            "host_id": table.host_id,
            "ruleset": table.ruleset,
            "options": dict(table.options),
            "turn_seconds": table.turn_seconds,
            "claim_seconds": table.claim_seconds,
            "hands": table.hands,
            "sets": table.sets,
            "status": "lobby",
            "message_id": None,
        }
        self.events[table_id] = []
        self.hands[table_id] = []
        return table_id

    async def append_event(self, table_id: int, seq: int, kind: str, payload: dict) -> None:
        await asyncio.sleep(0)  # a real write lets other tasks run meanwhile
        log = self.events[table_id]
        assert not log or log[-1][0] == seq - 1, "events must be appended in order"
        log.append((seq, kind, dict(payload)))

    async def set_seats(self, table_id: int, seats: list[Any]) -> None:
        self.seats[table_id] = list(seats)

    async def set_status(self, table_id: int, status: str) -> None:
        self.rows[table_id]["status"] = status

    async def set_message(self, table_id: int, message_id: int | None) -> None:
        self.rows[table_id]["message_id"] = message_id

    async def open_tables(self) -> list[tuple[dict[str, Any], list[tuple[str, dict]]]]:
        out = []
        for table_id, row in self.rows.items():
            if row["status"] in ("lobby", "playing"):
                full = dict(row, hands_recorded=len(self.hands[table_id]))
                out.append((full, [(kind, payload) for _, kind, payload in self.events[table_id]]))
        return out

    async def record_hand(self, table: LiveTable, result: Any) -> None:
        if result.number not in self.hands[table.id]:
            self.hands[table.id].append(result.number)


class MemoryLedger:
    def __init__(self) -> None:
        self.posted: dict[str, list[tuple[int, int, int]]] = {}

    async def post_settlement(self, guild_id: int, kind: str, payments, *, source_key: str, **kw):
        assert sum(0 for _ in payments) >= 0
        self.posted.setdefault(source_key, list(payments))
        return source_key

    def balance(self, user_id: int) -> int:
        total = 0
        for payments in self.posted.values():
            for payer, payee, amount in payments:
                total += amount if payee == user_id else -amount if payer == user_id else 0
        return total


class RecordingNotifier:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.changed = asyncio.Event()

    async def lobby_changed(self, table: LiveTable) -> None:
        self.calls.append(("lobby", table.id))

    async def table_changed(self, table: LiveTable, line: str) -> None:
        self.calls.append(("table", line))
        self.changed.set()

    async def table_notice(self, table: LiveTable, line: str) -> None:
        self.calls.append(("notice", line))

    async def hand_changed(self, table: LiveTable, seat: int) -> None:
        self.calls.append(("hand", seat))

    async def hand_finished(self, table: LiveTable, result: Any) -> None:
        self.calls.append(("finished", result.number))

    async def game_finished(self, table: LiveTable) -> None:
        self.calls.append(("game", table.id))


class Settings:
    async def get(self, guild_id: int) -> Any:
        return None
