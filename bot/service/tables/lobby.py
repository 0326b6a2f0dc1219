"""A table's lobby: opening it (with the server's caps), joining, leaving, computer players,
"Play again", cancelling, and the Start that deals the first hand.

A mixin of :class:`~bot.service.tables.service.TableService` (which holds the tables, the
event log and the notifier); the checks that need the database when several processes share
it (caps, seats) are :mod:`bot.service.tables.ownership`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from bot.i18n import N_
from bot.rules.rulesets import get_ruleset
from bot.service.tables.events import describe_seating, new_state
from bot.service.tables.model import LiveTable, Player, TableError, WriteFailed
from bot.store.tables_repo import CapReached, ChannelBusy

if TYPE_CHECKING:
    from bot.service.tables.ports import TableNotifier, TableStore

log = logging.getLogger("bot.service.tables")

CHANNEL_BUSY = N_(
    "This channel already has a table. Finish it (or /mahjong end) first, or open one in "
    "another channel or thread."
)
WRITE_FAILED = (
    "I could not save that: the bot's database refused the write (it may be full or "
    "read-only). Nothing changed; the table carries on by itself once writes work again."
)
PLACE_WAIT = 5.0  # seconds a Start waits for the table's thread being opened
# Caps when a server set none (``/mahjong config``): open lobbies and tables at once.
DEFAULT_CAPS = {"member": 3, "channel": 10, "guild": 50}
HINT_WORDS = {"on": True, "off": False, "yes": True, "no": False, "true": True, "false": False}


class TableLobby:
    """See the module's docstring."""

    tables: dict[int, LiveTable]
    by_channel: dict[int, int]
    finished: dict[int, LiveTable]
    notifier: TableNotifier | None
    store: TableStore
    guild_settings: Any
    ownership: Any
    clock: Callable[[], float]
    place_wait: float

    if TYPE_CHECKING:  # the service's and the other mixins' (no stubs: they would shadow them)

        async def _record(self, table: LiveTable, kind: str, payload: dict[str, Any]) -> None: ...
        async def _save_seats(self, table: LiveTable) -> None: ...
        async def _close(self, table: LiveTable, status: str, reason: str = "") -> None: ...
        async def _notify_all(self, table: LiveTable, line: str) -> None: ...
        def _kick(self, table: LiveTable) -> None: ...
        def get(self, table_id: int) -> LiveTable: ...
        def in_channel(self, channel_id: int) -> LiveTable | None: ...
        def tables_of_user(self, user_id: int) -> list[LiveTable]: ...
        def tables_in(self, channel_id: int) -> list[LiveTable]: ...
        def tables_of_guild(self, guild_id: int) -> list[LiveTable]: ...
        async def _set_expiry(self, table: LiveTable) -> None: ...
        def _fence(self, table_id: int) -> dict[str, Any]: ...
        async def _create(self, table: LiveTable, host_name: str, caps: dict[str, int]) -> int: ...
        async def _seat_capped(
            self, table: LiveTable, user_id: int, name: str, cap: int
        ) -> None: ...
        async def _unseat_capped(self, table: LiveTable) -> None: ...
        async def _finished_elsewhere(self, table_id: int) -> LiveTable | None: ...

    async def open_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_name: str,
        ruleset: str,
        options: dict[str, Any],
        computer_players: int,
        turn_seconds: int,
        claim_seconds: int,
        hands: int | None,
        sets: int | None = None,
        thread: bool = False,
    ) -> LiveTable:
        """A new table in its lobby, the host seated. ``thread``: it will play in a thread of
        its own opened from its lobby message in ``channel_id`` (see ``place_in_thread``);
        otherwise it plays in ``channel_id`` itself, one such table per channel or thread.
        ``options`` may hold ``hints=off`` besides the rule set's options."""
        if not thread and self.in_channel(channel_id) is not None:
            raise TableError(CHANNEL_BUSY)
        if hands and sets:
            raise TableError(N_("Choose a number of hands or of sets, not both."))
        chosen = dict(options)
        hints = _hints_option(chosen.pop("hints", True))
        rules = get_ruleset(ruleset)
        resolved = dict(rules.options(chosen))
        if not 0 <= computer_players <= 3:
            raise TableError(N_("computer_players is 0 to 3."))
        caps = await self.caps(guild_id)
        if self.ownership is None:  # one process: its tables are all the open tables
            self._check_caps(guild_id, channel_id, host_id, caps)
        table = LiveTable(
            id=0,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            ruleset=rules.name,
            options=resolved,
            turn_seconds=turn_seconds,
            claim_seconds=claim_seconds,
            hands=hands,
            sets=sets,
            home_channel_id=channel_id if thread else None,
            hints=hints,
            created_at=self.clock(),
        )
        try:
            table.id = await self._create(table, host_name, caps)
        except CapReached as exc:  # counted by the database (several processes)
            raise TableError(cap_refusal(exc.kind, exc.count, exc.cap)) from None
        except ChannelBusy:  # another /mahjong new here at the same moment came first
            raise TableError(CHANNEL_BUSY) from None
        except Exception as exc:
            log.warning("could not create a table in %s (%s)", channel_id, exc)
            raise WriteFailed(WRITE_FAILED) from exc
        self.tables[table.id] = table
        if not thread:
            self.by_channel[channel_id] = table.id
            table.placed.set()
        await self._set_expiry(table)
        async with table.lock:
            await self._join(table, host_id, host_name)
            for _ in range(computer_players):
                await self._add_computer(table)
        return table

    def _check_caps(
        self, guild_id: int, channel_id: int, user_id: int, caps: dict[str, int]
    ) -> None:
        """Refuse one table too many for the member, the channel or the server (counted in
        memory: one process; several count in the database, ``_create``)."""
        counts = {
            "member": len(self.tables_of_user(user_id)),
            "channel": len(self.tables_in(channel_id)),
            "guild": len(self.tables_of_guild(guild_id)),
        }
        for kind, count in counts.items():
            if count >= caps[kind]:
                raise TableError(cap_refusal(kind, count, caps[kind]))

    async def caps(self, guild_id: int) -> dict[str, int]:
        """The server's caps on open tables: per member, per channel, per server."""
        settings = await self._guild(guild_id)
        return {
            key: int(getattr(settings, f"max_tables_per_{key}", None) or default)
            for key, default in DEFAULT_CAPS.items()
        }

    async def _guild(self, guild_id: int) -> Any:
        if self.guild_settings is None:
            return None
        return await self.guild_settings.get(guild_id)

    async def rematch(self, table_id: int, user_id: int) -> LiveTable:
        """ "Play again" on a finished table: a new lobby in the same place with the same
        options and computer players; the members who sat there press Join again (a seat is
        never taken for someone who did not ask). The one who pressed is its host."""
        old = self.finished.get(table_id) or await self._finished_elsewhere(table_id)
        if old is None:
            raise TableError(N_("That table is still open, or too old to play again."))
        if not any(p.user_id == user_id for p in old.players) and user_id != old.host_id:
            raise TableError(N_("Only the players of that table can start it again."))
        name = next((p.name for p in old.players if p.user_id == user_id), "the host")
        home = old.home_channel_id
        options = dict(old.options)
        if not old.hints:
            options["hints"] = False
        return await self.open_table(
            guild_id=old.guild_id,
            channel_id=home if home is not None else old.channel_id,
            host_id=user_id,
            host_name=name,
            ruleset=old.ruleset,
            options=options,
            computer_players=sum(1 for p in old.players if p.computer),
            turn_seconds=old.turn_seconds,
            claim_seconds=old.claim_seconds,
            hands=old.hands,
            sets=old.sets,
            thread=home is not None,
        )

    async def _join(self, table: LiveTable, user_id: int | None, name: str) -> None:
        await self._record(table, "join", {"user_id": user_id, "name": name})
        table.players.append(Player(user_id, name))
        await self._save_seats(table)

    async def _add_computer(self, table: LiveTable) -> None:
        number = sum(1 for p in table.players if p.computer) + 1
        await self._join(table, None, f"Computer {number}")

    def _lobby(self, table_id: int) -> LiveTable:
        table = self.get(table_id)
        if table.status != "lobby":
            raise TableError(N_("This table has already started."))
        return table

    @contextlib.asynccontextmanager
    async def _in_lobby(self, table_id: int) -> AsyncIterator[LiveTable]:
        """The table, still in its lobby, under its lock: checked again once the lock is
        held, since a Start, Cancel or end pressed at the same moment may have come first."""
        table = self._lobby(table_id)
        async with table.lock:
            yield self._lobby(table_id)

    async def join(self, table_id: int, user_id: int, name: str) -> LiveTable:
        async with self._in_lobby(table_id) as table:
            if table.is_seated(user_id):
                raise TableError(N_("You are already at this table."))
            if len(table.players) >= 4:
                raise TableError(N_("The table is full."))
            caps = await self.caps(table.guild_id)
            mine = len(self.tables_of_user(user_id))
            try:
                if self.ownership is None and mine >= caps["member"]:
                    raise CapReached("member", mine, caps["member"])
                await self._seat_capped(table, user_id, name, caps["member"])
            except CapReached as exc:
                raise TableError(
                    f"You are already at {exc.cap} open tables, the most on this "
                    "server. Finish or leave one first."
                ) from None
            try:
                await self._join(table, user_id, name)
            except Exception:
                await self._unseat_capped(table)
                raise
        await self._lobby_changed(table)
        return table

    async def unjoin(self, table_id: int, user_id: int) -> LiveTable:
        async with self._in_lobby(table_id) as table:
            if not table.is_seated(user_id):
                raise TableError(N_("You are not at this table."))
            if user_id == table.host_id:
                raise TableError(N_("The host cannot leave the lobby; press Cancel instead."))
            await self._record(table, "unjoin", {"user_id": user_id})
            table.players = [p for p in table.players if p.user_id != user_id]
            await self._save_seats(table)
        await self._lobby_changed(table)
        return table

    async def add_computer(self, table_id: int, user_id: int) -> LiveTable:
        async with self._in_lobby(table_id) as table:
            if not table.is_seated(user_id):
                raise TableError(N_("Only players at the table can add a computer player."))
            if len(table.players) >= 4:
                raise TableError(N_("The table is full."))
            await self._add_computer(table)
        await self._lobby_changed(table)
        return table

    async def start_game(self, table_id: int, user_id: int, can_manage: bool) -> LiveTable:
        waiting = self._lobby(table_id)
        if waiting.thread_pending:  # its thread is being opened this very moment
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiting.placed.wait(), self.place_wait)
        async with self._in_lobby(table_id) as table:
            if user_id != table.host_id and not can_manage:
                raise TableError(N_("Only the host (or someone with Manage Server) can start."))
            if len(table.players) < 2:
                raise TableError(N_("A table needs at least two players (add a computer player)."))
            if table.thread_pending:
                raise TableError(N_("The table's thread is still being opened; try again."))
            seed = secrets.token_hex(16)
            table.seed = seed
            state = new_state(table)
            await self._record(table, "start", {"seed": seed})
            table.state = state
            table.status = "playing"
            await self.store.set_status(table.id, "playing", **self._fence(table.id))
            await self._save_seats(table)
        await self._notify_all(table, f"The game begins: {describe_seating(table, state)}")
        self._kick(table)
        return table

    def check_can_cancel(self, table_id: int, user_id: int, can_manage: bool) -> None:
        """Raise unless ``user_id`` may cancel the lobby (before asking them to confirm)."""
        self._lobby(table_id)
        if user_id != self.get(table_id).host_id and not can_manage:
            raise TableError(N_("Only the host (or someone with Manage Server) can cancel."))

    async def cancel(self, table_id: int, user_id: int, can_manage: bool) -> None:
        async with self._in_lobby(table_id) as table:
            if user_id != table.host_id and not can_manage:
                raise TableError(N_("Only the host (or someone with Manage Server) can cancel."))
            await self._close(table, "cancelled")
        if self.notifier is not None:
            await self.notifier.lobby_changed(table)

    async def _lobby_changed(self, table: LiveTable) -> None:
        if self.notifier is not None:
            await self.notifier.lobby_changed(table)


def cap_refusal(kind: str, count: int, cap: int) -> str:
    """Why a new table is refused: the member, the channel or the server ("guild") has
    ``count`` open tables and may have ``cap``."""
    if kind == "member":
        return (
            f"You are already at {count} open tables (the most on this server is {cap}). "
            "Finish or leave one first."
        )
    if kind == "channel":
        return (
            f"This channel already has {count} open tables (the most is {cap}). "
            "Join one of them, or open a table in another channel."
        )
    return (
        f"This server already has {count} open tables (the most is {cap}). "
        "Join one of them, or try again when one has finished."
    )


def _hints_option(value: Any) -> bool:
    """``hints=on|off`` (a table option that is not the rule set's: the words beside a hand)."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word not in HINT_WORDS:
        raise TableError(N_("hints is on or off."))
    return HINT_WORDS[word]
