"""Simulated players for end-to-end tests: they read only what their Discord client shows
(their DMs, the channel, ephemeral replies) and press the buttons the bot posted."""

from __future__ import annotations

import asyncio
import re
from typing import Any

MOVE = re.compile(r"^mj:(\d+):(\d+):([a-z]+)(?::(\d+))?$")


def move_buttons(message: Any) -> list[tuple[str, str, int | None, int]]:
    """(custom_id, verb, tile, move) of every move control on a message."""
    out = []
    for cid in message.custom_ids():
        match = MOVE.match(cid)
        if match:
            out.append((cid, match.group(3), _int(match.group(4)), int(match.group(2))))
    return out


def _int(text: str | None) -> int | None:
    return None if text is None else int(text)


def choose(buttons: list[tuple[str, str, int | None, int]]) -> str | None:
    """A simple sensible policy: always win, claim a pung or kong, pass on chows, and discard
    the tile that looks least useful (honours and terminals alone first)."""
    by_verb: dict[str, list[tuple[str, str, int | None, int]]] = {}
    for item in buttons:
        by_verb.setdefault(item[1], []).append(item)
    for verb in ("mahjong", "kong", "pung", "wash"):
        if verb in by_verb:
            return by_verb[verb][0][0]
    if "pass" in by_verb:
        return by_verb["pass"][0][0]
    discards = by_verb.get("discard", [])
    if not discards:
        return None
    tiles = [tile for _, _, tile, _ in discards if tile is not None]

    def usefulness(tile: int) -> int:
        if tile >= 27:
            return 0
        near = sum(
            1
            for other in tiles
            if other != tile and abs(other - tile) <= 2 and other // 9 == tile // 9
        )
        edge = 1 if tile % 9 in (0, 8) else 2
        return edge + 2 * near

    best = min(discards, key=lambda item: usefulness(item[2] or 0))
    return best[0]


async def play_turns(user: Any, *, until: Any, timeout: float = 120.0) -> int:
    """Press buttons in the user's newest DM whenever it offers a move, until ``until()``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pressed = 0
    last: tuple[int, int] | None = None
    while loop.time() < deadline:
        if until():
            return pressed
        dms = [m for m in user.dm_messages() if not m.deleted]
        if dms:
            message = dms[-1]
            buttons = move_buttons(message)
            key = (message.id, buttons[0][3]) if buttons else None
            if buttons and key != last:
                choice = choose(buttons)
                if choice is not None:
                    last = key
                    handle = await user.click(message, choice)
                    await handle.ack()
                    pressed += 1
                    continue
        await asyncio.sleep(0.02)
    raise AssertionError(f"{user} did not see the game end in {timeout} s")
