"""The standard world most end-to-end tests start from.

One guild ("Mahjong Club") owned by a user nobody plays as, with a #mahjong text channel, a
"Table Manager" role that has Manage Server, four players (alice is a manager; bob, carol and
dave are plain members) and the bot with a role carrying the permissions it needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from .client import FakeUser
from .server import FakeDiscord
from .state import ChannelRecord, GuildRecord, Perm, RoleRecord

BOT_PERMISSIONS = (
    Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.SEND_MESSAGES_IN_THREADS
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.ADD_REACTIONS
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.MANAGE_MESSAGES
    | Perm.MANAGE_THREADS
)


@dataclass
class World:
    """Handles to everything in the standard world."""

    server: FakeDiscord
    guild: GuildRecord
    channel: ChannelRecord
    manager_role: RoleRecord
    bot_role: RoleRecord
    owner: FakeUser
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser
    dave: FakeUser

    @property
    def players(self) -> list[FakeUser]:
        return [self.alice, self.bob, self.carol, self.dave]


def build_world(server: FakeDiscord) -> World:
    """Populate `server` with the standard guild, channel, roles and users."""
    owner = server.create_user("Guild Owner")
    guild = server.create_guild("Mahjong Club", owner=owner)
    manager_role = server.create_role(guild, "Table Manager", Perm.MANAGE_GUILD)
    bot_role = server.state.create_role(guild, "Mahjong Bot", BOT_PERMISSIONS, managed=True)
    server.add_member(guild, server.bot_user, [bot_role])
    channel = server.create_text_channel(guild, "mahjong")
    alice = server.create_user("alice")
    bob = server.create_user("bob")
    carol = server.create_user("carol")
    dave = server.create_user("dave")
    server.add_member(guild, alice, [manager_role])
    for user in (bob, carol, dave):
        server.add_member(guild, user)
    return World(
        server=server,
        guild=guild,
        channel=channel,
        manager_role=manager_role,
        bot_role=bot_role,
        owner=owner,
        alice=alice,
        bob=bob,
        carol=carol,
        dave=dave,
    )
