"""The fake Discord's world model: users, guilds, roles, channels, messages, interactions.

Everything a Discord client would show lives here as plain records. The REST and gateway
modules mutate these records; tests read them. Each record knows how to render itself as the
JSON payload Discord would send, so the shapes discord.py parses are defined in one place.
"""

from __future__ import annotations

import datetime as dt
import enum
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1420070400000


class Perm(enum.IntFlag):
    """Discord permission bits (only the ones a bot commonly cares about, plus admin)."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    MANAGE_ROLES = 1 << 28
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    USE_EXTERNAL_STICKERS = 1 << 37
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMISSIONS = (1 << 51) - 1

EVERYONE_DEFAULT = (
    Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.ADD_REACTIONS
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.SEND_MESSAGES_IN_THREADS
    | Perm.CREATE_INSTANT_INVITE
)


class ChannelType(enum.IntEnum):
    """Channel types the fake supports."""

    GUILD_TEXT = 0
    DM = 1
    GROUP_DM = 3  # users' own group chats: the bot is never in one (user-installed apps only)
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12


class MessageFlag(enum.IntFlag):
    """Message flag bits the fake interprets."""

    SUPPRESS_EMBEDS = 1 << 2
    HAS_THREAD = 1 << 5
    EPHEMERAL = 1 << 6
    LOADING = 1 << 7
    SUPPRESS_NOTIFICATIONS = 1 << 12
    IS_COMPONENTS_V2 = 1 << 15


def iso_now() -> str:
    """Timestamp in the ISO form Discord uses (discord.py parses it with fromisoformat)."""
    return dt.datetime.now(dt.UTC).isoformat()


class SnowflakeFactory:
    """Hands out strictly increasing, time-based snowflakes, like Discord's ids."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        """Return a new id that is larger than every id returned before."""
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


@dataclass(eq=False)
class UserRecord:
    """A Discord user account (human or bot)."""

    id: int
    name: str
    bot: bool = False
    global_name: str | None = None
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        """The user object as Discord sends it."""
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }


@dataclass(eq=False)
class RoleRecord:
    """A guild role; the @everyone role has the guild's id."""

    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    color: int = 0
    managed: bool = False

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        """The role object as Discord sends it."""
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": self.color,
            "colors": {"primary_color": self.color, "secondary_color": None},
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }


@dataclass(eq=False)
class MemberRecord:
    """A user's membership in one guild."""

    user: UserRecord
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def payload(self, *, permissions: int | None = None, with_user: bool = True) -> dict[str, Any]:
        """The guild member object; interactions add the computed `permissions` string."""
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "banner": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class AttachmentRecord:
    """An uploaded file: the raw bytes are kept so tests can inspect exactly what was sent."""

    id: int
    filename: str
    content_type: str
    data: bytes
    url: str
    description: str | None = None
    width: int | None = None
    height: int | None = None
    ephemeral: bool = False

    @property
    def size(self) -> int:
        return len(self.data)

    def payload(self) -> dict[str, Any]:
        """The attachment object as Discord sends it."""
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "ephemeral": self.ephemeral,
        }
        if self.description is not None:
            data["description"] = self.description
        if self.width is not None:
            data["width"] = self.width
            data["height"] = self.height
        return data


@dataclass(eq=False)
class MessageVersion:
    """One earlier state of an edited message (the edit history a moderator log would keep)."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: list[AttachmentRecord]
    flags: int
    edited_at: str | None
    replaced_at: str
    replaced_by_interaction_id: int | None


@dataclass(frozen=True)
class TimelineEntry:
    """One change a Discord client would show, in the order the fake made them: a message
    created, edited or deleted, with the message's state after the change."""

    seq: int
    at: float  # time.time()
    kind: str  # "create", "edit" or "delete"
    message: MessageRecord
    version: MessageVersion  # the state after the change (before it, for a delete)


def walk_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component in a message, depth first, including v2 containers and accessories."""
    found: list[dict[str, Any]] = []
    stack = list(reversed(components))
    while stack:
        comp = stack.pop()
        found.append(comp)
        children: list[dict[str, Any]] = []
        children.extend(comp.get("components") or [])
        if comp.get("accessory"):
            children.append(comp["accessory"])
        if comp.get("component"):
            children.append(comp["component"])
        stack.extend(reversed(children))
    return found


INTERACTIVE_TYPES = {2, 3, 5, 6, 7, 8}


def copy_json(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, tuples and scalars). ``copy.deepcopy`` with
    its memo took 8-13 % of the benchmark process's CPU at 200 tables (every message payload
    and edit copies its components)."""
    kind = type(value)
    if kind is dict:
        return {key: copy_json(item) for key, item in value.items()}
    if kind is list:
        return [copy_json(item) for item in value]
    if kind is tuple:
        return tuple(copy_json(item) for item in value)
    return value


