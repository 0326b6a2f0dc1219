"""The fake Discord's limits: rate-limit buckets with their headers, the global limit, the
invalid-request count, and upload limits.

Raw HTTP requests show the exact answers; the real discord.py shows that the headers make it
wait by itself instead of meeting 429s.
"""

from __future__ import annotations

import io
from typing import Any

import aiohttp
import discord
import pytest
from discord.ext import commands
from fakediscord import FakeDiscord, World
from fakediscord.ratelimits import _rule
from fakediscord.runner import BotRunner


async def start(run_bot: BotRunner) -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())
    return await run_bot.start(bot)


async def raw(
    server: FakeDiscord, method: str, path: str, json: Any = None, auth: bool = True
) -> tuple[int, dict[str, str], Any]:
    headers = {"Authorization": f"Bot {server.token}"} if auth else {}
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method, f"{server.base_url}/api/v10{path}", json=json, headers=headers
        ) as resp,
    ):
        body = await resp.json() if resp.content_type == "application/json" else None
        return resp.status, dict(resp.headers), body


def tight(server: FakeDiscord, limit: int = 2, per: float = 0.6) -> None:
    """Message creates: `limit` per `per` seconds per channel, so tests need not wait 5 s."""
    server.rate_limits.rules = (
        _rule("message-create", "POST", r"/channels/(?P<major>\d+)/messages", limit, per),
    )


async def test_bucket_headers_and_429(fake_discord: FakeDiscord, discord_world: World) -> None:
    w = discord_world
    tight(fake_discord, limit=2, per=30.0)
    path = f"/channels/{w.channel.id}/messages"
    status, headers, _ = await raw(fake_discord, "POST", path, {"content": "one"})
    assert status == 200
    assert headers["X-RateLimit-Limit"] == "2" and headers["X-RateLimit-Remaining"] == "1"
    assert 29 < float(headers["X-RateLimit-Reset-After"]) <= 30
    bucket = headers["X-RateLimit-Bucket"]
    status, headers, _ = await raw(fake_discord, "POST", path, {"content": "two"})
    assert headers["X-RateLimit-Remaining"] == "0" and headers["X-RateLimit-Bucket"] == bucket
    status, headers, body = await raw(fake_discord, "POST", path, {"content": "three"})
    assert status == 429 and body["global"] is False and 29 < body["retry_after"] <= 30
    assert headers["X-RateLimit-Scope"] == "user" and headers["Retry-After"] == "30"
    assert [m.content for m in fake_discord.channel_messages(w.channel)] == ["one", "two"]
    # Another channel has a bucket of its own (the channel is the major parameter).
    other = fake_discord.create_text_channel(w.guild, "other")
    status, headers, _ = await raw(
        fake_discord, "POST", f"/channels/{other.id}/messages", {"content": "elsewhere"}
    )
    assert status == 200 and headers["X-RateLimit-Remaining"] == "1"
    assert len(fake_discord.invalid_requests) == 1
    assert fake_discord.invalid_requests.by_status() == {429: 1}


async def test_discord_py_waits_for_the_bucket(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    tight(fake_discord, limit=2, per=0.6)
    channel = bot.get_channel(w.channel.id)
    assert isinstance(channel, discord.TextChannel)
    for n in range(6):
        await channel.send(f"message {n}")
    posts = fake_discord.requests_to("POST", rf"/channels/{w.channel.id}/messages")
    assert [r.status for r in posts] == [200] * 6  # no 429: discord.py read the headers
    assert len(fake_discord.invalid_requests) == 0
    assert fake_discord.rate_limits.refusals == []


async def test_global_limit_spares_interactions(
    fake_discord: FakeDiscord, discord_world: World
) -> None:
    fake_discord.rate_limits.global_limit = 3
    statuses = [(await raw(fake_discord, "GET", "/users/@me"))[0] for _ in range(4)]
    assert statuses[:3] == [200, 200, 200]
    status, headers, body = await raw(fake_discord, "GET", "/users/@me")
    assert status == 429 and body["global"] is True
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    # Interaction-token routes are outside the global limit (this one is simply unknown).
    status, _, body = await raw(
        fake_discord, "POST", f"/webhooks/{fake_discord.application_id}/nope", {}, auth=False
    )
    assert status == 404 and body["code"] == 10015


async def test_invalid_requests_are_counted_and_capped(
    fake_discord: FakeDiscord, discord_world: World
) -> None:
    w = discord_world
    secret = fake_discord.create_text_channel(
        w.guild, "secret", overwrites=[{"id": w.guild.id, "type": 0, "deny": 1 << 10}]
    )
    await fake_discord.set_role_permissions(w.bot_role, 1 << 11)  # only Send Messages
    for _ in range(3):
        status, _, body = await raw(
            fake_discord, "POST", f"/channels/{secret.id}/messages", {"content": "x"}
        )
        assert status == 403 and body["code"] == 50001
    status, _, _ = await raw(fake_discord, "GET", "/users/@me", auth=False)
    assert status == 401
    assert fake_discord.invalid_requests.peak() == 4
    fake_discord.invalid_requests.assert_under(4)
    table = fake_discord.invalid_requests.matching(rf"/channels/{secret.id}/.*")
    assert len(table) == 3 and table.by_status() == {403: 3}
    fake_discord.invalid_request_limit = 3
    with pytest.raises(AssertionError, match="4 invalid requests"):
        fake_discord.check()
    fake_discord.invalid_request_limit = 100  # the test provoked them on purpose


async def test_upload_limits(
    fake_discord: FakeDiscord, discord_world: World, run_bot: BotRunner
) -> None:
    w = discord_world
    bot = await start(run_bot)
    channel = bot.get_channel(w.channel.id)
    assert isinstance(channel, discord.TextChannel)
    big = b"\0" * (fake_discord.attachment_size_limit + 1)
    with pytest.raises(discord.HTTPException) as err:
        await channel.send(file=discord.File(io.BytesIO(big), "big.bin"))
    assert err.value.status == 413 and err.value.code == 40005
    long_alt = discord.File(io.BytesIO(b"png"), "t.png", description="x" * 1025)
    with pytest.raises(discord.HTTPException) as err:
        await channel.send(file=long_alt)
    assert err.value.status == 400
    ok = discord.File(io.BytesIO(b"png"), "t.png", description="x" * 1024)
    await channel.send(file=ok)
    problems = fake_discord.take_problems()
    assert "413" in problems[0] and "10485761 bytes" in problems[0]
    # The long alt text breaks both the fake's limit check and Discord's API description.
    assert len(problems) == 3 and all("description" in p for p in problems[1:])


def test_ended_windows_are_forgotten_and_live_ones_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each interaction token has a bucket of its own: an evening's windows are swept out once
    they have ended, and a window still running keeps counting."""
    from fakediscord import ratelimits

    clock = [0.0]
    monkeypatch.setattr(ratelimits, "_now", lambda: clock[0])
    limiter = ratelimits.RateLimiter()
    route = "/webhooks/1/{}/messages/@original"
    for n in range(3000):
        clock[0] = n * 0.01  # 30 s of tokens, each used once
        limiter.check("PATCH", route.format(f"t{n}"), counts_globally=False)
    assert len(limiter.windows) < 1024  # far fewer than the 3,000 tokens seen
    clock[0] = 30.0
    answer = limiter.check("PATCH", route.format("t2999"), counts_globally=False)
    assert answer.headers["X-RateLimit-Remaining"] == "3"  # its window (5 per 2 s) still counts
