"""The rules engine imports nothing from Discord, the database or Pillow (DESIGN.md)."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

FORBIDDEN = {"discord", "aiosqlite", "sqlite3", "PIL", "aiohttp", "renderer", "cogs"}
RULES = pathlib.Path(__file__).resolve().parents[2] / "bot" / "rules"


def test_no_forbidden_import_in_the_source() -> None:
    offenders = []
    for path in RULES.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top in FORBIDDEN or (top == "bot" and not name.startswith("bot.rules")):
                    offenders.append(f"{path.relative_to(RULES)}: {name}")
    assert offenders == []


def test_importing_the_engine_loads_none_of_them() -> None:
    code = (
        "import sys, bot.rules.rulesets, bot.rules.table_score, bot.rules.cli, "
        "bot.rules.notation, bot.rules.analysis\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r})\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