def stored_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Components as Discord stores and returns them: every component gets the numeric
    `id` Discord assigns (1, 2, ... in tree order, unless the sender chose one), emoji ids
    are strings and a unicode emoji has no id."""
    out = copy_json(components)
    taken = {c["id"] for c in walk_components(out) if isinstance(c.get("id"), int)}
    next_id = 1
    for comp in walk_components(out):
        if not isinstance(comp.get("id"), int):
            while next_id in taken:
                next_id += 1
            comp["id"] = next_id
            taken.add(next_id)
        emojis = [comp.get("emoji")] + [o.get("emoji") for o in comp.get("options") or []]
        for emoji in emojis:
            if isinstance(emoji, dict):
                if emoji.get("id") is None:
                    emoji.pop("id", None)  # a unicode emoji: Discord answers with its name only
                else:
                    emoji["id"] = str(emoji["id"])
    return out


@dataclass(eq=False)
class MessageRecord:
    """A message as a Discord client would show it, plus its edit history."""

    id: int
    channel_id: int
    guild_id: int | None
    author: UserRecord
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[AttachmentRecord] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    created_at: str = field(default_factory=iso_now)
    edited_at: str | None = None
    visible_to: int | None = None
    interaction_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    message_reference: dict[str, Any] | None = None
    tts: bool = False
    history: list[MessageVersion] = field(default_factory=list)
    # edits made after the message was first shown: len(history) while history is kept
    edits: int = 0
    reactions: dict[str, set[int]] = field(default_factory=dict)
    deleted: bool = False
    member: MemberRecord | None = None
    mentions: list[UserRecord] = field(default_factory=list)
    thread: ChannelRecord | None = None  # the thread started from this message, if any

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & MessageFlag.EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while a deferred ("Bot is thinking...") response waits for its content."""
        return bool(self.flags & MessageFlag.LOADING)

    def all_components(self) -> list[dict[str, Any]]:
        """Every component of the message, flattened."""
        return walk_components(self.components)

    def custom_ids(self) -> list[str]:
        """custom_ids of the clickable/selectable components, in display order."""
        return [
            c["custom_id"]
            for c in self.all_components()
            if c.get("type") in INTERACTIVE_TYPES and "custom_id" in c
        ]

    def component(self, custom_id: str) -> dict[str, Any] | None:
        """The interactive component with this custom_id, or None."""
        for comp in self.all_components():
            if comp.get("custom_id") == custom_id and comp.get("type") in INTERACTIVE_TYPES:
                return comp
        return None

    def attachment(self, filename: str) -> AttachmentRecord:
        """The attachment with this filename (AssertionError if missing, listing what exists)."""
        for att in self.attachments:
            if att.filename == filename:
                return att
        names = [a.filename for a in self.attachments]
        raise AssertionError(f"message {self.id} has no attachment {filename!r}; it has {names}")

    def snapshot(self, *, by_interaction_id: int | None) -> MessageVersion:
        """Freeze the current state before an edit replaces it."""
        return MessageVersion(
            content=self.content,
            embeds=copy_json(self.embeds),
            components=copy_json(self.components),
            attachments=list(self.attachments),
            flags=self.flags,
            edited_at=self.edited_at,
            replaced_at=iso_now(),
            replaced_by_interaction_id=by_interaction_id,
        )

    def payload(self) -> dict[str, Any]:
        """The message object as Discord sends it (REST responses and gateway events)."""
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.created_at,
            "edited_timestamp": self.edited_at,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [u.payload() for u in self.mentions],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": copy_json(self.embeds),
            "components": copy_json(self.components),
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.thread is not None and not self.thread.deleted:
            data["flags"] |= MessageFlag.HAS_THREAD
            data["thread"] = self.thread.payload()
        if self.reactions:
            data["reactions"] = [
                {
                    "emoji": _reaction_emoji_payload(key),
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "me": False,
                    "me_burst": False,
                    "burst_colors": [],
                }
                for key, users in self.reactions.items()
                if users
            ]
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = copy_json(self.interaction_metadata)
        if self.message_reference is not None:
            data["message_reference"] = copy_json(self.message_reference)
        return data


def _reaction_emoji_payload(key: str) -> dict[str, Any]:
    if ":" in key:
        name, _, emoji_id = key.partition(":")
        return {"id": emoji_id, "name": name}
    return {"id": None, "name": key}


