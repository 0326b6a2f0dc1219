"""docs/rules.md lists every option of every rule set with its default, and nothing else."""

from __future__ import annotations

import pathlib
import re

from bot.rules.rulesets import RULESETS

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_the_options_table_matches_the_rule_sets() -> None:
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| `([a-z_]+)` \| ([^|]+) \|", DOC.read_text(), re.M)
    documented = {(rules, option) for rules, option, _ in rows}
    actual = {(name, spec.name) for name, r in RULESETS.items() for spec in r.option_specs}
    assert documented == actual
    for rules, option, default in rows:
        spec = next(s for s in RULESETS[rules].option_specs if s.name == option)
        text = default.strip()
        if isinstance(spec.default, bool):
            assert text == ("on" if spec.default else "off"), (rules, option)
        elif spec.default is None:
            assert text == "none" or rules == "pung-chow-limit", (rules, option)
        else:
            assert text == str(spec.default), (rules, option)
    limit_game = RULESETS["pung-chow-limit"]
    assert limit_game.limit_of(limit_game.options()) == 300
