"""When the table's channel refuses the bot (a permission taken away mid-game), the notifier
stops sending there at once: the failed requests are few and do not grow with time (Discord
bans a bot after 10,000 invalid requests in 10 minutes), the cause is logged, the service is
told (``permissions_lost``) and pauses the table: nothing more is sent there while it waits.
The lifecycle cog, which would pause the table from the gateway's CHANNEL_UPDATE before any
request failed (tests/e2e/test_lifecycle.py), is unloaded here: this is the notifier's own
guard, for a change the gateway reports late or never."""

from __future__ import annotations

import asyncio
import logging

import pytest
from fakediscord.state import Perm

from tests.e2e.harness import QUIET, open_table, start_bot, wait_until
from tests.e2e.players import SimPlayer


@pytest.mark.slow
async def test_a_channel_that_refuses_the_bot_gets_a_few_failed_requests_not_a_storm(
    fake_discord, discord_world, run_bot, tmp_path, caplog
) -> None:
    w = discord_world
    bot = await start_bot(run_bot, tmp_path)
    tables = bot.services.tables
    told: list[list[str]] = []
    original = getattr(tables, "permissions_lost", None)

    async def permissions_lost(table_id: int, missing: list[str]) -> None:
        # Recorded once the service has acted on it (paused the table), so the test reads
        # the table after the pause, never between the call and the pause.
        if original is not None:
            await original(table_id, missing)
        told.append(missing)

    tables.permissions_lost = permissions_lost
    await bot.remove_cog("TableLifecycleCog")
    opened = await open_table(w, w.alice, computer_players=3, hands=3)
    alice = SimPlayer(w.alice, opened.place)
    channel_path = rf"/channels/{opened.place.id}/.*"

    def dealt(n: int) -> bool:
        table = tables.tables.get(opened.table_id)
        return table is not None and table.state is not None and table.state.deal >= n

    with caplog.at_level(logging.WARNING):
        await alice.play(lambda: dealt(2), timeout=180)
        # Sending messages and files in the channel (and so in its threads) is taken away
        # (editing the bot's own table message is still allowed, as on Discord): the next
        # reveal is refused.
        await fake_discord.set_overwrite(
            w.channel, fake_discord.state.bot_user, deny=Perm.SEND_MESSAGES | Perm.ATTACH_FILES
        )
        await alice.play(lambda: dealt(3) or told, timeout=180)
        await wait_until(lambda: told, 30, "the service told of the lost permission")
        await tables.notifier.drain()
        failed = len(fake_discord.invalid_requests.matching(channel_path))
        table = tables.tables[opened.table_id]
        assert table.paused and "Attach Files" in table.pause_reason, table.pause_reason
        # Time passes: the paused table sends nothing to the channel, so not one more
        # request fails there (a window to count in, not a wait for something to happen).
        await asyncio.sleep(QUIET)
        await tables.notifier.drain()
    after = len(fake_discord.invalid_requests.matching(channel_path))
    assert 1 <= failed <= 3, fake_discord.invalid_requests.summary()
    assert after == failed, "requests to the refused channel went on"
    assert tables.tables[opened.table_id].paused
    assert {"Send Messages", "Attach Files"} & set(told[0]), told
    assert any("sending nothing more" in r.getMessage() for r in caplog.records)
