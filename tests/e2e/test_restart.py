"""Crash and restart: the bot runs as a process of its own (``tests/e2e/launcher.py``) and is
killed with SIGKILL at random moments of a game, and at chosen moments between two writes,
then started again on the same database. Every time, the table resumes at the move its
events say it was at, every button press that was answered is in the events table, the
buttons sent before the crash still work, and the games end with their standings and a
balanced ledger."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from typing import Any

import pytest

from bot.rules.game import pending_seats
from tests.e2e.checks import (
    check_chips_commands,
    check_ledger,
    database,
    events_of,
    replay,
    versions,
)
from tests.e2e.harness import (
    BotProcess,
    open_table,
    standings_posted,
    wait_until,
)
from tests.e2e.players import SimPlayer, move_buttons, pause, resume

VERB_ACTIONS = {
    "discard": "Discard",
    "riichi": "Riichi",
    "chow": "Chow",
    "kong": "Kong",
    "pung": "Pung",
    "mahjong": "MahJongg",
    "pass": "Pass",
    "wash": "WashTiles",
    "furiten": "DeclareFuriten",
}
MOVE_ID = re.compile(r"^mj:(\d+):(\d+):([a-z]+)(?::(\d+))?$")
RANDOM_KILLS = 22
RESUMED = "The bot restarted; the table resumes."


def forgive_disconnects(server: Any) -> int:
    """A killed bot drops its requests half sent; the fake records the reset it sees reading
    them as a problem of its own. Those, and only those, are expected here."""
    problems = server.take_problems()
    kept = [p for p in problems if "Connection lost" not in p and "ConnectionReset" not in p]
    for p in kept:
        server.problem(p)
    return len(problems) - len(kept)


class Crashes:
    """A game's kills and the checks made after each."""

    def __init__(self, server: Any, db: Any, table_id: int, players: list[SimPlayer]) -> None:
        self.server, self.db, self.table_id, self.players = server, db, table_id, players
        self.events: list[Any] = []
        self.kills = 0
        self.boundaries: list[int] = []  # a snowflake taken at each restart
        self.resumes_checked = 0
        self.old_pressed = 0

    def after_kill(self) -> Any:
        """Nothing acknowledged is lost: the log only grew, and every press answered with an
        accepted move (a deferred update) is an action of that member's seat in it."""
        self.kills += 1
        forgive_disconnects(self.server)
        events = events_of(self.db, self.table_id)
        assert events[: len(self.events)] == self.events, "the event log was rewritten"
        self.events = events
        table = replay(self.db, self.table_id)
        used: set[int] = set()
        for player in self.players:
            seat = table.seat_of(player.user.id)
            for click in player.accepted:
                match = MOVE_ID.match(click.custom_id)
                if match is None:
                    continue
                move, verb = int(match.group(2)), match.group(3)
                tile = int(match.group(4)) if match.group(4) else None
                found = next(
                    (
                        i
                        for i, (before, payload) in enumerate(table.moves)
                        if i not in used
                        and move <= before <= move + 4
                        and payload["type"] == VERB_ACTIONS[verb]
                        and payload.get("seat") == seat
                        and payload.get("tile") == tile
                    ),
                    None,
                )
                assert found is not None, (
                    f"{player.user}'s {click.custom_id} was acknowledged but is not in the "
                    f"events after kill {self.kills}"
                )
                used.add(found)
        return table

    async def dms_caught_up(self, timeout: float = 3.0) -> None:
        """Give the DMs a moment to show the controls of the move the table waits for (they
        are redrawn a little after each move), so the buttons sent before the coming crash
        are the current ones and can be pressed after it. Waiting longer proves nothing."""

        def current() -> bool:
            table = replay(self.db, self.table_id)
            if table.state is None or table.state.phase not in ("play", "claim"):
                return True
            for player in self.players:
                seat = table.seat_of(player.user.id)
                if seat in pending_seats(table.state):
                    dms = player.hand_dms()
                    moves = {b[3] for b in move_buttons(dms[-1])} if dms else set()
                    if moves != {table.controls_move}:
                        return False
            return True

        with contextlib.suppress(AssertionError):
            await wait_until(current, timeout, "the DMs to show the current controls", 0.05)

    def mark_restart(self) -> tuple[int, float]:
        boundary = self.server.state.snowflakes.next()
        self.boundaries.append(boundary)
        return boundary, time.time()

    async def check_resumed(self, table: Any, boundary: int, since: float, channel: Any) -> None:
        """The restarted bot says so in the channel, and a member whose move the table
        waits for gets controls for exactly the move the events left the table at."""
        user = self.players[0].user

        def said() -> bool:
            return any(
                RESUMED in text
                for m in user.messages(channel)
                for v in versions(m)
                if v.made_at >= since
                for text in v.texts()
            )

        await wait_until(said, 10, "the resumed table in the channel")
        if table.state is None or table.status != "playing":
            return
        if table.state.phase not in ("play", "claim"):
            return  # between hands the next deal comes by itself
        for player in self.players:
            seat = table.seat_of(player.user.id)
            if seat not in pending_seats(table.state):
                continue

            def fresh_controls(player: SimPlayer = player) -> list[Any]:
                return [b for m in player.hand_dms() if m.id > boundary for b in move_buttons(m)]

            buttons = await wait_until(
                fresh_controls,
                10,
                f"{player.user}'s controls at move {table.state.move} ({table.state.phase})",
            )
            moves = {b[3] for b in buttons}
            assert moves == {table.controls_move}, (
                f"after restart {player.user} got controls for {moves}, the events say "
                f"{table.controls_move}"
            )
            self.resumes_checked += 1
            # The DM the crashed bot sent still works: press its button, not the new one's.
            old = [
                m
                for m in player.hand_dms()
                if m.id < boundary and {b[3] for b in move_buttons(m)} == moves
            ]
            if old:
                choice = player.policy(move_buttons(old[-1]))
                assert choice is not None
                ack = await player.press(old[-1], choice)
                assert ack == 6, f"{player.user}'s button from before the crash: {ack}"
                player.done(move_buttons(old[-1])[0])
                self.old_pressed += 1

    def old_buttons_used(self) -> int:
        """Presses accepted on a message sent before the restart that preceded them."""
        count = 0
        for player in self.players:
            for click in player.accepted:
                earlier = [b for b in self.boundaries if b < click.handle.id]
                if earlier and click.message_id < earlier[-1]:
                    count += 1
        return count


