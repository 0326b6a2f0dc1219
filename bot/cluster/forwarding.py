"""Presses for a table another process runs, handed over to that process (issue 15; the
design is in docs/scaling.md, "Presses for a table another process runs").

Discord sends every press in a DM to shard 0's process, and a server's presses to the process
of its shard, while the table may run anywhere. A process that receives a press for a table it
does not run:

1. acknowledges the interaction at once (a deferred update, or a deferred private answer for
   "My hand"), so Discord's 3 s never run out while the press travels;
2. sends it to the table's owner with PostgreSQL ``NOTIFY`` on that process's own channel
   (``mj_press_<owner hash>``): the interaction's id, token and the few fields the handler
   reads (user, message, custom id), well under NOTIFY's 8,000 bytes;
3. waits for the owner's "working" (it got it) and then "done" (it answered). No word within
   3 s, or an owner whose lease expired meanwhile: the press goes to whoever runs the table now,
   or is run here after claiming the table if nobody does. So a press survives the death of the
   owner that was handling it.

Slash commands about one table (``/mahjong hand``, ``table``, ``leave``, ``end``, ``verify``)
travel the same way: the receiving process finds the table in the database (the one in the
channel, else the member's only one), and the command is run by the table's owner as the
control kind ``command``.

The owner rebuilds a ``discord.Interaction`` from those fields, marks it as already answered
(its response methods go through the interaction's token: ``defer`` does nothing,
``send_message`` is a follow-up, ``edit_message`` edits the original), and runs the very
handler a local press runs: the service's checks, the event log's ``(table, seq)`` and the
move number decide, and the player gets the same answers as today (their DM updated in place,
a refusal in private). The token lives 15 minutes, so an answer may come from any process.
A press delivered twice (a resend while the first was on its way) is run once per process, and
the move number refuses a repeat anywhere else.

Why NOTIFY rather than applying the press here under a row lock: the table's state, timers and
computer players live in its owner's memory; a second process applying a move would have to
rebuild the table from its events for every press and then the owner would have to re-read it,
with both racing on the log. Handing the press over keeps one writer per table, which is what
the leases and their fencing are for.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

log = logging.getLogger(__name__)

Handler = Callable[[discord.Interaction, dict[str, str]], Awaitable[None]]

ACK_WAIT = 3.0  # seconds for the owner to say it got a press before it is sent elsewhere
WORK_CHECK = 5.0  # while the owner works on it: how often to check it is still the owner
LEASED_WAIT = 5.0  # seconds for a lease the database gives this process to reach its keeper
GIVE_UP = 14 * 60.0  # the interaction's token lasts 15 minutes: no answer can come after
HANDLED_KEPT = 2000  # interaction ids remembered, so a resent press is run once


#: Every process listens here for members' settings saved by another (``/mahjong settings``
#: reaches the process of the member's server; their tables may run anywhere).
MEMBERS_CHANNEL = "mj_member_settings"
#: Every process listens here for gateway events that end tables (a channel deleted, the bot
#: removed from a server): they reach the process of the server's shard only.
EVENTS_CHANNEL = "mj_gateway_events"


def channel_of(owner: str) -> str:
    """The NOTIFY channel of a process (an identifier of at most 63 bytes)."""
    return "mj_press_" + hashlib.sha1(owner.encode()).hexdigest()[:24]


# -- an interaction, as sent and rebuilt ---------------------------------------------------------


def _user(user: discord.abc.User) -> dict[str, Any]:
    return {
        "id": str(user.id),
        "username": user.name,
        "discriminator": getattr(user, "discriminator", "0") or "0",
        "global_name": getattr(user, "global_name", None),
        "avatar": None,
        "bot": bool(getattr(user, "bot", False)),
    }


def press_payload(interaction: discord.Interaction) -> dict[str, Any]:
    """What the owner needs to run ``interaction``'s handler and answer it: its id and token,
    the custom id, the user (with their server permissions and nickname), the message clicked
    (id and flags: whether it is a private "My hand")."""
    channel = interaction.channel
    channel_id = interaction.channel_id or getattr(channel, "id", 0)
    raw_channel: dict[str, Any] = {"id": str(channel_id), "type": 0, "name": "", "position": 0}
    if isinstance(channel, discord.DMChannel) or interaction.guild_id is None:
        raw_channel = {"id": str(channel_id), "type": 1, "recipients": [_user(interaction.user)]}
    elif channel is not None:
        raw_channel["type"] = getattr(getattr(channel, "type", None), "value", 0)
        raw_channel["name"] = getattr(channel, "name", "") or ""
        raw_channel["guild_id"] = str(interaction.guild_id)
        parent = getattr(channel, "parent_id", None)
        if parent is not None:  # a thread (a table's own): the fields discord.py requires
            raw_channel["parent_id"] = str(parent)
            raw_channel["owner_id"] = str(getattr(channel, "owner_id", None) or 0)
            raw_channel["message_count"] = getattr(channel, "message_count", 0) or 0
            raw_channel["member_count"] = getattr(channel, "member_count", 0) or 0
            raw_channel["thread_metadata"] = {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": "2020-01-01T00:00:00+00:00",
                "locked": False,
            }
    data: dict[str, Any] = {
        "id": str(interaction.id),
        "application_id": str(interaction.application_id),
        "type": interaction.type.value,
        "token": interaction.token,
        "version": 1,
        "data": interaction.data,
        "channel": raw_channel,
        "channel_id": str(channel_id),
        "attachment_size_limit": interaction.filesize_limit,
        "app_permissions": str(interaction.app_permissions.value),
        "locale": str(interaction.locale),
    }
    if interaction.guild_id is not None:
        data["guild_id"] = str(interaction.guild_id)
        data["member"] = {
            "user": _user(interaction.user),
            "roles": [],
            "flags": 0,
            "nick": getattr(interaction.user, "nick", None),
            "joined_at": None,
            "permissions": str(interaction.permissions.value),
        }
    else:
        data["user"] = _user(interaction.user)
    message = interaction.message
    if message is not None:
        data["message"] = {
            "id": str(message.id),
            "channel_id": str(message.channel.id if message.channel else channel_id),
            "type": 0,
            "content": "",
            "flags": message.flags.value,
            "attachments": [],
            "embeds": [],
            "components": [],
            "author": _user(message.author),
        }
    return data


class ForwardedResponse(discord.InteractionResponse):
    """The response of a press another process already acknowledged: whatever the handler
    asks of it goes through the interaction's token."""

    def __init__(self, parent: discord.Interaction, acknowledged: discord.InteractionResponseType):
        super().__init__(parent)
        self._response_type = acknowledged

    async def defer(self, *, ephemeral: bool = False, thinking: bool = False) -> None:
        return None

    async def send_message(self, content: Any = None, **kwargs: Any) -> None:  # type: ignore[override]
        kwargs.pop("delete_after", None)
        if content is not None:
            kwargs["content"] = content
        await self._parent.followup.send(**kwargs)

    async def edit_message(self, **kwargs: Any) -> None:  # type: ignore[override]
        kwargs.pop("delete_after", None)
        await self._parent.edit_original_response(**kwargs)


