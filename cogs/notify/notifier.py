"""The table service's notifier on Discord: it is told what changed and schedules what members
see, through one :class:`~cogs.notify.pacing.Pacer` (newest state only, within Discord's
budgets). Every method returns at once, so a move is answered as soon as it is committed.

Who does what: :mod:`cogs.notify.channel` the home channel's summary and the table's thread
(or channel), :mod:`cogs.notify.dm` each member's DM, :mod:`cogs.notify.private_hand` the
private "My hand", :mod:`cogs.notify.seat` what one seat may see (from
:mod:`bot.service.privacy` only), :mod:`cogs.notify.words` the words of it all.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
import discord

from bot.drawing import Drawing
from bot.i18n import N_, _, member_locale
from bot.rules.game.actions import CLAIMED, WON
from cogs.notify.bursts import BurstHold
from cogs.notify.channel import TableChannel
from cogs.notify.dm import SeatDMs
from cogs.notify.let_go import LetGo
from cogs.notify.pacing import NORMAL, Pacer
from cogs.notify.pictures import Pictures
from cogs.notify.private_hand import PrivateHands
from cogs.notify.words import lobby_embed

if TYPE_CHECKING:
    from bot.rules.game.state import HandResult
    from bot.service.tables import LiveTable, TableService

log = logging.getLogger(__name__)

EMOJI_WAITS, EMOJI_WAIT_SECONDS = 12, 5.0  # a process waiting for another's emoji upload
T = TypeVar("T")
# How long a table's picture may wait for its computer players' answers, in their delays:
# two answer a member's discard (their claims' passes come with them).
HOLD_DELAYS = 2.5
CLAIM_WORDS = {"chow": "Chow", "pung": "Pung", "kong": "Kong", "mahjong": "Mah-Jongg"}


def _claim_word(text: str) -> str:
    """ "bob pungs 5 Bamboo" -> "Pung" (the engine's own words for a claim)."""
    for verb, word in (("chows", "Chow"), ("pungs", "Pung"), ("kongs", "Kong")):
        if f" {verb} " in f" {text} ":
            return word
    return "claim"


CLAIM_NAMES = (N_("claim"), N_("Chow"), N_("Pung"), N_("Kong"), N_("Mah-Jongg"))  # catalogued


class DiscordTableNotifier:
    def __init__(self, bot: Any, service: TableService, drawing: Drawing | None = None) -> None:
        self.bot = bot
        self.service = service
        self.drawing = drawing or Drawing(processes=0)
        self.emojis: dict[int, discord.PartialEmoji] = {}
        self.pacer = Pacer()
        self.let_go = LetGo()
        self.pictures = Pictures(self.drawing, self.let_go)
        self.channel = TableChannel(bot, service, self.pictures, self.pacer, self.let_go)
        self.dms = SeatDMs(
            bot, service, self.pictures, self.pacer, self.emojis, self._tell_closed, self.let_go
        )
        self.private = PrivateHands(self.pictures, self.pacer, self.dms)
        self._posts: dict[int, asyncio.Lock] = {}
        self._deals: dict[int, int] = {}
        self._claims: dict[tuple[int, int], tuple[int, int, str]] = {}
        self.bursts = BurstHold()
        self.release_after = 60.0  # seconds after a table closes before its state is let go

    # The speed knobs the tests turn (seconds between two updates of one message).
    @property
    def min_edit_gap(self) -> float:
        return self.channel.min_edit_gap

    @min_edit_gap.setter
    def min_edit_gap(self, value: float) -> None:
        self.channel.min_edit_gap = value

    @property
    def dm_gap(self) -> float:
        return self.dms.gap

    @dm_gap.setter
    def dm_gap(self, value: float) -> None:
        self.dms.gap = value
        self.private.gap = value

    # -- start-up ------------------------------------------------------------------------------
    async def upload_emojis(self) -> None:
        """Upload every tile as an application emoji once (skipping those already there), so
        buttons can show tile pictures; on any failure the buttons keep their text labels."""
        from renderer import emoji_name, render_tile_emoji

        try:
            existing = {e.name: e for e in await self.bot.fetch_application_emojis()}
            # Several processes of one bot (shards, docs/scaling.md): the one running shard 0
            # uploads, the others wait for its emojis (uploading too, they would race for
            # the names).
            for _ in range(EMOJI_WAITS if not getattr(self.bot, "uploads_emojis", True) else 0):
                if all(emoji_name(tile) in existing for tile in range(42)):
                    break
                await asyncio.sleep(EMOJI_WAIT_SECONDS)
                existing = {e.name: e for e in await self.bot.fetch_application_emojis()}
            for tile in range(42):
                name = emoji_name(tile)
                emoji = existing.get(name)
                if emoji is None:
                    png = await asyncio.to_thread(render_tile_emoji, tile)
                    emoji = await self.bot.create_application_emoji(name=name, image=png)
                self.emojis[tile] = discord.PartialEmoji(name=emoji.name, id=emoji.id)
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            log.warning("could not upload the tile emojis; buttons show text labels", exc_info=True)

    def start_emoji_upload(self) -> None:
        self.pacer.spawn(self.upload_emojis(), "tile-emojis")

    def paced(self, channel_id: int, priority: int = NORMAL) -> AbstractAsyncContextManager[None]:
        """``async with notifier.paced(channel_id):`` around a request the cogs make to a
        table's channel themselves (opening a table's thread): it waits its turn in the same
        global budget as every update (it went around it: one request per table opened)."""
        return self.pacer.request(("channel", channel_id), priority)

    async def drain(self) -> None:
        """Wait for every scheduled update (used by tests and on shutdown)."""
        await self.pacer.drain()

    # -- the protocol the service calls --------------------------------------------------------
    async def lobby_changed(self, table: LiveTable) -> None:
        self.pacer.coalesce(("lobby", table.id), lambda: self.channel.lobby_changed(table))

    async def table_changed(self, table: LiveTable, line: str) -> None:
        self.channel.log_line(table, line)
        if self._claims:
            self._claims_settled(table)
        state = table.state
        if state is not None and self._deals.get(table.id) != state.deal:
            if table.id in self._deals:
                self.dms.deal_started(table)
            self._deals[table.id] = state.deal
            self.pacer.coalesce(("summary", table.id), lambda: self.channel.summary_changed(table))
        self._table_soon(table)

    def _table_soon(self, table: LiveTable) -> None:
        self.bursts.moved(table.id)
        self.pacer.coalesce(
            ("table", table.id), lambda: self._table_now(table), gap=self.channel.min_edit_gap
        )

    async def _table_now(self, table: LiveTable) -> None:
        """Wait for the channel's own turn to edit, then take the table's place in the
        channel's order, and there its turn in the global budget, in which the picture is
        drawn and sent (``TableChannel.show_table``). Drawn in its turn, and made when the
        drawing pool starts on it (not when asked), the picture shows every move made until
        then. While the budget is short, the computer players' answers to a move are waited
        for before drawing (``BurstHold``): one edit shows them all. That wait is part of
        preparing the picture, so the table keeps its place in the queue meanwhile (waited
        for before queueing, each table went a whole round later at 200 tables: p99 13-14 s
        against 8-9 s)."""
        answered = functools.partial(
            self.bursts.until_answered,
            table.id,
            longest=HOLD_DELAYS * self.service.computer_delay,
            answering=lambda: self.service.moves_itself_next(table),
            pressed=self.pacer.pressed,
        )
        await self.channel.until_editable(table)
        if not await self._in_order(table, self.channel.show_table(table, answered)):
            self._table_soon(table)  # after the posts that went first

    async def table_notice(self, table: LiveTable, line: str) -> None:
        """A change of seat (a timeout, a player leaving): its own message in the channel, so
        it is not lost among the moves scrolling through the table's log."""
        await self.table_changed(table, line)
        self._post_soon(table, self.channel.post(table, content=line), f"notice-{table.id}")

    async def hand_changed(self, table: LiveTable, seat: int) -> None:
        self.dms.changed(table, seat)
        self.private.changed(table, seat)

    async def hand_finished(self, table: LiveTable, result: HandResult) -> None:
        self.dms.hand_over_at[table.id] = time.time()
        self._post_soon(
            table,
            self.channel.post_reveal(table, result),
            f"reveal-{table.id}-{result.number}",
            deal=result.number,  # its hand's deal (settled late, the next may be dealt)
        )

    async def game_finished(self, table: LiveTable) -> None:
        self.pacer.spawn(self._finish_game(table), f"standings-{table.id}")

    async def _finish_game(self, table: LiveTable) -> None:
        await self._in_order(table, self.channel.post_standings(table))
        self.pacer.coalesce(("summary", table.id), lambda: self.channel.summary_changed(table))
        self._table_soon(table)
        for seat in range(4):
            player = table.player_at(seat) if table.state is not None else None
            if player is not None and player.user_id is not None:
                self.dms.changed(table, seat)
                self.private.changed(table, seat)
        self._release_later(table)

    async def table_closed(self, table: LiveTable, reason: str) -> None:
        """The table ended for a reason other than its normal end."""
        self.pacer.spawn(self._close(table, reason), f"closed-{table.id}")

    async def _close(self, table: LiveTable, reason: str) -> None:
        await self.dms.close_table(table, reason)
        await self.channel.lobby_changed(table)
        self._release_later(table)

    async def table_paused(self, table: LiveTable, missing: list[str]) -> None:
        self.pacer.coalesce(("summary", table.id), lambda: self.channel.summary_changed(table))
        host = table.host_id
        text = _(
            member_locale(self.bot, host, table.guild_id),
            "Table {table} is paused: I am missing {permissions} in {channel}. It goes on by "
            "itself once that is given back.",
            table=table.id,
            permissions=", ".join(f"**{m}**" for m in missing),
            channel=f"<#{table.channel_id}>",
        )
        self.pacer.spawn(self._tell_host(host, text), f"paused-{table.id}")

    async def table_resumed(self, table: LiveTable) -> None:
        self.channel.resumed(table)
        self.pacer.coalesce(("summary", table.id), lambda: self.channel.summary_changed(table))
        self._table_soon(table)

    def _claim_answered(
        self, interaction: discord.Interaction, table: LiveTable, seat: int
    ) -> None:
        """Remember a claim the seat just made, to tell it later if another claim beat it."""
        custom_id = str((interaction.data or {}).get("custom_id", ""))
        parts = custom_id.split(":")
        verb = parts[3] if len(parts) > 3 else ""
        state = table.state
        if verb in CLAIM_WORDS and state is not None and state.phase == "claim":
            self._claims[(table.id, seat)] = (state.deal, table.controls_move, CLAIM_WORDS[verb])

    def _claims_settled(self, table: LiveTable) -> None:
        """A claim window that closed on someone else's claim: the seats whose claim it beat
        are told what beat it (in their DM's next words)."""
        state = table.state
        if state is None:
            return
        for (table_id, seat), (deal, move, what) in list(self._claims.items()):
            if table_id != table.id:
                continue
            if state.deal == deal and state.phase == "claim" and table.controls_move == move:
                continue  # still open
            del self._claims[(table_id, seat)]
            for event in state.events:
                if event.kind in (CLAIMED, WON) and event.seat is not None and event.seat != seat:
                    beat = "Mah-Jongg" if event.kind == WON else _claim_word(event.text)
                    self.pacer.spawn(
                        self.claim_beaten(table, seat, event.seat, beat, mine=what),
                        f"claim-beaten-{table.id}-{seat}",
                    )
                    break

    async def claim_beaten(
        self, table: LiveTable, seat: int, by_seat: int, what: str, *, mine: str = "claim"
    ) -> None:
        """The seat's claim lost to another seat's: its DM says what beat it."""
        from bot.service.privacy import names_of

        name = names_of(table)[by_seat]
        locale = self.dms.locale(table, seat)
        self.dms.notes[(table.id, seat)] = _(
            locale,
            "Your {mine} lost to {name}'s {what}.",
            mine=_(locale, mine),
            name=name,
            what=_(locale, what),
        )
        self.dms.changed(table, seat)
        self.private.changed(table, seat)

    # -- the cog's calls -----------------------------------------------------------------------
    def lobby_embed(self, table: LiveTable) -> discord.Embed:
        return lobby_embed(table, self.channel.locale(table))

    async def answer_click(
        self, interaction: discord.Interaction, table: LiveTable, seat: int
    ) -> None:
        """Answer a move click by updating the message it came from with the seat's newest
        picture and controls (deferred first, so the answer never waits on a drawing)."""
        if not interaction.response.is_done():
            await interaction.response.defer()
        self._claim_answered(interaction, table, seat)
        message = interaction.message
        if message is not None and message.flags.ephemeral:
            await self.private.answer(interaction, table, seat)
        else:
            await self.dms.answer(interaction, table, seat)

    async def show_riichi_choice(
        self, interaction: discord.Interaction, table: LiveTable, seat: int, choosing: bool
    ) -> None:
        """ "Riichi…" (``choosing``) or "Cancel" pressed: the message that was clicked shows
        the seat's controls asking which tile to discard with Riichi, or its usual controls
        again. Answered in the interaction's callback (outside the global budget); the
        picture stays. The next update of the seat shows its usual controls."""
        content = self.dms.content(table, seat, choosing_riichi=choosing)
        await interaction.response.edit_message(content=content.content, view=content.view)

    async def show_hand(
        self, interaction: discord.Interaction, table: LiveTable, seat: int
    ) -> None:
        """ "My hand" / ``/mahjong hand``: the private, live hand."""
        await self.private.open(interaction, table, seat)

    async def repost_table(self, table: LiveTable) -> None:
        """Post the table image again at the bottom of the channel (``/mahjong table``)."""
        await self._in_order(table, self.channel.update_table(table, force_repost=True))

    def message_created(self, message: discord.Message) -> None:
        channel_id = getattr(message.channel, "id", None)
        if channel_id is None:
            return
        table = self.service.in_channel(channel_id)
        if table is not None and table.state is not None:
            self.channel.message_created(table, message)

    # -- helpers -------------------------------------------------------------------------------
    def _post_soon(self, table: LiveTable, post: Any, name: str, deal: int | None = None) -> None:
        """A post below the table, in the channel's order, told to the channel meanwhile: a
        table update whose turn comes while it waits lets it go first (see
        ``TableChannel.show_table``)."""
        pending = self.channel.posts_pending
        if deal is None:
            deal = table.state.deal if table.state is not None else 0
        pending.setdefault(table.id, []).append(deal)

        async def post_then_count() -> None:
            try:
                await self._in_order(table, post)
            finally:
                deals = pending.get(table.id, [])  # none once the table was let go of
                if deal in deals:
                    deals.remove(deal)
                if not deals:
                    pending.pop(table.id, None)

        self.pacer.spawn(post_then_count(), name)

    async def _in_order(self, table: LiveTable, post: Awaitable[T]) -> T:
        """Channel posts of a table go out in the order they were asked for (a reveal takes
        longer to draw than the standings that follow it); ``post``'s result."""
        lock = self._posts.setdefault(table.id, asyncio.Lock())
        async with lock:
            return await post

    async def _tell_closed(self, table: LiveTable, user_id: int) -> None:
        from cogs.controls import seat_button

        locale = self.channel.locale(table)  # a channel post: the server's language
        view = discord.ui.View(timeout=None)
        view.add_item(seat_button(table.id, "hand", _(locale, "Show my hand")))
        await self._in_order(
            table,
            self.channel.post(
                table,
                content=_(
                    locale,
                    "{member}, I cannot send you direct messages (your DMs are closed). "
                    "Press **Show my hand** (or **My hand** on the table) to see your tiles and "
                    "play privately here; the table goes on.",
                    member=f"<@{user_id}>",
                ),
                view=view,
                allowed_mentions=discord.AllowedMentions(users=True),
            ),
        )

    async def _tell_host(self, user_id: int, text: str) -> None:
        try:
            channel = await self.dms._dm_channel(user_id)
            async with self.pacer.request(("dm", user_id)):
                await channel.send(text)
        except discord.HTTPException as exc:
            log.warning("could not tell the host %s: %s", user_id, exc)

    def _release_later(self, table: LiveTable) -> None:
        """Release a closed table's state and cached pictures once its last updates went
        (a timer, not a task: waiting for it is nobody's business)."""
        asyncio.get_running_loop().call_later(self.release_after, self._release, table)

    def _release(self, table: LiveTable) -> None:
        if table.status in ("lobby", "playing"):
            return
        self.let_go.add(table.id)
        tables = getattr(self.service, "tables", {})
        still = {p.user_id for t in tables.values() if t is not table for p in t.players}
        self.dms.release(table.id, still)
        self.private.release(table.id)
        self.channel.archive_thread(table)
        self.channel.release(table.id)
        self.pictures.forget(table.id)
        self.bursts.forget(table.id)
        # Deletes of its replaced prompts still waiting a minute after it closed wait for a
        # budget the open tables use up: dropped, not kept waiting all evening.
        self.pacer.forget(("dm-delete", table.id), running=True)
        for kind in ("dm", "private"):
            self.pacer.forget((kind, table.id))  # updates not begun: nothing to show any more
        self._posts.pop(table.id, None)
        self._deals.pop(table.id, None)