async def play_with_kills(
    w: Any,
    place: Any,
    bot: BotProcess,
    crashes: Crashes,
    rng: random.Random,
    kills: int,
    specs: list[str],
) -> None:
    """Members play while the bot is killed ``kills`` times at random moments (every other
    time the members wait, so the resumed controls can be checked before anyone moves), then
    once at each of the kill points ``specs``, then until the standings."""

    def over() -> bool:
        return standings_posted(w.alice, place)

    # The members play through every kill: on a loaded machine that is minutes (7.6 at load 8
    # with three tests at once), and a player who gave up would leave the game unfinished.
    tasks = [asyncio.create_task(p.play(over, timeout=1200)) for p in crashes.players]
    try:
        for n in range(kills):
            await asyncio.sleep(rng.uniform(0.05, 0.9))
            if over():
                break
            check = n % 2 == 0
            if check:
                await pause(crashes.players)
                await crashes.dms_caught_up()
            await bot.kill()
            table = crashes.after_kill()
            boundary, since = crashes.mark_restart()
            await bot.start()
            if check:
                await crashes.check_resumed(table, boundary, since, place)
            resume(crashes.players)
        for spec in specs:
            if over():
                break
            await bot.kill()
            crashes.after_kill()
            crashes.mark_restart()
            await bot.start(kill_at=spec)  # it may die before it shows anything
            died = await _died_or_over(bot, over)
            assert died or over(), f"kill point {spec} never reached"
        if not bot.alive:
            crashes.after_kill()
            crashes.mark_restart()
            await bot.start()
        await wait_until(over, 180, "the final standings")
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
    crashes.after_kill()


async def _died_or_over(bot: BotProcess, over: Any) -> bool:
    for _ in range(600):
        if not bot.alive:
            return True
        if over():
            return False
        await asyncio.sleep(0.05)
    return False


