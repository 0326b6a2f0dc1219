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

    def check_name(host: Any) -> None:
        if not _is_local(host):
            message = f"DNS lookup of {host!r} blocked by fakediscord"
            on_violation(message)
            raise socket.gaierror(socket.EAI_NONAME, message)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        check_name(host)
        return original_getaddrinfo(host, *args, **kwargs)

    # uvloop's loop (the bot process's, bot/event_loop.py) resolves names and opens
    # connections in C (libuv), without socket.getaddrinfo or socket.socket.connect: its own
    # methods are guarded too (sock_connect goes through socket.socket.connect).
    uvloop_loop: Any = None
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop_loop = uvloop.Loop
    guarded: dict[str, Any] = {}
    if uvloop_loop is not None:
        originals = {
            name: getattr(uvloop_loop, name)
            for name in ("getaddrinfo", "create_connection", "create_datagram_endpoint")
        }
        own = {name for name in originals if name in vars(uvloop_loop)}

        async def loop_getaddrinfo(self: Any, host: Any, *args: Any, **kwargs: Any) -> Any:
            check_name(host)
            return await originals["getaddrinfo"](self, host, *args, **kwargs)

        async def loop_create_connection(
            self: Any, protocol_factory: Any, host: Any = None, port: Any = None, **kwargs: Any
        ) -> Any:
            check((host, port))
            return await originals["create_connection"](
                self, protocol_factory, host, port, **kwargs
            )

        async def loop_create_datagram_endpoint(
            self: Any,
            protocol_factory: Any,
            local_addr: Any = None,
            remote_addr: Any = None,
            **kwargs: Any,
        ) -> Any:
            check(remote_addr)
            return await originals["create_datagram_endpoint"](
                self, protocol_factory, local_addr, remote_addr, **kwargs
            )

        guarded = {
            "getaddrinfo": loop_getaddrinfo,
            "create_connection": loop_create_connection,
            "create_datagram_endpoint": loop_create_datagram_endpoint,
        }

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
    for name, method in guarded.items():
        setattr(uvloop_loop, name, method)
    try:
        yield
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = original_getaddrinfo
        for name in guarded:
            if name in own:
                setattr(uvloop_loop, name, originals[name])
            else:
                delattr(uvloop_loop, name)


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
