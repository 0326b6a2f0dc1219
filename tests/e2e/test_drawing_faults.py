"""A drawing process that hangs (SIGSTOPped: it never answers), with the bot as its own process:
the drawing it was given times out, the process is killed and replaced, the picture is drawn
anyway, ``/mahjong hand`` answers with the hand's picture, and the game goes on to its end.
Before the timeout existed a hung drawing process stopped every table (issue 16)."""

from __future__ import annotations

import os
import signal

import pytest

from tests.e2e.checks import check_ledger, events_of, replay
from tests.e2e.harness import BotProcess, open_table, standings_posted, wait_until
from tests.e2e.players import SimPlayer
from tests.e2e.test_restart import forgive_disconnects
from tests.test_drawing import alive, drawing_children

TIMEOUT = "2"  # seconds one drawing may take in this test (10 s in the bot)


@pytest.mark.slow
async def test_a_hung_drawing_process_is_replaced_and_the_game_goes_on(
    fake_discord, discord_world, tmp_path
) -> None:
    w = discord_world
    db = tmp_path / "db.sqlite3"
    env = {"MAHJONG_DRAWING_PROCESSES": "1", "MJ_DRAWING_TIMEOUT": TIMEOUT}
    bot = BotProcess(fake_discord, db, tmp_path, env=env)
    await bot.start()
    try:
        assert bot.proc is not None
        opened = await open_table(w, w.alice, computer_players=3, hands=1, turn_seconds=0)
        alice = SimPlayer(w.alice, opened.place, patient=True, ack_timeout=30.0)
        await alice.play(lambda: len(events_of(db, opened.table_id)) > 12, timeout=120)
        await wait_until(lambda: drawing_children(bot.proc.pid), 30, "the drawing process")
        (hung,) = drawing_children(bot.proc.pid)
        os.kill(hung, signal.SIGSTOP)

        # The member asks for their hand: answered, with its picture, although the process
        # that was drawing it hangs.
        handle = await w.alice.slash(opened.place, "mahjong hand")
        hand = await handle.reply(timeout=60)
        assert hand.ephemeral and hand.attachments, hand.content

        # The hung process was killed (and reaped), another draws now, the game ends.
        await wait_until(lambda: not alive(hung), 60, "the hung process killed and reaped")
        await wait_until(
            lambda: [p for p in drawing_children(bot.proc.pid) if p != hung], 60, "a new process"
        )
        await alice.play(lambda: standings_posted(w.alice, opened.place), timeout=240)
        assert bot.alive
        assert f"drawing process {hung} took over {float(TIMEOUT):.1f} s" in bot.log_text()
    finally:
        await bot.kill()
    forgive_disconnects(fake_discord)
    table = replay(db, opened.table_id)
    assert table.status == "finished"
    assert check_ledger(db, w.guild.id, opened.table_id).hands == len(table.state.results)