def rebuild(state: Any, payload: dict[str, Any], acknowledged: int) -> discord.Interaction:
    """The interaction of ``payload`` in this process, already answered with ``acknowledged``
    (the response type the receiving process sent)."""
    interaction = discord.Interaction(data=payload, state=state)  # type: ignore[arg-type]
    kind = discord.InteractionResponseType(acknowledged)
    interaction._cs_response = ForwardedResponse(interaction, kind)  # type: ignore[attr-defined]
    return interaction


def acknowledgement(kind: str, groups: dict[str, str]) -> tuple[bool, bool]:
    """How the receiving process acknowledges a press it hands over, as ``(ephemeral,
    thinking)`` for ``defer``: "My hand" answers with a new private message (a deferred private
    answer), and so does a slash command (``/mahjong end``'s answer is public); every other
    control updates the message it is on, or answers privately in a follow-up (a deferred
    update)."""
    if kind == "seat" and groups.get("verb") == "hand":
        return True, True
    if kind == "command":  # a slash command: its answer is a new message
        return groups.get("verb") != "end", True
    return False, False


# -- the hand-over ---------------------------------------------------------------------------------


@dataclass
class _Waiting:
    """A press this process handed over, until its owner says it answered it."""

    heard: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)


class PressForwarder:
    """Hands presses to the process running their table, and runs the presses handed to this
    one. ``install`` wraps the table controls' handlers (``cogs.controls.HANDLERS``)."""

    def __init__(self, bot: Any, db: Any, ownership: Any) -> None:
        self.bot = bot
        self.db = db
        self.ownership = ownership
        self.channel = channel_of(ownership.owner)
        self.handlers: dict[str, Handler] = {}  # the cog's own handlers, by control kind
        self._conn: Any = None
        self._waiting: dict[int, _Waiting] = {}
        self._handled: OrderedDict[int, bool] = OrderedDict()  # id -> finished
        self._tasks: set[asyncio.Task[Any]] = set()
        self.counts = {"forwarded": 0, "received": 0, "resent": 0, "run_here": 0}

    # -- set-up ------------------------------------------------------------------------------------
    def install(self, handlers: dict[str, Handler]) -> None:
        """Route the table controls through this forwarder (lobby, move and seat buttons) and
        the slash commands about one table (``command``: ``/mahjong hand``, ``table``,
        ``leave``, ``end``, ``verify``; ``cogs/table.py`` ``on_command``)."""
        for kind in ("lobby", "move", "seat", "command"):
            original = handlers.get(kind)
            if original is None or kind in self.handlers:
                continue
            self.handlers[kind] = original
            handlers[kind] = self._routing(kind)

    def _routing(self, kind: str) -> Handler:
        async def route(interaction: discord.Interaction, groups: dict[str, str]) -> None:
            await self.route(kind, interaction, groups)

        return route

    async def start(self) -> None:
        """Listen on this process's channel (a connection of its own: LISTEN holds it)."""
        import asyncpg

        self._conn = await asyncpg.connect(self.db.target)
        await self._conn.add_listener(self.channel, self._notified)
        await self._conn.add_listener(MEMBERS_CHANNEL, self._member_settings)
        await self._conn.add_listener(EVENTS_CHANNEL, self._gateway_event)
        if self._service is not None:
            self._service.share_members = self.share_member_settings
            self._service.share_event = self.share_gateway_event

    async def share_gateway_event(self, name: str, args: list[int]) -> None:
        """Tell the other processes a gateway event that ends tables."""
        await self._notify(
            EVENTS_CHANNEL, {"from": self.ownership.owner, "event": name, "args": args}
        )

    def _gateway_event(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        try:
            message = json.loads(payload)
            sender, name, args = str(message["from"]), str(message["event"]), message["args"]
        except (ValueError, KeyError, TypeError):
            log.warning("a malformed message on %s", channel)
            return
        if sender == self.ownership.owner or self._service is None:
            return  # this process applied it already
        self._spawn(self._service.gateway_event_relayed(name, list(args)), f"event-{name}")

    async def share_member_settings(self, user_id: int, values: dict[str, bool]) -> None:
        """Tell every process a member's settings (this one included: it ignores nothing)."""
        await self._notify(MEMBERS_CHANNEL, {"user": user_id, "settings": values})

    def _member_settings(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        try:
            message = json.loads(payload)
            user, values = int(message["user"]), dict(message["settings"])
        except (ValueError, KeyError, TypeError):
            log.warning("a malformed message on %s", channel)
            return
        if self._service is not None:
            self._service.member_settings_shared(user, values)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()
            self._conn = None

    # -- a press here --------------------------------------------------------------------------
    async def route(
        self,
        kind: str,
        interaction: discord.Interaction,
        groups: dict[str, str],
    ) -> None:
        """Run the press here if this process runs its table (or nobody does: claim it), hand
        it to the table's owner otherwise."""
        table_id = int(groups["table"])
        owner = await self._runner_of(table_id)
        if owner is None:
            await self._run(kind, interaction, groups)
            return
        if not interaction.response.is_done():
            ephemeral, thinking = acknowledgement(kind, groups)
            await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
        message = {
            "op": "press",
            "id": interaction.id,
            "reply_to": self.channel,
            "kind": kind,
            "groups": groups,
            "ack": interaction.response.type.value if interaction.response.type else 6,
            "interaction": press_payload(interaction),
        }
        self.counts["forwarded"] += 1
        await self._deliver(table_id, owner, message, interaction)

    async def _runner_of(self, table_id: int) -> str | None:
        """Who runs the table, None for this process (it runs it, or just claimed it, or the
        table is closed: its own handler answers that)."""
        if self.ownership.owns(table_id):
            await self._ready_here(table_id)
            return None
        if table_id in getattr(self._service, "finished", {}):
            return None
        owner = await self.ownership.owner_of(table_id)
        if owner is None and not await self._is_open(table_id):
            return None  # closed and given up: its handler answers (Play again, "closed")
        if owner is None and await self.ownership.claim(table_id):
            return None
        owner = owner or await self.ownership.owner_of(table_id)
        if owner == self.ownership.owner:
            # The database names this process while its heartbeat's claim is still on its way
            # from the database to the lease keeper (another process saw the new lease and
            # handed the press here): the table is about to be adopted here, not closed (CI
            # run 22: members told "That table is closed" during a takeover).
            await self._leased_here(table_id)
            await self._ready_here(table_id)
            return None
        return owner

    async def _leased_here(self, table_id: int) -> None:
        """Wait (a few seconds at most) until this process's lease keeper holds the table."""
        for _ in range(int(LEASED_WAIT / 0.01)):
            if self.ownership.owns(table_id):
                return
            await asyncio.sleep(0.01)

    async def _ready_here(self, table_id: int) -> None:
        """The table this process leases, in memory: wait while it is being adopted, and read
        it now if its adoption failed (say the database was slow), rather than tell the
        member it closed."""
        await self.ownership.adopted(table_id)
        service = self._service
        if service is None or service.holds(table_id) or not self.ownership.owns(table_id):
            return
        try:
            await service.adopt(table_id)
        except Exception as exc:  # its handler answers; the heartbeat tries again
            log.warning("table %s: could not read it for a press (%s)", table_id, exc)

    async def _is_open(self, table_id: int) -> bool:
        """Whether the table is in its lobby or playing: only such a table is claimed for a
        press (claiming a closed one would show its end again; the heartbeat alone takes a
        closed table whose process died before giving it up)."""
        service = self._service
        if service is None:
            return True
        row = await service.store.get(table_id)
        return row is not None and row["status"] in ("lobby", "playing")

    @property
    def _service(self) -> Any:
        return getattr(self.ownership, "service", None)

    async def _run(
        self, kind: str, interaction: discord.Interaction, groups: dict[str, str]
    ) -> None:
        """The cog's own handler, with the same last resort as ``cogs.controls``: a press is
        always answered."""
        handler = self.handlers[kind]
        try:
            await handler(interaction, groups)
        except Exception:
            log.exception("button %s of table %s failed", kind, groups.get("table"))
            text = "Something went wrong with that button; try again, or use /mahjong hand."
            with contextlib.suppress(discord.HTTPException):
                if interaction.response.is_done():
                    await interaction.followup.send(text, ephemeral=True)
                else:
                    await interaction.response.send_message(text, ephemeral=True)

    async def _deliver(
        self, table_id: int, owner: str, message: dict[str, Any], interaction: Any
    ) -> None:
        """Send the press to ``owner`` until a process answered it; follow the table when its
        owner changes or dies; run it here if this process ends up running the table."""
        press_id = int(message["id"])
        waiting = self._waiting.setdefault(press_id, _Waiting())
        began = time.monotonic()
        try:
            while time.monotonic() - began < GIVE_UP:
                await self._notify(channel_of(owner), message)
                if await _wait(waiting.heard, ACK_WAIT):
                    while not await _wait(waiting.done, WORK_CHECK):
                        if await self.ownership.owner_of(table_id) != owner:
                            break  # it died or lost the table while working on the press
                    if waiting.done.is_set():
                        return
                self.counts["resent"] += 1
                waiting.heard.clear()
                now = await self._runner_of(table_id)
                if now is None:
                    self.counts["run_here"] += 1
                    kind, groups = message["kind"], message["groups"]
                    await self._run(kind, interaction, groups)
                    return
                owner = now
            log.warning("press %s for table %s was never answered", press_id, table_id)
        finally:
            self._waiting.pop(press_id, None)

    # -- a press from another process -------------------------------------------------------------
    def _notified(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        try:
            message = json.loads(payload)
        except ValueError:
            log.warning("a malformed message on %s", channel)
            return
        op = message.get("op")
        if op == "press":
            self._spawn(self._received(message), f"press-{message.get('id')}")
            return
        waiting = self._waiting.get(int(message.get("id", 0)))
        if waiting is not None:
            waiting.heard.set()
            if op == "done":
                waiting.done.set()

    async def _received(self, message: dict[str, Any]) -> None:
        press_id = int(message["id"])
        reply_to = str(message["reply_to"])
        finished = self._handled.get(press_id)
        if finished is not None:  # sent again while (or after) this process ran it
            await self._notify(reply_to, {"op": "done" if finished else "working", "id": press_id})
            return
        self._handled[press_id] = False
        while len(self._handled) > HANDLED_KEPT:
            self._handled.popitem(last=False)
        self.counts["received"] += 1
        await self._notify(reply_to, {"op": "working", "id": press_id})
        try:
            interaction = rebuild(self.bot._connection, message["interaction"], message["ack"])
            # The member's language, as a press received here teaches it (bot/app.py
            # on_interaction): this process writes their DMs.
            locales = getattr(self.bot, "member_locales", None)
            if locales is not None:
                await locales.remember(interaction.user.id, interaction.locale)
            await self.route(message["kind"], interaction, message["groups"])
        finally:
            self._handled[press_id] = True
            await self._notify(reply_to, {"op": "done", "id": press_id})

    async def _notify(self, channel: str, message: dict[str, Any]) -> None:
        try:
            await self.db.write("SELECT pg_notify(?, ?)", (channel, json.dumps(message)))
        except Exception as exc:  # the sender resends; the database may be restarting
            log.warning("could not send a press message to %s (%s)", channel, exc)

    def _spawn(self, coro: Awaitable[Any], name: str) -> None:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)

        def done(t: asyncio.Task[Any]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("forwarded press %s failed", name, exc_info=t.exception())

        task.add_done_callback(done)


async def _wait(event: asyncio.Event, seconds: float) -> bool:
    try:
        await asyncio.wait_for(event.wait(), seconds)
    except TimeoutError:
        return False
    return True


async def start_forwarding(bot: Any) -> PressForwarder | None:
    """On PostgreSQL (the services have an ownership): wrap the table controls' handlers and
    listen for presses handed to this process. None on SQLite (one process runs every table)."""
    ownership = getattr(bot.services, "ownership", None)
    if ownership is None:
        return None
    from cogs import controls

    forwarder = PressForwarder(bot, bot.db, ownership)
    forwarder.install(controls.HANDLERS)
    await forwarder.start()
    return forwarder
