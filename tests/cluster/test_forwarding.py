"""A press handed to another process (bot/cluster/forwarding.py), without PostgreSQL: what is
sent fits in a NOTIFY, and the interaction rebuilt from it is the one the handler needs, with
its answers going through the token (the receiving process already acknowledged it). The
hand-over itself runs in tests/e2e/test_failover.py."""

from __future__ import annotations

import asyncio
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


@pytest.mark.postgres
async def test_a_members_settings_reach_every_process(postgres_url) -> None:
    """``/mahjong settings`` reaches the process of the member's server; the process running
    their table (which reads auto_pass_chows and pings) learns the change at once."""
    from bot.cluster.forwarding import PressForwarder
    from bot.store.database import open_database
    from bot.store.member_settings_repo import MemberSettingsRepository
    from tests.cluster.test_ownership import process
    from tests.store.helpers import FakeClock
    from tests.tables.fakes import MemoryLedger

    clock, ledger = FakeClock(), MemoryLedger()
    dbs = [await open_database(postgres_url) for _ in range(2)]
    here, there = (process(db, clock, ledger) for db in dbs)
    here.service.members = MemberSettingsRepository(dbs[0])
    forwarders = [
        PressForwarder(None, db, p.ownership) for db, p in zip(dbs, (here, there), strict=True)
    ]
    try:
        for forwarder in forwarders:
            await forwarder.start()
        assert not there.service.member_settings(7).auto_pass_chows
        await here.service.set_member_settings(7, auto_pass_chows=True, pings=False)
        for _ in range(3000):  # the NOTIFY's round trip (a condition; 30 s at most)
            if there.service.member_settings(7).auto_pass_chows:
                break
            await asyncio.sleep(0.01)
        chosen = there.service.member_settings(7)
        assert (chosen.auto_pass_chows, chosen.pings) == (True, False)
        assert not there.service.member_settings(8).auto_pass_chows  # nobody else's
    finally:
        for forwarder in forwarders:
            await forwarder.stop()
        for db in dbs:
            await db.close()


async def test_the_owner_learns_the_language_of_a_press_handed_to_it(state) -> None:
    """A press handed over is no gateway event in the owner (bot/app.py on_interaction does
    not see it), yet the owner writes that member's DMs: it learns their locale from it."""
    from types import SimpleNamespace

    from bot.cluster.forwarding import PressForwarder
    from bot.i18n.locales import MemberLocales

    data = gateway_payload(guild=False) | {"locale": "zh-TW"}
    original = discord.Interaction(data=data, state=state)
    bot = SimpleNamespace(_connection=state, member_locales=MemberLocales())
    forwarder = PressForwarder(bot, None, SimpleNamespace(owner="host:1:aa", service=None))
    ran: list[str] = []

    async def route(kind: str, interaction: Any, groups: dict[str, str]) -> None:
        ran.append(kind)

    async def notify(channel: str, message: dict[str, Any]) -> None:
        return None

    forwarder.route = route  # type: ignore[method-assign]
    forwarder._notify = notify  # type: ignore[method-assign]
    message = {
        "op": "press",
        "id": original.id,
        "reply_to": "mj_press_x",
        "kind": "move",
        "groups": {"table": "7"},
        "ack": 6,
        "interaction": press_payload(original),
    }
    await forwarder._received(json.loads(json.dumps(message)))
    assert ran == ["move"]
    assert bot.member_locales.get(original.user.id) == "zh-TW"


@pytest.mark.postgres
async def test_a_deleted_channel_or_a_removed_bot_ends_tables_in_every_process(
    postgres_url,
) -> None:
    """CHANNEL_DELETE and GUILD_DELETE reach the process of the server's shard only; the tables
    there end whichever process runs them, and a relayed event is not relayed again."""
    from bot.cluster.forwarding import PressForwarder
    from bot.store.database import open_database
    from tests.cluster.test_ownership import process
    from tests.store.helpers import FakeClock
    from tests.tables.fakes import MemoryLedger
    from tests.tables.test_table_service import BOB, open_table

    clock, ledger = FakeClock(), MemoryLedger()
    dbs = [await open_database(postgres_url) for _ in range(2)]
    runner, shard = (process(db, clock, ledger) for db in dbs)
    forwarders = [
        PressForwarder(None, db, p.ownership) for db, p in zip(dbs, (runner, shard), strict=True)
    ]
    try:
        for forwarder in forwarders:
            await forwarder.start()
        relayed_again: list[str] = []
        share = runner.service.share_event

        async def counting(name: str, args: list[int]) -> None:
            relayed_again.append(name)
            await share(name, args)

        runner.service.share_event = counting
        first = await open_table(runner.service, computers=3, channel_id=80)
        second = await open_table(runner.service, computers=3, channel_id=81, host_id=BOB)

        async def ended(table) -> None:
            for _ in range(3000):  # the NOTIFY's round trip (a condition; 30 s at most)
                if table.id not in runner.service.tables:
                    return
                await asyncio.sleep(0.01)
            raise AssertionError(f"table {table.id} still open")

        await shard.service.channel_deleted(80)
        await ended(first)
        assert first.end_reason == "its channel was deleted" and second.id in runner.service.tables
        await shard.service.guild_removed(1)
        await ended(second)
        assert second.end_reason == "the bot was removed from the server"
        assert relayed_again == []
    finally:
        for forwarder in forwarders:
            await forwarder.stop()
        for db in dbs:
            await db.close()
