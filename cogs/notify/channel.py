"""What a table shows in its channels: the summary message in the home channel (the lobby,
then one line of state, then the standings in one line), and in the table's thread (or the
channel itself when there is no thread) the live table image, the reveals, the notices and the
final standings.

**The table stays at the bottom.** Every message created in the table's channel after the
table message (a reveal, a notice, members chatting; seen as MESSAGE_CREATE, which needs no
Message Content intent) is counted; the next table update then posts the table anew and
deletes the old one, at most once per deal or once per ``repost_after`` messages, so a busy
chat does not turn into a stream of reposts.

**Faults.** A post that fails with Unknown Channel (404, 10003) tells the service the channel
is lost; Missing Access / Missing Permissions (403, 50001 / 50013) tells it a permission is
lost. Either way nothing more is sent there (no request storm: the number of failed requests
is bounded, not growing with time) until the service resumes the table. While the table is
paused nothing is sent to its channel.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import _, guild_locale
from bot.permissions import missing_in
from bot.service.privacy import names_of, public_view, reveal_view
from cogs.common import picture_file
from cogs.controls import Controls, lobby_view, table_view
from cogs.notify.let_go import LetGo
from cogs.notify.pacing import LOW, NORMAL, TABLE, Pacer, Turn
from cogs.notify.pictures import Pictures
from cogs.notify.seat import Picture, controls_shown
from cogs.notify.words import (
    lobby_embed,
    reveal_embed,
    standings_embed,
    summary_line,
    table_alt_text,
    table_embed,
)

if TYPE_CHECKING:
    from bot.rules.game.state import HandResult
    from bot.service.tables import LiveTable, TableService

log = logging.getLogger(__name__)

LOG_LINES = 10
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013


class ChannelLost(Exception):
    """The table's channel is gone or closed to the bot: stop sending there."""


