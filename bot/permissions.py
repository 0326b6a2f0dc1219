"""The one list of what the bot needs in a channel to run a table there.

The README's invite link, the invite URL logged at start-up, ``mahjong-bot doctor`` and the
refusal of ``/mahjong new`` in a channel that lacks something all read this module, so they
can never disagree.

Why each permission (a table lives in a public thread of its own, opened from the channel):

- *View Channel*: see the channel at all (and receive its interactions' messages).
- *Send Messages*: post the lobby in the channel.
- *Create Public Threads*: open the table's thread from the lobby.
- *Send Messages in Threads*: post and edit the table, its log and the reveal in that thread.
- *Embed Links*: the lobby, the moves and the score card are embeds.
- *Attach Files*: the table image and the reveal are PNG attachments.
- *Read Message History*: edit the table message again after a restart (a message the bot
  cannot read back cannot be fetched and edited).

Not needed: *Use External Emojis*. The tile emojis are the application's own emojis
(uploaded to the application, not to a server), and Discord's emoji reference says "The
USE_EXTERNAL_EMOJIS permission is not required to use app emojis"
(https://discord.com/developers/docs/resources/emoji#emoji-object-applicationowned-emoji).
No privileged intent and no moderation permission is needed either.
"""

from __future__ import annotations

import discord

#: (discord.py flag name, the name Discord's settings show), in the order Discord lists them.
_NEEDED: tuple[tuple[str, str], ...] = (
    ("view_channel", "View Channel"),
    ("send_messages", "Send Messages"),
    ("create_public_threads", "Create Public Threads"),
    ("send_messages_in_threads", "Send Messages in Threads"),
    ("embed_links", "Embed Links"),
    ("attach_files", "Attach Files"),
    ("read_message_history", "Read Message History"),
)

#: discord.py flag name -> the name a server admin sees in Discord's permission settings.
PERMISSION_NAMES: dict[str, str] = dict(_NEEDED)

#: Everything the bot needs, as one permission set (its ``.value`` is the invite integer).
REQUIRED_PERMISSIONS: discord.Permissions = discord.Permissions(
    **dict.fromkeys(PERMISSION_NAMES, True)
)

#: The integer for an invite link's ``permissions=`` parameter (309237763072).
PERMISSIONS_INTEGER: int = REQUIRED_PERMISSIONS.value

#: Scopes of the invite: the bot user and its slash commands.
SCOPES: tuple[str, ...] = ("bot", "applications.commands")

# Inside an existing thread the table stays in that thread: the channel-level
# Send Messages and Create Public Threads do not apply there.
_NOT_IN_THREAD = frozenset({"send_messages", "create_public_threads"})


def invite_url(client_id: int | str) -> str:
    """The link that adds the bot to a server with exactly the permissions it needs."""
    return (
        "https://discord.com/oauth2/authorize"
        f"?client_id={client_id}&permissions={PERMISSIONS_INTEGER}"
        f"&integration_type=0&scope={'+'.join(SCOPES)}"
    )


def missing_in(channel_permissions: discord.Permissions, *, in_thread: bool = False) -> list[str]:
    """The human names of what ``channel_permissions`` (the bot's, in one channel) lacks.

    ``in_thread``: the channel is itself a thread, where only the thread permissions count.
    Administrator implies everything (discord.py already resolves it so for a member's
    channel permissions; it is checked here too for raw permission values).
    """
    if channel_permissions.administrator:
        return []
    return [
        label
        for flag, label in _NEEDED
        if not (in_thread and flag in _NOT_IN_THREAD) and not getattr(channel_permissions, flag)
    ]


def names_list(names: list[str]) -> str:
    """``**A**, **B** and **C**``: for a message that tells what is missing."""
    bold = [f"**{name}**" for name in names]
    if len(bold) <= 1:
        return "".join(bold)
    return ", ".join(bold[:-1]) + " and " + bold[-1]