@dataclass(eq=False)
class ChannelRecord:
    """A guild text channel, thread, or DM channel with its ordered message list."""

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    position: int = 0
    topic: str | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    recipient: UserRecord | None = None
    recipients: list[UserRecord] = field(default_factory=list)  # a group DM's members
    overwrites: list[dict[str, Any]] = field(default_factory=list)
    messages: list[MessageRecord] = field(default_factory=list)
    deleted: bool = False
    # threads only: Discord's thread_metadata, the thread's members, and when it was last
    # active (on the fake's clock, see FakeDiscord.now) for auto-archiving
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 4320
    archive_timestamp: str = field(default_factory=iso_now)
    last_active: float = 0.0
    thread_members: set[int] = field(default_factory=set)
    created_at: str = field(default_factory=iso_now)

    @property
    def is_thread(self) -> bool:
        return self.type in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD)

    @property
    def is_dm(self) -> bool:
        return self.type == ChannelType.DM

    @property
    def is_group_dm(self) -> bool:
        return self.type == ChannelType.GROUP_DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> dict[str, Any]:
        """The channel object as Discord sends it."""
        last = self.messages[-1].id if self.messages else None
        last_id = str(last) if last is not None else None
        if self.is_group_dm:
            return {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": last_id,
                "recipients": [u.payload() for u in self.recipients],
                "name": self.name,
                "icon": None,
                "owner_id": str(self.owner_id),
                "flags": 0,
            }
        if self.is_dm:
            recipients = [self.recipient.payload()] if self.recipient else []
            return {
                "id": str(self.id),
                "type": self.type,
                "last_message_id": last_id,
                "recipients": recipients,
                "flags": 0,
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": copy_json(self.overwrites),
            "nsfw": False,
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "topic": self.topic,
            "last_message_id": last_id,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if self.is_thread:
            sent = [m for m in self.messages if not m.ephemeral]
            data.update(
                {
                    "owner_id": str(self.owner_id) if self.owner_id else None,
                    "member_count": min(50, len(self.thread_members)),
                    "message_count": sum(1 for m in sent if not m.deleted),
                    "total_message_sent": len(sent),
                    "thread_metadata": {
                        "archived": self.archived,
                        "auto_archive_duration": self.auto_archive_duration,
                        "archive_timestamp": self.archive_timestamp,
                        "locked": self.locked,
                        "create_timestamp": self.created_at,
                    },
                }
            )
            if self.type == ChannelType.PRIVATE_THREAD:
                data["thread_metadata"]["invitable"] = self.invitable
            data.pop("permission_overwrites")
            data.pop("position")
            data.pop("topic")
        return data

    def delete_payload(self) -> dict[str, Any]:
        """THREAD_DELETE's data: only the ids and type (CHANNEL_DELETE sends `payload()`)."""
        return {
            "id": str(self.id),
            "guild_id": str(self.guild_id),
            "parent_id": str(self.parent_id),
            "type": self.type,
        }


@dataclass(eq=False)
class GuildRecord:
    """A guild with its roles, channels and members; computes permissions like Discord."""

    id: int
    name: str
    owner_id: int
    roles: dict[int, RoleRecord] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    members: dict[int, MemberRecord] = field(default_factory=dict)
    preferred_locale: str = "en-US"

    @property
    def everyone(self) -> RoleRecord:
        return self.roles[self.id]

    def base_permissions(self, user_id: int) -> int:
        """Guild-level permissions of a member (owner and administrators get everything)."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        if member is None:
            return 0
        perms = self.everyone.permissions
        for role_id in member.role_ids:
            role = self.roles.get(role_id)
            if role is not None:
                perms |= role.permissions
        if perms & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def channel_permissions(
        self, user_id: int, channel: ChannelRecord, parent: ChannelRecord | None = None
    ) -> int:
        """Permissions in one channel after overwrites, in Discord's documented order.

        Threads take their overwrites from the parent channel, so callers pass it in.
        """
        perms = self.base_permissions(user_id)
        if perms == ALL_PERMISSIONS:
            return perms
        member = self.members.get(user_id)
        if member is None:
            return 0
        target = parent if (channel.is_thread and parent is not None) else channel
        overwrites = {int(o["id"]): o for o in target.overwrites}
        everyone = overwrites.get(self.id)
        if everyone:
            perms &= ~int(everyone.get("deny", 0))
            perms |= int(everyone.get("allow", 0))
        allow = deny = 0
        for role_id in member.role_ids:
            ow = overwrites.get(role_id)
            if ow:
                allow |= int(ow.get("allow", 0))
                deny |= int(ow.get("deny", 0))
        perms = (perms & ~deny) | allow
        mine = overwrites.get(user_id)
        if mine and int(mine.get("type", 1)) == 1:
            perms = (perms & ~int(mine.get("deny", 0))) | int(mine.get("allow", 0))
        if not perms & Perm.VIEW_CHANNEL:
            return 0
        return perms


@dataclass(eq=False)
class EmojiRecord:
    """An application emoji uploaded by the bot."""

    id: int
    name: str
    data: bytes
    content_type: str
    animated: bool
    user: UserRecord

    def payload(self) -> dict[str, Any]:
        """The emoji object as Discord sends it."""
        return {
            "id": str(self.id),
            "name": self.name,
            "roles": [],
            "user": self.user.payload(),
            "require_colons": True,
            "managed": False,
            "animated": self.animated,
            "available": True,
        }


@dataclass(eq=False)
class InteractionRecord:
    """One interaction a simulated user started, and everything the bot answered to it."""

    id: int
    token: str
    type: int
    user: UserRecord
    channel_id: int
    guild_id: int | None
    data: dict[str, Any]
    created_at: float
    source_message_id: int | None = None
    callback_type: int | None = None
    callback_data: dict[str, Any] | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    autocomplete_choices: list[dict[str, Any]] | None = None
    ephemeral_defer: bool = False
    opened_by: InteractionRecord | None = None  # for a modal submit: what opened the modal

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    def metadata(self) -> dict[str, Any]:
        """The `interaction_metadata` Discord attaches to messages answering this interaction."""
        owners = {"0": str(self.guild_id)} if self.guild_id else {"1": str(self.user.id)}
        meta: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.payload(),
            "authorizing_integration_owners": owners,
        }
        if self.type == 2:
            meta["name"] = self.data.get("name", "")
            meta["command_type"] = self.data.get("type", 1)
        if self.source_message_id is not None and self.type == 3:
            meta["interacted_message_id"] = str(self.source_message_id)
        if self.type == 5 and self.opened_by is not None:
            meta["triggering_interaction_metadata"] = self.opened_by.metadata()
        return meta


class DiscordState:
    """All records of one fake Discord instance, with the operations that keep them coherent."""

    def __init__(self, *, bot_name: str = "Mahjong Bot") -> None:
        self.snowflakes = SnowflakeFactory()
        self.token = "fake-bot-token." + secrets.token_urlsafe(18)
        self.bot_user = UserRecord(id=self.snowflakes.next(), name=bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.application_flags = 0
        self.users: dict[int, UserRecord] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, GuildRecord] = {}
        self.channels: dict[int, ChannelRecord] = {}
        self.messages: dict[int, MessageRecord] = {}
        self.attachments: dict[int, tuple[int, AttachmentRecord]] = {}
        self.dm_channels: dict[int, int] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.interactions_by_token: dict[str, InteractionRecord] = {}
        self.expired_tokens: set[str] = set()  # of interactions forgotten (`forget_history`)
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.emojis: dict[int, EmojiRecord] = {}
        self.base_url = "http://127.0.0.1:0"

    # -- building the world ---------------------------------------------------------------

    def create_user(self, name: str, *, bot: bool = False) -> UserRecord:
        """Register a new user account."""
        user = UserRecord(id=self.snowflakes.next(), name=name, bot=bot)
        self.users[user.id] = user
        return user

    def create_guild(self, name: str, *, owner: UserRecord) -> GuildRecord:
        """Create a guild with its @everyone role; the owner and the bot become members."""
        guild = GuildRecord(id=self.snowflakes.next(), name=name, owner_id=owner.id)
        guild.roles[guild.id] = RoleRecord(
            id=guild.id, guild_id=guild.id, name="@everyone", permissions=int(EVERYONE_DEFAULT)
        )
        self.guilds[guild.id] = guild
        guild.members[owner.id] = MemberRecord(user=owner)
        guild.members[self.bot_user.id] = MemberRecord(user=self.bot_user)
        return guild

    def create_role(
        self, guild: GuildRecord, name: str, permissions: int = 0, *, managed: bool = False
    ) -> RoleRecord:
        """Add a role above the existing ones."""
        position = max((r.position for r in guild.roles.values()), default=0) + 1
        role = RoleRecord(
            id=self.snowflakes.next(),
            guild_id=guild.id,
            name=name,
            permissions=int(permissions),
            position=position,
            managed=managed,
        )
        guild.roles[role.id] = role
        return role

    def add_member(
        self, guild: GuildRecord, user: UserRecord, roles: list[RoleRecord] | None = None
    ) -> MemberRecord:
        """Make a user a member of a guild (or update their roles)."""
        member = guild.members.get(user.id) or MemberRecord(user=user)
        for role in roles or []:
            if role.id not in member.role_ids:
                member.role_ids.append(role.id)
        guild.members[user.id] = member
        return member

    def create_channel(
        self,
        guild: GuildRecord,
        name: str,
        *,
        type: int = ChannelType.GUILD_TEXT,
        parent_id: int | None = None,
        owner_id: int | None = None,
        overwrites: list[dict[str, Any]] | None = None,
        channel_id: int | None = None,
    ) -> ChannelRecord:
        """Add a text channel or thread to a guild."""
        channel = ChannelRecord(
            id=channel_id or self.snowflakes.next(),
            type=int(type),
            name=name,
            guild_id=guild.id,
            position=len(guild.channel_ids),
            parent_id=parent_id,
            owner_id=owner_id,
            overwrites=list(overwrites or []),
        )
        self.channels[channel.id] = channel
        if not channel.is_thread:
            guild.channel_ids.append(channel.id)
        return channel

    def dm_channel(self, user: UserRecord, *, create: bool = True) -> ChannelRecord | None:
        """The bot's DM channel with a user (created on first use, like Discord)."""
        channel_id = self.dm_channels.get(user.id)
        if channel_id is not None:
            return self.channels[channel_id]
        if not create:
            return None
        channel = ChannelRecord(id=self.snowflakes.next(), type=ChannelType.DM, recipient=user)
        self.channels[channel.id] = channel
        self.dm_channels[user.id] = channel.id
        return channel

    def create_group_dm(self, owner: UserRecord, members: list[UserRecord]) -> ChannelRecord:
        """A group DM of users (the bot is not in it and cannot post there; an app installed
        to a member's account can only answer that member's interactions in it)."""
        recipients = [owner, *(u for u in members if u.id != owner.id)]
        channel = ChannelRecord(
            id=self.snowflakes.next(),
            type=ChannelType.GROUP_DM,
            name=", ".join(u.name for u in recipients)[:100],
            recipients=recipients,
            owner_id=owner.id,
        )
        self.channels[channel.id] = channel
        return channel

    # -- reading ----------------------------------------------------------------------------

    def guild_of(self, channel: ChannelRecord) -> GuildRecord | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id else None

    def can_see_channel(self, user_id: int, channel: ChannelRecord) -> bool:
        """Whether a user can open this channel at all (a deleted one: nobody)."""
        if channel.deleted:
            return False
        if channel.is_dm:
            return user_id == self.bot_user.id or (
                channel.recipient is not None and channel.recipient.id == user_id
            )
        if channel.is_group_dm:
            return any(u.id == user_id for u in channel.recipients)
        perms = self.permissions_in(user_id, channel)
        if channel.type == ChannelType.PRIVATE_THREAD and user_id not in channel.thread_members:
            return bool(perms & Perm.MANAGE_THREADS)
        return bool(perms & Perm.VIEW_CHANNEL)

    def threads_of(self, parent: ChannelRecord) -> list[ChannelRecord]:
        """Threads under a channel that still exist, oldest first."""
        return [
            c
            for c in self.channels.values()
            if c.is_thread and c.parent_id == parent.id and not c.deleted
        ]

    def permissions_in(self, user_id: int, channel: ChannelRecord) -> int:
        """A user's permissions in a channel (everything in their own DMs)."""
        if channel.is_dm or channel.is_group_dm:
            return ALL_PERMISSIONS if self.can_see_channel(user_id, channel) else 0
        guild = self.guild_of(channel)
        if guild is None:
            return 0
        parent = self.channels.get(channel.parent_id) if channel.parent_id else None
        return guild.channel_permissions(user_id, channel, parent)

    def visible_messages(self, channel: ChannelRecord, user_id: int | None) -> list[MessageRecord]:
        """Messages in display order that a user sees (None = an all-seeing observer)."""
        out = []
        for msg in channel.messages:
            if msg.deleted:
                continue
            if user_id is not None and msg.visible_to is not None and msg.visible_to != user_id:
                continue
            out.append(msg)
        return out

    def commands_for(self, guild_id: int | None) -> list[dict[str, Any]]:
        """Commands a user sees in a guild (guild commands first) or in DMs (global only)."""
        if guild_id is None:
            return list(self.global_commands)
        return list(self.guild_commands.get(guild_id, [])) + list(self.global_commands)

    def attachment_url(self, channel_id: int, attachment_id: int, filename: str) -> str:
        return f"{self.base_url}/attachments/{channel_id}/{attachment_id}/{filename}"
