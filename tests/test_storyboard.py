"""The storyboard's counting (tests/storyboard/count.py) and one short storyboard run."""

from __future__ import annotations

from typing import Any

import pytest

from tests.storyboard.count import Change, count_hands, hand_at, look_of, summary


def button(custom_id: str, label: str, **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 2, "custom_id": custom_id, "label": label, **extra}


def change(kind: str, place: str, message_id: int, hand: int, look: Any) -> Change:
    return Change(kind=kind, place=place, message_id=message_id, hand=hand, look=look)


def test_invisible_parts_do_not_change_the_look() -> None:
    picture = b"\x89PNG fake bytes"
    first = look_of(
        "Your move",
        [{"title": "Table 1", "image": {"url": "http://cdn/1/table.png"}}],
        [{"type": 1, "id": 1, "components": [button("mj:1:5:discard:3", "3c")]}],
        [("http://cdn/1/table.png", picture, "the table")],
    )
    # A re-upload of the same bytes (new URL), new custom ids and component ids: same look.
    again = look_of(
        "Your move",
        [{"title": "Table 1", "image": {"url": "http://cdn/2/table.png"}}],
        [{"type": 1, "id": 7, "components": [button("mj:1:6:discard:3", "3c", id=9)]}],
        [("http://cdn/2/table.png", picture, "the table")],
    )
    assert first == again
    relabelled = look_of(
        "Your move",
        [{"title": "Table 1", "image": {"url": "http://cdn/2/table.png"}}],
        [{"type": 1, "components": [button("mj:1:6:discard:3", "3c", disabled=True)]}],
        [("http://cdn/2/table.png", picture, "the table")],
    )
    assert relabelled != first
    other_picture = look_of(
        "Your move",
        [{"title": "Table 1", "image": {"url": "http://cdn/3/table.png"}}],
        [{"type": 1, "components": [button("mj:1:6:discard:3", "3c")]}],
        [("http://cdn/3/table.png", picture + b"!", "the table")],
    )
    assert other_picture != first
    other_alt = look_of("Your move", [], [], [("u", picture, "a")])
    assert other_alt != look_of("Your move", [], [], [("u", picture, "b")])


def test_counts_per_hand_and_the_last_line() -> None:
    changes = [
        change("create", "channel", 1, 0, "lobby"),
        change("edit", "channel", 1, 0, "lobby, bob joined"),
        change("create", "thread", 2, 1, "table"),
        change("create", "dm", 3, 1, "hand"),
        change("edit", "dm", 3, 1, "hand 2"),
        change("edit", "dm", 3, 1, "hand 2"),  # nothing visible changed
        change("edit", "thread", 2, 1, "table"),  # nothing visible changed
        change("delete", "dm", 3, 2, "hand 2"),
        change("create", "dm", 4, 2, "hand again"),
        change("edit", "channel", 1, 2, "lobby, playing hand 2"),
        change("create", "thread", 5, 2, "reveal"),
    ]
    counts = count_hands(changes)
    assert [c.hand for c in counts] == [0, 1, 2]
    assert (counts[0].channel_messages, counts[0].channel_edits) == (1, 1)
    one = counts[1]
    assert (one.channel_messages, one.channel_edits) == (1, 1)
    assert (one.messages["dm"], one.edits["dm"], one.invisible_edits) == (1, 2, 2)
    two = counts[2]
    assert (two.channel_messages, two.channel_edits, two.messages["dm"]) == (1, 1, 1)
    assert two.deletes["dm"] == 1 and two.invisible_edits == 0
    assert two.line().startswith("hand 2: 1 channel messages (1 in the thread), 1 channel edits")
    assert summary(counts, 2) == (
        "2 hands: 3 channel messages, 3 channel edits, 2 DM messages, 2 DM edits, "
        "2 edits that change nothing visible"
    )


def test_an_edit_is_compared_with_its_own_message_only() -> None:
    changes = [
        change("create", "dm", 1, 1, "same"),
        change("create", "dm", 2, 1, "other"),
        change("edit", "dm", 1, 1, "other"),  # differs from message 1's own look
        change("edit", "dm", 2, 1, "other"),  # equals message 2's own look
    ]
    (count,) = count_hands(changes)
    assert count.invisible_edits == 1


def test_hand_at_places_moments_in_hands() -> None:
    at = hand_at([(10.0, 1), (20.0, 1), (30.0, 2), (40.0, 2)])
    assert [at(t) for t in (5.0, 10.0, 25.0, 30.0, 99.0)] == [0, 1, 1, 2, 2]


@pytest.mark.slow
async def test_a_short_storyboard(tmp_path) -> None:
    from tests.storyboard.play import Options, play
    from tests.storyboard.write import write

    story = await play(Options(hands=1, humans=1, quick=True, timeout=120))
    last = write(story, tmp_path)
    assert story.hands == 1
    index = (tmp_path / "index.md").read_text()
    assert index.rstrip().endswith(last)
    assert last.startswith("1 hands: ") and "edits that change nothing visible" in last
    assert "## Hand 1" in index and list(tmp_path.glob("*.png"))
    # Alice saw the lobby in the channel and her hand in her DMs.
    assert any(c.place == "channel" and c.kind == "create" for c in story.changes)
    assert any(c.place == "dm" for c in story.changes)
