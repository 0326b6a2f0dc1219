"""The fake's check against Discord's own API description catches what Discord would refuse,
on both of its paths: the compiled validator that answers most bodies, and the reference
implementation that explains a violation."""

from __future__ import annotations

from fakediscord import apispec


def _message(**changes: object) -> dict:
    row = {
        "type": 1,
        "components": [
            {"type": 2, "style": 1, "label": f"b{i}", "custom_id": f"mj:1:2:discard:{i}"}
            for i in range(5)
        ],
    }
    return {"content": "your turn", "components": [row], **changes}


def test_a_well_formed_message_passes_and_malformed_ones_are_explained() -> None:
    spec = apispec.load()
    op = spec.operation("POST", "/channels/123/messages")
    assert not isinstance(op, str)
    assert spec.check_request(op, {}, _message(), "application/json") == []
    bad_button = _message(components=[{"type": 1, "components": [{"type": 2, "style": 9}]}])
    [error] = spec.check_request(op, {}, bad_button, "application/json")
    assert error.startswith("request body: at components/0")
    [error] = spec.check_request(op, {}, _message(content=5), "application/json")
    assert "at content" in error and "5" in error


def test_an_answer_missing_what_discord_always_sends_is_a_violation() -> None:
    spec = apispec.load()
    op = spec.operation("GET", "/users/@me")
    assert not isinstance(op, str)
    user = {"id": "1", "username": "mahjong", "discriminator": "0", "avatar": None}
    errors = spec.check_response(op, 200, user)
    assert errors and all(e.startswith("response 200") for e in errors)
    assert spec.operation("GET", "/not/a/route").endswith("is not a route of Discord's API")
