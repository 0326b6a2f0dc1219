"""A database that refuses writes (SQLite's own SQLITE_READONLY, as for a read-only file), with
the bot as its own process: moves are refused with a clear message, the table's state stays as
its events say, and the game carries on by itself once writes succeed again."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.checks import check_ledger, events_of, replay
from tests.e2e.harness import BotProcess, open_table, standings_posted, wait_until
from tests.e2e.players import SimPlayer
from tests.e2e.test_restart import forgive_disconnects


@pytest.mark.slow
async def test_a_read_only_database_refuses_moves_and_the_table_resumes_by_itself(
    fake_discord, discord_world, tmp_path, monkeypatch
) -> None:
    w = discord_world
    db = tmp_path / "db.sqlite3"
    writes = tmp_path / "writes"
    monkeypatch.setenv("MJ_WRITES", str(writes))
    bot = BotProcess(fake_discord, db, tmp_path)
    await bot.start()
    try:
        opened = await open_table(w, w.alice, computer_players=3, hands=2, turn_seconds=0)
        alice = SimPlayer(w.alice, opened.place, patient=True, ack_timeout=1.5)

        def over() -> bool:
            return standings_posted(w.alice, opened.place)

        task = asyncio.create_task(alice.play(over, timeout=180))
        await wait_until(lambda: len(events_of(db, opened.table_id)) > 10, 30, "some moves")
        writes.write_text("readonly")
        await wait_until(
            lambda: "could not write" in bot.log_text(), 60, "a write refused by SQLite"
        )
        assert bot.alive
        # What the database holds replays to a consistent table (state only advances after
        # its event was written): no gap, no half-applied move.
        during = replay(db, opened.table_id)
        assert during.status == "playing"
        await asyncio.sleep(1.0)
        assert replay(db, opened.table_id).state.move >= during.state.move
        frozen = len(events_of(db, opened.table_id))
        writes.write_text("writable")

        def moving_again() -> bool:
            alice.try_again()  # a refused move said to try again: she does, now and then
            return len(events_of(db, opened.table_id)) > frozen

        await wait_until(moving_again, 60, "the table moving on", step=0.5)
        await wait_until(over, 120, "the game to finish once writes work again")
        await task
        table = replay(db, opened.table_id)
        assert table.status == "finished" and len(table.state.results) == 2
        facts = check_ledger(db, w.guild.id, opened.table_id)
        assert facts.hands == 2
        refusals = [r for r in alice.refusals if "could not save" in str(r)]
        tries = bot.log_text().count("could not write")
        print(f"{tries} writes refused, {len(refusals)} of them alice's moves")
        # Tried again with a growing pause, not in a storm, while the disk was full.
        assert tries <= 40, tries
        assert "Traceback" not in bot.log_text(), bot.log_text()[-3000:]
    finally:
        await bot.kill()
        forgive_disconnects(fake_discord)
