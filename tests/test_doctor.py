"""``mahjong-bot doctor`` on a good and on a broken set-up: what it prints, its exit status,
and the online part (the bot's permissions per server) against the fake Discord."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.doctor import bot_id_of, check_servers, check_token
from bot.permissions import PERMISSIONS_INTEGER
from bot.schema import shipped_versions

ROOT = Path(__file__).resolve().parents[1]
# The shape of a real bot token (base64 of the id, a timestamp, an HMAC); not a real one.
GOOD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789ab"


def doctor(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD", "MAHJONG"))}
    clean.update(PYTHONPATH=str(ROOT), MAHJONG_DATA_DIR=str(tmp_path / "data"), **env)
    return subprocess.run(
        [sys.executable, "-m", "bot", "doctor", "--offline"],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def migrated(db: Path) -> None:
    from bot.store.database import open_database

    store = await open_database(db)
    await store.close()


def test_a_good_set_up_passes(tmp_path: Path) -> None:
    result = doctor(tmp_path, DISCORD_TOKEN=GOOD_TOKEN)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "ok    DISCORD_TOKEN looks like a bot token (bot id 1234567890123456789)" in out
    assert f"database file: {tmp_path / 'data' / 'mahjong.sqlite3'}" in out
    assert "the database will be created at the first start" in out
    assert "ok    a drawing process starts and answers" in out
    assert "ok    the bundled fonts load and a tile draws" in out
    assert "FAIL" not in out and "Traceback" not in result.stderr
    assert out.rstrip().endswith("Everything needed is in place.")


def test_an_up_to_date_database_passes_and_an_old_one_is_a_note(tmp_path: Path) -> None:
    db = tmp_path / "data" / "mahjong.sqlite3"
    db.parent.mkdir()
    asyncio.run(migrated(db))  # as the bot leaves it
    result = doctor(tmp_path, DISCORD_TOKEN=GOOD_TOKEN)
    assert result.returncode == 0
    latest = max(shipped_versions())
    assert f"ok    the database opens and is at the latest version ({latest})" in result.stdout
    db.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with sqlite3.connect(db) as conn:  # a database of before schema_migrations, at version 1
        conn.execute("PRAGMA user_version = 1")
    result = doctor(tmp_path, DISCORD_TOKEN=GOOD_TOKEN)
    assert result.returncode == 0
    assert "note  the database is at version 1; the bot applies migrations 2" in result.stdout
    assert "back it up first" in result.stdout


def test_a_broken_set_up_fails_and_says_how_to_fix_each_thing(tmp_path: Path) -> None:
    db = tmp_path / "data" / "mahjong.sqlite3"
    db.parent.mkdir()
    db.write_bytes(b"garbage" * 1000)
    result = doctor(tmp_path, DISCORD_TOKEN="Bot " + GOOD_TOKEN)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    fails = [i for i, line in enumerate(lines) if line.strip().startswith("FAIL")]
    assert len(fails) == 2, result.stdout
    assert "starts with 'Bot '" in lines[fails[0]]
    assert "the database cannot be read: file is not a database" in lines[fails[1]]
    for i in fails:
        assert lines[i + 1].strip().startswith("fix: ")
    assert "the servers and permissions were not checked" in result.stdout
    assert lines[-1] == "2 problems found."
    assert "Traceback" not in result.stderr


def test_a_database_newer_than_the_code_fails(tmp_path: Path) -> None:
    db = tmp_path / "data" / "mahjong.sqlite3"
    db.parent.mkdir()
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 999")
    result = doctor(tmp_path, DISCORD_TOKEN=GOOD_TOKEN)
    assert result.returncode == 1
    assert "migrations this code does not know (999)" in result.stdout


@pytest.mark.parametrize(
    ("token", "says"),
    [
        ("", "not set"),
        ("Bot " + GOOD_TOKEN, "starts with 'Bot '"),
        ('"' + GOOD_TOKEN + '"', "quotes or spaces"),
        ("1234567890123456789", "application id"),
        ("a" * 64, "public key"),
        ("x" * 32, "client secret"),
        ("hello.world.this", "does not look like a bot token"),
    ],
)
def test_token_mistakes_are_named(token: str, says: str) -> None:
    finding = check_token(token)
    assert finding.status == "problem"
    assert says in finding.what
    assert finding.fix


def test_a_bot_token_starts_with_the_bot_id() -> None:
    assert bot_id_of(GOOD_TOKEN) == 1234567890123456789
    assert check_token(GOOD_TOKEN).status == "ok"


# -- online, against the fake Discord ---------------------------------------------------------


async def test_online_every_permission_in_every_channel(fake_discord, discord_world) -> None:
    found = await check_servers(fake_discord.token)
    assert [f.status for f in found] == ["ok", "ok"], found
    assert found[1].what == "Mahjong Club: every needed permission in 1 channels"


async def test_online_a_missing_permission_is_named_with_the_fix(
    fake_discord, discord_world
) -> None:
    from fakediscord.state import Perm

    w = discord_world
    taken = Perm.ATTACH_FILES | Perm.CREATE_PUBLIC_THREADS
    everyone = w.guild.roles[w.guild.id]  # Discord's default @everyone grants both too
    everyone.permissions &= ~taken
    w.bot_role.permissions &= ~taken
    w.server.create_text_channel(
        w.guild,
        "no-embeds",
        overwrites=[{"id": w.bot_role.id, "type": 0, "allow": "0", "deny": str(Perm.EMBED_LINKS)}],
    )
    found = await check_servers(fake_discord.token)
    problem = next((f for f in found if f.status == "problem"), None)
    assert problem is not None, found
    assert problem.what == "Mahjong Club: the bot's roles lack Create Public Threads, Attach Files"
    assert f"permissions={PERMISSIONS_INTEGER}" in problem.fix
    # With the role fixed, the channel that takes a permission away is named.
    w.bot_role.permissions |= taken
    found = await check_servers(fake_discord.token)
    note = next(f for f in found if "Mahjong Club" in f.what)
    assert note.status == "note"
    assert "#no-embeds" in note.what and "#mahjong" not in note.what


async def test_online_a_refused_token_and_no_server(fake_discord) -> None:
    fake_discord.fail_next("GET", "/users/@me", status=401, message="401: Unauthorized")
    (refused,) = await check_servers(fake_discord.token)
    assert refused.status == "problem" and "refused the token" in refused.what
    found = await check_servers(fake_discord.token)  # no world: the bot is in no server
    assert found[-1].status == "problem" and found[-1].what == "the bot is in no server"
    assert "oauth2/authorize" in found[-1].fix
