"""A seat's private hand in the table's channel: "My hand" on the table message (also the
closed-DM notice's button and ``/mahjong hand``) answers with an ephemeral message holding the
seat's picture, words and live controls, the same content as its DM.

It keeps itself current by editing that ephemeral message through the interaction's token, for
as long as Discord lets a token be used (15 minutes); every click on it answers through the new
click's token, which starts the 15 minutes again. Shortly before a token runs out the message
asks for one press ("Go on") to continue. This is the whole path for a member whose DMs are
closed: a game can be played from it without typing a command.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import _
from cogs.controls import seat_button
from cogs.notify.pacing import NORMAL, URGENT, Pacer
from cogs.notify.pictures import Pictures

if TYPE_CHECKING:
    from bot.service.tables import LiveTable
    from cogs.notify.dm import SeatDMs

log = logging.getLogger(__name__)

TOKEN_LIFE = 15 * 60.0
TOKEN_MARGIN = 45.0  # stop using a token this long before Discord would refuse it


@dataclass
class PrivateHand:
    """The ephemeral message a seat's private hand lives in, and the token that edits it."""

    interaction: discord.Interaction
    message_id: int | None
    since: float  # when the token was issued (time.monotonic())
    key: Hashable = None
    picture_key: Hashable = None


class PrivateHands:
    def __init__(self, pictures: Pictures, pacer: Pacer, dms: SeatDMs) -> None:
        self.pictures = pictures
        self.pacer = pacer
        self.dms = dms
        self.gap = 0.25
        self.token_life = TOKEN_LIFE - TOKEN_MARGIN
        self.hands: dict[tuple[int, int], PrivateHand] = {}
        self._locks: dict[tuple[int, int], asyncio.Lock] = {}

    def _lock(self, table_id: int, seat: int) -> asyncio.Lock:
        return self._locks.setdefault((table_id, seat), asyncio.Lock())

    async def open(self, interaction: discord.Interaction, table: LiveTable, seat: int) -> None:
        """Answer a "My hand" press or ``/mahjong hand`` with the private hand. The content is
        taken before the answer is deferred, so it is never newer than the message showing it;
        a change meanwhile is caught up with at once."""
        content = self.dms.content(table, seat)
        await interaction.response.defer(ephemeral=True, thinking=True)
        async with self._lock(table.id, seat):
            file = await self.pictures.file(content.picture, lane="dm")
            kwargs: dict[str, Any] = {"content": content.content, "ephemeral": True, "wait": True}
            if file is not None:
                kwargs["file"] = file
            if content.view is not None:
                kwargs["view"] = content.view
            message = await interaction.followup.send(**kwargs)
            self.dms.reached(table, seat, content)
            self.hands[(table.id, seat)] = PrivateHand(
                interaction, message.id, time.monotonic(), content.key, _picture_key(content)
            )
        if table.state is not None and self.dms.content(table, seat).key != content.key:
            self.changed(table, seat)

    def changed(self, table: LiveTable, seat: int) -> None:
        if (table.id, seat) in self.hands:
            self.pacer.coalesce(
                ("private", table.id, seat), lambda: self.update(table, seat), gap=self.gap
            )

    async def update(self, table: LiveTable, seat: int) -> None:
        if (table.id, seat) not in self.hands:
            return  # dismissed, or its table let go of (no lock made again for it)
        async with self._lock(table.id, seat):
            hand = self.hands.get((table.id, seat))
            if hand is None or table.state is None:
                return
            if time.monotonic() - hand.since > self.token_life:
                await self._expire(table, seat, hand)
                return
            content = self.dms.content(table, seat)
            if content.key == hand.key:
                return
            kwargs: dict[str, Any] = {"content": content.content, "view": content.view}
            if _picture_key(content) != hand.picture_key:
                file = await self.pictures.file(content.picture, lane="dm")
                kwargs["attachments"] = [file] if file is not None else []
            priority = URGENT if content.prompt == "claim" else NORMAL
            try:
                async with self.pacer.request(
                    ("token", hand.interaction.id), priority, route="edit", counted=False
                ):
                    await hand.interaction.edit_original_response(**kwargs)
                self.dms.reached(table, seat, content)
            except discord.NotFound:
                # Dismissed by the member, or the token is gone: stop following it.
                self.hands.pop((table.id, seat), None)
                return
            hand.key, hand.picture_key = content.key, _picture_key(content)

    async def _expire(self, table: LiveTable, seat: int, hand: PrivateHand) -> None:
        self.hands.pop((table.id, seat), None)
        locale = self.dms.locale(table, seat)  # the member's own language (ephemeral)
        view = discord.ui.View(timeout=None)
        view.add_item(seat_button(table.id, "hand", _(locale, "Go on")))
        token = ("token", hand.interaction.id)
        async with self.pacer.request(token, NORMAL, route="edit", counted=False):
            with contextlib.suppress(discord.HTTPException):
                await hand.interaction.edit_original_response(
                    content=_(
                        locale,
                        "Discord lets this private hand stay live for 15 minutes. "
                        "Press **Go on** to keep playing here.",
                    ),
                    view=view,
                    attachments=[],
                )

    async def answer(self, interaction: discord.Interaction, table: LiveTable, seat: int) -> None:
        """A click on a private hand (deferred): the message shows the newest content, and
        the click's fresh token keeps it live for another 15 minutes."""
        clicked = interaction.message.id if interaction.message is not None else None
        async with self._lock(table.id, seat):
            hand = self.hands.get((table.id, seat))
            same = hand is not None and hand.message_id == clicked
            content = self.dms.content(table, seat)
            if same and hand is not None and content.key == hand.key:
                hand.interaction, hand.since = interaction, time.monotonic()
                return  # already shows it (a double tap): the deferral is the whole answer
            kwargs: dict[str, Any] = {"content": content.content, "view": content.view}
            if not same or hand is None or _picture_key(content) != hand.picture_key:
                file = await self.pictures.file(content.picture, lane="dm")
                kwargs["attachments"] = [file] if file is not None else []
            try:
                async with self.pacer.request(
                    ("token", interaction.id), URGENT, route="edit", counted=False
                ):
                    await interaction.edit_original_response(**kwargs)
                self.dms.reached(table, seat, content)
            except discord.NotFound:
                return
            self.hands[(table.id, seat)] = PrivateHand(
                interaction, clicked, time.monotonic(), content.key, _picture_key(content)
            )

    def release(self, table_id: int) -> None:
        for key in [k for k in self.hands if k[0] == table_id]:
            del self.hands[key]
        for key in [k for k in self._locks if k[0] == table_id]:
            del self._locks[key]


def _picture_key(content: Any) -> Hashable:
    return content.picture.key if content.picture else None
