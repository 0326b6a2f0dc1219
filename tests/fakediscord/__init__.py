"""A fake Discord (REST + gateway on 127.0.0.1) that the real discord.py connects to.

Used by the end-to-end tests: see README.md in this package. The public pieces are
re-exported here.
"""

from .client import FakeUser, InteractionHandle
from .commands import CommandError, FileUpload
from .faults import FaultRule
from .server import FakeDiscord, FakeDiscordTimeout
from .state import (
    AttachmentRecord,
    ChannelRecord,
    GuildRecord,
    MessageRecord,
    MessageVersion,
    Perm,
    RoleRecord,
    TimelineEntry,
    UserRecord,
)
from .world import World, build_world

__all__ = [
    "AttachmentRecord",
    "ChannelRecord",
    "CommandError",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "FakeUser",
    "FaultRule",
    "FileUpload",
    "GuildRecord",
    "InteractionHandle",
    "MessageRecord",
    "MessageVersion",
    "Perm",
    "RoleRecord",
    "TimelineEntry",
    "UserRecord",
    "World",
    "build_world",
]
