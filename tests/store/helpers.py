"""Shared by the store, service and cog tests."""

from __future__ import annotations


class FakeClock:
    """``clock()`` returns ``t``; tests move it to put rows in a week, a month, or all time."""

    def __init__(self, t: float = 1_700_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
