"""A cache of what was used lately: kept while in use, let go after a while unused.

A drawing process at 200 tables draws for about 100 tables in turn, and the seat blocks of
each table's latest moment are asked for again a few seconds later (the other member's DM,
the channel's table, the next move's pictures). A plain LRU cache of a fixed size is the
wrong shape for that: sized for 200 tables it holds a hundred megabytes on a bot with three
tables all evening; sized for three, it never hits at 200. :class:`Recent` keeps each value
until it has gone ``seconds`` unused (and never more than ``most``), so what it holds follows
how busy the process is.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """Values made by ``make`` for a key, kept until unused for ``seconds`` (at most
    ``most`` of them; the least lately used go first)."""

    def __init__(
        self, seconds: float, most: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if seconds <= 0 or most < 1:
            raise ValueError("a recent cache keeps something for some time")
        self.seconds = seconds
        self.most = most
        self._clock = clock
        self._kept: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: K, make: Callable[[], V]) -> V:
        now = self._clock()
        kept = self._kept.get(key)
        if kept is not None:
            self.hits += 1
            self._kept[key] = (now, kept[1])
            self._kept.move_to_end(key)
            return kept[1]
        self.misses += 1
        value = make()
        self._kept[key] = (now, value)
        self._let_go(now)
        return value

    def _let_go(self, now: float) -> None:
        # The least lately used are at the front: stop at the first one still in use.
        while self._kept:
            used, _ = next(iter(self._kept.values()))
            if len(self._kept) <= self.most and now - used < self.seconds:
                return
            self._kept.popitem(last=False)

    def clear(self) -> None:
        self._kept.clear()
        self.hits = self.misses = 0
