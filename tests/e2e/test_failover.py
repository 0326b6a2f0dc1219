"""Failover (issue 15): three bot processes, each running one shard of three, on one PostgreSQL
database and the sharded fake Discord; 12 tables in 6 servers (two on each shard), each with a
member and three computer players, one hand each. Every member plays from their DMs, which
Discord sends to shard 0's process only, so nearly every press is handed over to the process
running its table (bot/cluster/forwarding.py). Mid-game the process of shard 1 is SIGKILLed;
once its tables run elsewhere, the process of shard 2 is too. Shard 0's process takes everything
over and every table finishes.

Then, on a copy of the database: every event log is one unbroken sequence the engine replays
(no seq written twice), every press acknowledged with a deferred update and no refusal is an
action of its member's seat in the log, each exactly once; each table's one hand is recorded
and settled once and every ledger balances (tests/e2e/checks.py); members pressed buttons of
DMs sent before a takeover after it, and those presses were taken.

Members have no turn timer (a press delayed by a takeover is never overtaken by its own
timeout) and a minute for claims; the lease lasts 6 s (takeover within ~8 s instead of ~12 s)
to keep the test short. The takeover times are printed, never asserted (a loaded machine).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.store.copy import copy_store
from bot.store.database import open_database
from tests.e2e.checks import check_ledger, replay
from tests.e2e.harness import BotProcess, lobby_id, standings_posted
from tests.e2e.players import MOVE, SimPlayer, move_buttons, pause, resume, seat_button
from tests.e2e.test_restart import VERB_ACTIONS, forgive_disconnects
from tests.fakediscord.world import BOT_PERMISSIONS

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

SHARDS = 3
GUILDS = 6
TABLES_PER_GUILD = 2
LEASE_SECONDS = "6"  # a heartbeat every 2 s; shorter leases expire on a loaded machine


@dataclass(eq=False)
class Member(SimPlayer):
    """A member who, like a person, reads their DMs for the newest move's controls: a prompt
    that a process posted just before it died may stay below the current one (nobody is left
    to delete it; pressing it would bring it up to date), so the newest message is not always
    the one to use."""

    told_to_press_again: int = 0

    def _dm_to_use(self) -> Any | None:
        self._press_again_when_told()
        dms = self.hand_dms()
        if not dms or seat_button(dms[-1], "back"):
            return dms[-1] if dms else None
        offered = [(max(b[3] for b in buttons), m) for m in dms if (buttons := move_buttons(m))]
        if not offered:
            return dms[-1]
        newest = max(move for move, _ in offered)
        return next(m for move, m in offered if move == newest)

    def _press_again_when_told(self) -> None:
        """A press answered "This table has just moved to another of the bot's processes;
        press the button again" (it reached a process as the table left it): like a person,
        press the newest controls again."""
        told = [
            m
            for m in self.user.dm_messages()
            if m.interaction_id is not None and "press the button again" in (m.content or "")
        ]
        if len(told) > self.told_to_press_again:
            self.told_to_press_again = len(told)
            self.try_again()


class Table:
    def __init__(self, guild: Any, channel: Any, member: Any, table_id: int) -> None:
        self.guild, self.channel, self.member, self.id = guild, channel, member, table_id
        self.player = Member(member, channel, patient=True, ack_timeout=30.0)


def guild_on(server: Any, owner: Any, shard: int, n: int) -> Any:
    """A server whose id falls on ``shard``, with the bot in it (its usual permissions)."""
    while True:
        guild = server.create_guild(f"Club {n}", owner=owner)
        if (guild.id >> 22) % SHARDS == shard:
            role = server.state.create_role(guild, "Mahjong Bot", BOT_PERMISSIONS, managed=True)
            server.add_member(guild, server.bot_user, [role])
            return guild
        del server.state.guilds[guild.id]


async def open_lobby(server: Any, host: Any, channel: Any, computers: int) -> tuple:
    """``/mahjong new`` for one hand, no turn timer and a minute for claims: the lobby, the
    table's id and its thread (opened from the lobby)."""
    handle = await host.slash(
        channel,
        "mahjong new",
        rules="pung-chow",
        hands=1,
        computer_players=computers,
        turn_seconds=0,
        claim_seconds=60,
    )
    lobby = await handle.reply(timeout=30)
    table_id = int(lobby_id(lobby, "start").split(":")[1])
    place = await server.wait_for(
        lambda: server.message(lobby.id).thread, timeout=30, what="the table's thread"
    )
    return lobby, table_id, place


