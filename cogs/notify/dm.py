"""Each seated member's DM: one live message for the hand in play, and one finished message
for every hand before it.

- **Calm.** The message is edited only when what it shows changes (``SeatContent.key``,
  known before anything is drawn), and its picture re-uploaded only when the picture changes.
- **Turns reach the player.** A turn or a claim prompt meant for the seat is a NEW message
  (Discord notifies new messages, never edits), and the previous live message is deleted so
  the DM does not fill up; a member who turned pings off (``/mahjong settings``) gets the
  prompt as an edit instead, and so does a member playing in the DM right now (they clicked
  in its live message within the last 30 s, :data:`PLAYING_FOR`) while the bot's global
  budget runs short (``Pacer.pressed``: many tables).
- **A member playing gets their DM through their own clicks.** A click is answered at once
  in the clicked message, through the interaction's token (its picture with it if already
  drawn, else the seat's next update brings it); while the member keeps playing and the
  global budget runs short, every update of that message goes through their last click's
  token too (5 edits per 2 s, a webhook's pace): instant, and outside Discord's global
  budget, which at 200 tables the members' prompts alone would exceed.
- **Closing the loop.** When a hand ends its live message becomes the hand's summary (who won
  with what, what the seat paid or collected, its running total, when the next hand starts, or
  its place at the game's end) and stays so: no old hand is left "Waiting".
- **Closed DMs** (HTTP 403, code 50007) are told once in the table's channel, tried again at
  the next deal, and never stall the table; the seat plays from "My hand".

Users and DM channels of seated members are kept (no look-up per deal); everything of a table
is released when it closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.i18n import _, member_locale
from bot.rules.game import GAME_OVER, HAND_OVER
from cogs.notify.let_go import LetGo
from cogs.notify.pacing import LOW, NORMAL, TABLE, TURN, URGENT, Pacer
from cogs.notify.pictures import Pictures
from cogs.notify.seat import Picture, SeatContent, finished_text, seat_content

if TYPE_CHECKING:
    from bot.service.tables import LiveTable, TableService

log = logging.getLogger(__name__)

DM_CLOSED = 50007
UNKNOWN_WEBHOOK = 10015  # an interaction token Discord no longer knows
WATCH_GAPS = 8  # a watching seat's DM is updated at most every 8 gaps (2 s at the real pace)
PRIORITY = {"claim": URGENT, "turn": TURN, None: NORMAL}
# A member who clicked in their live DM message this recently is playing in it: its updates,
# prompts too, go into that message through the click's interaction token (see ``_via``).
PLAYING_FOR = 30.0  # well within an interaction token's 15 minutes
# Seconds a click's answer waits for its picture before going without it (the seat's update
# brings it): a few tables draw it in tens of milliseconds.
ANSWER_PICTURE_WAIT = 0.25


def priority_of(content: SeatContent) -> int:
    """A prompt first (a claim's window is short), then a hand's end (what the seat won or
    paid); an update while the seat only watches (another seat's discard) is worth as much as
    a table image: it shares their level of the global budget, and gives way to the seat's
    next prompt, which shows it anyway."""
    if content.prompt is not None:
        return PRIORITY[content.prompt]
    return NORMAL if content.finished else TABLE


@dataclass
class LiveDM:
    """What a seat's live DM message shows now."""

    user_id: int
    message: discord.Message | discord.PartialMessage | None = None
    deal: int = 0
    key: Hashable = None
    picture_key: Hashable = None
    prompt_id: tuple[int, int] | None = None
    finished: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deals: dict[int, int] = field(default_factory=dict)  # recent message id -> its hand
    kept: set[int] = field(default_factory=set)  # finished hands' messages: never deleted
    # Replaced prompts to delete, as (channel id, message id): a bot at its request budget
    # deletes last, and a whole ``discord.Message`` kept per waiting delete (its components,
    # author, channel) grew the bot's memory with every game played (the 1-hour soak).
    replaced: list[tuple[int, int]] = field(default_factory=list)
    # The member's last click answered in the live message: its interaction edits that
    # message (``_via``) while fresh; ``clicked_at`` is when (time.monotonic()).
    click: discord.Interaction | None = None
    clicked_at: float = 0.0

    def set_finished(self, finished: bool) -> None:
        """Whether the live message shows its hand finished; such a message stays for good
        (a delete of it scheduled while it was a replaced prompt must not take it)."""
        self.finished = finished
        if finished and self.message is not None:
            self.kept.add(self.message.id)

    def remember(self, message_id: int, deal: int) -> None:
        self.deals[message_id] = deal
        while len(self.deals) > 8:
            del self.deals[next(iter(self.deals))]


class SeatDMs:
    def __init__(
        self,
        bot: Any,
        service: TableService,
        pictures: Pictures,
        pacer: Pacer,
        emojis: dict[int, discord.PartialEmoji],
        tell_closed: Callable[[LiveTable, int], Awaitable[None]],
        let_go: LetGo | None = None,
    ) -> None:
        self.bot = bot
        self.service = service
        self.pictures = pictures
        self.pacer = pacer
        self.emojis = emojis
        self.tell_closed = tell_closed
        self.gap = 0.25
        self.live: dict[tuple[int, int], LiveDM] = {}
        self._users: dict[int, Any] = {}
        self._channels: dict[int, discord.DMChannel] = {}
        self._closed: dict[tuple[int, int], int] = {}  # (table, user) -> deal found closed
        self.notes: dict[tuple[int, int], str] = {}  # (table, seat) -> "your pung lost to ..."
        self.hand_over_at: dict[int, float] = {}  # table -> when its last hand ended
        self.let_go = let_go if let_go is not None else LetGo()  # their DMs never come back

    # -- scheduling --------------------------------------------------------------------------
    def changed(self, table: LiveTable, seat: int, *, soon: bool = False) -> None:
        """Schedule the seat's DM update: within ``gap`` when the seat has something to do
        (a prompt) or its hand ended, or ``soon`` (an update waiting must give way), else within
        ``watch_gap`` (another seat's discard: the seat only watches, and every such update
        costs a drawing and a request against the global budget; its next prompt shows the
        newest state anyway)."""
        needed = soon or self._needs_seat(table, seat)
        self.pacer.coalesce(
            ("dm", table.id, seat),
            lambda: self.update(table, seat),
            gap=self.gap if needed else self.gap * WATCH_GAPS,
            urgent=needed,
        )

    def _needs_seat(self, table: LiveTable, seat: int) -> bool:
        state = table.state
        if state is None or getattr(state, "phase", None) in (HAND_OVER, GAME_OVER):
            return True
        legal_for = getattr(self.service, "legal_for", None)
        return legal_for is None or bool(legal_for(table, seat))

    def locale(self, table: LiveTable, seat: int) -> str:
        """The seat's member's language (their last interaction's, else the server's)."""
        player = table.player_at(seat)
        return member_locale(self.bot, player.user_id if player else None, table.guild_id)

    def content(self, table: LiveTable, seat: int, *, choosing_riichi: bool = False) -> SeatContent:
        next_at = self.hand_over_at.get(table.id)
        if next_at is not None:
            next_at += self.service.next_hand_delay
        return seat_content(
            self.service,
            table,
            seat,
            self.emojis,
            next_at=next_at,
            note=self.notes.get((table.id, seat), ""),
            locale=self.locale(table, seat),
            choosing_riichi=choosing_riichi,
        )

    def is_closed(self, table: LiveTable, user_id: int) -> bool:
        return (table.id, user_id) in self._closed

    # -- the live message --------------------------------------------------------------------
    def _live(self, table: LiveTable, seat: int, user_id: int) -> LiveDM | None:
        """The seat's live DM, made for its member if need be; None once the table was let go."""
        live = self.live.get((table.id, seat))
        if live is not None and live.user_id == user_id:
            return live
        if table.id in self.let_go:
            return None
        live = self.live[(table.id, seat)] = LiveDM(user_id)
        return live

    async def update(self, table: LiveTable, seat: int) -> None:
        state = table.state
        player = table.player_at(seat)
        if state is None or player is None or player.user_id is None:
            return
        # Kept: leaving the seat clears the same player's user_id in place (``leave``).
        user_id = player.user_id
        if self._closed.get((table.id, user_id)) == state.deal:
            return
        live = self._live(table, seat, user_id)
        if live is None:
            return
        content = self.content(table, seat)
        drawn = await self._draw_ahead(table, seat, live, content)
        async with live.lock:
            if not _holds(table, seat, user_id):
                return  # the member left the seat meanwhile: its hand is no longer theirs
            if table.state is not state or _other_picture(drawn, content):
                # A move meanwhile, or a picture made when its drawing started that shows
                # more (a seat renamed without a move): show the newest, not draw the
                # older one again here, inside the lock, where a click would wait for it.
                content = self._newest(table, seat, drawn)
            if content.prompt:
                self.notes.pop((table.id, seat), None)  # told; the seat has moved on
            if live.message is not None and live.deal != content.deal and not live.finished:
                await self._finish(table, seat, live)
            if live.message is not None and live.deal < content.deal:
                await self._skipped_hands(table, seat, live, content.deal)
            same_deal = live.message is not None and live.deal == content.deal
            if same_deal and live.key == content.key:
                return
            if same_deal and live.finished and not content.finished:
                # The hand's message says it ended (the table closed): it stays so. An update
                # drawn before the close (its picture is drawn outside the lock) must not
                # bring the hand back into it.
                return
            try:
                via = self._via(live)
                new_prompt = self._wants_new_message(live, content, user_id)
                if via is not None and not self.pacer.pressed():
                    # Budget to spare: the bot's own requests (a prompt a new message, which
                    # pings). The token is the relief for a short budget only: its edits
                    # have a budget of their own (5 per 2 s, per token), which a playing
                    # member's watching updates filled, and prompts waited for it: at 20
                    # tables a prompt's DM came p99 2.7 s after its move, 0.1 s without.
                    via = None
                if not same_deal or (via is None and new_prompt):
                    await self._post(table, seat, live, content)
                else:
                    await self._edit(table, seat, live, content, via=via)
            except discord.Forbidden as exc:
                if exc.code != DM_CLOSED:
                    raise
                told = (table.id, user_id) in self._closed
                self._closed[(table.id, user_id)] = state.deal
                if not told:
                    await self.tell_closed(table, user_id)
            except discord.NotFound:
                # The live message is gone (deleted by the member): post the seat's content
                # anew at once; waiting for the next change could leave a member whose turn
                # it is with no controls at all, and the table waiting for them.
                gone, live.message, live.key = live.message, None, None
                if gone is not None:
                    self.changed(table, seat)

    def _newest(self, table: LiveTable, seat: int, drawn: Picture | None) -> SeatContent:
        """The seat's newest content, for an update whose picture was drawn before a move
        changed the table: a prompt or a hand's end is drawn anew, but a watching seat's
        update goes with the newest words and the picture already drawn (the move that
        changed it scheduled the next update, which brings it). Drawing it again at once
        drew most watching pictures twice at 200 tables, where they wait seconds in the
        pool, and starved the table images."""
        newest = self.content(table, seat)
        if drawn is None or newest.picture is None or newest.picture.key == drawn.key:
            return newest
        return newest if priority_of(newest) < TABLE else replace(newest, picture=drawn)

    async def _draw_ahead(
        self, table: LiveTable, seat: int, live: LiveDM, content: SeatContent
    ) -> Picture | None:
        """Draw the update's picture before it takes the DM's lock (the picture is kept, and
        the request inside the lock finds it drawn): a click's answer, which takes the lock,
        never waits for a drawing queued in the pool (a watching seat's waited seconds in
        the table images' lane at 200 tables, and its member's click behind it)."""
        picture = content.picture
        if picture is None or picture.key == live.picture_key:
            return None
        if live.message is not None and live.deal == content.deal and live.key == content.key:
            return None
        owner = ("dm", table.id, seat)
        if _lane(content) == "table":
            # A watching seat's picture waits seconds in the table images' lane at 200
            # tables: made when its drawing starts, it shows the moves made meanwhile.
            drawn = await self.pacer.unless_newer(
                self.pictures.newest(lambda: self._watching(table, seat, live.user_id), owner=owner)
            )
            return None if drawn is None else drawn[0]
        drawing = self.pictures.drawn(picture, lane=_lane(content), owner=owner)
        await self.pacer.unless_newer(drawing)
        return picture

    def _watching(self, table: LiveTable, seat: int, user_id: int) -> Picture | None:
        """The seat's picture now, while it only watches; None once it has a prompt (the
        prompt's own update draws that in the prompts' lane), the table is gone or the
        member ``user_id`` no longer holds the seat (the computer's hand after they left is
        not theirs to see)."""
        if table.state is None or table.id in self.let_go or not _holds(table, seat, user_id):
            return None
        content = self.content(table, seat)
        return content.picture if priority_of(content) >= TABLE else None

    def reached(self, table: LiveTable, seat: int, content: SeatContent) -> None:
        """A prompt has reached Discord: the seat's timer counts from now at the earliest
        (the service's ``prompt_shown``; once per move there)."""
        if (
            content.prompt_id is None
            or getattr(table, "controls_move", None) != content.prompt_id[1]
        ):
            return
        shown = getattr(self.service, "prompt_shown", None)
        if shown is not None:
            shown(table, seat, content.prompt_id[1])

    @staticmethod
    def _via(live: LiveDM) -> discord.Interaction | None:
        """The interaction of the member's last click, if it may carry this update: the
        member clicked in the live message within :data:`PLAYING_FOR` (they are looking at
        it, so a prompt needs no new message to reach them, and goes as an edit through it
        once the global budget runs short; its token, valid for 15 minutes, is then too).
        An edit through it is instant and outside Discord's global budget: at 200 tables the
        members' prompts, each a new message, wanted more than the whole budget (0.52 new
        messages a move at 73 moves/s), and table images got none of it."""
        click, message = live.click, live.message
        if click is None or message is None or click.message is None:
            return None
        if click.message.id != message.id:
            return None  # a newer message took over since
        if time.monotonic() - live.clicked_at > PLAYING_FOR:
            return None
        return click

    def _wants_new_message(self, live: LiveDM, content: SeatContent, user_id: int) -> bool:
        if content.prompt_id is None or content.prompt_id == live.prompt_id:
            return False
        settings = getattr(self.service, "member_settings", None)
        pings = getattr(settings(user_id), "pings", True) if settings is not None else True
        return bool(pings)

    async def _post(self, table: LiveTable, seat: int, live: LiveDM, content: SeatContent) -> None:
        """A new message. Drawn before its turn is asked for: drawing inside the turn holds
        a slot of the global budget for as long as the drawing pool takes (at 50 tables on a
        loaded machine each slot was held about a second and the bot sent 20 requests a
        second, not 45). A watching seat's update gives way only to its prompt, so few
        pictures are drawn for nothing."""
        channel = await self._dm_channel(live.user_id)
        kwargs: dict[str, Any] = {"content": content.content}
        if content.view is not None:
            kwargs["view"] = content.view
        file = await self.pacer.unless_newer(
            self.pictures.file(content.picture, lane=_lane(content), owner=("dm", table.id, seat))
        )
        if file is not None:
            kwargs["file"] = file
        priority = priority_of(content)
        async with self.pacer.request(
            ("dm", live.user_id), priority, supersede=True, keep=_keep(priority)
        ):
            message = await channel.send(**kwargs)
        self.reached(table, seat, content)
        old = live.message if live.deal == content.deal and not live.finished else None
        live.message, live.deal, live.key = message, content.deal, content.key
        live.remember(message.id, content.deal)
        live.picture_key = content.picture.key if content.picture else None
        live.prompt_id = content.prompt_id
        live.set_finished(content.finished)
        self._closed.pop((table.id, live.user_id), None)
        if old is not None:
            self._replaced(table, seat, live, old)

    async def _edit(
        self,
        table: LiveTable,
        seat: int,
        live: LiveDM,
        content: SeatContent,
        *,
        via: discord.Interaction | None = None,
    ) -> None:
        """Edit the live message: through ``via``'s token (the member's last click on it)
        when given, else with the bot's own (against the global budget)."""
        assert live.message is not None
        kwargs: dict[str, Any] = {"content": content.content, "view": content.view}
        picture_key = content.picture.key if content.picture else None
        if picture_key != live.picture_key:
            file = await self.pacer.unless_newer(
                self.pictures.file(
                    content.picture, lane=_lane(content), owner=("dm", table.id, seat)
                )
            )
            kwargs["attachments"] = [file] if file is not None else []
        priority = priority_of(content)
        if via is not None and not await self._edit_via(via, live, priority, kwargs):
            via = None
        if via is None:
            async with self.pacer.request(
                ("dm", live.user_id), priority, route="edit", supersede=True, keep=_keep(priority)
            ):
                await live.message.edit(**kwargs)
        self.reached(table, seat, content)
        live.key, live.picture_key = content.key, picture_key
        live.prompt_id = content.prompt_id or live.prompt_id
        live.set_finished(content.finished)

    async def _edit_via(
        self, click: discord.Interaction, live: LiveDM, priority: int, kwargs: dict[str, Any]
    ) -> bool:
        """Edit the live message through ``click``'s token; False when Discord no longer
        takes the token (expired, revoked: the bot's own edit goes instead). A message
        deleted meanwhile raises ``NotFound``, as the bot's own edit would."""
        try:
            async with self.pacer.request(
                ("token", click.id), priority, route="edit", counted=False, supersede=True
            ):
                await click.edit_original_response(**kwargs)
        except discord.HTTPException as exc:
            if exc.status not in (401, 403) and exc.code != UNKNOWN_WEBHOOK:
                raise  # a deleted message (Unknown Message): as the bot's own edit would
            live.click = None
            return False
        return True

    def _replaced(self, table: LiveTable, seat: int, live: LiveDM, message: Any) -> None:
        """A replaced prompt is deleted when the budget has room to spare (cosmetic work):
        one job a seat works through them, so a DM whose deletes wait (a busy bot) holds a
        list of messages, not a task and a place in the pacer's queue for each."""
        live.replaced.append((message.channel.id, message.id))
        self.pacer.coalesce(("dm-delete", table.id, seat), lambda: self._delete_replaced(live))

    async def _delete_replaced(self, live: LiveDM) -> None:
        while live.replaced:
            channel_id, message_id = live.replaced.pop(0)
            channel = self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)
            await self._delete(live, channel.get_partial_message(message_id))

    async def _delete(self, live: LiveDM, message: Any) -> None:
        """Delete a replaced prompt, unless it became the live message again while the delete
        waited its turn: a click on it is answered in it and makes it live (``answer``), and
        deleting it then would leave the member no controls at all (the table stalls with no
        turn timer). Seen in CI: the answer's edit and this delete in flight together."""
        # Under the DM's lock: a click answered in this message meanwhile (``answer`` holds
        # the lock while its edit is in flight) either made it live before the check, or
        # finds it deleted and leaves the live message alone.
        async with self.pacer.request(("dm", live.user_id), LOW, route="delete"), live.lock:
            if message.id in live.kept or (
                live.message is not None and live.message.id == message.id
            ):
                return
            with contextlib.suppress(discord.NotFound):
                await message.delete()

    async def _finish(self, table: LiveTable, seat: int, live: LiveDM) -> None:
        """Leave the live message of an earlier hand in its finished state (the hand's end was
        coalesced away, or the table closed)."""
        assert live.message is not None
        locale = self.locale(table, seat)
        note = self.notes.get((table.id, seat), "")
        text = finished_text(table, seat, live.deal, next_at=None, note=note, locale=locale)
        header = self._header(locale, table, live.deal)
        async with self.pacer.request(("dm", live.user_id), NORMAL, route="edit"):
            with contextlib.suppress(discord.NotFound):
                await live.message.edit(content=f"{header}\n{text}", view=None)
        live.set_finished(True)

    async def _skipped_hands(self, table: LiveTable, seat: int, live: LiveDM, deal: int) -> None:
        """Hands that began and ended between two updates of this DM (a short hand, the DM's
        budget spent): each still gets its finished message, so every hand closes the loop."""
        state = table.state
        assert state is not None
        channel = await self._dm_channel(live.user_id)
        for result in state.results:
            if not live.deal < result.number < deal:
                continue
            locale = self.locale(table, seat)
            text = finished_text(table, seat, result.number, next_at=None, locale=locale)
            header = self._header(locale, table, result.number)
            async with self.pacer.request(("dm", live.user_id), NORMAL):
                live.message = await channel.send(content=f"{header}\n{text}")
            live.remember(live.message.id, result.number)
            live.deal, live.key = result.number, None
            live.set_finished(True)

    @staticmethod
    def _header(locale: str, table: LiveTable, deal: int) -> str:
        return _(
            locale,
            "**Table {table}** · {ruleset} · hand {deal}",
            table=table.id,
            ruleset=table.ruleset,
            deal=deal,
        )

    async def close_table(self, table: LiveTable, reason: str) -> None:
        """The table ended for ``reason``: every seated member is told by DM (their live DM
        says so and is finished; a member without one gets a message)."""
        playing = table.state is not None and table.state.phase not in ("hand-over", "game-over")

        def text_for(user_id: int) -> str:
            """In the member's language (a reason the catalogue lacks stays as written)."""
            locale = member_locale(self.bot, user_id, table.guild_id)
            text = _(
                locale,
                "**Table {table}** ({ruleset}) has ended: {reason}. Finished hands stay settled.",
                table=table.id,
                ruleset=table.ruleset,
                reason=_(locale, reason),
            )
            if playing:
                text += " " + _(locale, "The hand in play is abandoned: nobody pays for it.")
            return text

        told: set[int] = set()
        for (table_id, _seat), live in list(self.live.items()):
            if table_id != table.id or live.message is None or live.finished:
                continue
            async with live.lock:
                async with self.pacer.request(("dm", live.user_id), NORMAL, route="edit"):
                    with contextlib.suppress(discord.HTTPException):
                        await live.message.edit(content=text_for(live.user_id), view=None)
                        told.add(live.user_id)
                live.set_finished(True)
        for player in table.players:
            if player.user_id is None or player.user_id in told:
                continue
            try:
                channel = await self._dm_channel(player.user_id)
                async with self.pacer.request(("dm", player.user_id), NORMAL):
                    await channel.send(text_for(player.user_id))
            except discord.HTTPException as exc:
                log.info("could not tell %s that table %s ended: %s", player.user_id, table.id, exc)

    # -- a click on the live message ---------------------------------------------------------
    async def answer(self, interaction: discord.Interaction, table: LiveTable, seat: int) -> None:
        """Put the seat's newest content into the DM message that was clicked (the click was
        deferred; the edit goes through the interaction's token, outside the global budget).
        The clicked message becomes the live one, unless it belongs to an earlier hand than
        the newest content (a click answered after the next deal began): a hand's message
        never turns into another hand's."""
        player = table.player_at(seat)
        if player is None or player.user_id is None or table.state is None:
            return
        live = self._live(table, seat, player.user_id)
        if live is None:
            return
        # The member is playing in the clicked message: their seat's updates may go through
        # this click's token from now on (``_via``). If they were not a moment ago, an update
        # may be waiting for a turn of the global budget holding the DM: it gives way at once
        # and runs again after this answer, through the token.
        clicked = interaction.message
        playing = self._via(live) is not None
        if clicked is not None and live.message is not None and clicked.id == live.message.id:
            live.click, live.clicked_at = interaction, time.monotonic()
        if not playing:
            self.changed(table, seat, soon=True)
        await self._answer(interaction, table, seat, live)

    async def _answer(
        self, interaction: discord.Interaction, table: LiveTable, seat: int, live: LiveDM
    ) -> None:
        """The answer goes at once, without waiting long for a drawing: the picture goes
        with it if drawn within :data:`ANSWER_PICTURE_WAIT`, else the seat's next update
        brings it (``owed``), drawn meanwhile in the DM lane. At 200 tables a click's answer
        that waited for its picture came p50 2.5 s after the click."""
        clicked = interaction.message
        old = None
        async with live.lock:
            content = self.content(table, seat)
            same = (
                live.message is not None and clicked is not None and live.message.id == clicked.id
            )
            if same and live.key == content.key:
                return  # already shows it (a double tap): the deferral is the whole answer
            clicked_deal = live.deals.get(clicked.id) if clicked is not None else None
            if same:
                clicked_deal = live.deal
            if clicked_deal is not None and clicked_deal != content.deal:
                return  # the next hand began meanwhile: the update finishes this one
            if not same and clicked is not None and live.finished and live.deal == content.deal:
                # The hand's end already shows in the live message, and a finished message
                # stays for good: the clicked prompt (one it replaced, answered late) is not
                # made a second one; it goes, as every replaced prompt does.
                if (clicked.channel.id, clicked.id) not in live.replaced:
                    self._replaced(table, seat, live, clicked)
                return
            kwargs: dict[str, Any] = {"content": content.content, "view": content.view}
            picture_key = content.picture.key if content.picture else None
            owed = False
            if not same or picture_key != live.picture_key:
                png = await self._answer_picture(table, seat, content)
                if content.picture is None:
                    kwargs["attachments"] = []
                elif png is not None:
                    kwargs["attachments"] = [self.pictures.attachment(content.picture, png)]
                else:
                    # Not drawn yet: the old picture stays until the seat's update brings
                    # the new one (what the clicked message shows is not known otherwise).
                    owed = True
                    picture_key = live.picture_key if same else None
            # What the message will show: with the picture owed, the old one under the new
            # words (a later update with the same words and picture has nothing to send).
            shown = (content.text, content.controls, picture_key) if owed else content.key
            if same and live.key == shown:
                return  # only the picture changes, and it is not drawn yet: the update brings it
            try:
                async with self.pacer.request(
                    ("token", interaction.id), URGENT, route="edit", counted=False
                ):
                    await interaction.edit_original_response(**kwargs)
                self.reached(table, seat, content)
            except discord.NotFound:
                return  # the clicked message was replaced meanwhile by a newer prompt
            except (discord.HTTPException, aiohttp.ClientError) as exc:
                # The move itself is stored; only its answer is lost (the bot stopping, a
                # dropped connection): the next change of the seat brings the DM up to date.
                log.info("could not answer a click of table %s: %r", table.id, exc)
                return
            if not same and live.message is not None and live.deal == content.deal:
                old = None if live.finished else live.message
            if clicked is not None:
                live.message = clicked
                live.remember(clicked.id, content.deal)
                live.click, live.clicked_at = interaction, time.monotonic()
            live.deal, live.picture_key = content.deal, picture_key
            live.key = shown
            if owed:
                self.changed(table, seat)  # brings the picture, drawn meanwhile
            live.prompt_id = content.prompt_id or live.prompt_id
            live.set_finished(content.finished)
        if old is not None:
            self._replaced(table, seat, live, old)

    async def _answer_picture(
        self, table: LiveTable, seat: int, content: SeatContent
    ) -> bytes | None:
        """The picture for a click's answer if already drawn, or drawn within
        :data:`ANSWER_PICTURE_WAIT` while no prompt's picture waits in the pool (a few
        tables: always), else None: the seat's update brings it. (At 200 tables a click's
        answer that waited for its picture came p50 2.5 s after the click, and drawing every
        answer's picture in the DM lane doubled that lane's work: prompts' DM p99 0.5 ->
        2.45 s side by side.)"""
        picture, owner = content.picture, ("dm", table.id, seat)
        if picture is None:
            return None
        png = self.pictures.kept(picture, owner=owner)
        if png is not None or not self.pictures.first_lanes_idle():
            return png  # prompts' pictures wait in the pool: this one comes with the update
        drawing = self.pacer.spawn(
            self.pictures.drawn(picture, lane="dm", owner=owner), f"answer-picture-{owner}"
        )
        done, _ = await asyncio.wait({drawing}, timeout=ANSWER_PICTURE_WAIT)
        if drawing not in done or drawing.cancelled() or drawing.exception() is not None:
            return None
        return drawing.result()

    # -- users and DM channels, kept for seated members --------------------------------------
    async def _dm_channel(self, user_id: int) -> discord.DMChannel:
        channel = self._channels.get(user_id)
        if channel is not None:
            return channel
        user = self._users.get(user_id) or self.bot.get_user(user_id)
        if user is None:
            async with self.pacer.request(("user", user_id), NORMAL):
                user = await self.bot.fetch_user(user_id)
        self._users[user_id] = user
        channel = user.dm_channel
        if channel is None:
            async with self.pacer.request(("user", user_id), NORMAL):
                channel = await user.create_dm()
        self._channels[user_id] = channel
        return channel

    def release(self, table_id: int, still_seated: set[int]) -> None:
        """Forget a closed table's DMs (and users no other table seats)."""
        for key in [k for k in self.live if k[0] == table_id]:
            del self.live[key]
        for key in [k for k in self._closed if k[0] == table_id]:
            del self._closed[key]
        for key in [k for k in self.notes if k[0] == table_id]:
            del self.notes[key]
        self.hand_over_at.pop(table_id, None)
        for user_id in [u for u in self._channels if u not in still_seated]:
            self._channels.pop(user_id, None)
            self._users.pop(user_id, None)

    def deal_started(self, table: LiveTable) -> None:
        self.hand_over_at.pop(table.id, None)
        for key in [k for k in self.notes if k[0] == table.id]:
            del self.notes[key]


def _keep(priority: int) -> int | None:
    """A watching seat's update leaves two of its DM's slots free: one for a turn, one more
    for a claim prompt."""
    return 2 if priority >= TABLE else None


def _holds(table: LiveTable, seat: int, user_id: int) -> bool:
    """Whether member ``user_id`` still holds the seat (leaving clears the player's id in
    place, so the id is what tells)."""
    player = table.player_at(seat)
    return player is not None and player.user_id == user_id


def _other_picture(drawn: Picture | None, content: SeatContent) -> bool:
    """Whether the picture drawn ahead is not the one ``content`` shows."""
    return drawn is not None and content.picture is not None and drawn.key != content.picture.key


def _lane(content: SeatContent) -> str:
    """The drawing pool's lane, as the request's level of the budget: a claim prompt's own
    lane, a turn or a hand's end the DM lane, a watching seat's update the table images'.
    (Watching seats' pictures in the DM lane, the pool's first, were a third of its work and
    kept claim prompts' pictures waiting 8-25 s at 50-100 tables on a loaded machine.)"""
    if content.prompt == "claim":
        return "claim"
    return "dm" if content.prompt is not None or content.finished else "table"
