"""Points discord.py at the fake server and keeps the test process off the internet.

discord.py reads its endpoints from class attributes (``Route.BASE`` for REST and webhooks,
``DiscordWebSocket.DEFAULT_GATEWAY`` for the gateway, ``Asset.BASE`` for the CDN). While the
fake runs they point at 127.0.0.1, and a socket guard refuses any non-loopback connection or
DNS lookup, recording it as a test problem: no test may ever reach Discord for real.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Callable, Iterator
from typing import Any

import discord.asset
import discord.gateway
import discord.http
import yarl

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "ip6-localhost"}


def _is_local(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    host = str(host)
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@contextlib.contextmanager
def network_guard(on_violation: Callable[[str], None]) -> Iterator[None]:
    """Refuse connections and DNS lookups for anything but loopback (and unix sockets)."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    original_getaddrinfo = socket.getaddrinfo

    def check(address: Any) -> None:
        if isinstance(address, tuple) and not _is_local(address[0]):
            message = f"network access to {address!r} blocked by fakediscord"
            on_violation(message)
            raise ConnectionRefusedError(message)

    def connect(self: socket.socket, address: Any) -> None:
        check(address)
        return original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(address)
        return original_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_local(host):
            message = f"DNS lookup of {host!r} blocked by fakediscord"
            on_violation(message)
            raise socket.gaierror(socket.EAI_NONAME, message)
        return original_getaddrinfo(host, *args, **kwargs)

    # uvloop's loop (the bot process's, bot/event_loop.py) resolves names in C, without
    # socket.getaddrinfo; it connects through socket.socket.connect like asyncio's.
    uvloop_loop: Any = None
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop_loop = uvloop.Loop
    if uvloop_loop is not None:
        original_loop_getaddrinfo = uvloop_loop.getaddrinfo
        own = "getaddrinfo" in vars(uvloop_loop)  # else inherited from uvloop's C loop

        async def loop_getaddrinfo(self: Any, host: Any, *args: Any, **kwargs: Any) -> Any:
            if not _is_local(host):
                message = f"DNS lookup of {host!r} blocked by fakediscord"
                on_violation(message)
                raise socket.gaierror(socket.EAI_NONAME, message)
            return await original_loop_getaddrinfo(self, host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    if uvloop_loop is not None:
        uvloop_loop.getaddrinfo = loop_getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = original_getaddrinfo
        if uvloop_loop is not None:
            if own:
                uvloop_loop.getaddrinfo = original_loop_getaddrinfo
            else:
                del uvloop_loop.getaddrinfo


@contextlib.contextmanager
def discord_endpoints(base_url: str) -> Iterator[None]:
    """Redirect discord.py's REST, gateway and CDN base URLs to the fake at `base_url`."""
    route = discord.http.Route
    ws_cls = discord.gateway.DiscordWebSocket
    asset = discord.asset.Asset
    saved = (route.BASE, ws_cls.DEFAULT_GATEWAY, asset.BASE)
    route.BASE = f"{base_url}/api/v10"
    ws_cls.DEFAULT_GATEWAY = yarl.URL(base_url.replace("http://", "ws://") + "/gateway")
    asset.BASE = f"{base_url}/cdn"
    try:
        yield
    finally:
        route.BASE, ws_cls.DEFAULT_GATEWAY, asset.BASE = saved
