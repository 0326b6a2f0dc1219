"""A seat's DM when a click's answer and the notifier's own update cross: the member always
keeps a live message with the newest controls (a member left with none stalls the table)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any
from unittest.mock import AsyncMock, MagicMock

from cogs.notify.dm import LiveDM, SeatDMs
from cogs.notify.pacing import TABLE, URGENT, Pacer
from cogs.notify.seat import SeatContent
from tests.notify.dm_fakes import Channel, Click, Message, bot_for, turn_prompt


def _pictures() -> Any:
    return SimpleNamespace(file=AsyncMock(return_value=None), kept=lambda picture, owner: None)


def _watching_dms(channel: Channel, pacer: Pacer, pictures: Any, content: Any) -> SeatDMs:
    """The DMs of seats that only watch (no legal move), their content from ``content``."""
    service = SimpleNamespace(legal_for=lambda table, seat: [])
    dms = SeatDMs(bot_for(channel), service, pictures, pacer, {}, MagicMock())
    dms.content = content  # type: ignore[method-assign]
    return dms


def _as_of_move(what: str) -> Any:
    """A watching seat's content: its words and picture as of the table's move."""
    from cogs.notify.seat import Picture

    def content(table: Any, seat: int) -> SeatContent:
        move = table.state.move
        picture = Picture("seat_table", (), {}, key=(what, move))
        return SeatContent(text=f"move {move}", wall="", view=None, picture=picture, deal=1)

    return content


def _playing_table(**kwargs: Any) -> Any:
    """Table 1 in play at its first move, every seat held by member 5 unless ``player_at``."""
    kwargs.setdefault("player_at", lambda seat: SimpleNamespace(user_id=5))
    return SimpleNamespace(id=1, state=SimpleNamespace(deal=1, phase="play", move=1), **kwargs)


async def test_a_click_answered_while_its_message_is_being_replaced_keeps_a_live_message() -> None:
    channel = Channel()
    pacer = Pacer(global_rate=1000)
    dms = SeatDMs(bot_for(channel), SimpleNamespace(), _pictures(), pacer, {}, MagicMock())
    shown = {"move": 1}
    dms.content = lambda table, seat: turn_prompt(shown["move"])  # type: ignore[method-assign]

    async def dm_channel(user_id: int) -> Channel:
        return channel

    dms._dm_channel = dm_channel  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1, state=SimpleNamespace(deal=1), player_at=lambda seat: SimpleNamespace(user_id=5)
    )

    await dms.update(table, 0)  # the turn prompt for move 1
    [first] = channel.messages
    # The member presses on it; the move is made, and the notifier posts the next prompt
    # (a new message, pinging) before the click is answered, deleting the first in the
    # background ...
    shown["move"] = 2
    await dms.update(table, 0)
    # ... while the click's answer puts the newest controls into the clicked message.
    click = Click(first, slow=True)
    answer = asyncio.ensure_future(dms.answer(click, table, 0))  # type: ignore[arg-type]
    await click.sent.wait()
    await asyncio.sleep(0.05)  # the background delete gets its turn meanwhile
    click.answered.set()
    await answer
    await pacer.drain()

    live = dms.live[(1, 0)]
    alive = [m for m in channel.messages if not m.deleted]
    assert live.message is not None and not live.message.deleted, "no live message left"
    assert [m.content for m in alive] == ["your turn (move 2)"]
    await pacer.close()


async def test_a_live_message_deleted_by_the_member_is_posted_again_at_once() -> None:
    channel = Channel()
    pacer = Pacer(global_rate=1000)
    dms = SeatDMs(bot_for(channel), SimpleNamespace(), _pictures(), pacer, {}, MagicMock())
    dms.gap = 0
    text = {"now": "waiting"}

    def content(table: Any, seat: int) -> SeatContent:
        return SeatContent(text=text["now"], wall="", view=None, picture=None, deal=1)

    dms.content = content  # type: ignore[method-assign]

    async def dm_channel(user_id: int) -> Channel:
        return channel

    dms._dm_channel = dm_channel  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1, state=SimpleNamespace(deal=1), player_at=lambda seat: SimpleNamespace(user_id=5)
    )
    await dms.update(table, 0)
    channel.messages[0].deleted = True  # the member deleted it
    text["now"] = "your turn"
    dms.changed(table, 0)
    await pacer.drain()
    alive = [m for m in channel.messages if not m.deleted]
    assert [m.content for m in alive] == ["your turn"]
    await pacer.close()


async def test_a_finished_hands_message_is_never_deleted_by_a_delete_scheduled_before() -> None:
    """A replaced prompt's delete waits its turn; meanwhile a click can make that message live
    again and the hand can end in it, and the next hand's first message take over: the
    delete must then leave the finished hand's message alone (it closes that hand's loop)."""
    channel = Channel()
    pacer = Pacer(global_rate=1000)
    dms = SeatDMs(bot_for(channel), SimpleNamespace(), _pictures(), pacer, {}, MagicMock())
    live = dms.live[(1, 0)] = LiveDM(5)
    finished = await channel.send(content="Hand 2 is over.")
    live.message = finished
    live.set_finished(True)
    live.message = await channel.send(content="hand 3: your turn")
    await dms._delete(live, finished)
    assert not finished.deleted
    await pacer.close()


async def test_a_click_on_an_old_prompt_after_the_hand_ended_leaves_one_finished_message() -> None:
    """A click on the seat's prompt, answered late (a loaded machine: the gateway 41 s
    behind in a CI run); meanwhile a newer prompt replaced it and the hand ended in that
    one. The answer must not make the clicked prompt a second "is over" message, which,
    being finished, would never be deleted (seen in CI: 17 finished DMs for 16 hands)."""
    channel = Channel()
    pacer = Pacer(global_rate=1000)
    dms = SeatDMs(bot_for(channel), SimpleNamespace(), _pictures(), pacer, {}, MagicMock())
    over = SeatContent(
        text="Hand 1 is over.", wall="", view=None, picture=None, deal=1, finished=True
    )
    dms.content = lambda table, seat: over  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1, state=SimpleNamespace(deal=1), player_at=lambda seat: SimpleNamespace(user_id=5)
    )
    replaced = await channel.send(content="hand 1: your turn (move 3)")
    live = dms.live[(1, 0)] = LiveDM(5, deal=1)
    live.remember(replaced.id, 1)
    live.message = await channel.send(content=over.content)
    live.remember(live.message.id, 1)
    live.key = over.key
    live.set_finished(True)

    click = Click(replaced)
    await dms.answer(click, table, 0)  # type: ignore[arg-type]
    await pacer.drain()

    finished = [m for m in channel.messages if not m.deleted and "is over" in m.content]
    assert [m.id for m in finished] == [live.message.id]
    assert replaced.id not in live.kept
    assert replaced.deleted  # replaced, it goes
    await pacer.close()


async def test_a_click_is_answered_at_once_though_its_seats_watching_update_waits_its_turn() -> (
    None
):
    """At 200 tables a click's answer waited seconds behind the seat's own watching update,
    which held the DM while it waited for a turn of the global budget to show the same move.
    The answer is that update: it goes at once through the click's token, and the waiting
    update gives way and sends nothing."""
    channel = Channel()
    pacer = Pacer(global_rate=1)
    release = asyncio.Event()

    async def busy() -> None:
        async with pacer.request("busy", URGENT):
            await release.wait()  # in flight: the global budget stays spent

    holder = asyncio.ensure_future(busy())
    service = SimpleNamespace(legal_for=lambda table, seat: [])  # the seat only watches
    dms = SeatDMs(bot_for(channel), service, _pictures(), pacer, {}, MagicMock())
    text = {"now": "you discarded 3 Bamboo"}

    def content(table: Any, seat: int) -> SeatContent:
        return SeatContent(text=text["now"], wall="", view=None, picture=None, deal=1)

    dms.content = content  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1,
        state=SimpleNamespace(deal=1, phase="play"),
        player_at=lambda seat: SimpleNamespace(user_id=5),
    )
    clicked = Message("your turn", channel)
    channel.messages.append(clicked)
    live = dms.live[(1, 0)] = LiveDM(5, message=clicked, deal=1, key=("your turn",))
    live.remember(clicked.id, 1)

    dms.changed(table, 0)  # the move: the seat's watching update, which must wait its turn
    while not pacer.snapshot()["waiting"].get(TABLE):
        await asyncio.sleep(0.01)
    assert clicked.edits == 0
    click = Click(clicked)
    await asyncio.wait_for(dms.answer(click, table, 0), timeout=30)  # type: ignore[arg-type]
    assert clicked.content == "you discarded 3 Bamboo"
    assert click.token_edits == 1 and clicked.edits == 0  # through the click's token

    release.set()
    await holder
    await pacer.drain()
    assert click.token_edits == 1 and clicked.edits == 0  # the update gave way: nothing more
    assert channel.messages == [clicked]
    await pacer.close()


async def test_a_watching_update_overtaken_by_a_move_while_drawing_is_not_drawn_twice() -> None:
    """A watching seat's picture waits seconds in the pool at 200 tables, and the table moves
    on meanwhile: the update goes with the newest words and the picture already drawn (the
    move scheduled the next update, which brings the newer picture) instead of drawing again
    at once, which drew most watching pictures twice and starved the table images."""
    from cogs.notify.seat import Picture

    channel = Channel()
    pacer = Pacer(global_rate=1000)
    table = _playing_table()
    drawn: list[Any] = []

    async def draw(picture: Picture, **kwargs: Any) -> bytes:
        drawn.append(picture.key)
        table.state = SimpleNamespace(deal=1, phase="play", move=table.state.move + 1)
        return b""

    async def newest(make: Any, **kwargs: Any) -> tuple[Picture, bytes] | None:
        picture = make()  # made when its drawing starts
        return None if picture is None else (picture, await draw(picture))

    pictures = SimpleNamespace(
        file=AsyncMock(return_value=None),
        kept=lambda picture, owner: None,
        drawn=draw,
        newest=newest,
    )
    dms = _watching_dms(channel, pacer, pictures, _as_of_move("table as of"))
    shown = Message("move 0", channel)
    channel.messages.append(shown)
    live = dms.live[(1, 0)] = LiveDM(5, message=shown, deal=1, key=("move 0",))
    await dms.update(table, 0)
    assert drawn == [("table as of", 1)]  # drawn once, though move 2 came meanwhile
    assert shown.content == "move 2" and shown.edits == 1  # the newest words
    assert live.picture_key == ("table as of", 1)  # the next update brings move 2's picture
    await pacer.close()


async def test_an_update_after_the_table_closed_leaves_the_closed_message_alone() -> None:
    """The table closed (its thread deleted) and the seat's DM says so; an update drawn
    before (its picture is drawn outside the DM's lock) must not bring the hand back."""
    channel = Channel()
    pacer = Pacer(global_rate=1000)
    dms = SeatDMs(bot_for(channel), SimpleNamespace(), _pictures(), pacer, {}, MagicMock())
    dms.content = lambda table, seat: turn_prompt(3)  # type: ignore[method-assign]
    table = SimpleNamespace(
        id=1, state=SimpleNamespace(deal=1), player_at=lambda seat: SimpleNamespace(user_id=5)
    )
    closed = Message("Table 1 has ended: its thread was deleted.", channel)
    channel.messages.append(closed)
    live = dms.live[(1, 0)] = LiveDM(5, message=closed, deal=1, key=("your turn (move 2)",))
    live.set_finished(True)
    await dms.update(table, 0)
    await pacer.drain()
    assert closed.edits == 0 and channel.messages == [closed]
    await pacer.close()


async def test_a_watching_picture_that_shows_more_than_its_words_is_sent_not_drawn_again() -> None:
    """A watching seat's picture is made when its drawing starts; if it then shows more than
    the update's words were built from without a move (a seat renamed when its member left),
    the update goes with the newest content and that picture, instead of drawing the older
    picture again inside the DM's lock, where a click would wait for it."""
    from cogs.notify.seat import Picture

    channel = Channel()
    pacer = Pacer(global_rate=1000)
    table = _playing_table()
    name = ["Alice"]
    attached: list[Any] = []

    async def newest(make: Any, **kwargs: Any) -> tuple[Picture, bytes] | None:
        name[0] = "Computer (for Alice)"  # another seat's member leaves while it waits
        picture = make()
        return None if picture is None else (picture, b"png")

    async def file(picture: Any, **kwargs: Any) -> None:
        attached.append(picture.key)

    def content(table: Any, seat: int) -> SeatContent:
        picture = Picture("seat_table", (), {}, key=("names", name[0]))
        return SeatContent(text=f"with {name[0]}", wall="", view=None, picture=picture, deal=1)

    pictures = SimpleNamespace(file=file, kept=lambda picture, owner: None, newest=newest)
    dms = _watching_dms(channel, pacer, pictures, content)
    shown = Message("before", channel)
    channel.messages.append(shown)
    live = dms.live[(1, 2)] = LiveDM(5, message=shown, deal=1, key=("before",))
    await dms.update(table, 2)
    assert attached == [("names", "Computer (for Alice)")]  # never the older picture
    assert shown.content == "with Computer (for Alice)" and shown.edits == 1
    assert live.picture_key == ("names", "Computer (for Alice)")
    await pacer.close()


async def test_a_member_who_left_while_their_picture_waited_is_sent_nothing_of_the_seat() -> None:
    """The seat's picture is made when its drawing starts: by then the member may have left
    and a computer plays the seat. Nothing of the seat's hand after that reaches them."""
    from cogs.notify.seat import Picture

    channel = Channel()
    pacer = Pacer(global_rate=1000)
    holder = [SimpleNamespace(user_id=5)]
    table = _playing_table(player_at=lambda seat: holder[0])
    made: list[Any] = []

    async def newest(make: Any, **kwargs: Any) -> tuple[Picture, bytes] | None:
        holder[0].user_id = None  # /leave: a computer takes the seat (the same player)
        table.state = SimpleNamespace(deal=1, phase="play", move=2)  # and plays
        picture = make()
        made.append(picture)
        return None if picture is None else (picture, b"png")

    pictures = SimpleNamespace(
        file=AsyncMock(return_value=None), kept=lambda picture, owner: None, newest=newest
    )
    dms = _watching_dms(channel, pacer, pictures, _as_of_move("hand as of"))
    shown = Message("move 0", channel)
    channel.messages.append(shown)
    dms.live[(1, 0)] = LiveDM(5, message=shown, deal=1, key=("move 0",))
    await dms.update(table, 0)
    assert made == [None]  # no picture of the computer's hand was made for them
    assert shown.edits == 0 and channel.messages == [shown]
    await pacer.close()
