"""The fake Discord REST API (the routes under /api/v10 that discord.py calls).

Every request is matched against an explicit route table. Unknown routes answer 404 with a
clear message *and* are recorded so the fixture fails the test: a bot calling an endpoint the
fake does not model is a gap in the test harness, never something to ignore. Requests must
carry ``Authorization: Bot <token>`` except interaction callbacks and interaction webhooks,
which Discord authenticates by the token in the URL. Responses use the exact
``Content-Type: application/json`` header discord.py checks before parsing JSON.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import re
import struct
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from aiohttp import web

from . import apispec
from .lifecycle import ARCHIVE_DURATIONS
from .state import (
    ChannelRecord,
    ChannelType,
    EmojiRecord,
    GuildRecord,
    InteractionRecord,
    MessageFlag,
    MessageRecord,
    Perm,
)
from .validation import check_commands, check_emoji_name

if TYPE_CHECKING:
    from .server import FakeDiscord

API_PREFIX = "/api/v10"


class ApiError(Exception):
    """An error response in Discord's JSON shape. `problem=True` also fails the test."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        problem: bool = False,
        details: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.problem = problem
        self.details = details or []

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.details:
            # discord.py flattens `errors` into the HTTPException text, so the reasons show up
            # in the bot's traceback.
            body["errors"] = {
                "fakediscord": {"_errors": [{"code": 50035, "message": d} for d in self.details]}
            }
        return body


def invalid_form(details: list[str]) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", problem=True, details=details)


RESPONSE_BODY = web.ResponseKey("fakediscord.body", object)  # the JSON body, for the spec check


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> web.Response:
    """JSON response with the bare `application/json` type (no charset), as Discord sends."""
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    response = web.Response(status=status, body=json.dumps(body).encode(), headers=all_headers)
    response[RESPONSE_BODY] = body
    return response


def no_content() -> web.Response:
    return web.Response(status=204)


@dataclass
class Upload:
    """A file part of a multipart request (`files[n]`)."""

    index: int
    filename: str
    data: bytes
    declared_type: str | None


@dataclass
class RequestRecord:
    """One request as the fake saw it, for assertions like "retried exactly once"."""

    method: str
    path: str
    query: dict[str, str]
    status: int = 0
    body: Any = None
    files: list[str] = field(default_factory=list)
    limit_headers: dict[str, str] = field(default_factory=dict)
    routed: bool = False  # the fake models the route (else it answered "unknown route")
    has_body: bool = False
    abandoned: bool = False  # the client's connection closed before its request was read


@dataclass
class Call:
    """What a route handler gets: the request, parsed body and path parameters."""

    request: web.Request
    method: str
    path: str
    params: dict[str, str]
    body: dict[str, Any]
    uploads: dict[int, Upload]

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise ApiError(404, 0, f"404: Not Found ({name} is not a snowflake)") from None

    def flag(self, name: str) -> bool:
        return self.request.query.get(name, "").lower() in ("1", "true")


Handler = Callable[[Call], Awaitable[web.Response]]


def sniff_content_type(filename: str, data: bytes, declared: str | None) -> str:
    """Discord derives the content type from the file, not from the multipart header."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    guessed = mimetypes.guess_type(filename)[0]
    if guessed:
        return guessed
    if declared and declared != "application/octet-stream":
        return declared
    return "application/octet-stream"


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of PNG and GIF images (Discord reports them for images)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    return None


def media_type(request: web.Request) -> str:
    """The request's Content-Type without its parameters, lower case (aiohttp's
    ``request.content_type`` parses the header with the ``email`` package: 14 % of the
    benchmark process's CPU at 200 tables, the fake answering the bot that much later)."""
    value = request.headers.get("Content-Type")
    if value is None:
        return "application/octet-stream"  # what aiohttp says for a request without one
    return value.partition(";")[0].strip().lower()


_PARAM = re.compile(r';\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))')


def _parameters(value: str) -> dict[str, str]:
    """A header's parameters (``name="files[0]"; filename=a.png``), names in lower case."""
    out: dict[str, str] = {}
    for match in _PARAM.finditer(value):
        quoted, plain = match.group(2), match.group(3)
        text = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else plain
        out[match.group(1).lower()] = text
    for key in ("name", "filename"):  # RFC 5987: charset'language'percent-encoded
        extended = out.pop(key + "*", None)
        if extended is not None:
            charset, _, rest = extended.partition("'")
            _, _, encoded = rest.partition("'")
            out[key] = unquote(encoded, encoding=charset or "utf-8", errors="replace")
    return out


def split_multipart(
    request: web.Request, raw: bytes
) -> list[tuple[str, str | None, str | None, bytes]]:
    """A multipart/form-data body's parts (RFC 7578): (name, filename, Content-Type, data).

    Written here rather than aiohttp's ``MultipartReader``: its header parsing
    (``parse_content_disposition``, ``re.escape`` for every parameter) was a quarter of the
    fake's CPU at 200 tables, the fake's loop answering the bot that much later. A body
    that is not well-formed multipart is a 400, as Discord answers it."""
    boundary = _parameters(request.headers.get("Content-Type", "")).get("boundary")
    if not boundary:
        raise ApiError(400, 50035, "multipart body without a boundary", problem=True)
    delimiter = b"\r\n--" + boundary.encode()
    pieces = (b"\r\n" + raw).split(delimiter)
    if len(pieces) < 2 or not pieces[-1].startswith(b"--"):
        raise ApiError(400, 50035, "multipart body not closed by its boundary", problem=True)
    parts = []
    for piece in pieces[1:-1]:
        head, blank, data = piece.partition(b"\r\n\r\n")
        if not blank:
            raise ApiError(400, 50035, "multipart part without headers", problem=True)
        headers: dict[str, str] = {}
        for line in head.decode("utf-8", "replace").split("\r\n")[1:]:
            key, colon, value = line.partition(":")
            if colon:
                headers[key.strip().lower()] = value.strip()
        disposition = headers.get("content-disposition", "")
        if not disposition.lower().startswith("form-data"):
            raise ApiError(400, 50035, "multipart part is not form-data", problem=True)
        params = _parameters(disposition)
        parts.append(
            (params.get("name", ""), params.get("filename"), headers.get("content-type"), data)
        )
    return parts


