"""The bot as a process (issue 16, process faults): start-up failures and a refused token end
the process with status 1 and one line saying why (no traceback); a second bot on the same
database is refused at start; SIGTERM and SIGINT stop it gracefully within 5 s, and the next
start resumes the table.

Each bot runs as ``python -m tests.e2e.launcher`` (``BotProcess``), as in the restart tests.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.checks import database, replay, versions
from tests.e2e.harness import BotProcess, open_table, wait_until
from tests.e2e.players import SimPlayer

RESUMED = "The bot restarted; the table resumes."
ROOT = Path(__file__).resolve().parents[2]


def log_lines(bot: BotProcess, run: int) -> list[str]:
    return (bot.logs / f"bot-{run}.log").read_text(errors="replace").splitlines()


async def ends_with_one_line(bot: BotProcess, *words: str) -> str:
    """The process ended by itself with status 1; its log says why in one CRITICAL line and
    holds no traceback. Returns that line."""
    status = await bot.wait(20)
    lines = log_lines(bot, bot.runs)
    assert status == 1, f"exit status {status}; log:\n" + "\n".join(lines)
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    critical = [line for line in lines if line.startswith("CRITICAL")]
    assert len(critical) == 1, lines
    for word in words:
        assert word in critical[0], critical[0]
    return critical[0]


async def test_a_refused_token_ends_the_process_with_one_line(fake_discord, tmp_path) -> None:
    rule = fake_discord.fail_next(
        "GET", "/users/@me", status=401, code=0, message="401: Unauthorized"
    )
    bot = BotProcess(fake_discord, tmp_path / "db.sqlite3", tmp_path)
    await bot.start()
    line = await ends_with_one_line(bot, "Discord refused the token", "DISCORD_TOKEN")
    assert rule.hits == 1
    print(line)


async def test_discord_refusing_the_command_sync_ends_the_process_with_one_line(
    fake_discord, tmp_path
) -> None:
    rule = fake_discord.fail_next(
        "PUT", r"/applications/\d+/commands", status=403, code=50001, message="Missing Access"
    )
    bot = BotProcess(fake_discord, tmp_path / "db.sqlite3", tmp_path)
    await bot.start()
    line = await ends_with_one_line(bot, "Discord refused a start-up request (403)", "Missing")
    assert rule.hits == 1
    print(line)


async def test_a_garbage_database_ends_the_process_with_one_line(fake_discord, tmp_path) -> None:
    db = tmp_path / "db.sqlite3"
    db.write_bytes(b"this is not a database, it is a shopping list\n" * 100)
    bot = BotProcess(fake_discord, db, tmp_path)
    await bot.start()
    line = await ends_with_one_line(bot, str(db), "not a database")
    print(line)
    assert fake_discord.gateway.count("identify") == 0  # it never connected


async def test_a_failing_migration_ends_the_process_with_one_line(fake_discord, tmp_path) -> None:
    # Version 1 recorded, but none of its tables: migration 2 (ALTER TABLE) cannot run.
    db = tmp_path / "db.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 1")
    bot = BotProcess(fake_discord, db, tmp_path)
    await bot.start()
    line = await ends_with_one_line(bot, str(db))
    print(line)
    with sqlite3.connect(db) as conn:  # the failed migration left the version alone
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1


async def test_an_unusable_database_path_ends_the_process_with_one_line(
    fake_discord, tmp_path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    bot = BotProcess(fake_discord, blocker / "db.sqlite3", tmp_path)
    await bot.start()
    line = await ends_with_one_line(bot, str(blocker), "not a folder")
    print(line)


async def test_a_second_bot_on_the_same_database_is_refused(
    fake_discord, discord_world, tmp_path
) -> None:
    db = tmp_path / "db.sqlite3"
    first = BotProcess(fake_discord, db, tmp_path / "first")
    second = BotProcess(fake_discord, db, tmp_path / "second")
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    await first.start()
    try:
        identified = fake_discord.gateway.count("identify")
        await second.start()
        line = await ends_with_one_line(second, "already running", str(db), str(first.proc.pid))
        print(line)
        assert first.alive
        assert fake_discord.gateway.count("identify") == identified
        # The first bot still answers.
        reply = await (await discord_world.alice.slash(discord_world.channel, "chips")).reply()
        assert reply.embeds
    finally:
        await first.kill()
    # Once the first is gone (even killed), the database is free again.
    await second.start()
    try:
        assert second.alive
    finally:
        await second.kill()


async def stops_gracefully(bot: BotProcess, sig: signal.Signals) -> float:
    """Send ``sig``; the process ends with status 0 within 5 s, logging no error."""
    assert bot.proc is not None
    began = time.monotonic()
    bot.proc.send_signal(sig)
    status = await bot.wait(5.0)
    took = time.monotonic() - began
    text = "\n".join(log_lines(bot, bot.runs))
    assert status == 0, f"{sig.name}: still running or status {status} after 5 s:\n{text}"
    assert "Traceback" not in text and "ERROR" not in text, text
    return took


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_stop_signal_during_a_game_closes_gracefully_and_the_table_resumes(
    fake_discord, discord_world, tmp_path, sig
) -> None:
    w = discord_world
    db = tmp_path / "db.sqlite3"
    bot = BotProcess(fake_discord, db, tmp_path)
    await bot.start()
    try:
        opened = await open_table(w, w.alice, computer_players=3, hands=2, turn_seconds=0)
        alice = SimPlayer(w.alice, opened.place, patient=True, ack_timeout=1.5)
        playing = asyncio.create_task(alice.play(lambda: False, timeout=60))
        await wait_until(lambda: len(replay(db, opened.table_id).moves) >= 12, 30, "some moves")
        took = await stops_gracefully(bot, sig)
        print(f"{sig.name}: stopped in {took:.2f} s")
        playing.cancel()
        moves = len(replay(db, opened.table_id).moves)
        with database(db) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert not Path(f"{db}.heartbeat").exists()
        # A fresh start on the same database takes the lock and resumes the table.
        since = time.time()
        await bot.start()
        await wait_until(
            lambda: any(
                RESUMED in text
                for m in w.alice.messages(opened.place)
                for v in versions(m)
                if v.made_at >= since
                for text in v.texts()
            ),
            15,
            "the table resumed",
        )
        assert len(replay(db, opened.table_id).moves) >= moves
    finally:
        await bot.kill()


async def test_health_follows_the_heartbeat(fake_discord, discord_world, tmp_path) -> None:
    """``mahjong-bot health`` (the Docker HEALTHCHECK) says healthy while the bot is
    connected and not once it stopped."""
    db = tmp_path / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "MAHJONG"))}
    env.update(MAHJONG_DB=str(db), PYTHONPATH=str(ROOT))

    async def health() -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "health",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await proc.communicate()
        return proc.returncode, out.decode()

    assert (await health())[0] == 1
    bot = BotProcess(fake_discord, db, tmp_path)
    await bot.start()
    try:
        await wait_until(lambda: Path(f"{db}.heartbeat").exists(), 15, "the first heartbeat")
        status, out = await health()
        assert status == 0 and out.startswith("healthy"), out
        await stops_gracefully(bot, signal.SIGTERM)
        status, out = await health()
        assert status == 1 and out.startswith("unhealthy"), out
    finally:
        await bot.kill()


ENTRY = """
import sys
sys.path[:0] = [{root!r}, {root!r} + "/tests"]
from tests.e2e.launcher import guard_network, point_at_fake
guard_network()
point_at_fake({port})
from bot.__main__ import main
sys.exit(main([]))
"""


async def test_started_from_another_folder_the_bot_finds_the_same_database(
    fake_discord, discord_world, tmp_path
) -> None:
    """The real entry point (``mahjong-bot`` with no MAHJONG_DB) started from one folder, then
    from another: the second start restores the lobby the first one opened (issue 14)."""
    w = discord_world
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "MAHJONG"))}
    env.update(
        DISCORD_TOKEN=fake_discord.token,
        MAHJONG_DATA_DIR=str(tmp_path / "data-folder"),
        MAHJONG_DRAWING_PROCESSES="0",
        LOG_LEVEL="INFO",
    )
    code = ENTRY.format(root=str(ROOT), port=fake_discord.port)
    blocks = []
    for run, folder in enumerate(("one", "two")):
        cwd = tmp_path / folder
        cwd.mkdir()
        log = tmp_path / f"{folder}.log"
        identified = fake_discord.gateway.count("identify")
        with open(log, "wb") as out:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-c", code, cwd=cwd, env=env, stdout=out, stderr=out
            )
        try:
            await wait_until(
                lambda log=log: "mahjong-bot is ready" in log.read_text(errors="replace"),
                30,
                f"the ready block of the start from {folder}",
            )
            assert fake_discord.gateway.count("identify") > identified
            text = log.read_text(errors="replace")
            blocks.append(text[text.index("mahjong-bot is ready") :])
            if run == 0:
                lobby = await (await w.alice.slash(w.channel, "mahjong new")).reply()
                assert lobby.custom_ids()
                # Stopped once the lobby has its thread (a stop between the two is the
                # lifecycle's business, not where the data lives).
                await fake_discord.wait_for(
                    lambda lobby=lobby: fake_discord.message(lobby.id).thread,
                    timeout=30,
                    what="thread",
                )
        finally:
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 10) == 0
    database = str(tmp_path / "data-folder" / "mahjong.sqlite3")
    for block in blocks:
        assert f"database      {database} (version" in block
    assert "tables        0 restored" in blocks[0]
    assert "tables        1 restored (0 playing, 1 in the lobby)" in blocks[1]
    assert not (tmp_path / "one" / "data").exists() and not (tmp_path / "two" / "data").exists()
