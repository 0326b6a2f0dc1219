"""Simulated Discord users: what a person can see and do in the client.

A ``FakeUser`` invokes slash commands from the command tree the bot synced, clicks buttons and
picks select options only on messages that user can actually see (and only custom ids the bot
really posted), fills in modals the bot opened, and reads the channel as that user (their own
ephemeral replies included, other people's excluded). Every interaction returns an
``InteractionHandle`` to wait for the bot's answer with a timeout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .commands import CommandError, build_command_data, resolve_channel, resolve_role, resolve_user
from .commands import Resolved as _Resolved
from .state import (
    ChannelRecord,
    InteractionRecord,
    MessageRecord,
    Perm,
    RoleRecord,
    UserRecord,
)

if TYPE_CHECKING:
    from .server import FakeDiscord

SELECT_TYPES = {
    3: "string select",
    5: "user select",
    6: "role select",
    7: "mentionable select",
    8: "channel select",
}


class InteractionHandle:
    """One interaction in flight: wait for the callback, the reply, follow-ups or a modal."""

    def __init__(self, server: FakeDiscord, record: InteractionRecord) -> None:
        self.server = server
        self.record = record

    def __repr__(self) -> str:
        rec = self.record
        return f"<InteractionHandle id={rec.id} type={rec.type} ack={rec.callback_type}>"

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def callback_type(self) -> int | None:
        """4 message, 5 deferred, 6 deferred update, 7 update, 8 autocomplete, 9 modal."""
        return self.record.callback_type

    def _what(self, goal: str) -> str:
        rec = self.record
        kind = {2: "slash command", 3: "component", 4: "autocomplete", 5: "modal submit"}
        return f"{goal} for {kind.get(rec.type, rec.type)} interaction {rec.id} by {rec.user.name}"

    async def ack(self, timeout: float = 5.0) -> int:
        """Wait until the bot answered the interaction callback; return the callback type."""
        return await self.server.wait_for(
            lambda: self.record.callback_type, timeout=timeout, what=self._what("a callback")
        )

    async def reply(self, timeout: float = 5.0) -> MessageRecord:
        """The response message once it has content.

        For a reply (type 4) that is the new message; for a defer (type 5) the "thinking"
        message after the bot filled it (edit of @original or first follow-up); for component
        updates (types 6/7) the component's message after the bot edited it.
        """
        rec = self.record

        def ready() -> MessageRecord | None:
            if rec.callback_type in (8, 9):
                raise AssertionError(
                    f"the bot answered interaction {rec.id} with callback type "
                    f"{rec.callback_type}, not a message (use .modal() / .choices())"
                )
            if rec.callback_type is None or rec.original_message_id is None:
                return None
            msg = self.server.state.messages[rec.original_message_id]
            if msg.loading:
                return None
            if rec.callback_type == 6 and not self.server.keep_history:
                raise AssertionError(
                    "reply() to a deferred update looks for the bot's edit in the message's "
                    "history, which this fake does not keep (forget_history)"
                )
            if rec.callback_type == 6 and not any(
                v.replaced_by_interaction_id == rec.id for v in msg.history
            ):
                return None
            return msg

        return await self.server.wait_for(ready, timeout=timeout, what=self._what("a reply"))

    async def followups(self, count: int = 1, timeout: float = 5.0) -> list[MessageRecord]:
        """Wait for at least `count` follow-up messages (not counting a filled defer)."""
        rec = self.record

        def ready() -> list[MessageRecord] | None:
            if len(rec.followup_ids) < count:
                return None
            return [self.server.state.messages[m] for m in rec.followup_ids]

        return await self.server.wait_for(
            ready, timeout=timeout, what=self._what(f"{count} follow-up(s)")
        )

    async def modal(self, timeout: float = 5.0) -> dict[str, Any]:
        """The modal the bot opened (callback type 9)."""
        return await self.server.wait_for(
            lambda: self.record.modal, timeout=timeout, what=self._what("a modal")
        )

    async def choices(self, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Autocomplete choices the bot returned (callback type 8)."""
        await self.server.wait_for(
            lambda: self.record.autocomplete_choices is not None,
            timeout=timeout,
            what=self._what("autocomplete choices"),
        )
        return list(self.record.autocomplete_choices or [])

    @property
    def messages(self) -> list[MessageRecord]:
        """Every message this interaction produced so far (original first)."""
        ids = [self.record.original_message_id, *self.record.followup_ids]
        return [self.server.state.messages[i] for i in ids if i is not None]


