"""Replays through the real bot and discord.py against the fake Discord (issue 13, part 1):
one short game (one hand, alice and three computer players), then

- a replay of the hand in play is refused, and the same command works once it is over;
- ``/mahjong replay`` steps through every frame of alice's seat with ▶, and every picture
  alice's DM showed during the hand is one of those frames, pixel for pixel, in the same order
  (the seat table has no countdown or wall count in it: those are the DM's text);
- from another seat, every frame's view (the model the picture is drawn from, recorded as
  the bot draws it) holds no concealed tile but that seat's own until the reveal, and that
  seat's tiles are its real ones at that moment;
- by table number a member who cannot see the table's channel (discord.py's permissions) is
  refused, though one who played there is not; the replay code opens the same hand for
  another member of the server, who sees the seats by name (not "You");
- the viewer's buttons work after the bot restarts.
"""

from __future__ import annotations

from typing import Any

from fakediscord import Perm

from bot.rules.game import GAME_OVER, HAND_OVER
from tests.e2e.checks import recording_images, seen_by
from tests.e2e.harness import open_table, recording_states, standings_posted, start_bot
from tests.e2e.players import SimPlayer
from tests.pictures import shows


def frame_of(message: Any) -> bytes:
    return message.attachment("replay.png").data


def button(message: Any, move: str) -> dict[str, Any]:
    cid = next(c for c in message.custom_ids() if c.endswith(f":{move}"))
    return message.component(cid)


async def press(user: Any, message: Any, move: str) -> Any:
    handle = await user.click(message, button(message, move)["custom_id"])
    return await handle.reply(timeout=30)