class TableChannel:
    def __init__(
        self,
        bot: Any,
        service: TableService,
        pictures: Pictures,
        pacer: Pacer,
        let_go: LetGo | None = None,
    ) -> None:
        self.bot = bot
        self.let_go = let_go if let_go is not None else LetGo()  # closed, let go of: silent
        self.service = service
        self.pictures = pictures
        self.pacer = pacer
        self.min_edit_gap = 1.2
        self.repost_after = 5
        self.logs: dict[int, deque[str]] = {}
        self._shown: dict[tuple[str, int], Any] = {}
        self._sent_png: dict[int, bytes] = {}  # table -> the picture its message shows
        self._below: dict[int, int] = {}  # table -> messages created below its table message
        self._reposted_deal: dict[int, int] = {}
        # table -> the deal of each post below it asked for and not yet sent (a reveal
        # drawing): a picture of a later deal goes below them, not above.
        self.posts_pending: dict[int, list[int]] = {}
        self._lost: set[int] = set()  # tables whose channel failed: send nothing more
        self._own: set[int] = set()  # ids of our own posts, counted when sent
        self.failed_requests = 0

    # -- where ---------------------------------------------------------------------------------
    def _channel(self, channel_id: int) -> Any:
        return self.bot.get_channel(channel_id) or self.bot.get_partial_messageable(channel_id)

    def _summary_place(self, table: LiveTable) -> tuple[int, int | None]:
        """(channel, message) of the table's message in its home channel."""
        home = getattr(table, "home_channel_id", None)
        if home is not None:
            return home, getattr(table, "summary_message_id", None)
        return table.channel_id, getattr(table, "summary_message_id", None) or (
            table.message_id if table.status in ("lobby", "cancelled") else None
        )

    def silent(self, table: LiveTable, *, summary: bool = False) -> bool:
        """Whether nothing may be sent for the table: its channel failed, or it is paused.
        The home channel's summary line is still edited while paused (it says so), unless a
        request there failed too: at most one failed request, never a stream."""
        if table.id in self._lost:
            return True
        if table.id in self.let_go and not summary:
            return True  # closed and let go of: its last picture went long ago
        return bool(getattr(table, "paused", False)) and not summary

    async def _request(
        self,
        table: LiveTable,
        channel_id: int,
        priority: int,
        call: Any,
        route: str = "send",
        *,
        summary: bool = False,
        spread: bool = False,
        turn: Turn | None = None,
    ) -> Any:
        """One request for a table's channel: paced (in ``turn``, when the caller was
        granted it already), and a lost channel told to the service."""
        if self.silent(table, summary=summary):
            raise ChannelLost
        try:
            if turn is not None:
                try:
                    return await call()
                finally:
                    # Answered: counted from now, not held while what follows a failure
                    # (posting the table anew, telling the service) waits for turns of its own.
                    self.pacer.answered(turn)
            async with self.pacer.request(
                ("channel", channel_id), priority, route=route, spread=spread
            ):
                if self.silent(table, summary=summary):
                    raise ChannelLost
                return await call()
        except discord.NotFound as exc:
            if exc.code == UNKNOWN_CHANNEL:
                await self._lose(table, "channel", f"channel {channel_id} is gone")
                raise ChannelLost from exc
            raise
        except discord.Forbidden as exc:
            if exc.code in (MISSING_ACCESS, MISSING_PERMISSIONS):
                await self._lose(
                    table,
                    "permissions",
                    f"{exc.text} in channel {channel_id}",
                    self._missing(channel_id, exc.code),
                )
                raise ChannelLost from exc
            raise

    def _missing(self, channel_id: int, code: int) -> list[str]:
        """What the bot lacks in the channel, by name (from the gateway's cached overwrites
        and roles); Discord's error code when the cache cannot tell."""
        channel = self.bot.get_channel(channel_id)
        guild = getattr(channel, "guild", None)
        if channel is not None and guild is not None and guild.me is not None:
            missing = missing_in(
                channel.permissions_for(guild.me), in_thread=isinstance(channel, discord.Thread)
            )
            if missing:
                return missing
        return ["View Channel"] if code == MISSING_ACCESS else ["a permission the table needs"]

    async def _lose(
        self, table: LiveTable, what: str, reason: str, missing: list[str] | None = None
    ) -> None:
        self.failed_requests += 1
        if table.id in self._lost:
            return
        self._lost.add(table.id)
        log.warning("table %s: %s lost (%s); sending nothing more there", table.id, what, reason)
        if what == "channel":
            hook = getattr(self.service, "channel_lost", None)
            if hook is not None:
                await hook(table.id, reason)
        else:
            hook = getattr(self.service, "permissions_lost", None)
            if hook is not None:
                await hook(table.id, missing or [reason])

    def resumed(self, table: LiveTable) -> None:
        self._lost.discard(table.id)

    def locale(self, table: LiveTable) -> str:
        """The server's language: everything in a table's channel is public."""
        return guild_locale(self.bot, table.guild_id)

    # -- MESSAGE_CREATE ------------------------------------------------------------------------
    def message_created(self, table: LiveTable, message: discord.Message) -> None:
        if message.id == table.message_id or message.id in self._own:
            self._own.discard(message.id)
            return
        if message.author.id == getattr(self.bot.user, "id", None) and any(
            a.filename == "table.png" for a in message.attachments
        ):
            return  # the table message itself, seen before its id was known
        self._below[table.id] = self._below.get(table.id, 0) + 1

    # -- the lobby and the summary -------------------------------------------------------------
    async def lobby_changed(self, table: LiveTable) -> None:
        channel_id, message_id = self._summary_place(table)
        if message_id is None:
            return
        if table.status == "lobby" or (table.status == "cancelled" and table.state is None):
            embed = lobby_embed(table, self.locale(table))
            view = Controls.of(
                lobby_view(table.id, closed=table.status != "lobby", locale=self.locale(table))
            )
            await self._edit_summary(table, channel_id, message_id, embed=embed, view=view)
        else:
            await self.summary_changed(table)

    async def summary_changed(self, table: LiveTable) -> None:
        """The home channel's one line for a playing or finished table (threads only: with
        no thread the table message itself is the table's message in the channel)."""
        home = getattr(table, "home_channel_id", None)
        message_id = getattr(table, "summary_message_id", None)
        if home is None or message_id is None:
            return
        link = f"<#{table.channel_id}>"
        await self._edit_summary(
            table,
            home,
            message_id,
            content=summary_line(table, link, self.locale(table)),
            embed=None,
            view=None,
        )

    async def _edit_summary(
        self, table: LiveTable, channel_id: int, message_id: int, **kw: Any
    ) -> None:
        shown = (
            message_id,
            kw.get("content"),
            kw["embed"].to_dict() if kw.get("embed") else None,
            controls_shown(kw.get("view")),
        )
        key = ("summary", table.id)
        before = self._shown.get(key)
        if before == shown:
            return
        # Claimed before the request waits in the pacer: a second call with the same line
        # meanwhile sends nothing (it sent the same edit twice once the pacer held requests
        # longer); given back if this one is not sent.
        self._shown[key] = shown
        message = self._channel(channel_id).get_partial_message(message_id)
        sent = False
        try:
            with contextlib.suppress(ChannelLost):
                await self._request(
                    table, channel_id, LOW, lambda: message.edit(**kw), "edit", summary=True
                )
                sent = True
        finally:
            if not sent and self._shown.get(key) == shown:
                self._shown[key] = before
            if table.id in self.let_go:
                self._shown.pop(key, None)  # its last line, sent after the table was let go

    # -- the table message ---------------------------------------------------------------------
    def log_line(self, table: LiveTable, line: str) -> None:
        lines = self.logs.setdefault(table.id, deque(maxlen=LOG_LINES))
        if line:
            lines.append(line)

    def table_picture(self, table: LiveTable) -> Picture:
        view = public_view(table)
        names = names_of(table)
        locale = self.locale(table)
        key = ("table", view, locale)
        alt = table_alt_text(view, names, locale)
        return Picture("table", (view, names), {"locale": locale}, key, "table.png", alt)

    async def until_editable(self, table: LiveTable) -> None:
        """Wait until the table's message may be edited (its channel's spread-out turn), less
        the time a table picture takes to draw now: the turn ``show_table`` then waits for
        in the global budget, drawing the newest state as it nears, comes with the picture
        drawn (see ``Pacer.until_ready``)."""
        if table.message_id is None or self.silent(table):
            return
        await self.pacer.until_ready(
            ("channel", table.channel_id),
            TABLE,
            route="edit",
            spread=True,
            ahead=self.pictures.expected("table"),
        )

    async def show_table(
        self,
        table: LiveTable,
        answered: Callable[[], Awaitable[None]] | None = None,
    ) -> bool:
        """Wait for the table message's turn in the global budget, drawing the table as it
        stands when the turn is about a drawing's time away, and edit the message in that
        turn (given back if nothing changed). Drawn first and then held for the turn
        (seconds at 200 tables, where the table images share what the global budget
        leaves), the picture had missed every move made meanwhile, and those waited for the
        next edit: table staleness p50 6-7 s with each table edited every 5.4 s. Drawn in
        the turn, holding it, the budget went unused while pictures drew: 37 edits a second
        fell to 28 (``benchmarks/bot.py``, 200 tables at a member's pace). Drawn as the turn
        nears (``Pacer.request(prepare=...)``), neither.

        ``answered``: awaited before the edit's picture is drawn, its place kept meanwhile
        (the computer players' answers to a move, ``cogs.notify.bursts``).

        Returns False when a post asked for meanwhile (the reveal of the hand that just
        ended) must go first: shown now, the next deal would come above its reveal. The
        caller asks again; the post, waiting in the channel's order, goes meanwhile."""
        if self._post_first(table):
            return False
        if table.message_id is None or self.silent(table) or self._repost_due(table):
            drawn = await self._draw_when_answered(table, answered)
            await self.update_table(table, drawn=drawn)
            return True
        with contextlib.suppress(ChannelLost):
            async with self.pacer.request(
                ("channel", table.channel_id),
                TABLE,
                route="edit",
                spread=True,
                prepare=functools.partial(self._draw_when_answered, table, answered),
                ahead=lambda: self.pictures.expected("table"),
            ) as turn:
                drawn = turn.prepared
                if self._post_first(table):
                    self.pacer.give_back(turn, keep_place=True)
                    return False
                if drawn is None:
                    self.pacer.give_back(turn)
                    return True
                await self.update_table(table, drawn=drawn, turn=turn)
        return True

    async def _draw_when_answered(
        self, table: LiveTable, answered: Callable[[], Awaitable[None]] | None
    ) -> tuple[Picture, bytes] | None:
        if answered is not None:
            await answered()
        return await self.draw_table(table)

    def _post_first(self, table: LiveTable) -> bool:
        """Whether a post asked for in an earlier deal than the table's (the reveal of the
        hand that just ended, the next deal dealt meanwhile) is still to go: the table's
        picture waits for it, so the new deal comes below its reveal. A picture of the same
        deal need not wait: the post goes below the table message, and the next deal's
        picture is posted anew below it. (Waiting for every post, the table missed the
        last moves of every hand while its reveal drew: seconds at 200 tables.)"""
        deals = self.posts_pending.get(table.id)
        state = table.state
        return bool(deals) and state is not None and min(deals) < state.deal

    def _repost_due(self, table: LiveTable, force: bool = False) -> bool:
        """Whether the table's next update posts it anew below the posts under it (at most
        once a deal, or once ``repost_after`` posts piled up)."""
        below = self._below.get(table.id, 0)
        state = table.state
        return force or (
            below > 0
            and state is not None
            and (self._reposted_deal.get(table.id) != state.deal or below >= self.repost_after)
        )

    async def draw_table(self, table: LiveTable) -> tuple[Picture, bytes] | None:
        """The table's picture as it stands when the drawing pool starts on it, and its PNG
        (see ``Pictures.newest``), for ``update_table`` to send."""

        def newest() -> Picture | None:
            if table.state is None or self.silent(table):
                return None
            return self.table_picture(table)

        return await self.pictures.newest(newest, lane="table", owner=("table", table.id))

    async def update_table(
        self,
        table: LiveTable,
        *,
        force_repost: bool = False,
        drawn: tuple[Picture, bytes] | None = None,
        turn: Turn | None = None,
    ) -> None:
        """Show the table in its message: ``drawn`` (from ``draw_table``; the table may have
        moved on since, and the move that did so brings the next update), else its picture
        now; post it anew when it is deleted, or below the posts under it. ``turn``: an edit
        turn the caller holds (given back unless the edit went in it)."""
        try:
            await self._update_table(table, force_repost, drawn, turn)
        finally:
            if turn is not None:
                self.pacer.give_back(turn)  # nothing if the edit went in it

    async def _update_table(
        self,
        table: LiveTable,
        force_repost: bool,
        drawn: tuple[Picture, bytes] | None,
        turn: Turn | None,
    ) -> None:
        state = table.state
        if state is None or self.silent(table):
            return
        picture = drawn[0] if drawn is not None else self.table_picture(table)
        locale = self.locale(table)
        embed = table_embed(table, list(self.logs.get(table.id, ())), locale)
        again = table.status == "finished"
        view = None if again else Controls(table_view(table.id, locale=locale))
        shown = (embed.to_dict(), picture.key, controls_shown(view))
        repost = self._repost_due(table, force_repost)
        message_id = table.message_id
        if (
            message_id is not None
            and not repost
            and self._shown.get(("table", table.id))
            == (
                message_id,
                shown,
            )
        ):
            return
        channel = self._channel(table.channel_id)
        owner = ("table", table.id)
        try:
            png = (
                drawn[1]
                if drawn is not None
                else await self.pictures.drawn(picture, lane="table", owner=owner)
            )
            if message_id is not None and not repost:
                kwargs: dict[str, Any] = {"embed": embed, "view": view}
                previous = self._shown.get(("table", table.id))
                if previous is None or previous[1][1] != picture.key:
                    if self._sent_png.get(table.id) != png:
                        kwargs["attachments"] = [self.pictures.attachment(picture, png)]
                    elif previous is not None and previous[1][::2] == shown[::2]:
                        # A change the picture does not show (a pass in a claim window): the
                        # same picture, words and buttons; an edit would change nothing.
                        self._shown[("table", table.id)] = (message_id, shown)
                        return
                message = channel.get_partial_message(message_id)
                try:
                    await self._request(
                        table,
                        table.channel_id,
                        TABLE,
                        lambda: message.edit(**kwargs),
                        "edit",
                        spread=True,
                        turn=turn,
                    )
                    self._shown[("table", table.id)] = (message_id, shown)
                    self._sent_png[table.id] = png
                    return
                except discord.NotFound:
                    pass  # deleted by someone: post it anew
            if turn is not None:
                self.pacer.give_back(turn)  # not held while the post waits for its own
            kwargs = {"embed": embed, "file": self.pictures.attachment(picture, png)}
            if view is not None:
                kwargs["view"] = view
            sent = await self._request(
                table, table.channel_id, NORMAL, lambda: channel.send(**kwargs)
            )
        except ChannelLost:
            return
        table.message_id = sent.id
        self._shown[("table", table.id)] = (sent.id, shown)
        self._sent_png[table.id] = png
        self._below[table.id] = 0
        self._reposted_deal[table.id] = state.deal
        await self._remember_message(table, sent.id)
        if message_id is not None:
            old = channel.get_partial_message(message_id)
            with contextlib.suppress(ChannelLost, discord.NotFound):
                await self._request(table, table.channel_id, LOW, old.delete, "delete")

    async def _remember_message(self, table: LiveTable, message_id: int) -> None:
        setter = getattr(self.service, "set_message", None)
        if setter is not None:
            await setter(table.id, message_id)
        else:
            await self.service.store.set_message(table.id, message_id)

    # -- posts -----------------------------------------------------------------------------------
    async def post(self, table: LiveTable, **kwargs: Any) -> discord.Message | None:
        """A message below the table (a reveal, a notice, the standings): counted at once, so
        the next table update brings the table back below it (its MESSAGE_CREATE, which may
        come later, is not counted twice)."""
        channel = self._channel(table.channel_id)
        try:
            sent = await self._request(
                table, table.channel_id, NORMAL, lambda: channel.send(**kwargs)
            )
        except ChannelLost:
            return None
        self._below[table.id] = self._below.get(table.id, 0) + 1
        self._own.add(sent.id)
        if len(self._own) > 1000:
            self._own.clear()
        return sent

    async def post_reveal(self, table: LiveTable, result: HandResult) -> None:
        view = reveal_view(table, result)
        names = names_of(table)
        png = await self.pictures.png(
            "score_card",
            view,
            names,
            list(result.scores),
            list(result.payments),
            lane="reveal",
            winner=result.winner,
            winning_tile=result.win.tile if result.win is not None else None,
            locale=self.locale(table),
        )

        alt = _(self.locale(table), "All hands of hand {number}", number=result.number)
        file = picture_file(png, "reveal.png", alt)
        await self.post(table, embed=reveal_embed(table, result, self.locale(table)), file=file)

    async def post_standings(self, table: LiveTable) -> None:
        again = getattr(self.service, "rematch", None) is not None and table.state is not None
        locale = self.locale(table)
        kwargs: dict[str, Any] = {"embed": standings_embed(table, locale)}
        if again:
            kwargs["view"] = Controls(table_view(table.id, again=True, locale=locale))
        await self.post(table, **kwargs)

    def archive_thread(self, table: LiveTable) -> None:
        """A closed table's own thread is archived once its last post went: it leaves the
        server's list of active threads (Discord allows 1,000 per server, and a table's
        thread would otherwise stay active for the week of its auto-archive), and discord.py
        drops it from its cache (memory that grew with every table played). It stays
        readable, and a member who writes in it takes it out of the archive. Nothing is
        sent to a channel the table lost."""
        thread_id = table.thread_id
        if thread_id is None or table.id in self._lost:
            return
        thread = self.bot.get_channel(thread_id)
        if not isinstance(thread, discord.Thread) or thread.archived or thread.locked:
            return
        self.pacer.spawn(self._archive(table, thread), f"archive-{table.id}")

    async def _archive(self, table: LiveTable, thread: discord.Thread) -> None:
        try:
            async with self.pacer.request(("channel", thread.id), LOW, route="edit"):
                await thread.edit(archived=True)
        except discord.HTTPException as exc:
            log.info("table %s: its thread stays unarchived (%s)", table.id, exc)

    def release(self, table_id: int) -> None:
        self._lost.discard(table_id)  # silent from now on anyway: it was let go of
        self.logs.pop(table_id, None)
        self._below.pop(table_id, None)
        self._reposted_deal.pop(table_id, None)
        self._shown.pop(("table", table_id), None)
        self._sent_png.pop(table_id, None)
        self._shown.pop(("summary", table_id), None)
        self.posts_pending.pop(table_id, None)
