"""The fake Discord server: aiohttp app lifecycle and the API tests talk to.

``FakeDiscord`` owns the world state, the REST API, the gateway and the fault injector, runs
them on 127.0.0.1 on a free port, and points discord.py at itself while running. It also
collects *problems* (unknown routes, requests Discord would reject, protocol violations,
blocked network access); ``check()`` turns them into a test failure at fixture teardown.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from aiohttp import web

from .client import FakeUser
from .faults import FaultInjector, FaultRule
from .gateway import Gateway, Intent
from .lifecycle import Lifecycle
from .ratelimits import InvalidRequests, RateLimiter
from .rest import (
    ApiError,
    RequestRecord,
    RestApi,
    Upload,
    image_size,
    invalid_form,
    json_response,
    serve_attachment,
    serve_cdn,
    sniff_content_type,
)
from .sandbox import discord_endpoints, network_guard
from .state import (
    AttachmentRecord,
    ChannelRecord,
    DiscordState,
    GuildRecord,
    InteractionRecord,
    MessageFlag,
    MessageRecord,
    Perm,
    RoleRecord,
    TimelineEntry,
    UserRecord,
    copy_json,
    iso_now,
    stored_components,
)
from .validation import check_message

T = TypeVar("T")

CREATE_FLAGS = (
    MessageFlag.SUPPRESS_EMBEDS
    | MessageFlag.EPHEMERAL
    | MessageFlag.LOADING
    | MessageFlag.SUPPRESS_NOTIFICATIONS
    | MessageFlag.IS_COMPONENTS_V2
)
EDIT_FLAGS = MessageFlag.SUPPRESS_EMBEDS | MessageFlag.IS_COMPONENTS_V2
MENTION = re.compile(r"<@!?(\d+)>")

UserLike = Any  # FakeUser | UserRecord | int
ChannelLike = Any  # ChannelRecord | int


class FakeDiscordTimeout(AssertionError):
    """A wait on the fake timed out; the message says what was (not) seen."""


class FakeDiscord:
    """One fake Discord instance: world state + REST + gateway + faults, on 127.0.0.1."""

    def __init__(self, *, bot_name: str = "Mahjong Bot") -> None:
        self.state = DiscordState(bot_name=bot_name)
        self.app_owner = self.state.create_user("App Owner")
        self.faults = FaultInjector()
        self.gateway = Gateway(self)
        self.rest = RestApi(self)
        self.lifecycle = Lifecycle(self)
        self.interaction_timeout = 3.0
        self.interaction_token_lifetime = 15 * 60.0
        # Discord's upload limits for a guild without boosts (the interaction payload's
        # `attachment_size_limit` says the same): 10 MiB per file, 25 MiB per request.
        self.attachment_size_limit = 10 * 1024 * 1024
        self.max_request_size = 25 * 1024 * 1024
        self.rate_limits = RateLimiter()
        # Check every request and answer against Discord's OpenAPI description (apispec.py).
        self.check_spec = True
        self.invalid_requests = InvalidRequests()
        # At most this many 401/403/429 answers in any 10 minutes (1% of Discord's ban
        # threshold of 10,000), checked at teardown; see ratelimits.py.
        self.invalid_request_limit = 100
        self.clock_offset = 0.0
        self.problems: list[str] = []
        self.unknown_routes: list[str] = []
        self.auth_failures: list[str] = []
        self.requests: list[RequestRecord] = []
        self.typing: list[int] = []
        # every message created, edited or deleted, in order (see `timeline_for`)
        self.timeline: list[TimelineEntry] = []
        # What tests inspect afterwards: each message's earlier versions, the timeline, a
        # deleted message's pictures, every interaction ever made. A long benchmark turns this
        # off (`forget_history`): kept for an hour, it grew the fake to gigabytes, and the
        # collector's full passes over it stalled the fake's loop for seconds, which the fake
        # then counted as the bot's late answers.
        self.keep_history = True
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._patches: contextlib.ExitStack | None = None
        self._changed: asyncio.Event | None = None
        # Who waits for a change in one place (``place_changed``): a channel's id, or
        # ("dm", user id) for a user's DMs (their channel may not exist yet).
        self._place_waiters: dict[Any, set[asyncio.Event]] = {}
        self._users: dict[int, FakeUser] = {}

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def token(self) -> str:
        """The bot token the fake accepts (`Authorization: Bot <token>`)."""
        return self.state.token

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def resume_gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/resume-gateway"

    async def start(self) -> None:
        """Listen on a free loopback port and point discord.py at it."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest.handle)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/resume-gateway", self.gateway.handle)
        app.router.add_get(
            "/attachments/{channel_id}/{attachment_id}/{filename}", self._serve_attachment
        )
        app.router.add_get("/cdn/{tail:.*}", self._serve_cdn)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        self.state.base_url = self.base_url
        self._patches = contextlib.ExitStack()
        self._patches.enter_context(discord_endpoints(self.base_url))
        self._patches.enter_context(network_guard(self.problem))

    async def stop(self) -> None:
        """Close every gateway socket, stop listening and restore discord.py's endpoints."""
        try:
            await self.gateway.close_all()
            if self._runner is not None:
                await self._runner.cleanup()
        finally:
            self._runner = None
            if self._patches is not None:
                self._patches.close()
                self._patches = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[FakeDiscord]:
        """`async with server.running():` start, yield, stop."""
        await self.start()
        try:
            yield self
        finally:
            await self.stop()

    async def _serve_attachment(self, request: web.Request) -> web.Response:
        return await serve_attachment(self, request)

    async def _serve_cdn(self, request: web.Request) -> web.Response:
        return await serve_cdn(self, request)

    async def _unknown(self, request: web.Request) -> web.Response:
        self.unknown_route(request.method, request.path)
        return json_response(
            404, {"message": f"fakediscord: unknown URL {request.method} {request.path}", "code": 0}
        )

    # -- problems and waiting -------------------------------------------------------------------

    def problem(self, message: str) -> None:
        """Record something that must fail the test (reported by `check()`)."""
        self.problems.append(message)
        self.notify()

    def unknown_route(self, method: str, path: str) -> None:
        """Record a request the fake does not model."""
        self.unknown_routes.append(f"{method} {path}")
        self.problem(f"unknown route: {method} {path}")

    def take_problems(self) -> list[str]:
        """Return and clear recorded problems, for tests that provoke them on purpose
        (requests so far are first checked against Discord's API spec)."""
        self.rest.check_spec_queue()
        problems, self.problems = self.problems, []
        self.unknown_routes.clear()
        return problems

    def check(self) -> None:
        """Raise AssertionError listing every recorded problem and never-fired fault."""
        self.rest.check_spec_queue()
        lines = list(self.problems)
        try:
            self.invalid_requests.assert_under(self.invalid_request_limit)
        except AssertionError as err:
            lines.append(str(err))
        lines += [
            f"fault armed but never fired: {r.method} {r.pattern.pattern} ({r.hits}/{r.times})"
            for r in self.faults.pending()
        ]
        if lines:
            raise AssertionError("fake Discord saw problems:\n  - " + "\n  - ".join(lines))

    def notify(self) -> None:
        """Wake everything waiting in `wait_for` to re-check its condition."""
        if self._changed is not None:
            self._changed.set()
        self._changed = None

    async def place_changed(self, places: list[Any], timeout: float) -> bool:
        """Wait until a message is created, edited or deleted in one of ``places`` (channel
        ids, or ("dm", user id)); False after ``timeout``. Simulated members look again when
        what they watch changes, not 50 times a second each: at hundreds of members polling
        took more of the benchmark's CPU than the bot had (benchmarks/bot.py)."""
        event = asyncio.Event()
        for place in places:
            self._place_waiters.setdefault(place, set()).add(event)
        try:
            await asyncio.wait_for(event.wait(), timeout)
            return True
        except TimeoutError:
            return False
        finally:
            for place in places:
                waiting = self._place_waiters.get(place)
                if waiting is not None:
                    waiting.discard(event)
                    if not waiting:
                        del self._place_waiters[place]

    def _place_touched(self, msg: MessageRecord) -> None:
        channel = self.state.channels.get(msg.channel_id)
        places: list[Any] = [msg.channel_id]
        if channel is not None and channel.is_dm and channel.recipient is not None:
            places.append(("dm", channel.recipient.id))
        for place in places:
            for event in self._place_waiters.pop(place, ()):
                event.set()

    def loop_time(self) -> float:
        """The fake's clock: the event loop's, plus whatever `advance_clock` added.

        Interaction deadlines, token expiry and thread auto-archiving are measured with it.
        """
        return asyncio.get_running_loop().time() + self.clock_offset

    def now(self) -> float:
        """Same as `loop_time()`."""
        return self.loop_time()

    async def advance_clock(self, seconds: float) -> None:
        """Let `seconds` pass on the fake's clock at once (the event loop's own time and the
        bot's timers are untouched): interaction tokens older than 15 minutes expire and
        threads idle for longer than their auto_archive_duration are archived (THREAD_UPDATE).
        """
        self.clock_offset += seconds
        await self.lifecycle.auto_archive()
        self.notify()

    async def wait_for(
        self, predicate: Callable[[], T], *, timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until `predicate()` is truthy (re-checked whenever the fake changes)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordTimeout(
                    f"timed out after {timeout:g}s waiting for {what}\n" + self.describe_recent()
                )
            if self._changed is None:
                self._changed = asyncio.Event()
            event = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(remaining, 0.25))

    def describe_recent(self, n: int = 8) -> str:
        """Recent requests and problems, to make timeouts self-explanatory."""
        lines = ["recent requests:"]
        lines += [f"  {r.method} {r.path} -> {r.status}" for r in self.requests[-n:]] or ["  none"]
        if self.problems:
            lines.append("problems:")
            lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)

    # -- building the world -----------------------------------------------------------------------

    def create_user(self, name: str, *, locale: str = "en-US") -> FakeUser:
        """Add a human user; returns the simulated user that acts as them."""
        record = self.state.create_user(name)
        record.locale = locale
        return self.user(record)

    def user(self, user: UserLike) -> FakeUser:
        """The simulated user for a record or id."""
        record = self._user_record(user)
        if record.id not in self._users:
            self._users[record.id] = FakeUser(self, record)
        return self._users[record.id]

    def create_guild(self, name: str, *, owner: UserLike) -> GuildRecord:
        """Add a guild (with @everyone, the owner and the bot as members)."""
        return self.state.create_guild(name, owner=self._user_record(owner))

    def create_group_dm(self, owner: UserLike, *members: UserLike) -> ChannelRecord:
        """A group DM of users, without the bot: only commands of an app installed to the
        user (integration type 1) with the private-channel context (2) can be used there."""
        return self.state.create_group_dm(
            self._user_record(owner), [self._user_record(m) for m in members]
        )

    def create_role(self, guild: GuildRecord, name: str, permissions: int = 0) -> RoleRecord:
        """Add a role (above existing ones) with these permission bits (see `Perm`)."""
        return self.state.create_role(guild, name, permissions)

    def add_member(
        self, guild: GuildRecord, user: UserLike, roles: list[RoleRecord] | None = None
    ) -> None:
        """Make a user a guild member, adding roles (roles decide interaction permissions)."""
        self.state.add_member(guild, self._user_record(user), roles)

    def create_text_channel(
        self, guild: GuildRecord, name: str, *, overwrites: list[dict[str, Any]] | None = None
    ) -> ChannelRecord:
        """Add a text channel; overwrites use Discord's shape ({id, type, allow, deny})."""
        return self.state.create_channel(guild, name, overwrites=overwrites)

    def user_record(self, user: UserLike) -> UserRecord:
        """The UserRecord for a FakeUser, record or id."""
        return self._user_record(user)

    def _user_record(self, user: UserLike) -> UserRecord:
        if isinstance(user, UserRecord):
            return user
        record = getattr(user, "record", None)
        if isinstance(record, UserRecord):
            return record
        if isinstance(user, int) and user in self.state.users:
            return self.state.users[user]
        raise TypeError(f"not a user: {user!r}")

    def channel(self, channel: ChannelLike) -> ChannelRecord:
        """Resolve a channel record or id."""
        if isinstance(channel, ChannelRecord):
            return channel
        try:
            return self.state.channels[int(channel)]
        except (KeyError, TypeError, ValueError):
            raise AssertionError(f"no such channel: {channel!r}") from None

    @property
    def bot_user(self) -> UserRecord:
        return self.state.bot_user

    @property
    def application_id(self) -> int:
        return self.state.application_id

    # -- what a Discord client would show ---------------------------------------------------------

    def channel_messages(
        self, channel: ChannelLike, *, visible_to: UserLike | None = None
    ) -> list[MessageRecord]:
        """Messages of a channel in order; with `visible_to`, only what that user sees."""
        ch = self.channel(channel)
        if visible_to is None:
            return self.state.visible_messages(ch, None)
        user = self._user_record(visible_to)
        if not self.state.can_see_channel(user.id, ch):
            raise AssertionError(f"{user.name} cannot see channel {ch.name or ch.id}")
        return self.state.visible_messages(ch, user.id)

    def message(self, message_id: int | MessageRecord) -> MessageRecord:
        """A message record by id (deleted ones too, flagged `deleted`)."""
        if isinstance(message_id, MessageRecord):
            return message_id
        try:
            return self.state.messages[int(message_id)]
        except KeyError:
            raise AssertionError(f"no such message: {message_id}") from None

    def commands(self, guild: GuildRecord | None = None) -> list[dict[str, Any]]:
        """The commands the bot synced (global, or for one guild), as stored by Discord."""
        if guild is None:
            return list(self.state.global_commands)
        return list(self.state.guild_commands.get(guild.id, []))

    @property
    def emojis(self) -> list[Any]:
        """Application emojis the bot uploaded."""
        return list(self.state.emojis.values())

    def requests_to(self, method: str, path_regex: str) -> list[RequestRecord]:
        """Requests (including failed attempts) whose path fully matches the regex."""
        pattern = re.compile(path_regex)
        return [
            r
            for r in self.requests
            if r.method == method.upper() and pattern.fullmatch(r.path) is not None
        ]

    # -- faults -----------------------------------------------------------------------------------

    def close_dms(self, user: UserLike) -> None:
        """The user closes their DMs: the bot's DM messages get 403 / code 50007."""
        self.faults.closed_dms.add(self._user_record(user).id)

    def open_dms(self, user: UserLike) -> None:
        """Undo `close_dms`."""
        self.faults.closed_dms.discard(self._user_record(user).id)

    def fail_next(
        self,
        method: str,
        path_regex: str,
        status: int = 429,
        retry_after: float = 0.05,
        times: int = 1,
        **kwargs: Any,
    ) -> FaultRule:
        """Make the next `times` requests matching (method, full-path regex) fail.

        429 carries `retry_after` and rate-limit headers; other statuses a Discord error body.
        Extra keyword arguments: is_global, code, message.
        """
        return self.faults.fail_next(
            method, path_regex, status=status, retry_after=retry_after, times=times, **kwargs
        )

    async def drop_gateway(self, code: int | None = None, *, shard: int = 0) -> None:
        """Cut the bot's gateway connection (abruptly when code is None); it should RESUME."""
        await self.gateway.drop(code, shard=shard)

    async def invalidate_session(self, *, shard: int = 0) -> None:
        """Forget the bot's session and drop it: the RESUME gets INVALID_SESSION."""
        await self.gateway.invalidate_session(shard=shard)

    async def request_reconnect(self, *, shard: int = 0) -> None:
        """Send the gateway RECONNECT opcode."""
        await self.gateway.request_reconnect(shard=shard)

    # -- payloads shared by REST and gateway -----------------------------------------------------

    def guild_payload(self, guild: GuildRecord) -> dict[str, Any]:
        """The guild object (REST shape, without members and channels)."""
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": guild.preferred_locale,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "max_members": 500000,
        }

    def guild_create_payload(self, guild: GuildRecord, intents: int) -> dict[str, Any]:
        """GUILD_CREATE: members only include everyone with the GUILD_MEMBERS intent."""
        bot_id = self.state.bot_user.id
        members = [
            m.payload()
            for uid, m in guild.members.items()
            if intents & Intent.GUILD_MEMBERS or uid == bot_id
        ]
        threads = [
            c.payload()
            for c in self.state.channels.values()
            if c.guild_id == guild.id and c.is_thread and not c.archived and not c.deleted
        ]
        return {
            **self.guild_payload(guild),
            "joined_at": guild.members[bot_id].joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": members,
            "channels": [self.state.channels[c].payload() for c in guild.channel_ids],
            "threads": threads,
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    # -- messages (shared by channel routes, interaction callbacks and simulated users) ----------

    def _build_attachments(
        self,
        channel: ChannelRecord,
        body: dict[str, Any],
        uploads: dict[int, Upload],
        existing: list[AttachmentRecord],
        *,
        ephemeral: bool,
    ) -> tuple[list[AttachmentRecord], list[str]]:
        listed = body.get("attachments")
        errors: list[str] = []
        result: list[AttachmentRecord] = []
        used: set[int] = set()
        if listed is None:
            result = list(existing)
        else:
            old = {a.id: a for a in existing}
            for i, entry in enumerate(listed):
                try:
                    ident = int(entry.get("id"))
                except (TypeError, ValueError):
                    errors.append(f"attachments[{i}].id: not a number")
                    continue
                if ident in old:
                    result.append(old[ident])
                elif ident in uploads and ident not in used:
                    used.add(ident)
                    result.append(self._new_attachment(channel, uploads[ident], entry, ephemeral))
                else:
                    errors.append(f"attachments[{i}]: no uploaded file or attachment {ident}")
        for index in sorted(uploads):
            if index not in used:
                result.append(self._new_attachment(channel, uploads[index], {}, ephemeral))
        for att in result:
            if att.description is not None and len(att.description) > 1024:
                errors.append(
                    f"attachments: {att.filename} has a description (alt text) of "
                    f"{len(att.description)} characters, the limit is 1024"
                )
        self._check_upload_sizes(uploads)
        return result, errors

    def _check_upload_sizes(self, uploads: dict[int, Upload]) -> None:
        """Discord refuses a file over the guild's upload limit, or a request over 25 MiB,
        with 413 "Request entity too large" (code 40005)."""
        too_big = [u for u in uploads.values() if len(u.data) > self.attachment_size_limit]
        total = sum(len(u.data) for u in uploads.values())
        if too_big or total > self.max_request_size:
            names = ", ".join(f"{u.filename} ({len(u.data)} bytes)" for u in too_big)
            raise ApiError(
                413,
                40005,
                "Request entity too large",
                problem=True,
                details=[
                    f"files over the {self.attachment_size_limit}-byte limit: {names}"
                    if too_big
                    else f"{total} bytes of files, over {self.max_request_size}"
                ],
            )

    def _new_attachment(
        self, channel: ChannelRecord, upload: Upload, entry: dict[str, Any], ephemeral: bool
    ) -> AttachmentRecord:
        filename = entry.get("filename") or upload.filename
        attachment_id = self.state.snowflakes.next()
        size = image_size(upload.data)
        return AttachmentRecord(
            id=attachment_id,
            filename=filename,
            content_type=sniff_content_type(filename, upload.data, upload.declared_type),
            data=upload.data,
            url=self.state.attachment_url(channel.id, attachment_id, filename),
            description=entry.get("description"),
            width=size[0] if size else None,
            height=size[1] if size else None,
            ephemeral=ephemeral,
        )

    def _render_embeds(
        self, embeds: list[dict[str, Any]], attachments: list[AttachmentRecord]
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """Discord resolves `attachment://name` media to the uploaded file's URL."""
        by_name = {a.filename: a for a in attachments}
        out: list[dict[str, Any]] = []
        errors: list[str] = []
        for embed in embeds:
            embed = copy_json(embed)
            embed.setdefault("type", "rich")
            for key in ("image", "thumbnail"):
                media = embed.get(key) or {}
                url = str(media.get("url") or "")
                if url.startswith("attachment://"):
                    att = by_name.get(url[len("attachment://") :])
                    if att is None:
                        errors.append(
                            f"embed {key} references {url} but no file with that name is attached"
                        )
                        continue
                    media.update(url=att.url, proxy_url=att.url)
                    if att.width is not None:
                        media.update(width=att.width, height=att.height)
            out.append(embed)
        return out, errors

    def _mentions(self, content: str) -> list[UserRecord]:
        return [
            self.state.users[int(uid)]
            for uid in dict.fromkeys(MENTION.findall(content or ""))
            if int(uid) in self.state.users
        ]

    def _register(self, channel: ChannelRecord, attachments: list[AttachmentRecord]) -> None:
        for att in attachments:
            self.state.attachments.setdefault(att.id, (channel.id, att))

    def _unregister(self, replaced: list[AttachmentRecord], kept: list[AttachmentRecord]) -> None:
        """Without history, a picture no message shows any more is forgotten."""
        if self.keep_history:
            return
        still = {att.id for att in kept}
        for att in replaced:
            if att.id not in still:
                self.state.attachments.pop(att.id, None)

    def forget_history(self) -> None:
        """Keep only what Discord itself would still answer about (see `keep_history`)."""
        self.keep_history = False
        self.timeline.clear()

    def _forget_old_interactions(self) -> None:
        """Without history, an interaction is forgotten once its token has expired; its token
        is still answered as expired, as Discord does."""
        if self.keep_history:
            return
        oldest = self.loop_time() - self.interaction_token_lifetime - 60.0
        interactions = self.state.interactions
        while interactions:
            first = next(iter(interactions.values()))
            if first.created_at > oldest:
                break
            del interactions[first.id]
            self.state.interactions_by_token.pop(first.token, None)
            self.state.expired_tokens.add(first.token)

    async def create_message(
        self,
        channel: ChannelRecord,
        *,
        author: UserRecord,
        body: dict[str, Any],
        uploads: dict[int, Upload],
        interaction: InteractionRecord | None = None,
        msg_type: int = 0,
        allow_empty: bool = False,
        reference: dict[str, Any] | None = None,
    ) -> MessageRecord:
        """Create a message the way Discord would (validating it first) and dispatch it.

        A message in a thread is activity there; in an archived thread it unarchives it
        (callers check first that the author may).
        """
        flags = int(body.get("flags") or 0) & CREATE_FLAGS
        if interaction is None:
            flags &= ~MessageFlag.EPHEMERAL
        ephemeral = bool(flags & MessageFlag.EPHEMERAL)
        attachments, errors = self._build_attachments(
            channel, body, uploads, [], ephemeral=ephemeral
        )
        embeds, embed_errors = self._render_embeds(body.get("embeds") or [], attachments)
        errors += check_message(body, n_attachments=len(attachments), editing=allow_empty)
        errors += embed_errors
        if errors:
            raise invalid_form(errors)
        guild = self.state.guild_of(channel)
        msg = MessageRecord(
            id=self.state.snowflakes.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=body.get("content") or "",
            embeds=embeds,
            components=stored_components(body.get("components") or []),
            attachments=attachments,
            flags=flags,
            type=msg_type,
            tts=bool(body.get("tts")),
            message_reference=reference or body.get("message_reference"),
            member=guild.members.get(author.id) if guild else None,
            mentions=self._mentions(body.get("content") or ""),
        )
        if interaction is not None:
            msg.visible_to = interaction.user.id if ephemeral else None
            msg.interaction_id = interaction.id
            msg.interaction_metadata = interaction.metadata()
            msg.webhook_id = self.state.application_id
            msg.application_id = self.state.application_id
        if channel.is_thread and not ephemeral:
            await self.lifecycle.touch(channel, author)
        self._register(channel, attachments)
        channel.messages.append(msg)
        self.state.messages[msg.id] = msg
        self._log_change("create", msg)
        self._place_touched(msg)
        if not ephemeral:
            await self._dispatch_message("MESSAGE_CREATE", msg)
        self.notify()
        return msg

    def _log_change(self, kind: str, msg: MessageRecord) -> None:
        if not self.keep_history:
            return
        self.timeline.append(
            TimelineEntry(
                seq=len(self.timeline),
                at=time.time(),
                kind=kind,
                message=msg,
                version=msg.snapshot(by_interaction_id=None),
            )
        )

    def timeline_for(self, user: UserLike) -> list[TimelineEntry]:
        """The changes `user`'s client shows, in order: in the channels and threads they can
        see (others' ephemerals excluded) and in their DMs with the bot."""
        record = self._user_record(user)
        out = []
        for entry in self.timeline:
            msg = entry.message
            if msg.visible_to is not None and msg.visible_to != record.id:
                continue
            channel = self.state.channels[msg.channel_id]
            if channel.is_dm:
                if channel.recipient is None or channel.recipient.id != record.id:
                    continue
            elif not self.state.can_see_channel(record.id, channel):
                continue
            out.append(entry)
        return out

    async def edit_message(
        self,
        msg: MessageRecord,
        *,
        body: dict[str, Any],
        uploads: dict[int, Upload],
        interaction: InteractionRecord | None = None,
    ) -> MessageRecord:
        """Apply an edit; the previous state goes to `msg.history` (unless it was loading)."""
        channel = self.state.channels[msg.channel_id]
        attachments = msg.attachments
        errors: list[str] = []
        if "attachments" in body or uploads:
            attachments, errors = self._build_attachments(
                channel, body, uploads, msg.attachments, ephemeral=msg.ephemeral
            )
        embeds = msg.embeds
        if "embeds" in body:
            embeds, embed_errors = self._render_embeds(body.get("embeds") or [], attachments)
            errors += embed_errors
        errors += check_message(body, n_attachments=len(attachments), editing=True)
        content = (body.get("content") or "") if "content" in body else msg.content
        components = (
            stored_components(body.get("components") or [])
            if "components" in body
            else msg.components
        )
        if not (content or embeds or components or attachments):
            errors.append("Cannot send an empty message (code 50006)")
        if errors:
            raise invalid_form(errors)
        if not msg.loading:
            msg.edits += 1
            if self.keep_history:
                msg.history.append(
                    msg.snapshot(by_interaction_id=interaction.id if interaction else None)
                )
            msg.edited_at = iso_now()
        replaced = msg.attachments
        msg.content = content
        msg.embeds = embeds
        msg.components = components
        msg.attachments = attachments
        msg.mentions = self._mentions(content)
        if body.get("flags") is not None:
            keep = msg.flags & ~EDIT_FLAGS
            msg.flags = keep | (int(body["flags"]) & EDIT_FLAGS)
        msg.flags &= ~MessageFlag.LOADING
        self._unregister(replaced, attachments)
        self._register(channel, attachments)
        self._log_change("edit", msg)
        self._place_touched(msg)
        if not msg.ephemeral:
            await self._dispatch_message("MESSAGE_UPDATE", msg)
        self.notify()
        return msg

    async def delete_message(self, msg: MessageRecord) -> None:
        """Delete a message (kept in state with `deleted=True` so tests can still inspect it;
        without history it leaves its channel's list, with its pictures and controls)."""
        self._log_change("delete", msg)
        msg.deleted = True
        if not self.keep_history:
            self._unregister(msg.attachments, [])
            msg.attachments, msg.components, msg.embeds = [], [], []
            with contextlib.suppress(ValueError):  # already out of it
                self.state.channels[msg.channel_id].messages.remove(msg)
        self._place_touched(msg)
        if not msg.ephemeral:
            channel = self.state.channels[msg.channel_id]
            data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
            intent = Intent.DIRECT_MESSAGES if channel.is_dm else Intent.GUILD_MESSAGES
            await self.gateway.dispatch("MESSAGE_DELETE", data, intent=intent)
        self.notify()

    async def react(self, msg: MessageRecord, user: UserRecord, emoji: str, *, add: bool) -> None:
        """Add or remove a reaction and dispatch the gateway event."""
        users = msg.reactions.setdefault(emoji, set())
        if add:
            users.add(user.id)
        else:
            users.discard(user.id)
        name, _, emoji_id = emoji.partition(":")
        data: dict[str, Any] = {
            "user_id": str(user.id),
            "channel_id": str(msg.channel_id),
            "message_id": str(msg.id),
            "emoji": {"id": emoji_id or None, "name": name},
            "burst": False,
            "type": 0,
        }
        if msg.guild_id:
            data["guild_id"] = str(msg.guild_id)
        intent = (1 << 13) if msg.guild_id is None else Intent.GUILD_MESSAGE_REACTIONS
        event = "MESSAGE_REACTION_ADD" if add else "MESSAGE_REACTION_REMOVE"
        await self.gateway.dispatch(event, data, intent=intent)
        self.notify()

    async def dispatch_message_update(self, msg: MessageRecord) -> None:
        """MESSAGE_UPDATE for a change Discord makes itself (a thread started from it)."""
        if not msg.ephemeral and not msg.deleted:
            await self._dispatch_message("MESSAGE_UPDATE", msg)

    async def _dispatch_message(self, event: str, msg: MessageRecord) -> None:
        channel = self.state.channels[msg.channel_id]
        payload = msg.payload()
        if msg.member is not None:
            payload["member"] = msg.member.payload(with_user=False)
        session = self.gateway.session_for(msg.guild_id)
        bot_id = self.state.bot_user.id
        can_read = (
            msg.author.id == bot_id
            or channel.is_dm
            or any(u.id == bot_id for u in msg.mentions)
            or (session is not None and session.intents & Intent.MESSAGE_CONTENT)
        )
        if not can_read:
            # Without the privileged MESSAGE_CONTENT intent Discord blanks these fields.
            payload.update(content="", embeds=[], attachments=[], components=[])
        intent = Intent.DIRECT_MESSAGES if channel.is_dm else Intent.GUILD_MESSAGES
        await self.gateway.dispatch(event, payload, intent=intent)

    # -- interactions -----------------------------------------------------------------------------

    async def start_interaction(
        self,
        *,
        user: UserRecord,
        channel: ChannelRecord,
        type: int,
        data: dict[str, Any],
        source_message: MessageRecord | None = None,
        opened_by: InteractionRecord | None = None,
    ) -> InteractionRecord:
        """Create an interaction and send INTERACTION_CREATE to the bot."""
        session = self.gateway.session_for(channel.guild_id)
        if session is None or not session.valid:
            raise AssertionError("the bot has no gateway session; start it before interacting")
        rec = InteractionRecord(
            id=self.state.snowflakes.next(),
            token="aW50ZXJhY3Rpb24." + secrets.token_urlsafe(32),
            type=type,
            user=user,
            channel_id=channel.id,
            guild_id=channel.guild_id,
            data=data,
            created_at=self.loop_time(),
            source_message_id=source_message.id if source_message else None,
            opened_by=opened_by,
        )
        self._forget_old_interactions()
        self.state.interactions[rec.id] = rec
        self.state.interactions_by_token[rec.token] = rec
        await self.gateway.dispatch(
            "INTERACTION_CREATE", self.interaction_payload(rec, source_message)
        )
        self.notify()
        return rec

    def interaction_payload(
        self, rec: InteractionRecord, source_message: MessageRecord | None
    ) -> dict[str, Any]:
        """INTERACTION_CREATE data, with member+permissions in guilds and user in DMs."""
        state = self.state
        channel = state.channels[rec.channel_id]
        bot_perms = state.permissions_in(state.bot_user.id, channel)
        user_perms = state.permissions_in(rec.user.id, channel)
        payload: dict[str, Any] = {
            "id": str(rec.id),
            "application_id": str(state.application_id),
            "type": rec.type,
            "data": rec.data,
            "token": rec.token,
            "version": 1,
            "locale": rec.user.locale,
            "app_permissions": str(bot_perms),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": self.attachment_size_limit,
            "channel_id": str(channel.id),
            "channel": {**channel.payload(), "permissions": str(user_perms)},
            "authorizing_integration_owners": (
                {"0": str(rec.guild_id)} if rec.guild_id else {"1": str(rec.user.id)}
            ),
            "context": 0 if rec.guild_id else 2 if channel.is_group_dm else 1,
        }
        if channel.is_group_dm:
            # The app is not in the group DM: what its answers may carry (Discord's
            # app_permissions for a user-installed app in a private channel).
            payload["app_permissions"] = str(Perm.EMBED_LINKS | Perm.ATTACH_FILES)
        if rec.guild_id is not None:
            guild = state.guilds[rec.guild_id]
            member = guild.members[rec.user.id]
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {
                "id": str(guild.id),
                "locale": guild.preferred_locale,
                "features": [],
            }
            payload["guild_locale"] = guild.preferred_locale
            payload["member"] = member.payload(permissions=user_perms)
        else:
            payload["user"] = rec.user.payload()
        if source_message is not None:
            payload["message"] = source_message.payload()
        return payload

    def dm_channel(self, user: UserLike) -> ChannelRecord:
        """The bot's DM channel with a user (opened if needed, as a user clicking 'Message')."""
        channel = self.state.dm_channel(self._user_record(user))
        assert channel is not None
        return channel

    def thread(self, parent: ChannelLike, name: str) -> ChannelRecord:
        """A thread under `parent` by name (the newest, if names repeat; deleted ones too)."""
        parent_rec = self.channel(parent)
        for ch in reversed(list(self.state.channels.values())):
            if ch.parent_id == parent_rec.id and ch.name == name:
                return ch
        names = [t.name for t in self.state.threads_of(parent_rec)]
        raise AssertionError(f"no thread {name!r} under {parent_rec.name}; it has {names}")

    def threads(self, parent: ChannelLike) -> list[ChannelRecord]:
        """Threads under a channel that still exist (archived ones included), oldest first."""
        return self.state.threads_of(self.channel(parent))

    # -- lifecycle: what time and moderators do (see lifecycle.py) -------------------------------

    async def delete_channel(self, channel: ChannelLike) -> None:
        """Delete a channel (CHANNEL_DELETE; its threads go with it) or a thread
        (THREAD_DELETE). Later requests for it get 404 10003 Unknown Channel."""
        await self.lifecycle.delete_channel(self.channel(channel))

    async def archive_thread(self, thread: ChannelLike, *, locked: bool = False) -> None:
        """Archive (and optionally lock) a thread, as a moderator or inactivity would;
        THREAD_UPDATE. A message sent to it unarchives it unless it is locked."""
        await self.lifecycle.set_archived(self.channel(thread), archived=True, locked=locked)

    async def unarchive_thread(self, thread: ChannelLike) -> None:
        """Unarchive and unlock a thread; THREAD_UPDATE."""
        await self.lifecycle.set_archived(self.channel(thread), archived=False, locked=False)

    async def set_overwrite(
        self, channel: ChannelLike, target: Any, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Set one permission overwrite (target: a role, the guild for @everyone, or a user;
        allow=deny=0 removes it); CHANNEL_UPDATE. Requests are then checked against the
        new effective permissions (403 50001 without View Channel, 50013 otherwise)."""
        await self.lifecycle.set_overwrite(self.channel(channel), target, allow=allow, deny=deny)

    async def set_overwrites(self, channel: ChannelLike, overwrites: list[dict[str, Any]]) -> None:
        """Replace a channel's overwrites ({id, type, allow, deny}); CHANNEL_UPDATE."""
        await self.lifecycle.set_overwrites(self.channel(channel), overwrites)

    async def set_role_permissions(self, role: RoleRecord, permissions: int) -> None:
        """Change a role's permission bits; GUILD_ROLE_UPDATE."""
        await self.lifecycle.set_role_permissions(role, permissions)

    async def remove_bot(self, guild: GuildRecord) -> None:
        """Kick the bot from a guild: GUILD_DELETE; its requests there get 403 50001."""
        await self.lifecycle.remove_bot(guild)