async def read_body(request: web.Request) -> tuple[dict[str, Any], dict[int, Upload]]:
    """Parse a JSON body or a multipart body (`payload_json` + `files[n]`)."""
    ctype = media_type(request)
    uploads: dict[int, Upload] = {}
    if ctype == "multipart/form-data":
        body: dict[str, Any] = {}
        for name, filename, declared, raw in split_multipart(request, await request.read()):
            if name == "payload_json":
                body = json.loads(raw.decode())
                continue
            match = re.fullmatch(r"files\[(\d+)\]", name)
            if match is None:
                raise ApiError(400, 50035, f"unexpected multipart field {name!r}", problem=True)
            index = int(match.group(1))
            uploads[index] = Upload(
                index=index,
                filename=filename or f"file{index}",
                data=raw,
                declared_type=declared,
            )
        return body, uploads
    raw = await request.read()
    if not raw:
        return {}, uploads
    if ctype != "application/json":
        raise ApiError(400, 50035, f"unsupported Content-Type {ctype!r}", problem=True)
    try:
        parsed = json.loads(raw)
    except ValueError:
        raise ApiError(
            400, 50109, "The request body contains invalid JSON.", problem=True
        ) from None
    return (parsed if isinstance(parsed, dict) else {"__list__": parsed}), uploads


