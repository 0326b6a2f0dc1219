"""The bot gives freed memory back to the system (bot/allocator.py)."""

from __future__ import annotations

import pytest

from bot import allocator


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(allocator._TRIM is None, reason="not glibc")
def test_memory_freed_inside_the_heap_goes_back_to_the_system() -> None:
    # Every tenth block stays, so the freed ones lie between live ones: glibc cannot give
    # them back by shrinking its heap, and keeps them (what the soak's bot kept).
    blocks = [bytearray(4000) for _ in range(20_000)]
    kept = blocks[::10]
    del blocks
    before = _rss_kb()
    assert allocator.give_back()
    after = _rss_kb()
    assert before - after > 20_000, (before, after)  # ~70 MB freed, most of it returned
    assert len(kept) == 2000
