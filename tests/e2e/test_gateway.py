"""The gateway connection drops mid-game (abruptly, then with a close code): the bot resumes
its session, the presses sent while it was away are delivered and answered in time, and the
game goes on to its standings."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from bot.app import KEEP_ALIVE
from bot.rules.game import pending_seats
from tests.e2e.checks import check_ledger, events_of, replay
from tests.e2e.harness import open_table, standings_posted, start_bot, wait_until
from tests.e2e.players import SimPlayer, move_buttons, pause, resume


@pytest.mark.slow
async def test_the_game_goes_on_across_gateway_drops(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    server = fake_discord
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(run_bot, tmp_path)
    opened = await open_table(w, w.alice, [w.bob], computer_players=2, hands=3, turn_seconds=0)
    tables = bot.services.tables
    members = [w.alice, w.bob]
    place = opened.place
    players = [SimPlayer(u, place) for u in members]
    tasks = [
        asyncio.create_task(p.play(lambda: standings_posted(w.alice, place), timeout=240))
        for p in players
    ]
    try:
        for n, code in enumerate((None, 4000, None)):
            # Wait for a member to be asked, and press their button while disconnected.
            def asked() -> tuple[SimPlayer, object, list] | None:
                table = tables.tables.get(opened.table_id)
                if table is None:
                    return None
                for p in players:
                    dms = p.hand_dms()
                    buttons = move_buttons(dms[-1]) if dms else []
                    if buttons and buttons[0][3] == table.controls_move:
                        return p, dms[-1], buttons
                return None

            await pause(players)
            try:
                player, message, buttons = await wait_until(asked, 20, "a member to be asked")
            except AssertionError as timed_out:
                table = tables.tables.get(opened.table_id)
                state = table and table.state
                raise AssertionError(
                    f"{timed_out} (drop {n}): status {table and table.status}, phase "
                    f"{state and state.phase}, move {state and state.move}, controls "
                    f"{table and table.controls_move}, pending "
                    f"{state and pending_seats(state)}, players {table and table.players}, "
                    f"DM moves "
                    f"{[move_buttons(m)[:1] for p in players for m in p.hand_dms()[-1:]]}"
                ) from None
            before = len(events_of(db, opened.table_id))
            resumes = server.gateway.count("resume")
            await server.drop_gateway(code)
            assert not server.gateway.connected
            choice = player.policy(buttons)
            handle = await player.user.click(message, choice)
            ack = await handle.ack()
            assert ack == 6, f"the press sent during the drop: {ack} {handle.messages}"
            player.done(buttons[0])
            assert server.gateway.count("resume") == resumes + 1
            assert server.gateway.count("identify") == 1, "the bot identified again"
            await wait_until(
                lambda n=before: len(events_of(db, opened.table_id)) > n, 5, "the move stored"
            )
            resume(players)
            await asyncio.sleep(0.3)  # a few moves before the next drop
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    table = replay(db, opened.table_id)
    assert table.status == "finished" and len(table.state.results) == 3
    check_ledger(db, w.guild.id, opened.table_id)
    await tables.notifier.drain()


async def test_idle_connections_to_discord_are_kept_a_minute(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    """An acknowledgement that finds no idle connection waits for a new one (86-111 ms at 200
    tables; against Discord a TLS handshake too): the bot's connector keeps idle connections
    a minute (``KEEP_ALIVE``), not aiohttp's 15 s, and sets no cap on their number."""
    bot = await start_bot(run_bot, tmp_path)
    connector = bot.http.connector
    assert isinstance(connector, aiohttp.TCPConnector)
    assert connector._keepalive_timeout == KEEP_ALIVE == 60.0  # aiohttp has no public getter
    assert connector.limit == 0
