"""Timers: a member who lets the timer run out is moved on for (the drawn tile discarded, the
claim passed) after exactly the table's seconds; after two missed turns in a row a computer
player keeps the seat until they press "Take my seat back", and the table never waits for
them."""

from __future__ import annotations

import asyncio
import time
from unittest.mock import patch

import pytest

from bot.rules.game import pending_seats
from bot.service.tables.timers import TableTimers
from tests.e2e.checks import check_ledger, events_of, replay
from tests.e2e.harness import open_table, recording_states, standings_posted, start_bot, wait_until
from tests.e2e.players import SimPlayer, choose, seat_button

TURN, CLAIM = 2, 5


@pytest.mark.slow
async def test_timeouts_then_a_computer_keeps_the_seat_until_take_my_seat_back(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    db = tmp_path / "db.sqlite3"
    away_at: list[float] = []
    original_set_away = TableTimers._set_away

    async def set_away(self, table, seat, away):
        if away:
            away_at.append(time.time())  # the clock of recording_states' snapshots
        await original_set_away(self, table, seat, away)

    with recording_states() as states, patch.object(TableTimers, "_set_away", set_away):
        bot = await start_bot(run_bot, tmp_path)
        # Computers that pause a little: once the computer player has alice's seat nobody
        # waits for anyone, and at full speed a loaded machine finished the game before she
        # could take her seat back (CI saw the game end first).
        bot.services.tables.computer_delay = 0.1
        opened = await open_table(
            w, w.alice, computer_players=3, hands=3, turn_seconds=TURN, claim_seconds=CLAIM
        )
        seat = replay(db, opened.table_id).seat_of(w.alice.id)
        pressed: list[int] = []

        def first_move_only(buttons):
            """Alice plays her first move at once, then looks away."""
            if pressed:
                return None
            pressed.append(buttons[0][3])
            return choose(buttons)

        place = opened.place
        # She stays away once taken over until the test lets her back: left to poll, she
        # pressed "Take my seat back" before the test had seen the take-over, then timed out
        # twice again (two take-overs).
        alice = SimPlayer(w.alice, place, policy=first_move_only, takes_seat_back=False)
        task = asyncio.create_task(
            alice.play(lambda: standings_posted(w.alice, place), timeout=240)
        )

        def away_dm():
            dms = alice.hand_dms()
            return dms and seat_button(dms[-1], "back") and dms[-1]

        message = await wait_until(away_dm, 30, "the computer player to take alice's seat")
        alice.paused = True
        assert "keeping your seat warm" in message.content
        await wait_until(
            lambda: "alice timed out twice" in channel_log(w, place), 20, "the channel told of it"
        )

        # Each time she was asked (her turn, or a discard she could claim) the table waited
        # the table's seconds, counted from when she was asked to the move made for her, not
        # stretched (or forgotten: the table stalled) because of an earlier turn's timer.
        # Measured up to the take-over (after it the computer answers for her at once); which
        # turns she missed is read from the take-over back, not from her first press: on a
        # loaded machine her first DM can come after her first turn already ran out.
        (snapshots,) = states.games.values()
        (took_over,) = away_at
        waited = []
        asked = None  # (what she is asked about, since when)
        for snap in snapshots:
            if snap.at > took_over:
                break
            s = snap.state
            key = None
            if seat in pending_seats(s):
                if s.phase == "play":
                    key = ("play", s.move)
                elif s.phase == "claim":
                    key = ("claim", s.deal, s.claim.number)
            if asked is not None and key != asked[0]:
                waited.append((asked[0][0], round(snap.at - asked[1], 2)))
                asked = None
            if key is not None and asked is None:
                asked = (key, snap.at)
        # The last two turns before the take-over are the two she missed: each took the
        # table's seconds. A claim window never outlasted its seconds (it may close sooner:
        # a Mah-Jongg or a pung elsewhere beats her claim). Missed claims do not count.
        turns = [seconds for phase, seconds in waited if phase == "play"]
        assert len(turns) >= 2, waited
        for seconds in turns[-2:]:
            assert TURN - 0.2 <= seconds <= TURN + 0.6, f"waited {waited} for {TURN}/{CLAIM} s"
        for phase, seconds in waited:
            assert seconds <= (TURN if phase == "play" else CLAIM) + 0.6, waited

        # The computer player moves for her seat while she is away.
        moved = len(events_of(db, opened.table_id))
        await wait_until(
            lambda: any(
                kind == "action" and p.get("seat") == seat
                for kind, p in events_of(db, opened.table_id)[moved:]
            ),
            15,
            "a move made for alice while she is away",
        )
        alice.takes_seat_back = True  # she presses "Take my seat back", then plays
        alice.paused = False
        alice.policy = choose
        await task
    kinds = [(k, p) for k, p in events_of(db, opened.table_id) if k == "away"]
    assert [p["away"] for _, p in kinds] == [True, False]
    assert "alice is back in their seat" in channel_log(w, place)
    facts = check_ledger(db, w.guild.id, opened.table_id)
    assert facts.hands == 3
    await bot.services.tables.notifier.drain()


def channel_log(w, place) -> str:
    """Every version of the table's log lines and notices its thread showed."""
    out = []
    for m in w.bob.messages(place):
        for v in [*m.history, m]:
            out += [e.get("description", "") for e in v.embeds]
            out.append(v.content or "")
    return "\n".join(out)
