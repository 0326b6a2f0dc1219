"""How long drawings take, as the table's edits plan with it (``Pictures.expected``), and a
table's picture made when its drawing starts (``Pictures.newest``)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from cogs.notify.pictures import SMOOTHING, Pictures
from cogs.notify.seat import Picture


async def test_the_expected_drawing_time_follows_the_lane_s_drawings() -> None:
    """Nothing drawn yet: no time expected. Then a moving average of each lane's drawings,
    from asking to the bytes (a queued drawing's wait included), lane by lane."""
    release: dict[str, asyncio.Event] = {}

    async def draw(kind: str, *args: Any, lane: str = "dm", key: Any = None, **kw: Any) -> bytes:
        await release[lane].wait()
        return b"png"

    pictures = Pictures(SimpleNamespace(draw=draw))
    assert pictures.expected("table") == 0.0
    loop = asyncio.get_running_loop()
    release["table"] = asyncio.Event()
    drawing = asyncio.ensure_future(
        pictures.drawn(Picture("table", (), {}, key=1), lane="table", owner=("table", 1))
    )
    loop.call_later(0.05, release["table"].set)
    assert await drawing == b"png"
    held = pictures.expected("table")
    assert held >= 0.05  # the first drawing's time: at least as long as it was held
    assert pictures.expected("dm") == 0.0  # another lane's drawings are not this one's
    # A drawing at once pulls the average down by its weight, no further.
    await pictures.drawn(Picture("table", (), {}, key=2), lane="table", owner=("table", 1))
    assert held * (1 - SMOOTHING) <= pictures.expected("table") < held


class _Pool:
    """A drawing pool whose jobs start when ``start`` is set; a ``draw_newest`` job asks its
    source then, as the real pool does when it hands a job to a process."""

    def __init__(self) -> None:
        self.start = asyncio.Event()
        self.drawn: list[tuple[Any, ...]] = []
        self.homes: list[Any] = []

    async def draw(
        self, kind: str, *args: Any, lane: str = "dm", key: Any = None, home: Any = None
    ) -> bytes:
        self.homes.append(home)
        await self.start.wait()
        self.drawn.append(args)
        return f"png of {args}".encode()

    async def draw_newest(
        self, source: Any, *, lane: str = "lookup", key: Any = None, home: Any = None
    ) -> Any:
        self.homes.append(home)
        await self.start.wait()
        what = source()
        if what is None:
            return None
        self.drawn.append(what[1])
        return f"png of {what[1]}".encode()


async def test_the_newest_picture_is_the_one_standing_when_its_drawing_starts() -> None:
    """The picture is made when the pool starts on it: the moves made while it waited are
    in it, it is drawn once, and the same picture asked for again is not drawn again."""
    pool = _Pool()
    pictures = Pictures(pool)
    moves = ["move 1"]

    def make() -> Picture:
        return Picture("table", (moves[-1],), {}, key=moves[-1])

    waiting = asyncio.ensure_future(pictures.newest(make, lane="table", owner=("table", 1)))
    await asyncio.sleep(0)
    moves.append("move 2")  # the table moves on while the drawing waits its turn
    pool.start.set()
    picture, png = await waiting
    assert picture.key == "move 2" and png == b"png of ('move 2',)"
    assert pool.drawn == [("move 2",)]
    again = await pictures.newest(make, lane="table", owner=("table", 1))
    assert again == (picture, png) and pool.drawn == [("move 2",)]  # kept, not drawn again
    assert pictures.kept(make(), owner=("table", 1)) == png
    nothing = await pictures.newest(lambda: None, lane="table", owner=("table", 1))
    assert nothing is None


async def test_the_newest_picture_without_a_pool_that_draws_so_is_drawn_as_it_stands() -> None:
    """A drawing without ``draw_newest`` (as some tests pass) draws the picture as asked."""
    pool = _Pool()
    pool.start.set()
    pictures = Pictures(SimpleNamespace(draw=pool.draw))
    picture, png = await pictures.newest(
        lambda: Picture("table", ("now",), {}, key="now"), owner=("table", 2)
    )
    assert picture.key == "now" and png == b"png of ('now',)"


async def test_every_picture_of_a_table_is_drawn_by_the_table_s_process() -> None:
    """Its DMs' pictures and its channel picture name the table as their home: the pool
    draws them in one process, whose caches hold the parts of the table's last pictures."""
    pool = _Pool()
    pool.start.set()
    pictures = Pictures(pool)
    await pictures.drawn(Picture("seat_table", ("a",), {}, key="a"), owner=("dm", 7, 2))
    await pictures.newest(lambda: Picture("table", ("b",), {}, key="b"), owner=("table", 7))
    await pictures.png("table", "c", key=("table", 8))
    await pictures.drawn(Picture("score_card", ("d",), {}, key="d"))  # no owner: no home
    assert pool.homes == [7, 7, 8, None]
