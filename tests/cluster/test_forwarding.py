"""A press handed to another process (bot/cluster/forwarding.py), without PostgreSQL: what is
sent fits in a NOTIFY, and the interaction rebuilt from it is the one the handler needs, with
its answers going through the token (the receiving process already acknowledged it). The
hand-over itself runs in tests/e2e/test_failover.py."""

from __future__ import annotations

import json
from typing import Any

import discord
import pytest

from bot.cluster.forwarding import acknowledgement, channel_of, press_payload, rebuild

USER = {
    "id": "1001",
    "username": "alice",
    "discriminator": "0",
    "global_name": "Alice",
    "avatar": None,
}
BOT = {"id": "42", "username": "Mahjong", "discriminator": "0", "bot": True, "avatar": None}


def gateway_payload(*, guild: bool) -> dict[str, Any]:
    """An INTERACTION_CREATE for a button, as Discord sends it (trimmed)."""
    data: dict[str, Any] = {
        "id": "900000000000000001",
        "application_id": "42",
        "type": 3,
        "token": "a-token-valid-for-fifteen-minutes",
        "version": 1,
        "data": {"custom_id": "mj:7:31:discard:12", "component_type": 2},
        "attachment_size_limit": 10 * 1024 * 1024,
        "app_permissions": "52224",
        "locale": "en-US",
        "message": {
            "id": "800000000000000001",
            "channel_id": "700",
            "type": 0,
            "content": "**Table 7** · your turn",
            "flags": 64 if guild else 0,
            "attachments": [],
            "embeds": [],
            "components": [],
            "author": BOT,
            "timestamp": "2026-01-01T00:00:00+00:00",
        },
    }
    if guild:
        data |= {
            "guild_id": "500",
            "channel": {"id": "700", "type": 0, "name": "mahjong", "position": 0},
            "channel_id": "700",
            "member": {
                "user": USER,
                "roles": [],
                "flags": 0,
                "nick": "Al",
                "joined_at": None,
                "permissions": str(discord.Permissions(manage_guild=True).value),
            },
        }
    else:
        data |= {
            "channel": {"id": "700", "type": 1, "recipients": [USER]},
            "channel_id": "700",
            "user": USER,
        }
    return data


@pytest.fixture
def state():
    client = discord.Client(intents=discord.Intents(guilds=True))
    client._connection.user = discord.ClientUser(state=client._connection, data=BOT)
    return client._connection


@pytest.mark.parametrize("guild", [False, True])
def test_a_press_survives_the_trip(state, guild: bool) -> None:
    original = discord.Interaction(data=gateway_payload(guild=guild), state=state)
    sent = json.dumps(press_payload(original))
    assert len(sent.encode()) < 8000  # NOTIFY's limit
    copy = rebuild(state, json.loads(sent), 6)
    assert (copy.id, copy.token, copy.type) == (original.id, original.token, original.type)
    assert copy.data == original.data
    assert copy.user.id == original.user.id
    assert copy.message is not None and copy.message.id == original.message.id
    assert copy.message.flags.ephemeral == original.message.flags.ephemeral
    assert copy.guild_id == original.guild_id
    if guild:  # what the lobby's handlers read: the name shown, Manage Server
        assert copy.user.display_name == "Al"
        assert copy.permissions.manage_guild
    assert copy.response.is_done()
    assert copy.response.type == discord.InteractionResponseType.deferred_message_update


def test_a_slash_command_in_a_tables_thread_survives_the_trip(state) -> None:
    """``/mahjong hand`` in a table's thread (a command, no message; the channel a thread,
    whose fields discord.py requires): handed over as the presses are."""
    data = gateway_payload(guild=True)
    del data["message"]
    data |= {
        "type": 2,
        "data": {
            "id": "61",
            "name": "mahjong",
            "type": 1,
            "options": [{"name": "hand", "type": 1}],
        },
        "channel": {
            "id": "701",
            "type": 11,
            "name": "pung-chow table 7",
            "guild_id": "500",
            "parent_id": "700",
            "owner_id": "42",
            "message_count": 3,
            "member_count": 2,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 10080,
                "archive_timestamp": "2026-01-01T00:00:00+00:00",
                "locked": False,
            },
        },
        "channel_id": "701",
    }
    original = discord.Interaction(data=data, state=state)
    assert isinstance(original.channel, discord.Thread)
    copy = rebuild(state, json.loads(json.dumps(press_payload(original))), 5)
    assert isinstance(copy.channel, discord.Thread) and copy.channel.parent_id == 700
    assert (copy.type, copy.data, copy.channel_id) == (original.type, original.data, 701)
    assert copy.message is None and copy.user.id == original.user.id
    assert copy.response.type == discord.InteractionResponseType.deferred_channel_message


async def test_the_handlers_answers_go_through_the_token(state, monkeypatch) -> None:
    copy = rebuild(
        state, press_payload(discord.Interaction(data=gateway_payload(guild=False), state=state)), 6
    )
    calls: list[tuple[str, dict[str, Any]]] = []

    async def send(self, **kwargs: Any) -> None:
        calls.append(("followup", kwargs))

    async def edit(self, **kwargs: Any) -> None:
        calls.append(("edit", kwargs))

    monkeypatch.setattr(discord.Webhook, "send", send)
    monkeypatch.setattr(discord.Interaction, "edit_original_response", edit)
    await copy.response.defer()  # acknowledged already: nothing to do
    await copy.response.send_message("Not your turn.", ephemeral=True)
    await copy.response.edit_message(content="the lobby, updated")
    assert calls == [
        ("followup", {"content": "Not your turn.", "ephemeral": True}),
        ("edit", {"content": "the lobby, updated"}),
    ]


def test_my_hand_is_acknowledged_privately_and_channels_are_per_process() -> None:
    assert acknowledgement("seat", {"table": "1", "verb": "hand"}) == (True, True)
    assert acknowledgement("move", {"table": "1", "verb": "discard"}) == (False, False)
    assert acknowledgement("lobby", {"table": "1", "verb": "join"}) == (False, False)
    # Slash commands answer with a new message: private, but /mahjong end's is public.
    assert acknowledgement("command", {"table": "1", "verb": "hand"}) == (True, True)
    assert acknowledgement("command", {"table": "1", "verb": "end"}) == (False, True)
    one, other = channel_of("host:1:aa"), channel_of("host:2:bb")
    assert one != other and len(one) <= 63 and one.isidentifier()