async def open_tables(server: Any) -> list[Table]:
    owner = server.create_user("Owner")
    tables = []
    for n in range(GUILDS):
        guild = guild_on(server, owner, n % SHARDS, n)
        for k in range(TABLES_PER_GUILD):
            channel = server.create_text_channel(guild, f"table-{k}")
            member = server.create_user(f"member-{n}-{k}")
            server.add_member(guild, member)
            lobby, table_id, place = await open_lobby(server, member, channel, computers=3)
            ack = await (await member.click(lobby, lobby_id(lobby, "start"))).ack(timeout=30)
            assert ack == 6, f"table {table_id} did not start"
            tables.append(Table(guild, place, member, table_id))
    return tables


async def owners(url: str) -> dict[int, tuple[str, bool]]:
    """Each open table's lease: its owner's pid, and whether it is live."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT l.table_id, l.owner, l.expires_at > $1 AS live FROM table_leases l "
            "JOIN tables t ON t.id = l.table_id WHERE t.status IN ('lobby', 'playing')",
            int(time.time() * 1000),
        )
    finally:
        await conn.close()
    return {r["table_id"]: (r["owner"].split(":")[1], r["live"]) for r in rows}


async def actions_so_far(url: str) -> dict[int, int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT table_id, COUNT(*) AS n FROM events WHERE kind = 'action' GROUP BY table_id"
        )
    finally:
        await conn.close()
    return {r["table_id"]: r["n"] for r in rows}


async def hold_at(tables: list[Table], url: str, actions: int, game: Any) -> None:
    """Pause each member once their table has ``actions`` actions, until all are paused."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 300
    while not all(t.player.paused for t in tables):
        assert loop.time() < deadline and not game.done(), "the tables did not move"
        counts = await actions_so_far(url)
        for t in tables:
            if counts.get(t.id, 0) >= actions:
                t.player.paused = True
        await asyncio.sleep(0.1)
    await pause([t.player for t in tables])  # nobody is in the middle of a press


async def kill_and_wait_for_takeover(
    victim: BotProcess, url: str, tables: list[Table], alive: list[BotProcess]
) -> tuple[int, float]:
    """SIGKILL ``victim``; wait until each of its tables runs in a live process. Returns how
    many tables it ran and how long the last takeover took."""
    pid = str(victim.proc.pid)
    held = [t for t, (owner, _) in (await owners(url)).items() if owner == pid]
    killed_at = time.monotonic()
    await victim.kill()
    live_pids = {str(p.proc.pid) for p in alive}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while True:
        now = await owners(url)  # a table that finished meanwhile has left the list
        if all(now[t][0] in live_pids and now[t][1] for t in held if t in now):
            return len(held), time.monotonic() - killed_at
        assert loop.time() < deadline, f"tables {held} not taken over: {now}"
        await asyncio.sleep(0.2)


async def stalled(url: str, tables: list[Table], bots: list[BotProcess]) -> str:
    """What each table looks like when the game did not end: for the failure's message."""
    conn = await asyncpg.connect(url)
    lines = [f"processes: {[(b.proc.pid, b.alive) for b in bots]}"]
    try:
        for t in tables:
            row = await conn.fetchrow(
                "SELECT t.status, l.owner, l.generation, l.expires_at, "
                "(SELECT MAX(seq) FROM events WHERE table_id = t.id) AS seq "
                "FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id WHERE t.id = $1",
                t.id,
            )
            dms = t.player.hand_dms()
            last = dms[-1].content[:80].replace("\n", " ") if dms else "no DM"
            lines.append(
                f"table {t.id} {dict(row)} standings={standings_posted(t.member, t.channel)} "
                f"presses={len(t.player.clicks)} last DM: {last!r}"
            )
    finally:
        await conn.close()
    for b in bots:
        lines.append(f"-- log of {b.proc.pid}:\n{b.log_text()[-1500:]}")
    return "\n".join(lines)


def old_presses(table: Table, boundary: int) -> list[Any]:
    """Presses after a kill (``boundary``) on a DM message sent before it, answered with the
    move taken (no private refusal)."""
    return [
        c
        for c in table.player.accepted
        if c.message_id < boundary and c.handle.record.id > boundary and not c.handle.messages[1:]
    ]


@pytest.fixture
async def bot_processes() -> AsyncIterator[list[BotProcess]]:
    """The test's bot processes, killed at its end whatever happened: a survivor left
    running outlives the test (three were found still connected an hour later)."""
    bots: list[BotProcess] = []
    yield bots
    for bot in bots:
        if bot.alive:
            await bot.kill()


