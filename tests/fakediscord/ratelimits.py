"""Discord's rate limits, as the fake enforces them: per-route buckets, the global limit, and
the count of invalid requests that gets a bot banned.

Discord limits each route per "major parameter" (a channel, a guild, an interaction token)
with a fixed window that starts at the first request, and tells the client where it stands in
every response (``X-RateLimit-Limit``, ``-Remaining``, ``-Reset``, ``-Reset-After``,
``-Bucket``). discord.py reads these headers and waits by itself before a bucket runs dry, so
with the headers in place a well-behaved bot meets few 429s. Above the buckets, a bot may make
50 requests per second in all (interaction callbacks and interaction-token webhooks are not
counted). A 429 carries ``retry_after`` and ``global`` in its body, ``Retry-After`` and
``X-RateLimit-Scope`` in its headers.

Discord bans an IP for a while (Cloudflare) after 10,000 invalid requests - 401, 403 and 429
answers, except 429s of the "shared" scope - in 10 minutes. The fake counts them
(``InvalidRequests``); a test fails at teardown when one 10-minute window holds more than
``server.invalid_request_limit`` (100: one table may use at most 1% of the ban threshold).

The per-route numbers follow what Discord is known to apply to bot accounts (5 per 5 s for
message creates and edits per channel, DM channels included; reactions 1 per 0.25 s; channel
name/topic changes 2 per 10 minutes). Discord publishes no figures (it says to read the
headers), so the few rules marked "estimate" below are the fake's assumptions; routes without
a rule are limited only by the global limit. `server.rate_limits.rules` can be replaced.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

GLOBAL_LIMIT = 50  # requests per second, per bot
INVALID_WINDOW = 600.0  # seconds
BAN_THRESHOLD = 10_000  # invalid requests per INVALID_WINDOW


@dataclass(frozen=True)
class BucketRule:
    """One route's limit: `limit` requests per `per` seconds per value of the major group."""

    name: str
    method: str  # a regex over the HTTP method
    path: re.Pattern[str]  # full-match over the API path; group "major" keys the bucket
    limit: int
    per: float

    @property
    def bucket_hash(self) -> str:
        """A stable opaque id, the same for every major parameter, as Discord's are."""
        return hashlib.sha1(self.name.encode()).hexdigest()[:16]


def _rule(name: str, method: str, path: str, limit: int, per: float) -> BucketRule:
    return BucketRule(name, method, re.compile(path), limit, per)


CHANNEL = r"/channels/(?P<major>\d+)"
TOKEN = r"/webhooks/\d+/(?P<major>[^/]+)"
RULES: tuple[BucketRule, ...] = (
    _rule("message-create", "POST", CHANNEL + r"/messages", 5, 5.0),
    _rule("message-edit", "PATCH", CHANNEL + r"/messages/\d+", 5, 5.0),
    _rule("message-delete", "DELETE", CHANNEL + r"/messages/\d+", 5, 1.0),
    _rule("reaction", "PUT|DELETE", CHANNEL + r"/messages/\d+/reactions/.+", 1, 0.25),
    _rule("typing", "POST", CHANNEL + r"/typing", 5, 5.0),
    _rule("thread-create", "POST", CHANNEL + r"(?:/messages/\d+)?/threads", 10, 10.0),  # estimate
    _rule("channel-edit", "PATCH|DELETE", CHANNEL, 5, 5.0),  # estimate
    # interaction follow-ups and @original: a webhook's 5 per 2 s, per token (estimate)
    _rule("interaction-webhook", ".*", TOKEN + r"(?:/messages/.+)?", 5, 2.0),
)
# Renaming a channel or thread, or changing its topic: 2 per 10 minutes per channel.
RENAME = _rule("channel-rename", "PATCH", CHANNEL, 2, 600.0)


def _now() -> float:
    return time.monotonic()


@dataclass
class Window:
    """A fixed window: it starts with the first request after the previous one ended."""

    started: float
    used: int = 0
    lasts: float = math.inf


@dataclass
class Verdict:
    """What the limiter decided for one request: the headers to send, and whether to 429."""

    headers: dict[str, str] = field(default_factory=dict)
    refused: bool = False
    is_global: bool = False
    retry_after: float = 0.0

    def body(self) -> dict[str, Any]:
        return {
            "message": "You are being rate limited.",
            "retry_after": round(self.retry_after, 3),
            "global": self.is_global,
            "code": 0,
        }


