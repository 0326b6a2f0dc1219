"""The table service: every server's tables from the lobby to the final standings.

``model`` (what a table is), ``ports`` (the store and notifier it needs), ``events`` (the
event log, pure), ``lobby`` (opening, joining and starting a table), ``timers`` (the table
moving on by itself), ``lifecycle`` (a table's place on Discord coming and going),
``ownership`` (which process runs it) and ``service`` (playing and closing). Import from here.
"""

from bot.service.tables.events import action_from_payload, action_of, action_payload, control_of
from bot.service.tables.lobby import CHANNEL_BUSY
from bot.service.tables.model import LiveTable, MemberSettings, Player, TableError
from bot.service.tables.ports import TableNotifier, TableStore
from bot.service.tables.service import TableService
from bot.service.tables.timers import MAX_TIMEOUTS

__all__ = [
    "CHANNEL_BUSY",
    "MAX_TIMEOUTS",
    "LiveTable",
    "MemberSettings",
    "Player",
    "TableError",
    "TableNotifier",
    "TableService",
    "TableStore",
    "action_from_payload",
    "action_of",
    "action_payload",
    "control_of",
]
