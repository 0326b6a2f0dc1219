"""The replay viewer's message (cogs/replay.py) without Discord: its custom ids fit Discord's
limits and belong to the replay's controls only, the buttons that lead nowhere are disabled,
the seat menu marks the seat shown, and the words say where in the hand the frame is."""

from __future__ import annotations

import re

import pytest

from bot.service.replays import TABLE, HandReplay, ReplayError, build_replay
from cogs import controls, help, scoring
from cogs.replay import ReplayButton, ReplaySeat, alt_text, viewer_controls, viewer_text
from tests.service.test_replays import play

OTHERS = [
    *controls.DYNAMIC_ITEMS,
    help.HelpButton,
    scoring.SettleButton,
    scoring.ShareRulesButton,
    scoring.RulesPageButton,
]


@pytest.fixture(scope="module")
def replay() -> HandReplay:
    return build_replay(*play("viewer-seed", hands=1), 1)


def ids_of(view) -> list[str]:
    return [item.custom_id for item in view.children]


def items(view) -> list:
    """The buttons and menu inside the view's dynamic items."""
    return [getattr(child, "item", child) for child in view.children]


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
            menu = items(view)[-1]
            assert len(menu.options) <= 25
            assert [o.value for o in menu.options if o.default] == [str(seat)]


def test_the_ends_disable_what_leads_nowhere(replay: HandReplay) -> None:
    seat = replay.seats()[0][0]
    stops = replay.stops(seat)

    def disabled(step: int) -> dict[str, bool]:
        buttons = items(viewer_controls(replay, step, seat))[:4]
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


def test_the_viewer_speaks_the_members_language(replay: HandReplay) -> None:
    """A private answer in the member's language: the words, the seat menu, the buttons, the
    picture's alt text and the refusals (zh-TW, zh-CN; English otherwise)."""
    seat, name, _wind = replay.seats()[0]
    last = replay.stops(seat)[-1]
    words = viewer_text(replay, 0, seat, "zh-TW")
    assert "**重播** · 牌桌" in words and "發牌。" in words and f"{name}（" in words
    assert "本局結束" in viewer_text(replay, last, seat, "zh-TW")
    assert "回放" in viewer_text(replay, 0, TABLE, "zh-CN")
    view = viewer_controls(replay, 0, seat, "zh-TW")
    assert [b.label for b in items(view)[:4]] == ["開頭", "上一步", "下一步", "亮牌"]
    menu = items(view)[-1]
    assert menu.placeholder == "從誰的座位看" and menu.options[-1].label == "牌桌（頻道看到的樣子）"
    assert alt_text(replay, 0, seat, "zh-TW").startswith(f"{name} 的手牌：")
    refusal = ReplayError(
        "Table {table} has no hand {hand}: it dealt {played}.", table=3, hand=9, played=2
    )
    assert str(refusal) == "Table 3 has no hand 9: it dealt 2."
    assert refusal.text("zh-CN") == "牌桌 3 没有第 9 局：它只打了 2 局。"
    assert refusal.text("fr") == str(refusal)
    assert viewer_text(replay, 0, seat) == viewer_text(replay, 0, seat, "en-US")
