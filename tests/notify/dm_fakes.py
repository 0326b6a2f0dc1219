"""A member's DM as Discord keeps it, for the notifier's DM tests: messages (edits counted,
gone once deleted), the channel, and a click whose answer edits its message through the
interaction's token."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock

import discord

from cogs.notify.seat import SeatContent


def turn_prompt(move: int) -> SeatContent:
    """A seat's turn prompt at ``move``: words only (no picture, no buttons)."""
    return SeatContent(
        text=f"your turn (move {move})",
        wall="",
        view=None,
        picture=None,
        deal=1,
        prompt="turn",
        prompt_id=(1, move),
    )


def not_found() -> discord.NotFound:
    response = MagicMock(status=404, reason="Not Found")
    return discord.NotFound(response, {"code": 10008, "message": "Unknown Message"})


class Message:
    """A DM message; ``edits`` counts the bot's own edits of it (not those of a click)."""

    ids = iter(range(100, 100_000))

    def __init__(self, content: str, channel: Channel) -> None:
        self.id = next(self.ids)
        self.content = content
        self.channel = channel
        self.deleted = False
        self.edits = 0

    async def edit(self, **kwargs: Any) -> None:
        if self.deleted:
            raise not_found()
        self.edits += 1
        self.content = kwargs.get("content", self.content)

    async def delete(self) -> None:
        if self.deleted:
            raise not_found()
        self.deleted = True


class Channel:
    id = 55

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def send(self, **kwargs: Any) -> Message:
        message = Message(kwargs.get("content", ""), self)
        self.messages.append(message)
        return message

    def get_partial_message(self, message_id: int) -> Message:
        """The message by its id (a delete by id reaches the message Discord keeps)."""
        return next(m for m in self.messages if m.id == message_id)


def bot_for(channel: Channel) -> Any:
    """The bot's way to a DM channel it knows by id only."""
    return SimpleNamespace(get_partial_messageable=lambda channel_id, **_: channel)


class Click:
    """A click on ``message``. Its answers edit the message through the interaction's token
    (``token_edits``); ``slow``: the bot hears back only once ``answered`` is set (a slow
    round trip); ``refused``: Discord no longer takes the token (HTTP 401)."""

    def __init__(self, message: Message, *, slow: bool = False, refused: bool = False) -> None:
        self.message = message
        self.id = 7
        self.refused = refused
        self.token_edits = 0
        self.answered = asyncio.Event()
        if not slow:
            self.answered.set()
        self.sent = asyncio.Event()

    async def edit_original_response(self, **kwargs: Any) -> None:
        if self.refused:
            raise discord.HTTPException(MagicMock(status=401, reason="Unauthorized"), "")
        if self.message.deleted:
            raise not_found()
        self.token_edits += 1
        self.message.content = kwargs.get("content", self.message.content)
        self.sent.set()
        await self.answered.wait()
