"""Timing shared by the benchmark scripts: wall times with the garbage collector paused (as
``timeit`` does), since the machine is shared and noisy."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def run_times(fn: Callable[[], object], repeats: int) -> list[float]:
    """Seconds taken by each of ``repeats`` calls of ``fn``."""
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return times
