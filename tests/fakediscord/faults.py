"""Fault injection for the fake Discord: rate limits, server errors and closed DMs.

Tests arm faults on the server (``server.fail_next(...)``, ``server.close_dms(user)``); the REST
layer asks this module, before handling a request, whether it should fail instead. Responses
copy what Discord sends, including the headers discord.py's rate limiter reads.
"""

from __future__ import annotations

import math
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class FaultRule:
    """One armed failure: the next `times` requests matching method + path regex fail.

    ``hits`` counts how often it fired so tests can prove a retry happened.
    """

    method: str
    pattern: re.Pattern[str]
    status: int
    retry_after: float
    times: int
    is_global: bool = False
    code: int = 0
    message: str | None = None
    hits: int = 0
    bucket: str = field(default_factory=lambda: secrets.token_hex(8))

    @property
    def exhausted(self) -> bool:
        return self.hits >= self.times

    def matches(self, method: str, path: str) -> bool:
        """Method is compared case-insensitively ("*" matches any); the regex must match the
        whole API path (for example ``/channels/123/messages``)."""
        if self.method != "*" and self.method.upper() != method.upper():
            return False
        return self.pattern.fullmatch(path) is not None

    def response(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        """Status, JSON body and headers of the failure, shaped like Discord's."""
        if self.status == 429:
            body: dict[str, Any] = {
                "message": self.message or "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
            }
            body["code"] = self.code
            headers = {
                # discord.py treats a 429 without a Via header as a Cloudflare ban and gives up.
                "Via": "1.1 google",
                "Retry-After": str(max(1, math.ceil(self.retry_after))),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + self.retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{self.retry_after:.3f}",
                "X-RateLimit-Bucket": self.bucket,
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
            if self.is_global:
                headers["X-RateLimit-Global"] = "true"
            return 429, body, headers
        default = {500: "500: Internal Server Error", 502: "502: Bad Gateway"}
        body = {
            "message": self.message or default.get(self.status, f"{self.status}: injected fault"),
            "code": self.code,
        }
        return self.status, body, {}


class FaultInjector:
    """The armed faults of one fake server."""

    def __init__(self) -> None:
        self.rules: list[FaultRule] = []
        self.closed_dms: set[int] = set()

    def fail_next(
        self,
        method: str,
        path_regex: str,
        *,
        status: int = 429,
        retry_after: float = 0.05,
        times: int = 1,
        is_global: bool = False,
        code: int = 0,
        message: str | None = None,
    ) -> FaultRule:
        """Arm a failure for the next `times` matching requests and return the rule."""
        rule = FaultRule(
            method=method,
            pattern=re.compile(path_regex),
            status=status,
            retry_after=retry_after,
            times=times,
            is_global=is_global,
            code=code,
            message=message,
        )
        self.rules.append(rule)
        return rule

    def take(self, method: str, path: str) -> FaultRule | None:
        """The first armed rule matching this request (consuming one of its shots), if any."""
        for rule in self.rules:
            if not rule.exhausted and rule.matches(method, path):
                rule.hits += 1
                return rule
        return None

    def pending(self) -> list[FaultRule]:
        """Rules that were armed but never fired (usually a typo in the regex)."""
        return [r for r in self.rules if not r.exhausted]
