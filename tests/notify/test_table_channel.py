"""The table's channel: when a table picture waits for a post asked for before it."""

from __future__ import annotations

from types import SimpleNamespace

from cogs.notify.channel import TableChannel
from cogs.notify.pacing import Pacer


def _channel() -> TableChannel:
    return TableChannel(bot=None, service=None, pictures=None, pacer=Pacer())  # type: ignore[arg-type]


def test_a_picture_of_the_next_deal_waits_for_the_reveal_of_the_last() -> None:
    """The reveal of deal 3 is still to be posted: a picture of deal 3 (the hand's end) may
    go at once (the reveal goes below it, and deal 4's picture is posted anew below the
    reveal); a picture of deal 4 waits, or deal 4 would show above deal 3's reveal."""
    channel = _channel()
    table = SimpleNamespace(id=7, state=SimpleNamespace(deal=3))
    assert not channel._post_first(table)  # nothing pending
    channel.posts_pending[7] = [3]
    assert not channel._post_first(table)
    table.state.deal = 4
    assert channel._post_first(table)
    channel.posts_pending[7] = [4]  # a notice of deal 4: the same deal again
    assert not channel._post_first(table)
    del channel.posts_pending[7]
    assert not channel._post_first(table)


async def test_a_table_s_picture_is_drawn_once_its_computers_have_answered() -> None:
    """``show_table``'s preparation waits for ``answered`` (``cogs.notify.bursts``) and only
    then draws: the picture shows the computers' answers, in the turn the table kept."""
    channel = _channel()
    order: list[str] = []

    async def answered() -> None:
        order.append("answered")

    async def draw_table(table: object) -> tuple[str, bytes]:
        order.append("drawn")
        return ("picture", b"png")

    channel.draw_table = draw_table  # type: ignore[method-assign]
    table = SimpleNamespace(id=7)
    assert await channel._draw_when_answered(table, answered) == ("picture", b"png")  # type: ignore[arg-type]
    assert order == ["answered", "drawn"]
    assert await channel._draw_when_answered(table, None) == ("picture", b"png")  # type: ignore[arg-type]
