"""What the end-to-end tests share: the real bot on a SQLite file, the speed knobs, opening a
table through the lobby buttons, and a test-side record of every state a table went through.

The record is the tests' own knowledge of the truth (each seat's concealed tiles at every
move), taken by wrapping the engine's ``apply`` as the table service calls it. The bot never
reads it; the privacy and restart checks compare what users were shown with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import MahjongBot
from bot.config import Settings

STANDINGS = "Final standings"


def make_bot(tmp_path: Path, name: str = "db.sqlite3") -> MahjongBot:
    settings = Settings(
        token="test-token", database=tmp_path / name, dev_guild=None, log_level="INFO"
    )
    return MahjongBot(settings)


def notifier_of(bot: MahjongBot) -> Any:
    return bot.services.tables.notifier


def fast(bot: MahjongBot, *, edit_gap: float = 0.05, dm_gap: float = 0.02) -> MahjongBot:
    """No pauses for people to follow the table: computer players move at once, the next hand
    is dealt at once, and the channel and DMs are redrawn as often as the tests need."""
    tables = bot.services.tables
    tables.computer_delay = 0
    tables.next_hand_delay = 0.05
    notifier = notifier_of(bot)
    notifier.min_edit_gap = edit_gap
    notifier.dm_gap = dm_gap
    return bot


async def start_bot(run_bot: Any, tmp_path: Path, name: str = "db.sqlite3") -> MahjongBot:
    bot = await run_bot.start(make_bot(tmp_path, name))
    return fast(bot)


# -- opening a table --------------------------------------------------------------------------


@dataclass
class Opened:
    table_id: int
    lobby: Any  # the lobby message (MessageRecord)


def lobby_id(lobby: Any, verb: str) -> str:
    return next(cid for cid in lobby.custom_ids() if cid.endswith(f":lobby:{verb}"))


async def open_table(
    w: Any,
    host: Any,
    guests: list[Any] = (),  # type: ignore[assignment]
    *,
    start: bool = True,
    channel: Any = None,
    **options: Any,
) -> Opened:
    """``/mahjong new`` by ``host``, every guest presses Join, the host presses Start."""
    channel = channel or w.channel
    handle = await host.slash(channel, "mahjong new", **options)
    lobby = await handle.reply()
    table_id = int(lobby_id(lobby, "join").split(":")[1])
    for guest in guests:
        ack = await (await guest.click(lobby, lobby_id(lobby, "join"))).ack()
        assert ack == 6, f"{guest} could not join"
    if start:
        assert await (await host.click(lobby, lobby_id(lobby, "start"))).ack() == 6
    return Opened(table_id, lobby)


def standings_posted(user: Any, channel: Any) -> bool:
    return any(e.get("title") == STANDINGS for m in user.messages(channel) for e in m.embeds)


def titles(user: Any, channel: Any) -> list[str]:
    return [e.get("title", "") for m in user.messages(channel) for e in m.embeds]


# -- the truth, recorded test-side ------------------------------------------------------------


@dataclass
class Snapshot:
    at: float  # time.time() when the service applied the move
    state: Any


@dataclass
class StateLog:
    """Every state each table's game went through, by wall seed (one seed per table)."""

    games: dict[str, list[Snapshot]] = field(default_factory=dict)

    def record(self, state: Any) -> None:
        log = self.games.setdefault(str(state.config.seed), [])
        if log and (log[-1].state.move, log[-1].state.deal) >= (state.move, state.deal):
            return  # a replay after a restart, or a refused move
        log.append(Snapshot(time.time(), state))

    def states(self, seed: str | None = None) -> list[Any]:
        if seed is None:
            (seed,) = self.games
        return [s.state for s in self.games[seed]]

    def at_move(self, seed: str, move: int) -> Any | None:
        for snap in self.games.get(seed, ()):
            if snap.state.move == move:
                return snap.state
        return None


@contextlib.contextmanager
def recording_states() -> Iterator[StateLog]:
    """Record every state the table service reaches (the service's ``apply`` wrapped)."""
    import bot.service.tables as tables_module

    log = StateLog()
    original_apply, original_new = tables_module.apply, tables_module.new_game

    def apply(state: Any, action: Any) -> Any:
        after = original_apply(state, action)
        log.record(after)
        return after

    def new_game(*args: Any, **kwargs: Any) -> Any:
        state = original_new(*args, **kwargs)
        log.record(state)
        return state

    tables_module.apply, tables_module.new_game = apply, new_game
    try:
        yield log
    finally:
        tables_module.apply, tables_module.new_game = original_apply, original_new


async def wait_until(predicate: Any, timeout: float, what: str, step: float = 0.02) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(step)