class FakeUser:
    """A person using Discord: acts through interactions, sees only what they may see."""

    def __init__(self, server: FakeDiscord, record: UserRecord) -> None:
        self.server = server
        self.record = record

    def __repr__(self) -> str:
        return f"<FakeUser {self.record.name} id={self.record.id}>"

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def mention(self) -> str:
        return self.record.mention

    # -- seeing ----------------------------------------------------------------------------------

    def dm(self) -> ChannelRecord:
        """This user's DM channel with the bot (opened if it does not exist yet)."""
        return self.server.dm_channel(self.record)

    def dm_messages(self) -> list[MessageRecord]:
        """Messages in this user's DMs with the bot."""
        channel = self.server.state.dm_channel(self.record, create=False)
        if channel is None:
            return []
        return self.server.state.visible_messages(channel, self.id)

    def messages(self, channel: Any) -> list[MessageRecord]:
        """What this user sees in a channel: everyone's messages plus their own ephemerals."""
        return self.server.channel_messages(channel, visible_to=self.record)

    def ephemeral_messages(self, channel: Any = None) -> list[MessageRecord]:
        """Ephemeral messages only this user can see (in one channel, or everywhere)."""
        channels = (
            [self.server.channel(channel)]
            if channel is not None
            else list(self.server.state.channels.values())
        )
        return [
            m for ch in channels for m in ch.messages if not m.deleted and m.visible_to == self.id
        ]

    def last_message(self, channel: Any) -> MessageRecord:
        """The newest message this user sees in a channel."""
        msgs = self.messages(channel)
        if not msgs:
            raise AssertionError(f"{self.name} sees no messages in that channel")
        return msgs[-1]

    async def wait_for_dm(self, count: int = 1, timeout: float = 5.0) -> list[MessageRecord]:
        """Wait until this user has at least `count` DM messages."""
        return await self.server.wait_for(
            lambda: len(self.dm_messages()) >= count and self.dm_messages(),
            timeout=timeout,
            what=f"{count} DM(s) to {self.name}",
        )

    # -- acting ----------------------------------------------------------------------------------

    def _channel(self, where: Any) -> ChannelRecord:
        channel = self.server.channel(where)
        if not self.server.state.can_see_channel(self.id, channel):
            raise AssertionError(f"{self.name} cannot see channel {channel.name or channel.id}")
        return channel

    async def slash(self, where: Any, command: str, /, **options: Any) -> InteractionHandle:
        """Invoke a synced slash command, e.g. ``slash(channel, "mahjong new", rules="x")``.

        `where` is a guild channel/thread or ``user.dm()``; option names with characters that
        are not valid Python identifiers can be passed as ``**{"tile-count": 3}``.
        """
        channel = self._channel(where)
        data = build_command_data(self.server, self.record, channel, command, options)
        rec = await self.server.start_interaction(
            user=self.record, channel=channel, type=2, data=data
        )
        return InteractionHandle(self.server, rec)

    async def autocomplete(
        self, where: Any, command: str, /, focused: str, **options: Any
    ) -> InteractionHandle:
        """Type into option `focused` (its partial value in `options`) and ask for choices."""
        channel = self._channel(where)
        if focused not in options:
            options[focused] = ""
        data = build_command_data(
            self.server, self.record, channel, command, options, focused=focused
        )
        rec = await self.server.start_interaction(
            user=self.record, channel=channel, type=4, data=data
        )
        return InteractionHandle(self.server, rec)

    def _visible_message(self, message: MessageRecord | int) -> tuple[MessageRecord, ChannelRecord]:
        msg = self.server.message(message)
        channel = self._channel(msg.channel_id)
        if msg.deleted:
            raise AssertionError(f"message {msg.id} was deleted; {self.name} cannot use it")
        if msg.visible_to is not None and msg.visible_to != self.id:
            raise AssertionError(f"message {msg.id} is ephemeral for someone else")
        return msg, channel

    def _component(self, msg: MessageRecord, custom_id: str, types: set[int]) -> dict[str, Any]:
        comp = msg.component(custom_id)
        if comp is None or comp.get("type") not in types:
            raise AssertionError(
                f"{self.name} sees no such component {custom_id!r} on message {msg.id}; "
                f"it has {msg.custom_ids()}"
            )
        if comp.get("disabled"):
            raise AssertionError(f"component {custom_id!r} on message {msg.id} is disabled")
        return comp

    async def click(self, message: MessageRecord | int, custom_id: str, /) -> InteractionHandle:
        """Click a button the bot posted on a message this user can see."""
        msg, channel = self._visible_message(message)
        self._component(msg, custom_id, {2})
        data = {"custom_id": custom_id, "component_type": 2}
        rec = await self.server.start_interaction(
            user=self.record, channel=channel, type=3, data=data, source_message=msg
        )
        return InteractionHandle(self.server, rec)

    async def select(
        self, message: MessageRecord | int, custom_id: str, values: list[Any], /
    ) -> InteractionHandle:
        """Pick values in a select menu (option values for string selects; users, roles or
        channels for the entity selects)."""
        msg, channel = self._visible_message(message)
        comp = self._component(msg, custom_id, set(SELECT_TYPES))
        ctype = comp["type"]
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise AssertionError(f"select {custom_id!r} takes {lo}-{hi} values, got {len(values)}")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype == 3:
            allowed = [o["value"] for o in comp.get("options") or []]
            bad = [v for v in values if v not in allowed]
            if bad:
                raise AssertionError(f"select {custom_id!r} has no options {bad}; it has {allowed}")
            data["values"] = list(values)
        else:
            resolved = _Resolved()
            data["values"] = [self._entity(channel, ctype, v, resolved) for v in values]
            data["resolved"] = resolved.payload()
        rec = await self.server.start_interaction(
            user=self.record, channel=channel, type=3, data=data, source_message=msg
        )
        return InteractionHandle(self.server, rec)

    def _entity(self, channel: ChannelRecord, ctype: int, value: Any, resolved: _Resolved) -> str:
        record = getattr(value, "record", value)
        if isinstance(record, UserRecord) and ctype in (5, 7):
            return resolve_user(self.server, channel, record, resolved)
        if isinstance(record, RoleRecord) and ctype in (6, 7):
            return resolve_role(record, resolved)
        if isinstance(record, ChannelRecord) and ctype == 8:
            return resolve_channel(self.server, self.record, record, resolved)
        raise AssertionError(f"{SELECT_TYPES[ctype]} cannot take {value!r}")

    async def submit_modal(
        self, handle: InteractionHandle, values: dict[str, Any], /
    ) -> InteractionHandle:
        """Fill in and submit the modal the bot opened in answer to `handle`.

        `values` maps text input custom ids to strings (select custom ids to lists).
        """
        modal = handle.record.modal
        if modal is None:
            raise AssertionError("the bot did not open a modal for that interaction")
        if handle.record.user.id != self.id:
            raise AssertionError("only the user who triggered a modal can submit it")
        remaining = dict(values)
        components = [self._modal_row(row, remaining) for row in modal.get("components") or []]
        if remaining:
            raise AssertionError(f"the modal has no inputs {sorted(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": components}
        source = (
            self.server.state.messages.get(handle.record.source_message_id)
            if handle.record.source_message_id
            else None
        )
        channel = self._channel(handle.record.channel_id)
        rec = await self.server.start_interaction(
            user=self.record,
            channel=channel,
            type=5,
            data=data,
            source_message=source,
            opened_by=handle.record,
        )
        return InteractionHandle(self.server, rec)

    def _modal_row(self, row: dict[str, Any], remaining: dict[str, Any]) -> dict[str, Any]:
        if row.get("type") == 1:
            return {
                "type": 1,
                "components": [
                    self._modal_input(c, remaining) for c in row.get("components") or []
                ],
            }
        if row.get("type") == 18:
            return {"type": 18, "component": self._modal_input(row["component"], remaining)}
        return {"type": row.get("type")}

    def _modal_input(self, comp: dict[str, Any], remaining: dict[str, Any]) -> dict[str, Any]:
        custom_id = comp.get("custom_id")
        out: dict[str, Any] = {"type": comp.get("type"), "custom_id": custom_id}
        if comp.get("type") == 4:
            value = remaining.pop(custom_id, comp.get("value") or "")
            if comp.get("required", True) and not value:
                raise AssertionError(f"modal input {custom_id!r} is required")
            lo, hi = comp.get("min_length", 0), comp.get("max_length", 4000)
            if value and not lo <= len(value) <= hi:
                raise AssertionError(f"modal input {custom_id!r} must be {lo}-{hi} characters")
            out["value"] = value
        elif comp.get("type") in SELECT_TYPES:
            out["values"] = [str(v) for v in remaining.pop(custom_id, [])]
        return out

    def threads(self, parent: Any) -> list[ChannelRecord]:
        """Threads under a channel this user can open (archived ones included, as the
        client lists them), oldest first."""
        return [
            t for t in self.server.threads(parent) if self.server.state.can_see_channel(self.id, t)
        ]

    async def say(self, where: Any, content: str) -> MessageRecord:
        """Post a plain message (the bot receives MESSAGE_CREATE, subject to intents).

        In a thread it needs Send Messages in Threads, and an archived thread is unarchived
        by it (a locked one refuses, unless the user has Manage Threads), as in the client.
        """
        channel = self._channel(where)
        if not content:
            raise CommandError("cannot send an empty message")
        if not channel.is_dm:
            perms = self.server.state.permissions_in(self.id, channel)
            need = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
            if channel.is_thread and channel.locked:
                need |= Perm.MANAGE_THREADS
            if perms & need != need:
                raise CommandError(f"{self.name} may not post in {channel.name}")
        return await self.server.create_message(
            channel, author=self.record, body={"content": content}, uploads={}
        )
