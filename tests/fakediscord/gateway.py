"""The fake Discord gateway: the websocket discord.py's DiscordWebSocket connects to.

It speaks gateway v10 with JSON encoding: HELLO, IDENTIFY -> READY + GUILD_CREATE per guild,
heartbeats, RESUME with replay of the events missed while disconnected, INVALID_SESSION and
RECONNECT. Dispatches are numbered per session so RESUME can replay exactly what was missed.
If the client asks for ``compress=zlib-stream`` the frames are zlib-compressed the way Discord
does it; otherwise they are plain text.

Sharding as on Discord: ``server.gateway.shard_count`` is what GET /gateway/bot recommends;
a session that IDENTIFYs with ``shard: [id, count]`` gets READY with that ``shard`` and the
guilds with ``(guild_id >> 22) % count == id``; each guild's events go to its shard, DMs
(and DM interactions) to shard 0 only. Sessions of different processes may hold different
shards at once.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .server import FakeDiscord

# Without history (`FakeDiscord.keep_history`) a session keeps at least its last this many
# events for RESUME; a resume from before them is refused (INVALID_SESSION), as Discord
# refuses one it can no longer replay.
RESUME_BUFFER = 1000


class Intent:
    """Gateway intent bits used to decide which events a session receives."""

    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    GUILD_MESSAGE_REACTIONS = 1 << 10
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT


class Op:
    DISPATCH = 0
    HEARTBEAT = 1
    IDENTIFY = 2
    PRESENCE = 3
    RESUME = 6
    RECONNECT = 7
    REQUEST_MEMBERS = 8
    INVALID_SESSION = 9
    HELLO = 10
    HEARTBEAT_ACK = 11


@dataclass(eq=False)
class GatewayConnection:
    """One websocket connection (a bot reconnecting gets a new one)."""

    ws: web.WebSocketResponse
    request: web.Request
    path: str
    compressor: Any = None
    session: GatewaySession | None = None
    heartbeats: int = 0

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        if self.ws.closed:
            return
        try:
            if self.compressor is not None:
                data = self.compressor.compress(text.encode()) + self.compressor.flush(
                    zlib.Z_SYNC_FLUSH
                )
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            # The peer vanished mid-send; the session keeps the event for RESUME.
            pass


@dataclass(eq=False)
class GatewaySession:
    """A gateway session: survives disconnects so RESUME can replay by sequence number."""

    id: str
    intents: int
    shard: list[int] | None
    seq: int = 0
    buffer: list[dict[str, Any]] = field(default_factory=list)
    conn: GatewayConnection | None = None
    valid: bool = True
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def wants(self, intent: int | None) -> bool:
        return intent is None or bool(self.intents & intent)


class Gateway:
    """All gateway connections and sessions of one fake server."""

    def __init__(self, server: FakeDiscord) -> None:
        self.server = server
        self.heartbeat_interval_ms = 41250
        self.compress = True
        self.allowed_privileged_intents = Intent.PRIVILEGED
        self.connections: list[GatewayConnection] = []
        self.sessions: dict[str, GatewaySession] = {}
        self.shard_count = 1  # what GET /gateway/bot recommends
        self.shards: dict[int, GatewaySession] = {}  # the live session of each shard id
        self.shards_in_use = 1  # the shard count the bot identified with
        # ("identify", session_id) / ("resume", session_id, seq) / ("invalid_session", ...) ...
        self.log: list[tuple[Any, ...]] = []

    # -- observation --------------------------------------------------------------------------

    @property
    def current(self) -> GatewaySession | None:
        """The session of shard 0 (the only one when the bot does not shard)."""
        return self.shards.get(0)

    def shard_of(self, guild_id: int | None) -> int:
        """Which shard gets a guild's events; DMs go to shard 0."""
        if guild_id is None:
            return 0
        return (int(guild_id) >> 22) % self.shards_in_use

    def session_for(self, guild_id: int | None) -> GatewaySession | None:
        return self.shards.get(self.shard_of(guild_id))

    @property
    def connected(self) -> bool:
        """True when every shard has an identified session with an open websocket."""
        if len(self.shards) < self.shards_in_use:
            return False
        return all(
            s.valid and s.conn is not None and not s.conn.ws.closed for s in self.shards.values()
        )

    def count(self, kind: str) -> int:
        """How many times an entry kind (identify, resume, ...) appears in the log."""
        return sum(1 for entry in self.log if entry[0] == kind)

    async def wait_connected(self, timeout: float = 5.0) -> None:
        """Wait until the bot has an open, identified (or resumed) session."""
        await self.server.wait_for(lambda: self.connected, timeout=timeout, what="gateway session")

    # -- sending ------------------------------------------------------------------------------

    async def dispatch(
        self,
        event: str,
        data: dict[str, Any],
        *,
        intent: int | None = None,
        session: GatewaySession | None = None,
    ) -> bool:
        """Send a DISPATCH to the session of the shard it belongs to (by the data's guild;
        DMs to shard 0), or to `session`; buffered for RESUME while disconnected.

        Returns False when the session's intents filter the event out or there is no session.
        """
        if session is None:
            guild_id = data.get("guild_id")
            if guild_id is None and event.startswith("GUILD_"):
                guild_id = data.get("id")
            session = self.session_for(int(guild_id) if guild_id is not None else None)
        if session is None or not session.valid or not session.wants(intent):
            return False
        async with session.lock:
            session.seq += 1
            frame = {"op": Op.DISPATCH, "t": event, "s": session.seq, "d": data}
            session.buffer.append(frame)
            if not self.server.keep_history and len(session.buffer) > 2 * RESUME_BUFFER:
                del session.buffer[:-RESUME_BUFFER]
            if session.conn is not None:
                await session.conn.send(frame)
        return True

    # -- faults -------------------------------------------------------------------------------

    async def drop(self, code: int | None = None, *, shard: int = 0) -> None:
        """Cut the bot's websocket: abruptly (no close frame) or with a close code."""
        session = self.shards.get(shard)
        if session is None or session.conn is None:
            raise AssertionError("drop_gateway(): the bot is not connected to the gateway")
        conn = session.conn
        async with session.lock:
            session.conn = None
        self.log.append(("dropped", session.id, code))
        if code is None:
            transport = conn.request.transport
            if transport is not None:
                transport.abort()
        else:
            await conn.ws.close(code=code, message=b"fakediscord: dropped by test")

    async def invalidate_session(self, *, shard: int = 0) -> None:
        """Forget the session and drop the socket, so the bot's RESUME gets INVALID_SESSION."""
        session = self.shards.get(shard)
        if session is None:
            raise AssertionError("invalidate_session(): no gateway session")
        session.valid = False
        if session.conn is not None:
            await self.drop(code=4000, shard=shard)

    async def request_reconnect(self, *, shard: int = 0) -> None:
        """Send op 7 RECONNECT, which Discord uses before maintenance."""
        session = self.shards.get(shard)
        if session is None or session.conn is None:
            raise AssertionError("request_reconnect(): the bot is not connected")
        await session.conn.send({"op": Op.RECONNECT, "d": None})

    async def close_all(self) -> None:
        """Close every socket (server shutdown)."""
        for conn in list(self.connections):
            if not conn.ws.closed:
                await conn.ws.close(code=1001, message=b"fakediscord: shutting down")

    # -- the websocket handler ----------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """aiohttp handler for /gateway and the resume URL."""
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        problems = []
        if request.query.get("v") != "10":
            problems.append(f"gateway connected with v={request.query.get('v')!r}, expected 10")
        if request.query.get("encoding", "json") != "json":
            problems.append("gateway encoding must be json (etf is not supported by the fake)")
        compressor = None
        if request.query.get("compress") == "zlib-stream" and self.compress:
            compressor = zlib.compressobj()
        conn = GatewayConnection(ws=ws, request=request, path=request.path, compressor=compressor)
        self.connections.append(conn)
        self.log.append(("connect", request.path))
        for p in problems:
            self.server.problem(p)
        try:
            await conn.send(
                {"op": Op.HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}}
            )
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    try:
                        payload = json.loads(msg.data)
                    except ValueError:
                        await ws.close(code=4002, message=b"Error while decoding payload.")
                        break
                    try:
                        await self._on_payload(conn, payload)
                    except Exception as exc:  # a bug in the fake must fail the test
                        self.server.problem(f"gateway crashed on {payload!r}: {exc!r}")
                        await ws.close(code=4000, message=b"fakediscord crashed")
                elif msg.type is WSMsgType.BINARY:
                    self.server.problem("gateway: client sent a binary frame")
                    await ws.close(code=4002, message=b"Error while decoding payload.")
        finally:
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
            self.log.append(("disconnect", ws.close_code))
            self.server.notify()
        return ws

    async def _on_payload(self, conn: GatewayConnection, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if op == Op.HEARTBEAT:
            conn.heartbeats += 1
            await conn.send({"op": Op.HEARTBEAT_ACK})
            return
        if op == Op.IDENTIFY:
            await self._identify(conn, data or {})
            return
        if op == Op.RESUME:
            await self._resume(conn, data or {})
            return
        if conn.session is None:
            await conn.ws.close(code=4003, message=b"Not authenticated.")
            return
        if op == Op.PRESENCE:
            self.log.append(("presence", data))
            return
        if op == Op.REQUEST_MEMBERS:
            await self._request_members(conn, data or {})
            return
        if op == 4:  # voice state update: nothing to do without voice
            self.log.append(("voice_state", data))
            return
        self.server.problem(f"gateway: unknown opcode {op} with {data!r}")
        await conn.ws.close(code=4001, message=b"Unknown opcode.")

    async def _identify(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        state = self.server.state
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        if data.get("token") != state.token:
            self.log.append(("auth_failed",))
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = data.get("intents")
        if not isinstance(intents, int):
            self.server.problem("gateway: IDENTIFY without intents")
            await conn.ws.close(code=4013, message=b"Invalid intent(s).")
            return
        if intents & Intent.PRIVILEGED & ~self.allowed_privileged_intents:
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        shard = data.get("shard")
        if shard is not None and not (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(n, int) for n in shard)
            and 0 <= shard[0] < shard[1]
        ):
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        if shard is None and self.shard_count > 1:
            await conn.ws.close(code=4011, message=b"Sharding required.")
            return
        shard_id, count = shard if shard is not None else (0, 1)
        session = GatewaySession(
            id=secrets.token_hex(16), intents=intents, shard=list(shard) if shard else None
        )
        if count != self.shards_in_use:
            for old in self.shards.values():
                old.valid = False  # re-sharded: every old session ends
            self.shards = {}
            self.shards_in_use = count
        if shard_id in self.shards:
            self.shards[shard_id].valid = False
        self.sessions[session.id] = session
        self.shards[shard_id] = session
        conn.session = session
        session.conn = conn
        self.log.append(("identify", session.id))
        guilds = self._guilds_for(session)
        ready: dict[str, Any] = {
            "v": 10,
            "user": {**state.bot_user.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.server.resume_gateway_url,
            "application": {"id": str(state.application_id), "flags": state.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        await self.dispatch("READY", ready, session=session)
        for guild in guilds:
            await self.dispatch(
                "GUILD_CREATE", self.server.guild_create_payload(guild, intents), session=session
            )
        self.server.notify()

    def _guilds_for(self, session: GatewaySession) -> list[Any]:
        guilds = [
            g
            for g in self.server.state.guilds.values()
            if self.server.state.bot_user.id in g.members
        ]
        if session.shard:
            shard_id, count = session.shard
            guilds = [g for g in guilds if (g.id >> 22) % count == shard_id]
        return guilds

    async def _resume(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        state = self.server.state
        if data.get("token") != state.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        session = self.sessions.get(data.get("session_id") or "")
        seq = data.get("seq")
        if (
            session is None
            or not session.valid
            or session is not self.shards.get((session.shard or [0])[0])
            or not isinstance(seq, int)
            or seq > session.seq
            or (session.buffer and session.buffer[0]["s"] > seq + 1)  # no longer replayable
        ):
            self.log.append(("invalid_session", data.get("session_id"), seq))
            await conn.send({"op": Op.INVALID_SESSION, "d": False})
            return
        if conn.path != "/resume-gateway":
            self.server.problem(
                f"gateway: RESUME sent to {conn.path}; discord.py should use resume_gateway_url"
            )
        async with session.lock:
            old = session.conn
            session.conn = conn
            conn.session = session
            missed = [f for f in session.buffer if f["s"] > seq]
            for frame in missed:
                await conn.send(frame)
            session.seq += 1
            resumed = {"op": Op.DISPATCH, "t": "RESUMED", "s": session.seq, "d": {}}
            session.buffer.append(resumed)
            await conn.send(resumed)
        if old is not None and old is not conn and not old.ws.closed:
            await old.ws.close(code=4000)
        self.log.append(("resume", session.id, seq, len(missed)))
        self.server.notify()

    async def _request_members(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        session = conn.session
        if session is None:
            return
        if not session.intents & Intent.GUILD_MEMBERS:
            self.server.problem("gateway: REQUEST_GUILD_MEMBERS without the GUILD_MEMBERS intent")
            return
        guild = self.server.state.guilds.get(int(data.get("guild_id", 0)))
        if guild is None:
            return
        wanted = {int(u) for u in data.get("user_ids") or []}
        members = [m.payload() for uid, m in guild.members.items() if not wanted or uid in wanted]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self.dispatch("GUILD_MEMBERS_CHUNK", chunk, session=session)