class RateLimiter:
    """Buckets and the global limit of one fake server."""

    def __init__(self) -> None:
        self.enabled = True
        # Windows last `per * time_scale` seconds. End-to-end tests that speed the bot up
        # (the harness's fast(): its pauses are 1/24 of the real ones) shrink the windows by
        # the same factor, so the bot's pace is held to the same budget, only sooner.
        self.time_scale = 1.0
        self.rules = RULES
        self.global_limit = GLOBAL_LIMIT
        self.windows: dict[tuple[str, str], Window] = {}
        self._sweep_at = 1024  # windows kept before the ended ones are swept out
        self.global_window = Window(started=-math.inf)
        self.refusals: list[tuple[float, str, str, str]] = []  # when, method, path, bucket

    def rule_for(self, method: str, path: str) -> tuple[BucketRule, str] | None:
        for rule in self.rules:
            if re.fullmatch(rule.method, method):
                match = rule.path.fullmatch(path)
                if match:
                    return rule, match.group("major")
        return None

    def check(self, method: str, path: str, *, counts_globally: bool, body: Any = None) -> Verdict:
        """Take one request from its buckets; a refused request takes nothing."""
        if not self.enabled:
            return Verdict()
        now = _now()
        if counts_globally:
            window, second = self.global_window, self.time_scale
            if now - window.started >= second:
                window.started, window.used = now, 0
            if window.used >= self.global_limit:
                retry = window.started + second - now
                self.refusals.append((now, method, path, "global"))
                return Verdict(
                    headers={
                        "Retry-After": str(max(1, math.ceil(retry))),
                        "X-RateLimit-Global": "true",
                        "X-RateLimit-Scope": "global",
                        "Via": "1.1 google",
                    },
                    refused=True,
                    is_global=True,
                    retry_after=retry,
                )
        rules = []
        found = self.rule_for(method, path)
        if found is not None:
            rules.append(found)
            renames = isinstance(body, dict) and bool({"name", "topic"} & set(body))
            if found[0].name == "channel-edit" and renames:
                rules.append((RENAME, found[1]))
        verdict = Verdict()
        taken: list[Window] = []
        for rule, major in rules:
            key = (rule.name, major)
            per = rule.per * self.time_scale
            window = self.windows.get(key)
            if window is None or now - window.started >= per:
                window = self.windows[key] = Window(started=now, lasts=per)
                if len(self.windows) >= self._sweep_at:
                    self._sweep(now)
            reset_after = max(0.0, window.started + per - now)
            if window.used >= rule.limit:
                self.refusals.append((now, method, path, rule.name))
                verdict = Verdict(
                    headers=self._headers(rule, 0, reset_after),
                    refused=True,
                    retry_after=reset_after,
                )
                verdict.headers.update(
                    {
                        "Retry-After": str(max(1, math.ceil(reset_after))),
                        "X-RateLimit-Scope": "user",
                        "Via": "1.1 google",
                    }
                )
                return verdict
            taken.append(window)
            verdict.headers = self._headers(rule, rule.limit - window.used - 1, reset_after)
        for window in taken:
            window.used += 1
        if counts_globally:
            self.global_window.used += 1
        return verdict

    def _sweep(self, now: float) -> None:
        """Forget the windows that have ended (one a webhook token, a DM, a channel): an
        ended window counts for nothing, and an evening's interactions left a window each."""
        self.windows = {k: w for k, w in self.windows.items() if now - w.started < w.lasts}
        self._sweep_at = max(1024, 2 * len(self.windows))

    @staticmethod
    def _headers(rule: BucketRule, remaining: int, reset_after: float) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(rule.limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": rule.bucket_hash,
        }


@dataclass(frozen=True)
class InvalidRequest:
    """A 401, 403 or (non-shared) 429 answer: what counts towards Discord's ban."""

    at: float  # time.monotonic()
    status: int
    method: str
    path: str


class InvalidRequests:
    """Every invalid request the fake answered, with the figures Discord bans on."""

    def __init__(self) -> None:
        self.entries: list[InvalidRequest] = []

    def record(self, status: int, method: str, path: str, scope: str | None) -> None:
        if status in (401, 403) or (status == 429 and scope != "shared"):
            self.entries.append(InvalidRequest(_now(), status, method, path))

    def __len__(self) -> int:
        return len(self.entries)

    def peak(self, window: float = INVALID_WINDOW) -> int:
        """The most invalid requests in any `window` seconds (10 minutes by default)."""
        times = [e.at for e in self.entries]
        best = 0
        for i, t in enumerate(times):
            start = bisect_left(times, t - window, 0, i + 1)
            best = max(best, i + 1 - start)
        return best

    def matching(self, path_regex: str) -> InvalidRequests:
        """Only those whose path fully matches the regex (one table's channel, thread, DMs)."""
        pattern = re.compile(path_regex)
        subset = InvalidRequests()
        subset.entries = [e for e in self.entries if pattern.fullmatch(e.path)]
        return subset

    def by_status(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for e in self.entries:
            counts[e.status] = counts.get(e.status, 0) + 1
        return counts

    def summary(self, n: int = 10) -> str:
        lines = [f"{len(self.entries)} invalid requests {self.by_status()}, the last ones:"]
        lines += [f"  {e.status} {e.method} {e.path}" for e in self.entries[-n:]]
        return "\n".join(lines)

    def assert_under(self, limit: int, *, window: float = INVALID_WINDOW) -> None:
        """Fail unless every `window` seconds held at most `limit` invalid requests."""
        peak = self.peak(window)
        if peak > limit:
            raise AssertionError(
                f"{peak} invalid requests (401/403/429) within {window:g} s, over the "
                f"{limit} allowed ({limit / BAN_THRESHOLD:.1%} of Discord's ban threshold of "
                f"{BAN_THRESHOLD} per 10 minutes)\n" + self.summary()
            )
