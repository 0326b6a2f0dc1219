"""Drawing a picture for a message through the bot's drawing pool, in the lane its reader
waits in (a claim prompt before a DM, a DM before the table image, reveals and look-ups last),
and keeping the last bytes of each picture so a message posted anew (a new prompt, the table
brought back to the bottom) re-uses them instead of drawing the same thing again."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Hashable
from typing import Any

import discord

from bot.drawing import TIER, Superseded
from cogs.common import picture_file
from cogs.notify.let_go import LetGo
from cogs.notify.seat import Picture

SMOOTHING = 0.2  # the weight of the newest drawing in ``Pictures.expected``
FIRST_TIER = tuple(lane for lane, tier in TIER.items() if tier == 0)  # the prompts' lanes


class Pictures:
    def __init__(self, drawing: Any, let_go: LetGo | None = None) -> None:
        self.drawing = drawing
        self.let_go = let_go if let_go is not None else LetGo()
        self._lanes = "lane" in inspect.signature(drawing.draw).parameters
        self._last: dict[Hashable, tuple[Hashable, bytes]] = {}  # owner -> (key, png)
        # owner -> (key, lane, drawing) being drawn: a second asker of the same picture
        # waits for it instead of drawing it again.
        self._drawing: dict[Hashable, tuple[Hashable, str, asyncio.Future[bytes]]] = {}
        self._took: dict[str, float] = {}  # lane -> how long its drawings take, smoothed

    def expected(self, lane: str) -> float:
        """How long a drawing asked for in ``lane`` takes now, from asking to its bytes (a
        moving average of the last few: the pool's queues change by the second)."""
        return self._took.get(lane, 0.0)

    async def png(
        self, kind: str, *args: Any, lane: str = "table", key: Hashable = None, **kwargs: Any
    ) -> bytes:
        try:
            return await self._ask(kind, args, kwargs, lane, key, _home(key))
        except Superseded:
            # A newer drawing for the same slot was queued by someone else (each slot is
            # drawn under its own lock here, so this is rare): draw this one anyway.
            return await self._ask(kind, args, kwargs, lane, None, _home(key))

    async def _ask(
        self,
        kind: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        lane: str,
        key: Hashable,
        home: Hashable,
    ) -> bytes:
        """One drawing from the pool, in ``lane``, superseded by a newer one asked for with
        the same ``key``, drawn by ``home``'s process if it can (a drawing without lanes, as
        some tests pass: none of these)."""
        if not self._lanes:
            return await self.drawing.draw(kind, *args, **kwargs)
        return await self.drawing.draw(kind, *args, lane=lane, key=key, home=home, **kwargs)

    async def file(
        self, picture: Picture | None, *, lane: str = "dm", owner: Hashable = None
    ) -> discord.File | None:
        """The picture as an attachment; drawn only if ``owner``'s last picture differs."""
        if picture is None:
            return None
        return self.attachment(picture, await self.drawn(picture, lane=lane, owner=owner))

    def first_lanes_idle(self) -> bool:
        """Whether nothing waits in the pool's first tier (the DM and claim prompts' lanes):
        a drawing asked for there now starts at once and delays no prompt."""
        queued = getattr(self.drawing, "queued", None)
        if queued is None:
            return True
        return not any(queued(*FIRST_TIER).values())

    def kept(self, picture: Picture | None, *, owner: Hashable) -> bytes | None:
        """The picture's PNG if it is ``owner``'s last one drawn, else None (nothing drawn)."""
        cached = self._last.get(owner)
        if picture is None or cached is None or cached[0] != picture.key:
            return None
        return cached[1]

    async def drawn(self, picture: Picture, *, lane: str = "dm", owner: Hashable = None) -> bytes:
        """The picture's PNG; drawn only if ``owner``'s last picture differs, and once: an
        asker of a picture already being drawn for ``owner`` waits for that drawing (asked
        in a more urgent lane, it is drawn there, and the first asker takes that one)."""
        cached = self._last.get(owner) if owner is not None else None
        if cached is not None and cached[0] == picture.key:
            return cached[1]
        if owner is None:
            return await self._ask(picture.kind, picture.args, picture.kwargs, lane, None, None)
        pending = self._being_drawn(picture, owner)
        if pending is not None and TIER.get(pending[1], 9) <= TIER.get(lane, 9):
            return await asyncio.shield(pending[2])
        future = asyncio.ensure_future(self._draw(picture, lane, owner))
        self._drawing[owner] = (picture.key, lane, future)
        try:
            return await future
        except Superseded:
            # A newer asker queued a drawing for the same owner: the same picture in a more
            # urgent lane (take that one), or a newer one (draw this one anyway, unkeyed).
            pending = self._being_drawn(picture, owner)
            if pending is not None:
                return await asyncio.shield(pending[2])
            return await self._redraw(picture, lane, owner)
        finally:
            if self._drawing.get(owner, (None, None, None))[2] is future:
                del self._drawing[owner]
            # A Superseded raised from the task has this frame in its traceback, and the
            # task holds it: a cycle that waited for the collector's full pass.
            del future

    async def newest(
        self, make: Callable[[], Picture | None], *, lane: str = "table", owner: Hashable
    ) -> tuple[Picture, bytes] | None:
        """The picture ``make()`` gives when the pool starts drawing it, and its PNG (None:
        ``make()`` gave none). Asked for with the state of the moment, a table's picture
        waited its turn in the table images' lane (seconds at 200 tables) while the table
        moved on: found out of date, it was drawn again, and waited its turn again. Made
        when its drawing starts, it is the newest then, and the one to send; a move made
        after that brings the next update. Not drawn again if ``owner``'s last picture is
        the same."""
        draw_newest = getattr(self.drawing, "draw_newest", None)
        if not self._lanes or draw_newest is None:
            picture = make()
            if picture is None:
                return None
            return picture, await self.drawn(picture, lane=lane, owner=owner)
        made: list[Picture | None] = [None]

        def source() -> tuple[str, tuple[Any, ...], dict[str, Any]] | None:
            picture = made[0] = make()
            if picture is None or self.kept(picture, owner=owner) is not None:
                return None
            return picture.kind, picture.args, picture.kwargs

        loop = asyncio.get_running_loop()
        asked = loop.time()
        png = await draw_newest(source, lane=lane, home=_home(owner))
        picture = made[0]
        if picture is None:
            return None
        if png is None:  # the same as the last one drawn: kept
            png = self.kept(picture, owner=owner)
            if png is None:  # let go of meanwhile (its table closed): drawn now
                png = await self._redraw(picture, lane, owner)
            return picture, png
        self._finished(picture, png, lane, owner, loop.time() - asked)
        return picture, png

    def _being_drawn(
        self, picture: Picture, owner: Hashable
    ) -> tuple[Hashable, str, asyncio.Future[bytes]] | None:
        pending = self._drawing.get(owner)
        if pending is None or pending[0] != picture.key or pending[2].done():
            return None
        return pending

    async def _draw(self, picture: Picture, lane: str, owner: Hashable) -> bytes:
        loop = asyncio.get_running_loop()
        asked = loop.time()
        png = await self._ask(picture.kind, picture.args, picture.kwargs, lane, owner, _home(owner))
        self._finished(picture, png, lane, owner, loop.time() - asked)
        return png

    async def _redraw(self, picture: Picture, lane: str, owner: Hashable) -> bytes:
        """``owner``'s picture drawn again, superseded by nothing and kept for nothing."""
        return await self._ask(picture.kind, picture.args, picture.kwargs, lane, None, _home(owner))

    def _finished(
        self, picture: Picture, png: bytes, lane: str, owner: Hashable, took: float
    ) -> None:
        """A drawing came back after ``took`` seconds: the lane's expected time follows it,
        and the PNG is kept as ``owner``'s last (not for a table let go of meanwhile)."""
        self._took[lane] = self._took.get(lane, took) * (1 - SMOOTHING) + took * SMOOTHING
        if not self._let_go(owner):
            self._last[owner] = (picture.key, png)

    def _let_go(self, owner: Hashable) -> bool:
        """Whether ``owner`` (kind, table, ...) belongs to a table let go of meanwhile."""
        table = _home(owner)
        return table is not None and table in self.let_go

    @staticmethod
    def attachment(picture: Picture, png: bytes) -> discord.File:
        return picture_file(png, picture.filename, picture.description)

    def forget(self, table_id: int) -> None:
        """Release a closed table's pictures (owners are tuples starting with kind, table)."""
        for owner in [o for o in self._last if _home(o) == table_id]:
            del self._last[owner]


def _home(owner: Hashable) -> Hashable:
    """The table an owner (kind, table, ...) belongs to: its drawings go to one process,
    whose caches hold the parts of its last pictures (``bot.drawing``)."""
    return owner[1] if isinstance(owner, tuple) and len(owner) > 1 else None
