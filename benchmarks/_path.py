"""Run as ``python benchmarks/<name>.py``, a script's own folder comes first on ``sys.path``,
where ``benchmarks/bot.py`` would shadow the ``bot`` package: put the repository first."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if sys.path[0] != ROOT:
    sys.path.insert(0, ROOT)
