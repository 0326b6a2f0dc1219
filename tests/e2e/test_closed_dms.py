"""Closed DMs: a member whose DMs are closed from the start, and one who closes them during
the game, are told so in the channel once, play through the "Show my hand" button and
``/mahjong hand`` (private answers with the controls), and the table never waits for a DM."""

from __future__ import annotations

import pytest

from tests.e2e.checks import check_ledger, check_privacy, recording_images, replay
from tests.e2e.harness import open_table, recording_states, standings_posted, start_bot
from tests.e2e.players import SimPlayer, play_all


@pytest.mark.slow
async def test_members_with_closed_dms_play_from_the_channel(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    fake_discord.close_dms(w.bob)
    members = [w.alice, w.bob]
    with recording_states() as states, recording_images() as images:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, w.alice, [w.bob], computer_players=2, hands=2)
        place = opened.place
        players = [SimPlayer(u, place) for u in members]

        def alice_closes_at_hand_two() -> bool:
            (snapshots,) = states.games.values()
            if snapshots[-1].state.deal >= 2 or snapshots[-1].state.move > 15:
                fake_discord.close_dms(w.alice)
            return standings_posted(w.alice, place)

        await play_all(players, alice_closes_at_hand_two, timeout=240)
        await bot.services.tables.notifier.drain()

    # Each was told once, in the table's thread, with the button.
    for user in members:
        notices = [m for m in w.carol.messages(place) if user.mention in m.content]
        assert len(notices) == 1, f"{user} was told {len(notices)} times"
        assert "direct messages" in notices[0].content
        assert any(cid.endswith(":seat:hand") for cid in notices[0].custom_ids())
    # Bob never got a DM; both played from private answers in the channel.
    assert not w.bob.dm_messages()
    for p in players:
        assert p.asked > 0 and p.accepted, f"{p.user} did not play from the channel"
        assert not p.refusals, p.refusals
        private = w.bob.ephemeral_messages(place) if p.user is w.bob else []
        assert all(m.visible_to == w.bob.id for m in private)
    # Nobody else sees those private hands.
    for other in (w.alice, w.carol):
        for channel in (w.channel, place):
            assert not [m for m in other.messages(channel) if m.visible_to == w.bob.id]

    db = tmp_path / "db.sqlite3"
    table = replay(db, opened.table_id)
    assert table.status == "finished" and len(table.state.results) == 2
    check_ledger(db, w.guild.id, opened.table_id)
    (snapshots,) = states.games.values()
    seats = {u.id: table.seat_of(u.id) for u in members}
    checked = check_privacy(
        fake_discord, members, [w.channel, place], opened.table_id, snapshots, seats, images
    )
    assert checked["controls"] > 10
