"""Where the slash commands are offered (issues 16.4 and 13.5), read from the payload the real
bot synced to the fake Discord: the look-ups (/score, /rules, /notation) everywhere (contexts
[0, 1, 2]) and installable to a user's account too (integration_types [0, 1]); every other
command, /mahjong at the top level included, is for servers only (contexts [0]) and installed
with the bot to a server (integration_types [0]); a DM client is not offered them."""

from __future__ import annotations

import pytest
from fakediscord.commands import CommandError

from bot.app import MahjongBot
from bot.config import Settings

GUILD, BOT_DM, PRIVATE_CHANNEL = 0, 1, 2
GUILD_INSTALL, USER_INSTALL = 0, 1


async def test_every_synced_command_is_for_servers_only(discord_world, run_bot, tmp_path) -> None:
    w = discord_world
    settings = Settings(
        token="test-token", database=tmp_path / "db.sqlite3", dev_guild=None, log_level="INFO"
    )
    await run_bot.start(MahjongBot(settings))
    synced = {c["name"]: c for c in w.server.commands()}
    assert {"mahjong", "score", "rules", "settle", "chips", "leaderboard"} <= set(synced)
    anywhere = {"score", "rules", "notation"}
    assert anywhere <= set(synced)
    for name, command in synced.items():
        if name in anywhere:
            assert command.get("contexts") == [GUILD, BOT_DM, PRIVATE_CHANNEL], name
            assert command.get("integration_types") == [GUILD_INSTALL, USER_INSTALL], name
            continue
        assert command.get("contexts") == [GUILD], (name, command.get("contexts"))
        assert command.get("integration_types") == [GUILD_INSTALL], name
    # Subcommands carry no contexts of their own: Discord reads them on the top level only.
    subcommands = [o for o in synced["mahjong"]["options"] if o["type"] == 1]
    assert subcommands and all("contexts" not in o for o in subcommands)

    # A DM is not offered /mahjong (its subcommands crashed there before), nor the ledger.
    hidden = r"cannot use .* in this DM; visible commands: \['/notation', '/rules', '/score'\]$"
    for command in ("mahjong new", "mahjong config", "chips", "settle"):
        with pytest.raises(CommandError, match=hidden):
            await w.alice.slash(w.alice.dm(), command)
    # On the server they are.
    reply = await (await w.alice.slash(w.channel, "chips")).reply()
    assert reply.embeds