class RestApi:
    """Route table and handlers. Mutations go through the server's state and notify tests."""

    def __init__(self, server: FakeDiscord) -> None:
        self.server = server
        self.state = server.state
        self.spec_queue: list[tuple[Any, ...]] = []
        snow = r"(?P<{}>\d+)"
        token = r"(?P<token>[^/]+)"
        bot = "bot"
        tok = "token"
        table: list[tuple[str, str, Handler, str]] = [
            ("GET", "/gateway", self.get_gateway, bot),
            ("GET", "/gateway/bot", self.get_gateway_bot, bot),
            ("GET", "/users/@me", self.get_me, bot),
            ("GET", "/users/" + snow.format("user_id"), self.get_user, bot),
            ("POST", "/users/@me/channels", self.create_dm, bot),
            ("GET", "/oauth2/applications/@me", self.get_application, bot),
            ("GET", "/applications/@me", self.get_application, bot),
            ("GET", "/applications/{app}/commands", self.get_commands, bot),
            ("PUT", "/applications/{app}/commands", self.put_commands, bot),
            ("POST", "/applications/{app}/commands", self.post_command, bot),
            ("GET", "/applications/{app}/commands/{cmd}", self.get_command, bot),
            ("DELETE", "/applications/{app}/commands/{cmd}", self.delete_command, bot),
            ("GET", "/applications/{app}/guilds/{guild}/commands", self.get_commands, bot),
            ("PUT", "/applications/{app}/guilds/{guild}/commands", self.put_commands, bot),
            ("POST", "/applications/{app}/guilds/{guild}/commands", self.post_command, bot),
            ("GET", "/applications/{app}/guilds/{guild}/commands/{cmd}", self.get_command, bot),
            (
                "DELETE",
                "/applications/{app}/guilds/{guild}/commands/{cmd}",
                self.delete_command,
                bot,
            ),
            ("GET", "/applications/{app}/emojis", self.list_emojis, bot),
            ("POST", "/applications/{app}/emojis", self.create_emoji, bot),
            ("GET", "/applications/{app}/emojis/{emoji}", self.get_emoji, bot),
            ("PATCH", "/applications/{app}/emojis/{emoji}", self.edit_emoji, bot),
            ("DELETE", "/applications/{app}/emojis/{emoji}", self.delete_emoji, bot),
            ("GET", "/guilds/{guild}", self.get_guild, bot),
            ("GET", "/guilds/{guild}/channels", self.get_guild_channels, bot),
            ("GET", "/guilds/{guild}/roles", self.get_guild_roles, bot),
            ("GET", "/guilds/{guild}/members/{user}", self.get_member, bot),
            ("GET", "/channels/{channel}", self.get_channel, bot),
            ("PATCH", "/channels/{channel}", self.patch_channel, bot),
            ("DELETE", "/channels/{channel}", self.delete_channel, bot),
            ("GET", "/channels/{channel}/messages", self.list_messages, bot),
            ("POST", "/channels/{channel}/messages", self.post_message, bot),
            ("GET", "/channels/{channel}/messages/{message}", self.get_message, bot),
            ("PATCH", "/channels/{channel}/messages/{message}", self.patch_message, bot),
            ("DELETE", "/channels/{channel}/messages/{message}", self.delete_message, bot),
            (
                "PUT",
                "/channels/{channel}/messages/{message}/reactions/(?P<emoji>[^/]+)/@me",
                self.add_reaction,
                bot,
            ),
            (
                "DELETE",
                "/channels/{channel}/messages/{message}/reactions/(?P<emoji>[^/]+)/@me",
                self.remove_reaction,
                bot,
            ),
            ("POST", "/channels/{channel}/typing", self.typing, bot),
            ("POST", "/channels/{channel}/threads", self.create_thread, bot),
            ("POST", "/channels/{channel}/messages/{message}/threads", self.create_thread, bot),
            (
                "PUT",
                "/channels/{channel}/thread-members/(?P<member>@me|\\d+)",
                self.join_thread,
                bot,
            ),
            ("POST", "/interactions/{interaction}/" + token + "/callback", self.callback, tok),
            ("POST", "/webhooks/{app}/" + token, self.followup, tok),
            (
                "GET",
                "/webhooks/{app}/" + token + "/messages/(?P<mid>@original|\\d+)",
                self.webhook_get,
                tok,
            ),
            (
                "PATCH",
                "/webhooks/{app}/" + token + "/messages/(?P<mid>@original|\\d+)",
                self.webhook_edit,
                tok,
            ),
            (
                "DELETE",
                "/webhooks/{app}/" + token + "/messages/(?P<mid>@original|\\d+)",
                self.webhook_delete,
                tok,
            ),
        ]
        names = ("app", "guild", "cmd", "emoji", "channel", "message", "user", "interaction")
        self.routes: list[tuple[str, re.Pattern[str], Handler, str]] = []
        for method, template, handler, auth in table:
            pattern = template
            for name in names:
                pattern = pattern.replace("{" + name + "}", snow.format(name))
            self.routes.append((method, re.compile(pattern), handler, auth))

    # -- dispatching ------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.Response:
        """Entry point for every /api/v10 request."""
        server = self.server
        path = request.path[len(API_PREFIX) :] or "/"
        record = RequestRecord(method=request.method, path=path, query=dict(request.query))
        server.requests.append(record)
        try:
            response = await self._route(request, path, record)
        except ConnectionResetError:
            # The client went away in the middle of its request (a bot process SIGKILLed
            # while uploading a picture): nobody is left to answer, and Discord would see
            # a closed connection, not a fault. aiohttp drops it quietly.
            record.abandoned = True
            server.notify()
            raise
        except ApiError as err:
            if err.problem:
                detail = "; ".join(err.details) if err.details else err.message
                server.problem(f"{request.method} {path} -> {err.status}: {detail}")
            response = json_response(err.status, err.body())
        except Exception as exc:  # a bug in the fake itself must fail the test, loudly
            server.problem(
                f"{request.method} {path}: the fake crashed: {exc!r}\n{traceback.format_exc()}"
            )
            # Not a 5xx: discord.py would retry those with growing sleeps (25 s in total).
            response = json_response(400, {"message": f"fakediscord crashed: {exc!r}", "code": 0})
        for key, value in record.limit_headers.items():
            response.headers.setdefault(key, value)
        record.status = response.status
        if server.check_spec and record.routed:
            self._check_spec(request, record, response)
        server.invalid_requests.record(
            response.status, request.method, path, response.headers.get("X-RateLimit-Scope")
        )
        server.notify()
        return response

    def _check_spec(
        self, request: web.Request, record: RequestRecord, response: web.Response
    ) -> None:
        """Queue the request and the fake's answer for checking against Discord's OpenAPI
        description. The check runs in `check_spec_queue()` (at the latest when the test
        ends), off the request path: a schema check takes milliseconds, and the bot shares
        the fake's event loop."""
        body = record.body
        if isinstance(body, dict) and set(body) == {"__list__"}:
            body = body["__list__"]
        self.spec_queue.append(
            (
                record.method,
                record.path,
                record.query,
                body if record.has_body else None,
                media_type(request),
                response.status,
                response.get(RESPONSE_BODY),
            )
        )

    def check_spec_queue(self) -> None:
        """Check every queued request and answer; violations become problems (one per
        kind of request and reason)."""
        spec = apispec.load()
        queue, self.spec_queue = self.spec_queue, []
        reported: set[tuple[str, str, str]] = set()
        for method, path, query, body, content_type, status, sent in queue:
            op = spec.operation(method, path)
            where = f"{method} {path}"
            if isinstance(op, str):
                found = [("Discord's API spec", op)]
            else:
                found = [
                    ("the bot's request breaks Discord's API spec", e)
                    for e in spec.check_request(op, query, body, content_type)
                ]
                found += [
                    ("the fake's answer breaks Discord's API spec", e)
                    for e in spec.check_response(op, status, sent)
                ]
            for who, error in found:
                template = op.template if not isinstance(op, str) else path
                if (template, who, error) in reported:
                    continue
                reported.add((template, who, error))
                self.server.problem(f"{where}: {who}: {error}")

    async def _route(self, request: web.Request, path: str, record: RequestRecord) -> web.Response:
        handler = None
        params: dict[str, str] = {}
        auth = "bot"
        path_matched = False
        for method, pattern, candidate, kind in self.routes:
            match = pattern.fullmatch(path)
            if match is None:
                continue
            path_matched = True
            if method == request.method:
                handler, params, auth = candidate, match.groupdict(), kind
                break
        if handler is None:
            why = "method not modelled" if path_matched else "unknown route"
            self.server.unknown_route(request.method, path)
            return json_response(
                404,
                {
                    "message": f"fakediscord: {why}: {request.method} {path} "
                    "(add it to tests/fakediscord/rest.py if the bot really needs it)",
                    "code": 0,
                },
            )
        record.routed = True
        if auth == "bot":
            expected = f"Bot {self.state.token}"
            if request.headers.get("Authorization") != expected:
                self.server.auth_failures.append(f"{request.method} {path}")
                return json_response(401, {"message": "401: Unauthorized", "code": 0})
        record.has_body = request.body_exists
        body, uploads = await read_body(request)
        record.body = body
        record.files = [u.filename for u in uploads.values()]
        # Interaction callbacks and interaction-token webhooks are outside the global limit.
        verdict = self.server.rate_limits.check(
            request.method, path, counts_globally=auth == "bot", body=body
        )
        record.limit_headers = verdict.headers
        if verdict.refused:
            return json_response(429, verdict.body())
        rule = self.server.faults.take(request.method, path)
        if rule is not None:
            status, fault_body, headers = rule.response()
            return json_response(status, fault_body, headers)
        call = Call(request, request.method, path, params, body, uploads)
        return await handler(call)

    # -- helpers ----------------------------------------------------------------------------

    def _check_app(self, call: Call) -> None:
        if call.int_param("app") != self.state.application_id:
            raise ApiError(403, 50001, "Missing Access")

    def _channel(self, call: Call, *, need: int = Perm.VIEW_CHANNEL) -> ChannelRecord:
        channel = self.state.channels.get(call.int_param("channel"))
        bot_id = self.state.bot_user.id
        if channel is None or channel.deleted:
            raise ApiError(404, 10003, "Unknown Channel")
        perms = self.state.permissions_in(bot_id, channel)
        if not perms & Perm.VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        if perms & need != need:
            raise ApiError(403, 50013, "Missing Permissions")
        return channel

    def _not_archived(self, channel: ChannelRecord) -> None:
        """Edits, deletes and reactions in an archived thread fail until it is unarchived."""
        if channel.is_thread and channel.archived:
            raise ApiError(400, 50083, "Thread is archived")

    def _message(self, call: Call, channel: ChannelRecord) -> MessageRecord:
        msg = self.state.messages.get(call.int_param("message"))
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    def _interaction(self, call: Call) -> InteractionRecord:
        token = unquote(call.params["token"])
        rec = self.state.interactions_by_token.get(token)
        if rec is None and token in self.state.expired_tokens:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if rec is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        return rec

    # -- gateway / users / application --------------------------------------------------------

    async def get_gateway(self, call: Call) -> web.Response:
        return json_response(200, {"url": self.server.gateway_url})

    async def get_gateway_bot(self, call: Call) -> web.Response:
        return json_response(
            200,
            {
                "url": self.server.gateway_url,
                "shards": self.server.gateway.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 86400000,
                    "max_concurrency": 1,
                },
            },
        )

    async def get_me(self, call: Call) -> web.Response:
        me = {
            **self.state.bot_user.payload(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "premium_type": 0,
        }
        return json_response(200, me)

    async def get_user(self, call: Call) -> web.Response:
        user = self.state.users.get(call.int_param("user_id"))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return json_response(200, user.payload())

    async def create_dm(self, call: Call) -> web.Response:
        try:
            user = self.state.users.get(int(call.body.get("recipient_id", 0)))
        except (TypeError, ValueError):
            user = None
        if user is None or user.bot:
            raise ApiError(400, 50033, "Invalid Recipient(s)", problem=True)
        channel = self.state.dm_channel(user)
        assert channel is not None
        return json_response(200, channel.payload())

    async def get_application(self, call: Call) -> web.Response:
        state = self.state
        owner = self.server.app_owner
        return json_response(
            200,
            {
                "id": str(state.application_id),
                "name": state.bot_user.name,
                "icon": None,
                "description": "A fake application for end-to-end tests.",
                "summary": "",
                "type": None,
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": state.bot_user.payload(),
                "owner": owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": state.application_flags,
                "flags_new": str(state.application_flags),
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "role_connections_verification_url": None,
                "approximate_guild_count": len(state.guilds),
                "approximate_user_install_count": 0,
                "approximate_user_authorization_count": 0,
                "explicit_content_filter": 0,
                "eligible_oauth2_scopes": ["applications.commands", "bot"],
                "integration_types_config": {"0": {}, "1": {}},
            },
        )

    # -- application commands ---------------------------------------------------------------

    def _command_list(self, call: Call) -> tuple[int | None, list[dict[str, Any]]]:
        self._check_app(call)
        if "guild" not in call.params:
            return None, self.state.global_commands
        guild_id = call.int_param("guild")
        guild = self.state.guilds.get(guild_id)
        if guild is None or self.state.bot_user.id not in guild.members:
            raise ApiError(403, 50001, "Missing Access")
        return guild_id, self.state.guild_commands.setdefault(guild_id, [])

    def _normalise_command(
        self, cmd: dict[str, Any], guild_id: int | None, existing: list[dict[str, Any]]
    ) -> dict[str, Any]:
        ctype = cmd.get("type", 1)
        old = next(
            (c for c in existing if c["name"] == cmd.get("name") and c["type"] == ctype), None
        )
        out = dict(cmd)
        perms = cmd.get("default_member_permissions")
        out.update(
            {
                "id": old["id"] if old else str(self.state.snowflakes.next()),
                "application_id": str(self.state.application_id),
                "version": str(self.state.snowflakes.next()),
                "type": ctype,
                "description": cmd.get("description", "") if ctype == 1 else "",
                # discord.py sends an int; Discord stores and returns a string.
                "default_member_permissions": (None if perms is None else str(perms)),
                "nsfw": cmd.get("nsfw", False),
            }
        )
        if ctype == 1:
            out.setdefault("options", [])
        if guild_id is not None:
            out["guild_id"] = str(guild_id)
        if out.get("integration_types") is None:
            out["integration_types"] = [0]  # Discord's default: installed to a guild
        return out

    async def get_commands(self, call: Call) -> web.Response:
        _, commands = self._command_list(call)
        return json_response(200, commands)

    async def put_commands(self, call: Call) -> web.Response:
        guild_id, existing = self._command_list(call)
        new = call.body.get("__list__")
        if not isinstance(new, list):
            raise invalid_form(["bulk overwrite body must be a JSON list of commands"])
        errors = check_commands(new)
        if errors:
            raise invalid_form(errors)
        stored = [self._normalise_command(c, guild_id, existing) for c in new]
        existing[:] = stored
        return json_response(200, stored)

    async def post_command(self, call: Call) -> web.Response:
        guild_id, existing = self._command_list(call)
        errors = check_commands([call.body])
        if errors:
            raise invalid_form(errors)
        cmd = self._normalise_command(call.body, guild_id, existing)
        existing[:] = [c for c in existing if c["id"] != cmd["id"]] + [cmd]
        return json_response(201, cmd)

    async def get_command(self, call: Call) -> web.Response:
        _, existing = self._command_list(call)
        for cmd in existing:
            if cmd["id"] == call.params["cmd"]:
                return json_response(200, cmd)
        raise ApiError(404, 10063, "Unknown application command")

    async def delete_command(self, call: Call) -> web.Response:
        _, existing = self._command_list(call)
        before = len(existing)
        existing[:] = [c for c in existing if c["id"] != call.params["cmd"]]
        if len(existing) == before:
            raise ApiError(404, 10063, "Unknown application command")
        return no_content()

    # -- application emojis ------------------------------------------------------------------

    async def list_emojis(self, call: Call) -> web.Response:
        self._check_app(call)
        return json_response(200, {"items": [e.payload() for e in self.state.emojis.values()]})

    async def create_emoji(self, call: Call) -> web.Response:
        self._check_app(call)
        name = call.body.get("name") or ""
        errors = check_emoji_name(name)
        if any(e.name == name for e in self.state.emojis.values()):
            errors.append(f"APPLICATION_EMOJI_NAME_ALREADY_TAKEN: {name!r}")
        match = re.fullmatch(
            r"data:(image/(?:png|jpeg|gif|webp|avif));base64,(.*)",
            call.body.get("image") or "",
            re.DOTALL,
        )
        data = b""
        if match is None:
            errors.append("image: must be a data URI (data:image/png;base64,...)")
        else:
            try:
                data = base64.b64decode(match.group(2), validate=True)
            except binascii.Error:
                errors.append("image: invalid base64")
            if len(data) > 256 * 1024:
                errors.append(f"image: {len(data)} bytes, the limit is 256 KiB")
        if errors:
            raise invalid_form(errors)
        assert match is not None
        content_type = sniff_content_type(name, data, match.group(1))
        emoji = EmojiRecord(
            id=self.state.snowflakes.next(),
            name=name,
            data=data,
            content_type=content_type,
            animated=content_type == "image/gif",
            user=self.state.bot_user,
        )
        self.state.emojis[emoji.id] = emoji
        return json_response(201, emoji.payload())

    def _emoji(self, call: Call) -> EmojiRecord:
        self._check_app(call)
        emoji = self.state.emojis.get(call.int_param("emoji"))
        if emoji is None:
            raise ApiError(404, 10014, "Unknown Emoji")
        return emoji

    async def get_emoji(self, call: Call) -> web.Response:
        return json_response(200, self._emoji(call).payload())

    async def edit_emoji(self, call: Call) -> web.Response:
        emoji = self._emoji(call)
        name = call.body.get("name", emoji.name)
        errors = check_emoji_name(name)
        if errors:
            raise invalid_form(errors)
        emoji.name = name
        return json_response(200, emoji.payload())

    async def delete_emoji(self, call: Call) -> web.Response:
        emoji = self._emoji(call)
        del self.state.emojis[emoji.id]
        return no_content()

    # -- guilds -------------------------------------------------------------------------------

    def _guild(self, call: Call) -> GuildRecord:
        guild = self.state.guilds.get(call.int_param("guild"))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        if self.state.bot_user.id not in guild.members:
            raise ApiError(403, 50001, "Missing Access")  # removed from it, or never invited
        return guild

    async def get_guild(self, call: Call) -> web.Response:
        guild = self._guild(call)
        payload = self.server.guild_payload(guild)
        return json_response(200, payload)

    async def get_guild_channels(self, call: Call) -> web.Response:
        guild = self._guild(call)
        channels = [self.state.channels[c].payload() for c in guild.channel_ids]
        return json_response(200, channels)

    async def get_guild_roles(self, call: Call) -> web.Response:
        guild = self._guild(call)
        return json_response(200, [r.payload() for r in guild.roles.values()])

    async def get_member(self, call: Call) -> web.Response:
        guild = self._guild(call)
        member = guild.members.get(call.int_param("user"))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return json_response(200, member.payload())

    # -- channels and messages ----------------------------------------------------------------

    async def get_channel(self, call: Call) -> web.Response:
        return json_response(200, self._channel(call).payload())

    async def list_messages(self, call: Call) -> web.Response:
        channel = self._channel(call, need=Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        query = call.request.query
        limit = max(1, min(100, int(query.get("limit", "50"))))
        messages = [m for m in channel.messages if not m.deleted and not m.ephemeral]
        if "before" in query:
            messages = [m for m in messages if m.id < int(query["before"])]
        if "after" in query:
            messages = [m for m in messages if m.id > int(query["after"])]
            messages = messages[:limit]
        if "around" in query:
            around = int(query["around"])
            older = [m for m in messages if m.id <= around][-(limit // 2 + 1) :]
            newer = [m for m in messages if m.id > around][: limit - len(older)]
            messages = older + newer
        messages = messages[-limit:]
        return json_response(200, [m.payload() for m in reversed(messages)])

    async def post_message(self, call: Call) -> web.Response:
        need = Perm.VIEW_CHANNEL
        channel = self._channel(call)
        if not channel.is_dm:
            need |= Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
            if call.uploads:
                need |= Perm.ATTACH_FILES
            if channel.is_thread and channel.locked:
                need |= Perm.MANAGE_THREADS  # a locked thread stays archived for others
            self._channel(call, need=need)
        elif (
            channel.recipient is not None and channel.recipient.id in self.server.faults.closed_dms
        ):
            raise ApiError(403, 50007, "Cannot send messages to this user")
        reference = call.body.get("message_reference")
        msg_type = 0
        if reference:
            ref_id = int(reference.get("message_id", 0))
            target = self.state.messages.get(ref_id)
            if target is None or target.deleted:
                if reference.get("fail_if_not_exists", True):
                    raise invalid_form(["message_reference: Unknown message"])
            else:
                msg_type = 19
        msg = await self.server.create_message(
            channel,
            author=self.state.bot_user,
            body=call.body,
            uploads=call.uploads,
            msg_type=msg_type,
        )
        return json_response(200, msg.payload())

    async def get_message(self, call: Call) -> web.Response:
        channel = self._channel(call, need=Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        return json_response(200, self._message(call, channel).payload())

    async def patch_message(self, call: Call) -> web.Response:
        channel = self._channel(call)
        msg = self._message(call, channel)
        if msg.author.id != self.state.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._not_archived(channel)
        msg = await self.server.edit_message(msg, body=call.body, uploads=call.uploads)
        return json_response(200, msg.payload())

    async def delete_message(self, call: Call) -> web.Response:
        channel = self._channel(call)
        msg = self._message(call, channel)
        self._not_archived(channel)
        if msg.author.id != self.state.bot_user.id and not (
            self.state.permissions_in(self.state.bot_user.id, channel) & Perm.MANAGE_MESSAGES
        ):
            raise ApiError(403, 50013, "Missing Permissions")
        await self.server.delete_message(msg)
        return no_content()

    async def add_reaction(self, call: Call) -> web.Response:
        channel = self._channel(call, need=Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        msg = self._message(call, channel)
        self._not_archived(channel)
        emoji = unquote(call.params["emoji"])
        if ":" in emoji:
            name, _, emoji_id = emoji.partition(":")
            if emoji_id.isdigit() and int(emoji_id) not in self.state.emojis:
                raise ApiError(400, 10014, "Unknown Emoji", problem=True)
            emoji = f"{name}:{emoji_id}"
        await self.server.react(msg, self.state.bot_user, emoji, add=True)
        return no_content()

    async def remove_reaction(self, call: Call) -> web.Response:
        channel = self._channel(call)
        msg = self._message(call, channel)
        self._not_archived(channel)
        await self.server.react(msg, self.state.bot_user, unquote(call.params["emoji"]), add=False)
        return no_content()

    async def typing(self, call: Call) -> web.Response:
        channel = self._channel(call)
        self.server.typing.append(channel.id)
        return no_content()

    async def create_thread(self, call: Call) -> web.Response:
        """Start a thread: from a message (public, the thread takes the message's id) or
        without one (`type` 11 public or 12 private; Discord's default is private)."""
        channel = self._channel(call)
        if channel.is_dm or channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type", problem=True)
        name = call.body.get("name") or ""
        errors = []
        if not 1 <= len(name) <= 100:
            errors.append("name: thread names must be 1-100 characters")
        duration = call.body.get("auto_archive_duration")
        if duration is None:
            duration = 4320
        if duration not in ARCHIVE_DURATIONS:
            errors.append(f"auto_archive_duration: must be one of {ARCHIVE_DURATIONS}")
        from_message = "message" in call.params
        thread_type = ChannelType.PUBLIC_THREAD
        if not from_message:
            thread_type = int(call.body.get("type") or ChannelType.PRIVATE_THREAD)
            if thread_type not in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD):
                errors.append(f"type: {thread_type} is not a thread type")
        if errors:
            raise invalid_form(errors)
        need = Perm.VIEW_CHANNEL | (
            Perm.CREATE_PRIVATE_THREADS
            if thread_type == ChannelType.PRIVATE_THREAD
            else Perm.CREATE_PUBLIC_THREADS
        )
        if from_message:
            need |= Perm.READ_MESSAGE_HISTORY
        self._channel(call, need=need)
        starter_id = None
        if from_message:
            source = self._message(call, channel)
            if source.thread is not None:
                raise ApiError(400, 160004, "A thread has already been created for this message")
            starter_id = source.id
        thread = await self.server.lifecycle.create_thread(
            channel,
            name,
            owner=self.state.bot_user,
            thread_type=thread_type,
            auto_archive_duration=int(duration),
            starter_id=starter_id,
            invitable=bool(call.body.get("invitable", True)),
        )
        return json_response(201, thread.payload())

    async def join_thread(self, call: Call) -> web.Response:
        channel = self._channel(call)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type", problem=True)
        if channel.archived:
            raise ApiError(400, 50083, "Thread is archived")
        member = call.params["member"]
        user_id = self.state.bot_user.id if member == "@me" else int(member)
        channel.thread_members.add(user_id)
        return no_content()

    async def patch_channel(self, call: Call) -> web.Response:
        """Edit a thread (name, archived, locked, auto_archive_duration, invitable) or a
        guild channel (name, topic; needs Manage Channels)."""
        channel = self._channel(call)
        perms = self.state.permissions_in(self.state.bot_user.id, channel)
        body = call.body
        if channel.is_dm:
            raise ApiError(400, 50024, "Cannot execute action on this channel type", problem=True)
        if not channel.is_thread:
            allowed = {"name", "topic"}
            unknown = sorted(set(body) - allowed)
            if unknown:
                raise invalid_form([f"fakediscord models only {sorted(allowed)}; got {unknown}"])
            if not perms & Perm.MANAGE_CHANNELS:
                raise ApiError(403, 50013, "Missing Permissions")
            channel.name = body.get("name", channel.name)
            channel.topic = body.get("topic", channel.topic)
            await self.server.gateway.dispatch("CHANNEL_UPDATE", channel.payload(), intent=1)
            return json_response(200, channel.payload())
        allowed = {"name", "archived", "locked", "auto_archive_duration", "invitable"}
        unknown = sorted(set(body) - allowed - {"rate_limit_per_user", "flags"})
        if unknown:
            raise invalid_form([f"fakediscord models only {sorted(allowed)}; got {unknown}"])
        manage = bool(perms & Perm.MANAGE_THREADS)
        owner = channel.owner_id == self.state.bot_user.id
        if channel.locked and not manage:
            raise ApiError(403, 50013, "Missing Permissions")
        if "locked" in body and bool(body["locked"]) != channel.locked and not manage:
            raise ApiError(403, 50013, "Missing Permissions")
        if channel.archived and body.get("archived") is not False and not manage:
            raise ApiError(400, 50083, "Thread is archived")
        if set(body) & {"name", "auto_archive_duration"} and not (owner or manage):
            raise ApiError(403, 50013, "Missing Permissions")
        if "archived" in body and not (perms & Perm.SEND_MESSAGES_IN_THREADS or manage):
            raise ApiError(403, 50013, "Missing Permissions")
        errors = []
        if "name" in body and not 1 <= len(body["name"] or "") <= 100:
            errors.append("name: thread names must be 1-100 characters")
        if "auto_archive_duration" in body and body["auto_archive_duration"] not in (
            ARCHIVE_DURATIONS
        ):
            errors.append(f"auto_archive_duration: must be one of {ARCHIVE_DURATIONS}")
        if errors:
            raise invalid_form(errors)
        channel.name = body.get("name", channel.name)
        channel.auto_archive_duration = int(
            body.get("auto_archive_duration", channel.auto_archive_duration)
        )
        channel.invitable = bool(body.get("invitable", channel.invitable))
        if "archived" in body or "locked" in body:
            await self.server.lifecycle.set_archived(
                channel,
                archived=bool(body.get("archived", channel.archived)),
                locked=bool(body.get("locked", channel.locked)),
            )
        else:
            await self.server.lifecycle.update_thread(channel)
        return json_response(200, channel.payload())

    async def delete_channel(self, call: Call) -> web.Response:
        """Delete a thread (Manage Threads) or a guild channel (Manage Channels)."""
        channel = self._channel(call)
        if channel.is_dm:
            # Closing a DM: nothing to model beyond answering like Discord.
            return json_response(200, channel.payload())
        need = Perm.MANAGE_THREADS if channel.is_thread else Perm.MANAGE_CHANNELS
        self._channel(call, need=Perm.VIEW_CHANNEL | need)
        payload = channel.payload()
        await self.server.lifecycle.delete_channel(channel)
        return json_response(200, payload)

    # -- interactions --------------------------------------------------------------------------

    async def callback(self, call: Call) -> web.Response:
        rec = self.state.interactions.get(call.int_param("interaction"))
        token = unquote(call.params["token"])
        if rec is None or rec.token != token:
            raise ApiError(404, 10062, "Unknown interaction", problem=True)
        if rec.acknowledged:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.", problem=True)
        age = self.server.loop_time() - rec.created_at
        if age > self.server.interaction_timeout:
            raise ApiError(
                404,
                10062,
                f"Unknown interaction (answered after {age:.2f}s; Discord allows "
                f"{self.server.interaction_timeout:g}s, the user saw 'This interaction failed')",
                problem=True,
            )
        kind = call.body.get("type")
        data = call.body.get("data") or {}
        message: MessageRecord | None = None
        ephemeral = False
        if kind == 4:
            flags = int(data.get("flags") or 0)
            ephemeral = bool(flags & MessageFlag.EPHEMERAL)
            message = await self.server.create_message(
                self.state.channels[rec.channel_id],
                author=self.state.bot_user,
                body=data,
                uploads=call.uploads,
                interaction=rec,
                msg_type=20 if rec.type == 2 else 0,
            )
            rec.original_message_id = message.id
        elif kind == 5:
            if rec.type not in (2, 3, 5):
                raise invalid_form(
                    [f"callback type 5 is not valid for interaction type {rec.type}"]
                )
            ephemeral = bool(int(data.get("flags") or 0) & MessageFlag.EPHEMERAL)
            rec.ephemeral_defer = ephemeral
            message = await self.server.create_message(
                self.state.channels[rec.channel_id],
                author=self.state.bot_user,
                body={"flags": int(MessageFlag.LOADING) | int(data.get("flags") or 0)},
                uploads={},
                interaction=rec,
                msg_type=20 if rec.type == 2 else 0,
                allow_empty=True,
            )
            rec.original_message_id = message.id
        elif kind in (6, 7):
            if rec.source_message_id is None:
                raise invalid_form(
                    [f"callback type {kind} is only valid for component (or modal) interactions"]
                )
            source = self.state.messages[rec.source_message_id]
            if kind == 7:
                message = await self.server.edit_message(
                    source, body=data, uploads=call.uploads, interaction=rec
                )
            rec.original_message_id = source.id
            ephemeral = source.ephemeral
        elif kind == 8:
            if rec.type != 4:
                raise invalid_form(["callback type 8 is only valid for autocomplete"])
            choices = data.get("choices") or []
            if len(choices) > 25:
                raise invalid_form(["choices: at most 25 autocomplete choices"])
            rec.autocomplete_choices = choices
        elif kind == 9:
            if rec.type not in (2, 3):
                raise invalid_form(["a modal can only answer a command or a component"])
            errors = []
            if not data.get("custom_id"):
                errors.append("modal without custom_id")
            if not 1 <= len(data.get("title") or "") <= 45:
                errors.append("modal title must be 1-45 characters")
            if not 1 <= len(data.get("components") or []) <= 5:
                errors.append("modal needs 1-5 components")
            if errors:
                raise invalid_form(errors)
            rec.modal = data
        else:
            raise invalid_form([f"unsupported interaction callback type {kind!r}"])
        rec.callback_type = kind
        if self.server.keep_history:
            rec.callback_data = data
        if not call.flag("with_response"):
            return no_content()
        # Discord describes the created or updated message (types 4 and 7) as the resource;
        # a defer (5, 6) has none, and only a response that made a message names it.
        info: dict[str, Any] = {"id": str(rec.id), "type": rec.type, "activity_instance_id": None}
        if rec.original_message_id and kind in (4, 5, 7):
            info.update(
                response_message_id=str(rec.original_message_id),
                response_message_loading=kind == 5,
                response_message_ephemeral=ephemeral,
            )
        body: dict[str, Any] = {"interaction": info}
        if message is not None and kind in (4, 7):
            body["resource"] = {"type": kind, "message": message.payload()}
        return json_response(200, body)

    def _webhook_interaction(self, call: Call) -> InteractionRecord:
        self._check_app(call)
        rec = self._interaction(call)
        age = self.server.loop_time() - rec.created_at
        if age > self.server.interaction_token_lifetime:
            # Discord: an interaction token is valid for 15 minutes.
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if not rec.acknowledged:
            raise ApiError(
                404,
                10015,
                "Unknown Webhook (the interaction was not acknowledged before this request)",
                problem=True,
            )
        return rec

    def _webhook_message(self, call: Call, rec: InteractionRecord) -> MessageRecord:
        mid = call.params["mid"]
        if mid == "@original":
            if rec.original_message_id is None:
                raise ApiError(404, 10008, "Unknown Message")
            msg = self.state.messages[rec.original_message_id]
        else:
            msg_id = int(mid)
            if msg_id != rec.original_message_id and msg_id not in rec.followup_ids:
                raise ApiError(404, 10008, "Unknown Message")
            msg = self.state.messages[msg_id]
        if msg.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    async def followup(self, call: Call) -> web.Response:
        rec = self._webhook_interaction(call)
        original = (
            self.state.messages.get(rec.original_message_id) if rec.original_message_id else None
        )
        if rec.callback_type == 5 and original is not None and original.loading:
            # Discord fills the "thinking..." message with the first follow-up; its
            # ephemerality was decided by the defer, not by the follow-up's flags.
            msg = await self.server.edit_message(
                original, body=call.body, uploads=call.uploads, interaction=rec
            )
        else:
            msg = await self.server.create_message(
                self.state.channels[rec.channel_id],
                author=self.state.bot_user,
                body=call.body,
                uploads=call.uploads,
                interaction=rec,
                msg_type=0,
            )
            rec.followup_ids.append(msg.id)
        if not call.flag("wait"):
            return no_content()
        return json_response(200, msg.payload())

    async def webhook_get(self, call: Call) -> web.Response:
        rec = self._webhook_interaction(call)
        return json_response(200, self._webhook_message(call, rec).payload())

    async def webhook_edit(self, call: Call) -> web.Response:
        rec = self._webhook_interaction(call)
        msg = self._webhook_message(call, rec)
        msg = await self.server.edit_message(
            msg, body=call.body, uploads=call.uploads, interaction=rec
        )
        return json_response(200, msg.payload())

    async def webhook_delete(self, call: Call) -> web.Response:
        rec = self._webhook_interaction(call)
        msg = self._webhook_message(call, rec)
        await self.server.delete_message(msg)
        return no_content()


async def serve_attachment(server: FakeDiscord, request: web.Request) -> web.Response:
    """Serve uploaded bytes at the attachment URL, so `Attachment.read()` works offline."""
    try:
        attachment_id = int(request.match_info["attachment_id"])
    except ValueError:
        attachment_id = -1
    entry = server.state.attachments.get(attachment_id)
    if entry is None:
        server.unknown_route(request.method, request.path)
        return json_response(404, {"message": "fakediscord: unknown attachment", "code": 0})
    _, att = entry
    return web.Response(body=att.data, headers={"Content-Type": att.content_type})


async def serve_cdn(server: FakeDiscord, request: web.Request) -> web.Response:
    """Serve application emoji images for `Asset.read()` (Asset.BASE points here)."""
    match = re.fullmatch(r"/cdn/emojis/(\d+)\.\w+", request.path)
    emoji = server.state.emojis.get(int(match.group(1))) if match else None
    if emoji is None:
        server.unknown_route(request.method, request.path)
        return json_response(404, {"message": "fakediscord: unknown CDN asset", "code": 0})
    return web.Response(body=emoji.data, headers={"Content-Type": emoji.content_type})
