"""mahjong-score --json refuses what is wrong with exit status 2 and {"error": ...}: each
case issue 16 found (tracebacks, and wrong tables accepted), then any JSON at all
(hypothesis, in process: ``cli.run_json``, not a subprocess per example)."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import cli

WIN = {"seat": "S", "tile": "2p", "by": "discard", "from": "W", "flags": []}
GOOD = {
    "ruleset": "pung-chow",
    "players": [
        {"seat": "S", "concealed": "123m456m789s55s222p", "melds": []},
        {"seat": "W", "concealed": "777z345m678p9s", "melds": [{"tiles": "666z"}]},
    ],
    "win": WIN,
}
SCORES = {"ruleset": "pung-chow", "scores": {"E": 480, "S": 64, "W": 272, "N": 16}, "winner": "E"}


def with_(doc: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**doc, **changes}


def player(**changes: Any) -> dict[str, Any]:
    return {**GOOD["players"][0], **changes}


def refused(text: str) -> str:
    status, answer = cli.run_json(text)
    assert status == cli.EXIT_BAD_INPUT, answer
    assert set(answer) == {"error"} and isinstance(answer["error"], str) and answer["error"]
    return answer["error"]


def test_the_good_documents_are_scored() -> None:
    for doc in (GOOD, SCORES):
        status, answer = cli.run_json(json.dumps(doc))
        assert status == 0 and answer["payments"], answer


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "too long"),
        ("[" * 40_000 + "]" * 40_000, "nested too deeply"),
        ('{"a": ' * 10_000 + "1" + "}" * 10_000, "nested too deeply"),
        ('{"ruleset": "pung-chow", "renchon": 1' + "0" * 5000 + "}", "not valid JSON here"),
        ('{"ruleset": "pung-chow", "scores": {"E": Infinity}, "winner": "E"}', "Infinity"),
        ('{"ruleset": "pung-chow", "scores": {"E": NaN}, "winner": "E"}', "NaN"),
        ('{"ruleset": "pung-chow", "scores": {"E": -Infinity}}', "Infinity"),
        (" " * 200_000, "too long"),
    ],
)
def test_documents_python_cannot_read_safely(text: str, message: str) -> None:
    assert message in refused(text)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        # Wrong types (each was a traceback).
        (with_(SCORES, seats=5), "'seats' must be a list"),
        (with_(SCORES, seats="ESW"), "'seats' must be a list"),
        (with_(SCORES, riichi=7), "'riichi' must be a list"),
        (with_(SCORES, riichi=[1]), "riichi must be one of E, S, W, N"),
        (with_(GOOD, win={**WIN, "flags": 3}), "'win.flags' must be a list"),
        (with_(GOOD, win={**WIN, "flags": [["riichi"]]}), "unknown flag"),
        (with_(GOOD, players=[player(melds=5)]), "melds' must be a list"),
        (with_(GOOD, players=[player(melds=[{"tiles": "555s", "kind": []}])]), "meld kind"),
        (with_(GOOD, players=[player(melds=[{"tiles": 555}])]), "must be a string of tiles"),
        (with_(GOOD, players=[player(concealed=["1m"])]), "must be a string of tiles"),
        (with_(GOOD, players=[player(dead="yes")]), "'dead' is true or false"),
        (with_(GOOD, win={**WIN, "seat": "N"}), "winner's hand must be listed"),
        (with_(GOOD, win={**WIN, "seat": "N", "tile": None, "by": "dealt"}), "must be listed"),
        (with_(GOOD, win={**WIN, "tile": 22}), "must be a string"),
        (with_(GOOD, win={**WIN, "by": ["discard"]}), "win.by must be one of"),
        (with_(SCORES, scores={"E": 1.5}), "must be a whole number"),
        (with_(SCORES, scores={"E": True}), "must be a whole number"),
        (with_(SCORES, options={"limit": [300]}), "whole number"),
        # Accepted though wrong (each used to pay wrongly).
        (with_(SCORES, renchon=-1), "renchon counts East's wins"),
        (with_(SCORES, renchon=10**9), "renchon counts East's wins"),
        (with_(GOOD, win={**WIN, "from": None}), "must say who discarded it"),
        (with_(SCORES, seats=["E", "E", "S"]), "listed twice"),
        (with_(SCORES, seats=["S", "W", "N"], scores={"S": 5}, winner="S"), "has an East"),
        (with_(GOOD, win={**WIN, "by": "dealt", "from": None}), "only East wins"),
        (with_(SCORES, false_mahjong="S"), "not both"),
        (with_(GOOD, false_mahjong="W"), "not both"),
        (with_(SCORES, scores={"E": 10**12}), "a score is between 0 and"),
        (with_(GOOD, players=[player(concealed="１２３m456m789s55s222p")]), "player S"),
        (with_(GOOD, win={**WIN, "tile": "２p"}), "win.tile"),
        (with_(GOOD, winner="S"), "'winner' goes with 'scores'"),
        (with_(GOOD, win={**WIN, "by": "self-draw"}), "names a discarder"),
    ],
)
def test_wrong_documents_are_refused_with_the_reason(doc: dict[str, Any], message: str) -> None:
    assert message in refused(json.dumps(doc))


def test_main_prints_the_error_and_exits_2(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO('{"ruleset": "pung-chow", "seats": 5}'))
    assert cli.main(["--json"]) == cli.EXIT_BAD_INPUT
    assert "'seats' must be a list" in json.loads(capsys.readouterr().out)["error"]


# -- anything at all ----------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["E", "S", "W", "N", "x", "123m", "discard", "dealt", "pung", "riichi"])
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=25,
)
FIELD_VALUES = st.recursive(  # smaller: one field's value
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)
KEYS = st.sampled_from(
    [
        "ruleset",
        "options",
        "round",
        "seats",
        "players",
        "win",
        "scores",
        "winner",
        "false_mahjong",
        "riichi",
        "renchon",
    ]
)


def answered_clearly(text: str) -> None:
    status, answer = cli.run_json(text)
    if status == 0:
        assert {"players", "payments", "net"} <= set(answer)
        assert sum(answer["net"].values()) == 0
    else:
        assert status == cli.EXIT_BAD_INPUT and set(answer) == {"error"}
        assert isinstance(answer["error"], str) and answer["error"]
        assert not re.search(r"Traceback|Error\(|object at 0x", answer["error"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(JSON_VALUES)
def test_any_json_value_gets_a_result_or_a_clear_error(value: Any) -> None:
    answered_clearly(json.dumps(value))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([GOOD, SCORES]),
    st.dictionaries(KEYS, FIELD_VALUES, max_size=3),
    st.dictionaries(st.sampled_from(list(WIN)), FIELD_VALUES, max_size=2),
    st.dictionaries(
        st.sampled_from(["seat", "concealed", "melds", "flowers", "dead"]), FIELD_VALUES, max_size=2
    ),
)
def test_a_good_document_with_any_field_changed_gets_a_result_or_a_clear_error(
    base: dict[str, Any], top: dict[str, Any], win: dict[str, Any], one: dict[str, Any]
) -> None:
    """Close to a real document, so the fuzzing reaches the checks deep inside."""
    doc = {**base, **top}
    if "win" not in top and "win" in base:
        doc["win"] = {**base["win"], **win}
    if "players" not in top and "players" in base:
        doc["players"] = [{**base["players"][0], **one}, *base["players"][1:]]
    answered_clearly(json.dumps(doc))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gets_a_result_or_a_clear_error(text: str) -> None:
    answered_clearly(text)
