"""In-memory stand-ins for the store, the ledger and the notifier, to test TableService alone."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from bot.service.guild_settings import GuildSettings
from bot.service.tables import LiveTable
from bot.store.tables_repo import ChannelBusy


class MemoryStore:
    """Keeps tables and their event logs as the SQLite repository would (for service tests)."""

    def __init__(self) -> None:
        self.rows: dict[int, dict[str, Any]] = {}
        self.events: dict[int, list[tuple[int, str, dict]]] = {}
        self.hands: dict[int, list[int]] = {}
        self.seats: dict[int, list[Any]] = {}
        self.full = False  # set: every write fails as on a full disk

    async def create_table(self, table: LiveTable) -> int:
        self.check_writable()
        if table.home_channel_id is None and self.holds(table.channel_id):
            raise ChannelBusy(f"channel {table.channel_id} already has an open table")
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
            "home_channel_id": table.home_channel_id,
            "summary_message_id": None,
            "hints": table.hints,
            "paused": False,
            "pause_reason": "",
            "created_at": table.created_at,
        }
        self.events[table_id] = []
        self.hands[table_id] = []
        return table_id

    def check_writable(self) -> None:
        """A full disk or a read-only file, as the real store would raise it."""
        if self.full:
            raise sqlite3.OperationalError("database or disk is full")

    def holds(self, channel_id: int, but: int | None = None) -> bool:
        """Whether an open table (not one waiting for its thread) plays in the channel."""
        return any(
            row["channel_id"] == channel_id
            and row["status"] in ("lobby", "playing")
            and row["home_channel_id"] != channel_id
            and table_id != but
            for table_id, row in self.rows.items()
        )

    async def append_event(self, table_id: int, seq: int, kind: str, payload: dict) -> None:
        await asyncio.sleep(0)  # a real write lets other tasks run meanwhile
        self.check_writable()
        log = self.events[table_id]
        assert not log or log[-1][0] == seq - 1, "events must be appended in order"
        log.append((seq, kind, dict(payload)))

    async def set_seats(self, table_id: int, seats: list[Any]) -> None:
        self.seats[table_id] = list(seats)

    async def set_status(self, table_id: int, status: str) -> None:
        self.check_writable()
        self.rows[table_id]["status"] = status

    async def set_message(self, table_id: int, message_id: int | None) -> None:
        self.rows[table_id]["message_id"] = message_id

    async def set_summary_message(self, table_id: int, message_id: int | None) -> None:
        self.rows[table_id]["summary_message_id"] = message_id

    async def set_place(self, table_id: int, channel_id: int, home_channel_id: int | None) -> None:
        self.check_writable()
        if home_channel_id != channel_id and self.holds(channel_id, but=table_id):
            raise ChannelBusy(f"channel {channel_id} already has an open table")
        self.rows[table_id]["channel_id"] = channel_id
        self.rows[table_id]["home_channel_id"] = home_channel_id

    async def set_paused(self, table_id: int, paused: bool, reason: str) -> None:
        self.rows[table_id]["paused"] = paused
        self.rows[table_id]["pause_reason"] = reason

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

    async def table_closed(self, table: LiveTable, reason: str) -> None:
        self.calls.append(("closed", reason))

    async def table_paused(self, table: LiveTable, missing: list[str]) -> None:
        self.calls.append(("paused", tuple(missing)))

    async def table_resumed(self, table: LiveTable) -> None:
        self.calls.append(("resumed", table.id))

    def of(self, kind: str) -> list[Any]:
        """The arguments of every call of one kind, in order."""
        return [arg for name, arg in self.calls if name == kind]


class MemoryMembers:
    """Member settings as the repository keeps them."""

    def __init__(self) -> None:
        self.rows: dict[int, dict[str, bool]] = {}

    async def all_member_settings(self) -> dict[int, dict[str, bool]]:
        return {user: dict(values) for user, values in self.rows.items()}

    async def save_member_settings(self, user_id: int, values: dict[str, bool]) -> None:
        self.rows[user_id] = dict(values)


class Settings:
    """Server settings: the defaults, or the values a test gives."""

    def __init__(self, **values: Any) -> None:
        self.values = values

    async def get(self, guild_id: int) -> Any:
        return GuildSettings(guild_id, **self.values)
