"""A command cut short by the bot's shut-down is not a fault: nothing escapes the handler
(asyncio would log "Task exception was never retrieved") and nothing is logged as an error.
A real fault while running is still logged as one."""

from __future__ import annotations

import logging
import re
from types import SimpleNamespace
from typing import Any

import pytest
from discord import app_commands

from cogs.common import handle_error


class Response:
    def __init__(self, fail: BaseException | None) -> None:
        self.fail = fail
        self.sent: list[str] = []

    def is_done(self) -> bool:
        return False

    async def send_message(self, text: str, **_: Any) -> None:
        if self.fail:
            raise self.fail
        self.sent.append(text)


def interaction(*, closed: bool, fail: BaseException | None = None) -> Any:
    return SimpleNamespace(
        client=SimpleNamespace(is_closed=lambda: closed),
        response=Response(fail),
        command=SimpleNamespace(qualified_name="mahjong new"),
        locale=None,
    )


def invoke_error(exc: BaseException) -> app_commands.CommandInvokeError:
    return app_commands.CommandInvokeError(SimpleNamespace(name="new"), exc)  # type: ignore[arg-type]


async def test_a_command_cut_short_by_the_shut_down_is_not_an_error(caplog):
    caplog.set_level(logging.INFO)
    closed = interaction(closed=True, fail=RuntimeError("Session is closed"))
    await handle_error(closed, invoke_error(RuntimeError("Session is closed")))
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert "cut short by the shut-down" in caplog.text


async def test_a_reply_that_cannot_be_sent_while_shutting_down_is_dropped(caplog):
    caplog.set_level(logging.INFO)
    closed = interaction(closed=True, fail=RuntimeError("Session is closed"))
    await handle_error(closed, app_commands.CheckFailure("Not here."))
    assert "an error reply was not sent" in caplog.text


async def test_a_fault_while_running_is_logged_and_answered(caplog):
    running = interaction(closed=False)
    await handle_error(running, invoke_error(ValueError("boom")))
    assert [r.levelno for r in caplog.records] == [logging.ERROR]
    assert running.response.sent == ["Something went wrong on our side; nothing was changed."]


async def test_an_unexpected_failure_to_reply_while_running_is_not_hidden():
    running = interaction(closed=False, fail=RuntimeError("Session is closed"))
    with pytest.raises(RuntimeError):
        await handle_error(running, app_commands.CheckFailure("Not here."))


async def press_pass(clicked: Any) -> None:
    """A Pass button of table 1 pressed (``cogs.controls``' dispatch, as discord.py calls it)."""
    from cogs import controls

    await controls._dispatch("move", clicked, re.match(r"mj:1:2:pass", "mj:1:2:pass"))


def errors(caplog: pytest.LogCaptureFixture) -> list[int]:
    return [r.levelno for r in caplog.records if r.levelno >= logging.ERROR]


async def closed_session(interaction: Any, fields: dict[str, str]) -> None:
    raise RuntimeError("Session is closed")


@pytest.mark.parametrize(
    ("handler", "at_stop", "while_running", "errors_while_running"),
    [
        # The click's handler runs into the closed session.
        (
            closed_session,
            "cut short by the shut-down",
            "Something went wrong with that button; try again, or use /mahjong hand.",
            [logging.ERROR],
        ),
        # A stop unloads the table cog (its button handlers go) and closes the session: a
        # click arriving in between has no handler and nobody to answer it.
        (
            None,
            "an error reply was not sent",
            "The table is starting up; try again in a moment.",
            [],
        ),
    ],
    ids=["handler-cut-short", "no-handler"],
)
async def test_a_button_pressed_during_the_stop_is_not_an_error(
    caplog, monkeypatch, handler, at_stop, while_running, errors_while_running
):
    from cogs import controls

    if handler is None:
        monkeypatch.delitem(controls.HANDLERS, "move", raising=False)
    else:
        monkeypatch.setitem(controls.HANDLERS, "move", handler)
    caplog.set_level(logging.INFO)
    await press_pass(interaction(closed=True, fail=RuntimeError("Session is closed")))
    assert not errors(caplog)
    assert at_stop in caplog.text

    running = interaction(closed=False)
    await press_pass(running)
    assert errors(caplog) == errors_while_running
    assert running.response.sent == [while_running]
