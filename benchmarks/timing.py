"""Timing shared by the benchmark scripts: wall times with the garbage collector paused (as
``timeit`` does), since the machine is shared and noisy."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def run_times(
    fn: Callable[[], object], repeats: int, clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    """Seconds taken by each of ``repeats`` calls of ``fn``, by ``clock`` (wall time, or
    ``time.thread_time``: the CPU time of this thread, which a busy machine does not inflate)."""
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            start = clock()
            fn()
            times.append(clock() - start)
    finally:
        gc.enable()
    return times
