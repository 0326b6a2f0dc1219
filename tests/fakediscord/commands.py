"""Turns "/mahjong new rules:pung-chow" into the interaction data Discord would send.

A simulated user can only invoke what the bot really synced: the command is looked up in the
stored command tree (guild commands first, then global), subcommand groups are walked, and each
option is checked against its declared type, choices and limits, exactly as the Discord client
would refuse bad input. User, role, channel and attachment options get their `resolved` data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .state import (
    ALL_PERMISSIONS,
    AttachmentRecord,
    ChannelRecord,
    RoleRecord,
    UserRecord,
)

if TYPE_CHECKING:
    from .server import FakeDiscord

OPTION_TYPES = {
    1: "subcommand",
    2: "subcommand group",
    3: "string",
    4: "integer",
    5: "boolean",
    6: "user",
    7: "channel",
    8: "role",
    9: "mentionable",
    10: "number",
    11: "attachment",
}


@dataclass
class FileUpload:
    """A file a simulated user attaches to an attachment option."""

    filename: str
    data: bytes
    content_type: str = "application/octet-stream"


class CommandError(AssertionError):
    """The Discord client would not let the user send this command."""


@dataclass
class Resolved:
    """The `resolved` block of interaction data."""

    users: dict[str, Any] = field(default_factory=dict)
    members: dict[str, Any] = field(default_factory=dict)
    roles: dict[str, Any] = field(default_factory=dict)
    channels: dict[str, Any] = field(default_factory=dict)
    attachments: dict[str, Any] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v}


def resolve_user(
    server: FakeDiscord, channel: ChannelRecord, user: UserRecord, resolved: Resolved
) -> str:
    """Add a user (and their member data in guilds) to `resolved`; return the id string."""
    resolved.users[str(user.id)] = user.payload()
    guild = server.state.guild_of(channel)
    if guild is not None and user.id in guild.members:
        perms = server.state.permissions_in(user.id, channel)
        resolved.members[str(user.id)] = guild.members[user.id].payload(
            permissions=perms, with_user=False
        )
    return str(user.id)


def resolve_role(role: RoleRecord, resolved: Resolved) -> str:
    """Add a role to `resolved`; return the id string."""
    resolved.roles[str(role.id)] = role.payload()
    return str(role.id)


def resolve_channel(
    server: FakeDiscord, invoker: UserRecord, target: ChannelRecord, resolved: Resolved
) -> str:
    """Add a channel (with the invoker's permissions in it) to `resolved`; return the id."""
    data = target.payload()
    data["permissions"] = str(server.state.permissions_in(invoker.id, target))
    resolved.channels[str(target.id)] = data
    return str(target.id)


def _as_user(server: FakeDiscord, value: Any) -> UserRecord | None:
    record = getattr(value, "record", value)
    if isinstance(record, UserRecord):
        return record
    if isinstance(record, int) and not isinstance(record, bool):
        return server.state.users.get(record)
    return None


def _find_role(server: FakeDiscord, channel: ChannelRecord, value: Any) -> RoleRecord | None:
    if isinstance(value, RoleRecord):
        return value
    guild = server.state.guild_of(channel)
    if guild is not None and isinstance(value, int):
        return guild.roles.get(value)
    return None


def visible_commands(
    server: FakeDiscord, user: UserRecord, channel: ChannelRecord
) -> list[dict[str, Any]]:
    """Slash commands this user can see in this channel (contexts and default permissions)."""
    guild = server.state.guild_of(channel)
    out = []
    for cmd in server.state.commands_for(guild.id if guild else None):
        if cmd.get("type", 1) != 1:
            continue
        contexts = cmd.get("contexts")
        if channel.is_group_dm:
            # Only an app installed to the user reaches a group DM (the bot is not in it).
            if 1 not in (cmd.get("integration_types") or [0]):
                continue
            if contexts is not None and 2 not in contexts:
                continue
        elif guild is None:
            if contexts is not None and 1 not in contexts:
                continue
            if contexts is None and cmd.get("dm_permission") is False:
                continue
        else:
            if contexts is not None and 0 not in contexts:
                continue
            required = cmd.get("default_member_permissions")
            if required is not None:
                have = guild.base_permissions(user.id)
                if have != ALL_PERMISSIONS and int(required) & have != int(required):
                    continue
        out.append(cmd)
    return out


class OptionBuilder:
    """Converts Python values into option payloads for one invocation."""

    def __init__(
        self, server: FakeDiscord, user: UserRecord, channel: ChannelRecord, label: str
    ) -> None:
        self.server = server
        self.user = user
        self.channel = channel
        self.label = label
        self.resolved = Resolved()

    def fail(self, message: str) -> CommandError:
        return CommandError(f"{self.label}: {message}")

    def convert(self, spec: dict[str, Any], value: Any) -> Any:
        """Validate a value against an option spec and return what goes into `value`."""
        otype = spec["type"]
        name = spec["name"]
        kind = OPTION_TYPES.get(otype, str(otype))
        if otype == 3:
            if not isinstance(value, str):
                raise self.fail(f"option {name!r} is a {kind}, got {value!r}")
            lo, hi = spec.get("min_length", 0), spec.get("max_length", 6000)
            if not lo <= len(value) <= hi:
                raise self.fail(f"option {name!r} must be {lo}-{hi} characters long")
        elif otype == 4:
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.fail(f"option {name!r} is an {kind}, got {value!r}")
        elif otype == 10:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise self.fail(f"option {name!r} is a {kind}, got {value!r}")
            if not math.isfinite(value):
                raise self.fail(f"option {name!r} must be finite")
        elif otype == 5:
            if not isinstance(value, bool):
                raise self.fail(f"option {name!r} is a {kind}, got {value!r}")
        elif otype == 6:
            user = _as_user(self.server, value)
            if user is None:
                raise self.fail(f"option {name!r} needs a user, got {value!r}")
            return resolve_user(self.server, self.channel, user, self.resolved)
        elif otype == 7:
            target = value if isinstance(value, ChannelRecord) else None
            if target is None and isinstance(value, int):
                target = self.server.state.channels.get(value)
            if target is None:
                raise self.fail(f"option {name!r} needs a channel, got {value!r}")
            allowed = spec.get("channel_types")
            if allowed and target.type not in allowed:
                raise self.fail(f"option {name!r} accepts channel types {allowed}")
            return resolve_channel(self.server, self.user, target, self.resolved)
        elif otype == 8:
            role = _find_role(self.server, self.channel, value)
            if role is None:
                raise self.fail(f"option {name!r} needs a role of this guild, got {value!r}")
            return resolve_role(role, self.resolved)
        elif otype == 9:
            user = _as_user(self.server, value)
            if user is not None:
                return resolve_user(self.server, self.channel, user, self.resolved)
            role = _find_role(self.server, self.channel, value)
            if role is None:
                raise self.fail(f"option {name!r} needs a user or role, got {value!r}")
            return resolve_role(role, self.resolved)
        elif otype == 11:
            if not isinstance(value, FileUpload):
                raise self.fail(f"option {name!r} needs a FileUpload, got {value!r}")
            return self._attachment(value)
        else:
            raise self.fail(f"option {name!r} has unsupported type {otype}")
        if otype in (4, 10):
            lo, hi = spec.get("min_value"), spec.get("max_value")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise self.fail(f"option {name!r} must be between {lo} and {hi}, got {value}")
        choices = spec.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            names = [c["value"] for c in choices]
            raise self.fail(f"option {name!r} must be one of {names}, got {value!r}")
        return value

    def _attachment(self, upload: FileUpload) -> str:
        state = self.server.state
        attachment_id = state.snowflakes.next()
        att = AttachmentRecord(
            id=attachment_id,
            filename=upload.filename,
            content_type=upload.content_type,
            data=upload.data,
            url=state.attachment_url(self.channel.id, attachment_id, upload.filename),
            ephemeral=True,
        )
        state.attachments[att.id] = (self.channel.id, att)
        self.resolved.attachments[str(att.id)] = att.payload()
        return str(att.id)

    def leaf_options(
        self, specs: list[dict[str, Any]], values: dict[str, Any], *, focused: str | None = None
    ) -> list[dict[str, Any]]:
        """Build the option list for a command or subcommand's own parameters."""
        by_name = {s["name"]: s for s in specs}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise self.fail(f"unknown option(s) {unknown}; the command has {sorted(by_name)}")
        out = []
        for spec in specs:
            name = spec["name"]
            if name not in values:
                if spec.get("required") and name != focused:
                    raise self.fail(f"missing required option {name!r}")
                continue
            if name == focused:
                out.append(
                    {
                        "name": name,
                        "type": spec["type"],
                        "value": str(values[name]),
                        "focused": True,
                    }
                )
                continue
            out.append(
                {"name": name, "type": spec["type"], "value": self.convert(spec, values[name])}
            )
        return out


def build_command_data(
    server: FakeDiscord,
    user: UserRecord,
    channel: ChannelRecord,
    command: str,
    values: dict[str, Any],
    *,
    focused: str | None = None,
) -> dict[str, Any]:
    """Interaction `data` for a slash command invocation (or autocomplete if `focused`)."""
    parts = command.strip().lstrip("/").split()
    if not parts:
        raise CommandError("empty command name")
    label = "/" + " ".join(parts)
    commands = visible_commands(server, user, channel)
    cmd = next((c for c in commands if c["name"] == parts[0]), None)
    if cmd is None:
        names = sorted({"/" + c["name"] for c in commands})
        where = "this DM" if channel.is_dm else f"#{channel.name}"
        raise CommandError(f"{user.name} cannot use {label} in {where}; visible commands: {names}")
    builder = OptionBuilder(server, user, channel, label)
    node = cmd
    chain: list[dict[str, Any]] = []
    for part in parts[1:]:
        subs = {o["name"]: o for o in node.get("options") or [] if o["type"] in (1, 2)}
        if part not in subs:
            raise builder.fail(f"no subcommand {part!r}; choose from {sorted(subs)}")
        node = subs[part]
        chain.append(node)
    specs = node.get("options") or []
    subs = [o["name"] for o in specs if o["type"] in (1, 2)]
    if subs:
        raise builder.fail(f"{label} needs a subcommand: {sorted(subs)}")
    options = builder.leaf_options(specs, values, focused=focused)
    for sub in reversed(chain):
        options = [{"name": sub["name"], "type": sub["type"], "options": options}]
    data: dict[str, Any] = {
        "id": cmd["id"],
        "name": cmd["name"],
        "type": 1,
        "options": options,
    }
    if cmd.get("guild_id"):
        data["guild_id"] = cmd["guild_id"]
    resolved = builder.resolved.payload()
    if resolved:
        data["resolved"] = resolved
    return data
