"""Play a short game with the real bot over the fake Discord and keep what one member saw.

The member (alice) hosts ``/mahjong new`` in #mahjong; the other human seats (bob, ...) and
computers fill the table; every human plays from what their client shows (tests/e2e/players).
The fake's timeline is filtered to alice's client; each change is attributed to the hand in
play at the moment the fake made it (from the table's states, recorded test-side as the e2e
tests do). With ``quick`` the next hand is dealt 0.05 s after a reveal, so the bot's messages
trail the game and a hand's reveal and last edits are counted in the next hand; the totals
are right either way, the per-hand split only at the real pace.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .count import Change, hand_at, look_of


@dataclass
class Story:
    """What one member's client showed during a game."""

    member: str
    hands: int
    changes: list[Change]
    entries: list[Any]  # the fake's TimelineEntry for each change, same order
    places: dict[int, str]  # channel id -> "channel" / "thread" / "dm"
    names: dict[int, str]  # channel id -> a name to show


@dataclass(frozen=True)
class Options:
    rules: str = "pung-chow"
    hands: int = 2
    humans: int = 2  # alice and bob; the other seats are computers
    quick: bool = False  # the e2e harness's speed (no pauses, 1/24 rate-limit windows)
    timeout: float = 900.0


async def play(options: Options) -> Story:
    """Run the game and return alice's story."""
    from fakediscord import FakeDiscord, build_world
    from fakediscord.runner import BotRunner

    from bot.rules.game.state import GAME_OVER, HAND_OVER
    from tests.e2e.harness import fast, make_bot, open_table, recording_states
    from tests.e2e.players import SimPlayer, play_all

    server = FakeDiscord()
    with tempfile.TemporaryDirectory() as tmp:
        async with server.running():
            w = build_world(server)
            runner = BotRunner(server)
            try:
                with recording_states() as states:
                    bot = await runner.start(make_bot(Path(tmp)))
                    if options.quick:
                        fast(bot)
                        server.rate_limits.time_scale = 1 / 24
                    humans = w.players[: options.humans]
                    computers = 4 - len(humans)
                    opened = await open_table(
                        w,
                        w.alice,
                        humans[1:],
                        rules=options.rules,
                        hands=options.hands,
                        **({"computer_players": computers} if computers else {}),
                    )
                    players = [SimPlayer(u, opened.place) for u in humans]

                    def over() -> bool:
                        return any(
                            snaps and snaps[-1].state.phase == GAME_OVER
                            for snaps in states.games.values()
                        )

                    await play_all(players, over, timeout=options.timeout)
                    await bot.services.tables.notifier.drain()
                    await asyncio.sleep(0.5 if options.quick else 3.0)  # last edits land
            finally:
                await runner.close_all()
        server.check()

    (snapshots,) = states.games.values()
    marks = []
    for snap in snapshots:
        state = snap.state
        finished = state.phase in (HAND_OVER, GAME_OVER)
        marks.append((snap.at, len(state.results) + (0 if finished else 1)))
    hand_of = hand_at(marks)
    entries = server.timeline_for(w.alice)
    places: dict[int, str] = {}
    names: dict[int, str] = {}
    for entry in entries:
        channel = server.state.channels[entry.message.channel_id]
        if channel.is_dm:
            places[channel.id], names[channel.id] = "dm", "DM"
        elif channel.is_thread:
            places[channel.id], names[channel.id] = "thread", f"thread {channel.name}"
        else:
            places[channel.id], names[channel.id] = "channel", f"#{channel.name}"
    changes = [
        Change(
            kind=entry.kind,
            place=places[entry.message.channel_id],
            message_id=entry.message.id,
            hand=hand_of(entry.at),
            look=version_look(entry.version),
        )
        for entry in entries
    ]
    hands = len(snapshots[-1].state.results)
    return Story("alice", hands, changes, entries, places, names)


def version_look(version: Any) -> Any:
    """`look_of` for one of the fake's MessageVersions."""
    return look_of(
        version.content,
        version.embeds,
        version.components,
        [(a.url, a.data, a.description) for a in version.attachments],
        version.flags,
    )
