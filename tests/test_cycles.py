"""What the bot makes at every click and every picture is freed by reference counting, never
left in a reference cycle for the garbage collector's full passes (issue 12).

The bot's own process runs full passes once a minute (``bot.collector``): at 200 tables they
came every 8 s, stopped the bot 80-160 ms each and found only these cycles. Each test
here fails if the cycle comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import discord
import pytest

from bot.drawing import Drawing, Superseded
from cogs import controls
from cogs.common import PictureBytes, picture_file
from cogs.controls import Controls, move_controls, table_view
from cogs.notify.pictures import Pictures
from cogs.notify.seat import Picture


@contextlib.contextmanager
def left_for_the_collector() -> Iterator[list[Any]]:
    """The objects that became garbage in the block that only the collector could free."""
    found: list[Any] = []
    gc.collect()
    gc.disable()
    try:
        yield found
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found.extend(gc.garbage)
        finally:
            gc.garbage.clear()
            gc.set_debug(0)
    finally:
        gc.enable()


def kinds(objects: list[Any]) -> set[str]:
    return {type(o).__qualname__ for o in objects}


def test_a_picture_sent_as_a_file_is_freed_when_let_go() -> None:
    with left_for_the_collector() as found:
        file = picture_file(b"\x89PNG fake", "table.png", "the table")
        sent = weakref.ref(file.fp)
        file.close()  # what discord.py does once the request is done
        assert file.fp.read() == b"\x89PNG fake"  # the bytes were not closed: still ours
        del file
        assert sent() is None
    assert "PictureBytes" not in kinds(found)


def test_discord_py_still_puts_close_back_as_the_files_own_method() -> None:
    """Why ``PictureBytes`` exists: a plain BytesIO under discord.File ends in a cycle. If
    discord.py stops doing so, this fails and ``PictureBytes`` can go."""
    import io

    with left_for_the_collector() as found:
        file = discord.File(io.BytesIO(b"x"), "a.png")
        file.close()
        del file
    assert "BytesIO" in kinds(found)


def test_picture_bytes_keeps_any_other_attribute() -> None:
    fp = PictureBytes(b"abc")
    fp.name = "x.png"  # type: ignore[attr-defined]
    assert fp.name == "x.png"  # type: ignore[attr-defined]
    fp.close = print  # type: ignore[method-assign]  # not its own method: kept
    assert fp.close is print


def test_controls_let_go_of_the_view_they_are_made_from() -> None:
    with left_for_the_collector() as found:
        view = table_view(7)
        made = Controls(view)
        gone = weakref.ref(view)
        del view
        assert gone() is None
        assert made.shown == (("mj:7:seat:hand", "My hand", ""),)
        assert made.to_components()[0]["components"][0]["custom_id"] == "mj:7:seat:hand"
    assert not {"View", "Button", "SeatButton"} & kinds(found)


async def test_a_clicked_buttons_view_is_emptied_after_the_click() -> None:
    """discord.py hands a click to a dynamic item inside a view it builds from the message;
    after the handler, that view is let go of its items."""
    handled = []

    async def handler(interaction: Any, fields: dict[str, str]) -> None:
        handled.append(fields["verb"])

    controls.HANDLERS["seat"] = handler
    try:
        view = discord.ui.View(timeout=None)
        item = controls.seat_button(7, "hand", "My hand")
        view.add_item(item)
        item._match = controls.SeatButton.__discord_ui_compiled_template__.fullmatch(  # type: ignore[attr-defined]
            "mj:7:seat:hand"
        )
        gone = weakref.ref(view)
        with left_for_the_collector() as found:
            await item.callback(_Click())  # type: ignore[arg-type]
            del view
            assert gone() is None
        assert handled == ["hand"]
        assert item.view is None
        assert not {"View", "SeatButton"} & kinds(found)
    finally:
        controls.HANDLERS.pop("seat", None)


class _Click:
    """Just enough of an interaction for ``_release``."""


def test_move_controls_made_into_controls_leave_no_cycle() -> None:
    with left_for_the_collector() as found:
        view = move_controls(3, 12, [], {}, away=True)
        assert view is not None
        made = Controls(view)
        del view, made
    assert not {"View", "Button", "SeatButton", "MoveButton"} & kinds(found)


async def test_a_superseded_drawing_leaves_no_cycle() -> None:
    """A drawing superseded before it starts raises Superseded out of a future: the frame
    that awaited it must not keep that future (the exception's traceback keeps the frame)."""
    drawing = Drawing(processes=0)
    try:
        with left_for_the_collector() as found:
            # Both asked for in the same turn of the loop: the first has not started.
            first = asyncio.ensure_future(drawing.draw("tile_emoji", 1, lane="table", key="k"))
            second = asyncio.ensure_future(drawing.draw("tile_emoji", 2, lane="table", key="k"))
            with pytest.raises(Superseded):
                await first
            assert (await second).startswith(b"\x89PNG")
            del first, second
        assert "Superseded" not in kinds(found)
    finally:
        await drawing.close()


async def test_a_superseded_picture_leaves_no_cycle() -> None:
    """``Pictures.drawn`` shares one task per owner's picture; a Superseded out of it (a newer
    picture for the same owner asked for before it started) must not tie the task to the
    frame that awaited it."""
    drawing = Drawing(processes=0)
    pictures = Pictures(drawing)
    owner = ("dm", 1, 0)
    try:
        with left_for_the_collector() as found:
            older = Picture("tile_emoji", (1,), {}, key=("emoji", 1))
            newer = Picture("tile_emoji", (2,), {}, key=("emoji", 2))
            first = asyncio.ensure_future(pictures.drawn(older, lane="dm", owner=owner))
            second = asyncio.ensure_future(pictures.drawn(newer, lane="dm", owner=owner))
            both = await asyncio.gather(first, second)
            assert all(png.startswith(b"\x89PNG") for png in both)
            assert drawing.counts["superseded"] == 1  # the first was superseded, drawn again
            del first, second, older, newer
        assert not {"Superseded", "Task"} & kinds(found)
    finally:
        await drawing.close()
