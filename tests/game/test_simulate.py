"""The simulator: complete hands with computer players, invariants checked."""

from __future__ import annotations

import pytest

from bot.rules.rulesets import RULESETS
from bot.simulate import format_report, main, run_simulation


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_run_simulation_reports(rules: str) -> None:
    report = run_simulation(rules, 3, 5)
    assert report.hands == 3
    assert sum(report.endings.values()) >= 3
    assert sum(report.net) == 0 and report.checks > 0
    assert len(report.scores) == report.endings["mahjong"]
    text = format_report(report)
    assert "hands/s" in text and "net chips" in text and "invariants checked" in text


def test_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["--rules", "pung-chow-limit", "--hands", "2", "--seed", "3", "--players", "3"]) == 0
    )
    out = capsys.readouterr().out
    assert "pung-chow-limit: 2 hands, 3 players, seed 3" in out
    assert "win rate" in out and "largest" in out


def test_options_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rules", "singapore", "--hands", "1", "--option", "flowers=off"]) == 0
    with pytest.raises(SystemExit):
        main(["--rules", "no-such-rules"])
