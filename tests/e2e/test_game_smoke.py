"""The real bot (discord.py, SQLite, renderer) against the fake Discord: one member plays a
hand against three computer players from /mahjong new to the final standings."""

from __future__ import annotations

from tests.e2e.harness import open_table, standings_posted, start_bot, titles
from tests.e2e.players import SimPlayer


async def test_one_member_plays_a_hand_with_three_computers(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    await start_bot(run_bot, tmp_path)
    opened = await open_table(w, w.alice, computer_players=3, hands=1)
    place = opened.place  # the table's thread
    assert place.id != w.channel.id and place.parent_id == w.channel.id
    alice = SimPlayer(w.alice, place)
    await alice.play(lambda: standings_posted(w.alice, place), timeout=180)
    assert alice.accepted
    seen = titles(w.alice, place)
    assert any(t.startswith("Hand 1:") for t in seen)
    assert seen.index("Final standings") > max(
        i for i, t in enumerate(seen) if t.startswith("Hand 1:")
    )
