"""The replay viewer's message (cogs/replay.py) without Discord: its custom ids fit Discord's
limits and belong to the replay's controls only, the buttons that lead nowhere are disabled,
the seat menu marks the seat shown, and the words say where in the hand the frame is."""

from __future__ import annotations

import re

import pytest

from bot.service.replays import TABLE, HandReplay, build_replay
from cogs import controls, help, scoring
from cogs.replay import ReplayButton, ReplaySeat, viewer_controls, viewer_text
from tests.service.test_replays import play

OTHERS = [*controls.DYNAMIC_ITEMS, help.HelpButton, scoring.SettleButton, scoring.ShareRulesButton]


@pytest.fixture(scope="module")
def replay() -> HandReplay:
    return build_replay(*play("viewer-seed", hands=1), 1)


def ids_of(view) -> list[str]:
    return [item.custom_id for item in view.children]


def test_every_control_is_a_replay_control_within_discords_limits(replay: HandReplay) -> None:
    for seat in [*(s for s, _, _ in replay.seats()), TABLE]:
        for step in replay.stops(seat):
            view = viewer_controls(replay, step, seat)
            for cid in ids_of(view):
                assert len(cid) <= 100
                mine = [
                    c
                    for c in (ReplayButton, ReplaySeat)
                    if c.__discord_ui_compiled_template__.fullmatch(cid)
                ]
                assert len(mine) == 1, cid
                assert not any(c.__discord_ui_compiled_template__.fullmatch(cid) for c in OTHERS), (
                    f"{cid} is also another control's"
                )
            menu = view.children[-1]
            assert len(menu.options) <= 25
            assert [o.value for o in menu.options if o.default] == [str(seat)]


def test_the_ends_disable_what_leads_nowhere(replay: HandReplay) -> None:
    seat = replay.seats()[0][0]
    stops = replay.stops(seat)

    def disabled(step: int) -> dict[str, bool]:
        buttons = viewer_controls(replay, step, seat).children[:4]
        return {re.sub(r".*:", "", b.custom_id): b.disabled for b in buttons}

    assert disabled(stops[0]) == {"first": True, "prev": True, "next": False, "last": False}
    assert disabled(stops[-1]) == {"first": False, "prev": False, "next": True, "last": True}
    assert not any(disabled(stops[1]).values())


def test_the_words_say_which_frame_and_who_won_at_the_end(replay: HandReplay) -> None:
    seat, name, wind = replay.seats()[0]
    count = len(replay.stops(seat))
    first = viewer_text(replay, 0, seat)
    assert f"code `{replay.code}`" in first and f"frame 1 of {count}" in first
    assert f"the seat of {name} ({wind})" in first and "The deal." in first
    last = viewer_text(replay, replay.stops(seat)[-1], seat)
    assert f"frame {count} of {count}" in last and "**Hand over.**" in last
    assert "as the channel saw it" in viewer_text(replay, 0, TABLE)
