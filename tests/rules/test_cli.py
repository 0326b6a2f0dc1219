"""mahjong-score: the human form, the JSON form, and clear errors with exit status 2."""

from __future__ import annotations

import io
import json

import pytest

from bot.rules import cli


def run_json(monkeypatch, capsys, doc) -> tuple[int, dict]:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    status = cli.main(["--json"])
    return status, json.loads(capsys.readouterr().out)


def test_human_form_prints_lines_and_payments(capsys) -> None:
    status = cli.main(["111s 444s 789s 22z {4444z} win 2z self-draw", "--seat", "S"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Filling the only place to win" in out
    assert "Total" in out and "140" in out
    assert "E pays S      280" in out


def test_json_form(monkeypatch, capsys) -> None:
    doc = {
        "ruleset": "pung-chow",
        "options": {"limit": 300},
        "round": "E",
        "players": [
            {
                "seat": "S",
                "concealed": "123m789p22p",
                "melds": [
                    {"kind": "pung", "tiles": "555s"},
                    {"kind": "kong", "tiles": "1111z", "concealed": True},
                ],
            },
            {"seat": "W", "concealed": "777z345m678p9s", "melds": [{"tiles": "666z"}]},
        ],
        "win": {"seat": "S", "tile": "2p", "by": "discard", "from": "W", "flags": []},
    }
    status, out = run_json(monkeypatch, capsys, doc)
    assert status == 0
    south = next(p for p in out["players"] if p["seat"] == "S")
    assert south["score"] == 20 + 2 + 32 + 2 == 56
    assert south["lines"][0] == {
        "name": "Mah-Jongg",
        "points": 20,
        "doubles": 0,
        "source": "Pung Chow p.3",
    }
    west = next(p for p in out["players"] if p["seat"] == "W")
    assert west["score"] == (8 + 4) * 4
    assert sum(out["net"].values()) == 0
    assert {"from": "E", "to": "S", "amount": 112, "reason": "Mah-Jongg"} in out["payments"]
    # West's 48 beats South's 56? No: South won; West collects from E and N.
    assert out["net"]["W"] == -56 + 48 * 2 + 48


def test_json_given_scores(monkeypatch, capsys) -> None:
    doc = {"ruleset": "pung-chow", "scores": {"E": 480, "S": 64, "W": 272, "N": 16}, "winner": "E"}
    status, out = run_json(monkeypatch, capsys, doc)
    assert status == 0
    assert out["net"] == {
        "E": 2880,
        "S": -960 - 208 + 48,
        "W": -960 + 208 + 256,
        "N": -960 - 256 - 48,
    }


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("{not json", "not valid JSON"),
        ({"players": []}, "'ruleset' is required"),
        ({"ruleset": "riichi", "scores": {"E": 1}}, "unknown rule set"),
        ({"ruleset": "pung-chow", "scores": {"X": 1}}, "must be one of E, S, W, N"),
        (
            {"ruleset": "pung-chow", "players": [{"seat": "E", "concealed": "123q"}]},
            "player E: '123q'",
        ),
        (
            {
                "ruleset": "pung-chow",
                "players": [{"seat": "E", "concealed": "123m456m789m12p4p55p"}],
                "win": {"seat": "E", "tile": "4p", "by": "self-draw"},
            },
            "not a winning hand",
        ),
        ({"ruleset": "pung-chow", "options": {"colour": 1}, "scores": {}}, "unknown option"),
    ],
)
def test_json_errors_exit_2(monkeypatch, capsys, doc, message) -> None:
    status, out = run_json(monkeypatch, capsys, doc)
    assert status == 2
    assert message in out["error"]


def test_human_form_error_exit_2(capsys) -> None:
    assert cli.main(["123m 45x"]) == 2
    assert "'45x' is not a tile" in capsys.readouterr().err
