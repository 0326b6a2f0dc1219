"""Giving the memory the bot freed back to the system.

glibc's allocator keeps what a program frees for its next allocations, and over an evening of
tables coming and going what it keeps grows: in the 1-hour soak at 50 tables the bot's live
objects stayed flat while its resident memory crept up with the allocator's "free but kept"
bytes, and one ``malloc_trim`` gave back 26 MB of 200 at once. ``give_back`` asks glibc to
return what it keeps; with another C library (musl, macOS) it does nothing.
``map_large_blocks`` keeps large short-lived blocks (pictures, HTTP bodies) out of the heap
altogether.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

EVERY_SECONDS = 60.0  # how often the bot gives memory back (a few milliseconds each time)
# Blocks this large or larger get pages of their own (mmap), given back the moment they are
# freed. glibc's default (128 KB, and raised by itself up to 32 MB once a large block is
# freed) put every picture (20-200 KB) and HTTP body in its heap among long-lived small
# blocks: over a 1-hour soak at 50 tables the heap grew 50 -> 58 MB, a third of it free but
# resident in pieces malloc_trim could not give back, while Python's own memory stayed flat.
LARGE_BLOCK = 32 * 1024
_M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)


def _glibc(name: str, *argtypes: Any) -> Callable[..., int] | None:
    """glibc's function ``name`` taking ``argtypes`` and returning an int, or None with
    another C library."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return None
    function = getattr(libc, name, None)
    if function is None:
        return None
    function.argtypes, function.restype = list(argtypes), ctypes.c_int
    return function


_TRIM = _glibc("malloc_trim", ctypes.c_size_t)
_MALLOPT = _glibc("mallopt", ctypes.c_int, ctypes.c_int)


def map_large_blocks(threshold: int = LARGE_BLOCK) -> bool:
    """Give blocks of ``threshold`` bytes or more pages of their own (see
    :data:`LARGE_BLOCK`); whether the C library took it (glibc only). Called once at start."""
    return bool(_MALLOPT is not None and _MALLOPT(_M_MMAP_THRESHOLD, threshold))


def give_back() -> bool:
    """Return the allocator's free memory to the system; whether any was returned.
    Called off the event loop (ctypes releases the GIL for the call)."""
    return bool(_TRIM is not None and _TRIM(0))
