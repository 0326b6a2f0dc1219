"""The benchmark's bound on the tables' edits (``benchmarks/bot.py``): what the note on issue 12
rests on, so it is tested like the rest."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # its ``import _path``
    spec = importlib.util.spec_from_file_location("benchmark_bot", BENCHMARKS / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "benchmark_bot", module)
    spec.loader.exec_module(module)
    return module


def test_the_least_edits_cover_each_table_s_visible_moves_greedily(bench: ModuleType) -> None:
    trace = bench.Trace()
    # table 1: 0, 1 and 2.4 fit one edit at 2.5; 2.6 needs another (until 5.1); 10 a third.
    # The pass at 3 changes nothing the channel sees. Table 2: one move, one edit.
    for move, (at, visible) in enumerate(
        [(0.0, True), (1.0, True), (2.4, True), (2.6, True), (3.0, False), (10.0, True)]
    ):
        trace.moves.append((1, move, visible, at, ()))
    trace.moves.append((2, 0, True, 4.0, ()))

    assert trace.least_table_edits(0.0, 20.0, 2.5) == 4
    assert trace.least_table_edits(0.0, 20.0, 10.0) == 2  # one edit a table
    assert trace.least_table_edits(0.0, 20.0, 0.0) == 6  # each visible move its own
    assert trace.least_table_edits(5.0, 20.0, 2.5) == 1  # only the moves in the window


def test_table_edits_count_the_channel_s_requests_not_the_dms(bench: ModuleType) -> None:
    trace = bench.Trace()
    trace.shown[(1, None)] = [(1.0, 3), (2.0, 5), (9.0, 6)]
    trace.shown[(1, 0)] = [(1.5, 3)]

    assert trace.table_edits(0.0, 5.0) == 2