async def test_a_finished_hand_replays_as_the_live_dm_showed_it(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    lounge = fake_discord.create_text_channel(w.guild, "lounge")
    with recording_images() as images, recording_states() as states:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, w.alice, computer_players=3, hands=1)

        # While the hand is in play nobody can replay it.
        early = await w.alice.slash(w.channel, "mahjong replay", table=opened.table_id, hand=1)
        refusal = await early.reply(timeout=30)
        assert "still being played" in refusal.content and not refusal.attachments
        assert refusal.ephemeral

        alice = SimPlayer(w.alice, opened.place)
        await alice.play(lambda: standings_posted(w.alice, opened.place), timeout=180)
        await bot.services.tables.notifier.drain()

        # What alice's DM showed, picture by picture.
        live = []
        # In the order she saw them (a click's answer edits an older message after a newer
        # one was posted: by message, the versions would be out of time order).
        for version in sorted(seen_by(fake_discord, w.alice, []), key=lambda v: v.made_at):
            for attachment in version.attachments:
                if attachment.filename == "seat.png" and attachment.data not in live[-1:]:
                    live.append(attachment.data)
        # A seat that only watches is updated at most every 2 s (docs/performance.md), so a
        # quick hand shows a handful of pictures: enough to check their order and moves.
        assert len(live) >= 3

        # Her last hand, from her own seat, frame by frame to the reveal.
        handle = await w.alice.slash(w.channel, "mahjong replay")
        message = await handle.reply(timeout=30)
        assert message.ephemeral and message.visible_to == w.alice.id
        replay = await bot.services.replays.open(w.guild.id, opened.table_id, 1)
        seat = next(s for s, name, _ in replay.seats() if name == "alice")
        stops = replay.stops(seat)
        frames = [frame_of(message)]
        assert f"frame 1 of {len(stops)}" in message.content
        assert button(message, "prev").get("disabled") and button(message, "first").get("disabled")
        while not button(message, "next").get("disabled"):
            message = await press(w.alice, message, "next")
            frames.append(frame_of(message))
        assert len(frames) == len(stops) == len({shows(png) for png in frames})
        assert "Hand over." in message.content and replay.code in message.content
        final = images.drawn[frames[-1]][-1].view
        assert final.phase in (HAND_OVER, GAME_OVER) and final.revealed
        # Every live picture is a replay frame, in the order the DM showed them, and it is the
        # frame the replay shows at the move the live picture was drawn for.
        # (Compared by what they show: the DM's and the replay's were drawn apart.)
        pictures = [shows(png) for png in frames]
        where = [pictures.index(shows(png)) for png in live]
        assert where == sorted(where), "the DM's pictures come in the replay's order"
        steps = {step.state.move: i for i, step in enumerate(replay.steps)}
        for png in live:
            move = images.drawn[png][0].view.move
            assert pictures[replay.position(steps[move], seat)[0]] == shows(png), f"move {move}"

        # From a computer player's seat: only that seat's tiles, its real ones, until the
        # reveal. ⏮ back to the deal first, then pick the seat.
        message = await press(w.alice, message, "first")
        other = next(s for s, name, _ in replay.seats() if s != seat)
        pick = next(c for c in message.custom_ids() if c.endswith(":seat"))
        message = await (await w.alice.select(message, pick, [str(other)])).reply(timeout=30)
        truth = {s.move: s for s in states.states()}
        shown = [images.drawn[frame_of(message)][-1].view]
        while not button(message, "next").get("disabled"):
            message = await press(w.alice, message, "next")
            shown.append(images.drawn[frame_of(message)][-1].view)
        assert len(shown) == len(replay.stops(other))
        checked = 0
        for view in shown[:-1]:
            assert view.viewer == other and not view.revealed
            for s, seen in enumerate(view.seats):
                if s != other:
                    assert seen.concealed is None and seen.drawn is None, f"seat {s} shown"
            if view.move in truth:
                assert view.seats[other].concealed == truth[view.move].seats[other].concealed
                checked += 1
        assert checked > len(shown) // 2 and shown[-1].revealed

        # The table's channel (and so its thread) hidden from bob and alice: by number bob is
        # refused, alice (who played it) is not; the code opens it for bob.
        for member in (w.bob, w.alice):
            await fake_discord.set_overwrite(w.channel, member, deny=int(Perm.VIEW_CHANNEL))
        number = {"table": opened.table_id, "hand": 1}
        handle = await w.bob.slash(lounge, "mahjong replay", **number)
        refused = await handle.reply(timeout=30)
        assert refused.ephemeral and "cannot see" in refused.content and not refused.attachments
        w.bob.record.locale = "zh-TW"  # in his own language when his Discord is in Chinese
        handle = await w.bob.slash(lounge, "mahjong replay", **number)
        assert "你看不到的頻道" in (await handle.reply(timeout=30)).content
        w.bob.record.locale = "en-US"
        handle = await w.alice.slash(lounge, "mahjong replay", **number)
        assert "frame 1 of" in (await handle.reply(timeout=30)).content
        # The code opens the same hand for bob, from the table's view (he did not play).
        handle = await w.bob.slash(lounge, "mahjong replay", code=replay.code.upper())
        shared = await handle.reply(timeout=30)
        assert shared.visible_to == w.bob.id and f"code `{replay.code}`" in shared.content
        deal = images.drawn[frame_of(shared)][-1]
        assert deal.kind == "table" and deal.view.viewer is None
        assert all(s.concealed is None for s in deal.view.seats)

        # The viewer outlives the bot: after a restart (nothing cached, nothing kept per
        # viewer) bob's ▶ still leads to the next frame.
        first = frame_of(shared)
        await bot.close()
        await start_bot(run_bot, tmp_path)
        after = await press(w.bob, shared, "next")
        assert "frame 2 of" in after.content and frame_of(after) != first

        # From alice's seat bob sees her picture with her name, not "You".
        pick = next(c for c in after.custom_ids() if c.endswith(":seat"))
        hers = await (await w.bob.select(after, pick, [str(seat)])).reply(timeout=30)
        drawn = images.drawn[frame_of(hers)][-1]
        assert drawn.kind == "seat_table" and shows(frame_of(hers)) not in pictures