@pytest.mark.slow
async def test_killed_at_random_moments_and_between_writes_the_games_resume_and_finish(
    fake_discord, discord_world, tmp_path
) -> None:
    w = discord_world
    db = tmp_path / "db.sqlite3"
    rng = random.Random(20240606)
    bot = BotProcess(fake_discord, db, tmp_path)
    await bot.start()
    try:
        # A game of ten hands: two members, two computer players, killed 22 times at random
        # and once at each narrow moment between two writes of a move and a hand's end.
        opened = await open_table(w, w.alice, [w.bob], computer_players=2, hands=10, turn_seconds=0)
        members = [w.alice, w.bob]
        players = [SimPlayer(u, opened.place, patient=True, ack_timeout=1.5) for u in members]
        crashes = Crashes(fake_discord, db, opened.table_id, players)
        await play_with_kills(
            w,
            opened.place,
            bot,
            crashes,
            rng,
            RANDOM_KILLS,
            [
                "append_event+:2",  # a move committed, its click not yet answered
                "append_event:2",  # a move about to be written
                "record_hand:1",  # a hand's last move committed, the hand not yet settled
                "record_hand+:1",  # the hand recorded, the ledger not yet posted
                "post_settlement+:1",  # the ledger posted, the reveal not yet sent
            ],
        )
        print(
            f"{crashes.kills} kills, {crashes.resumes_checked} resumes checked, "
            f"{crashes.old_buttons_used()} presses on buttons from before a crash "
            f"({crashes.old_pressed} checked), "
            f"start-up {min(bot.startup):.2f}-{max(bot.startup):.2f} s"
        )
        assert crashes.kills >= RANDOM_KILLS
        assert crashes.resumes_checked >= 5, crashes.resumes_checked
        assert crashes.old_pressed >= 3, "the buttons sent before a crash were seldom current"
        facts = check_ledger(db, w.guild.id, opened.table_id)
        assert facts.hands == 10
        assert replay(db, opened.table_id).status == "finished"
        await check_chips_commands(w, facts, members)

        # A one-hand game in the same channel, killed as it ends: after its last move was
        # committed, then while the table is being closed.
        opened = await open_table(w, w.alice, computer_players=3, hands=1, turn_seconds=0)
        alice = SimPlayer(w.alice, opened.place, patient=True, ack_timeout=1.5)
        crashes = Crashes(fake_discord, db, opened.table_id, [alice])
        game_over = _standings_count(w, opened.place, 0)
        await bot.kill()
        crashes.after_kill()
        await bot.start(kill_at="record_hand:1")
        task = asyncio.create_task(alice.play(game_over, timeout=60))
        await wait_until(lambda: not bot.alive, 30, "the kill as the game ends")
        crashes.after_kill()
        await bot.start(kill_at="set_status:1")  # dies closing the table on start-up
        assert await bot.wait(10) == -9, "the bot did not close the table on start-up"
        crashes.after_kill()
        await bot.start()
        await wait_until(game_over, 20, "the standings of the second game")
        await task
        table = replay(db, opened.table_id)
        assert table.status == "finished"
        facts = check_ledger(db, w.guild.id, opened.table_id)
        assert facts.hands == 1
        with database(db) as conn:
            (status,) = conn.execute(
                "SELECT status FROM tables WHERE id = ?", (opened.table_id,)
            ).fetchone()
        assert status == "finished"
        # The channel is free again.
        reply = await (await w.alice.slash(w.channel, "mahjong new")).reply()
        assert reply.embeds and reply.embeds[0]["title"].startswith("Mahjong table"), reply.content
    finally:
        await bot.kill()
        forgive_disconnects(fake_discord)
    log = bot.log_text()
    assert "NETWORK VIOLATION" not in log
    assert "Traceback" not in log, log[-3000:]


def standings_of_any(message: Any) -> bool:
    return any(e.get("title") == "Final standings" for e in message.embeds)


def _standings_count(w: Any, place: Any, before: int) -> Any:
    def more() -> bool:
        return len([m for m in w.alice.messages(place) if standings_of_any(m)]) > before

    return more
