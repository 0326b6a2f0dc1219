"""Fixtures of the cluster tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture
def environment() -> Iterator[None]:
    """Put the process's environment back afterwards: ``mahjong-bot``'s flags write it (where
    the settings read them), and the tests set what ``Settings.from_env`` reads."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)
