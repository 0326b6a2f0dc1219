"""A clock the store tests move (the store itself: ``db`` in tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.store.helpers import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