async def test_two_processes_die_and_every_table_finishes_on_the_third(
    fake_discord, postgres_url, tmp_path, bot_processes
) -> None:
    server = fake_discord
    server.gateway.shard_count = SHARDS
    began = time.monotonic()
    bots = bot_processes
    for shard in range(SHARDS):
        logs = tmp_path / f"shard-{shard}"
        logs.mkdir()
        env = {
            "MAHJONG_SHARDS": str(shard),
            "MAHJONG_SHARD_COUNT": str(SHARDS),
            "MAHJONG_DRAWING_PROCESSES": "0",
            "MAHJONG_LEASE_SECONDS": LEASE_SECONDS,
            "MAHJONG_GLOBAL_RATE": str(45 // SHARDS),
        }
        bots.append(BotProcess(server, postgres_url, logs, env))
    await asyncio.gather(*(b.start(timeout=90) for b in bots))
    first, second, third = bots

    tables = await open_tables(server)
    by_pid = {t: owner for t, (owner, _) in (await owners(postgres_url)).items()}
    assert {by_pid[t.id] for t in tables} == {str(b.proc.pid) for b in bots}, by_pid

    def finished() -> bool:
        return all(standings_posted(t.member, t.channel) for t in tables)

    game = asyncio.gather(*(t.player.play(finished, timeout=400) for t in tables))
    try:
        # Mid-game: each member stops for a moment once their table has moved on a little
        # (it then waits for them: no turn timer), so that every table is still playing when
        # the first process dies; they all press on as it is killed.
        await hold_at(tables, postgres_url, 10, game)
        boundary_1 = server.state.snowflakes.next()
        resume([t.player for t in tables])
        count_1, took_1 = await kill_and_wait_for_takeover(
            second, postgres_url, tables, [first, third]
        )
        count_2, took_2 = await kill_and_wait_for_takeover(third, postgres_url, tables, [first])
        try:
            await game
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{await stalled(postgres_url, tables, bots)}") from None
    finally:
        if not game.done():
            game.cancel()
    played = time.monotonic() - began
    forgive_disconnects(server)  # the killed processes' half-sent requests

    # The store, copied to a SQLite file so the checks shared with the restart tests apply.
    copy = tmp_path / "copy.sqlite3"
    source, target = await open_database(postgres_url), await open_database(copy)
    try:
        await copy_store(source, target)
    finally:
        await source.close()
        await target.close()

    taken_after_takeover = 0
    for table in tables:
        replayed = replay(copy, table.id)  # an unbroken log the engine replays
        assert replayed.status == "finished", f"table {table.id} is {replayed.status}"
        seat = replayed.seat_of(table.member.id)
        used: set[int] = set()
        for click in table.player.accepted:
            if click.handle.messages[1:]:
                continue  # answered with a private refusal: not a move taken
            match = MOVE.match(click.custom_id)
            if match is None:
                continue
            move, verb = int(match.group(2)), match.group(3)
            tile = int(match.group(4)) if match.group(4) else None
            found = [
                i
                for i, (before, payload) in enumerate(replayed.moves)
                if move <= before <= move + 4
                and payload["type"] == VERB_ACTIONS[verb]
                and payload.get("seat") == seat
                and payload.get("tile") == tile
                and i not in used
            ]
            assert found, f"{click.custom_id} was acknowledged but is not in table {table.id}'s log"
            used.add(found[0])
        facts = check_ledger(copy, table.guild.id, table.id)
        assert facts.hands == 1
        taken_after_takeover += len(old_presses(table, boundary_1))
    assert taken_after_takeover >= 1, (
        "no button of a DM sent before a takeover was pressed after it"
    )
    log = first.log_text()
    assert "Traceback" not in log, log[-3000:]
    print(
        f"\n{len(tables)} tables, {SHARDS} processes: killed shard 1 ({count_1} tables taken "
        f"over in {took_1:.1f} s), then shard 2 ({count_2} tables in {took_2:.1f} s); "
        f"{sum(len(t.player.accepted) for t in tables)} presses taken, "
        f"{taken_after_takeover} on DMs sent before a takeover; played in {played:.0f} s"
    )


def newest_moves(user: Any) -> list[Any]:
    """The move controls on the member's newest hand DM (what they are asked to do now)."""
    hand_dms = [m for m in user.dm_messages() if not m.deleted and m.interaction_id is None]
    return move_buttons(hand_dms[-1]) if hand_dms else []


async def answer(handle: Any) -> Any:
    """The message answering a slash command: it may be handed to another process first."""
    return await handle.reply(timeout=60)


async def test_the_compose_processes_answer_commands_for_a_table_taken_over(
    fake_discord, discord_world, postgres_url, tmp_path, bot_processes
) -> None:
    """The bot processes of docker-compose.yml, started with its command and environment
    (MAHJONG_DB pointed at the test's PostgreSQL, no drawing processes), on the sharded fake
    Discord. The process of the server's shard opens a table and is SIGKILLed; the other takes
    the table over; the first is started again (as ``restart: unless-stopped`` does) and now
    receives the server's slash commands for a table another process runs: ``/mahjong hand``,
    ``table`` and ``leave`` by members, ``end`` by the host get the answers one process gives.
    Then ``mahjong-bot health``, the compose file's health check, with each process's
    environment says it is connected."""
    import os
    import sys

    from tests.cluster.compose import bot_services

    server, w = fake_discord, discord_world
    services = bot_services({"DISCORD_TOKEN": server.token, "POSTGRES_PASSWORD": "unused"})
    command = services[0].command
    count = int(command[command.index("--shard-count") + 1])
    server.gateway.shard_count = count
    bots = bot_processes
    envs = []
    for service in services:
        data = tmp_path / service.name  # its /data volume
        data.mkdir()
        env = dict(service.environment)
        assert env["MAHJONG_DB"].startswith("postgresql://")
        env.update(
            MAHJONG_DB=postgres_url,
            MAHJONG_DATA_DIR=str(data),
            MAHJONG_DRAWING_PROCESSES="0",
            LOG_LEVEL="WARNING",
        )
        envs.append(env)
        bots.append(BotProcess(server, "-", data, env, args=service.command[1:]))
    await asyncio.gather(*(b.start(timeout=90) for b in bots))
    shard = (w.guild.id >> 22) % count
    home = next(b for b, s in zip(bots, services, strict=True) if str(shard) in s.command)
    other = next(b for b in bots if b is not home)

    alice, bob = w.alice, w.bob
    lobby, table_id, place = await open_lobby(server, alice, w.channel, computers=2)
    assert await (await bob.click(lobby, lobby_id(lobby, "join"))).ack(timeout=30) == 6
    assert await (await alice.click(lobby, lobby_id(lobby, "start"))).ack(timeout=30) == 6
    assert (await owners(postgres_url))[table_id][0] == str(home.proc.pid)

    _, took = await kill_and_wait_for_takeover(home, postgres_url, [], [other])
    await home.start(timeout=90)  # what the restart policy does
    restarted = home.startup[-1]
    assert (await owners(postgres_url))[table_id][0] == str(other.proc.pid)

    # Every command below reaches the restarted process (the server's shard), which does not
    # run the table: it hands the command to the process that does.
    # bob's hand shows controls only when he has a move: wait until the table waits on a
    # member (nothing moves then: no turn timer, a minute for claims), and compare with his DM.
    await server.wait_for(
        lambda: newest_moves(alice) or newest_moves(bob), timeout=60, what="a member's move"
    )
    hand = await answer(await bob.slash(place, "mahjong hand"))
    assert hand.ephemeral and hand.visible_to == bob.id
    if newest_moves(bob):
        assert f"mj:{table_id}:" in " ".join(hand.custom_ids()), hand.content
    else:
        assert "Waiting for the other players" in hand.content, hand.content
        assert not move_buttons(hand), hand.content
    table = await answer(await alice.slash(place, "mahjong table"))
    assert (table.content, table.ephemeral) == ("Here is the table.", True)
    left = await answer(await bob.slash(place, "mahjong leave"))
    assert left.content == "You left the table; a computer player has your seat."
    again = await answer(await bob.slash(place, "mahjong hand"))
    assert again.content == "You are not playing at this table.", again.content
    end = await answer(await alice.slash(place, "mahjong end"))
    assert (end.content, end.ephemeral) == (
        "The table is closed; finished hands stay settled.",
        False,
    )
    conn = await asyncpg.connect(postgres_url)
    try:
        status = await conn.fetchval("SELECT status FROM tables WHERE id = $1", table_id)
        kinds = [
            r["kind"]
            for r in await conn.fetch(
                "SELECT kind FROM events WHERE table_id = $1 ORDER BY seq", table_id
            )
        ]
    finally:
        await conn.close()
    assert status == "finished" and kinds.count("leave") == 1, (status, kinds)
    assert home.log_text().count("Traceback") == 0, home.log_text()[-3000:]
    assert "Traceback" not in other.log_text(), other.log_text()[-3000:]

    # The compose file's health check, run with each process's environment.
    for env in envs:
        heartbeat = Path(env["MAHJONG_DATA_DIR"]) / "heartbeat"
        await server.wait_for(heartbeat.exists, timeout=60, what="a heartbeat")
        check = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "health",
            env={**os.environ, **env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        said, _ = await check.communicate()
        assert check.returncode == 0, said.decode()
    print(
        f"\ntaken over in {took:.1f} s after the kill; the killed process was connected "
        f"again {restarted:.1f} s after its start"
    )
