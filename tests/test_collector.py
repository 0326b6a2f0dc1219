"""The garbage collector's pace in the bot's own process (bot/collector.py)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from bot import collector


def test_pace_leaves_full_passes_to_the_clock() -> None:
    before = gc.get_threshold()
    try:
        collector.pace()
        assert gc.get_threshold() == (700, 10, 1000)
    finally:
        gc.set_threshold(*before)


async def test_a_full_pass_comes_on_the_clock_until_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    passes: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda generation=2: passes.append(generation) or 0)
    closed = False
    task = asyncio.create_task(collector.full_passes(lambda: closed, every=0.01))
    while len(passes) < 3:
        await asyncio.sleep(0.01)
    closed = True
    await asyncio.wait_for(task, 5)
    assert set(passes) == {2}  # full passes, every one
