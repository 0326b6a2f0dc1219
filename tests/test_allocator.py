"""The bot gives freed memory back to the system (bot/allocator.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


_PROBE = """
import ctypes, sys
from bot import allocator

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd",
        "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "mapped":
    assert allocator.map_large_blocks()
before = libc.mallinfo2().hblkhd
blocks = [ctypes.create_string_buffer(40_000) for _ in range(200)]
during = libc.mallinfo2().hblkhd
del blocks
print(during - before, libc.mallinfo2().hblkhd - before)
"""


def _probe(mode: str) -> tuple[int, int]:
    """Bytes mapped apart from the heap while 200 blocks of 40 KB live, and after they are
    freed, in a fresh interpreter (this one's heap has holes of earlier tests)."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    ).stdout.split()
    return int(out[0]), int(out[1])


@pytest.mark.skipif(allocator._MALLOPT is None, reason="not glibc")
def test_large_blocks_get_pages_of_their_own_given_back_when_freed() -> None:
    """Picture-sized blocks (40 KB, under glibc's own 128 KB) are mapped apart from the heap
    once map_large_blocks is called (those the heap's free top cannot hold: glibc looks there
    first), and freeing them gives the pages back: no holes left among live blocks."""
    during, after = _probe("mapped")
    assert during >= 150 * 40_000
    assert after == 0
    assert _probe("heap")[0] == 0  # glibc's default: all in the heap
