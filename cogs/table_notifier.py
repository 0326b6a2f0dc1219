"""How a table shows itself on Discord: the channel's table message, each player's DM, the
reveal and the standings.

Every method only schedules work and returns at once, so a move is answered as soon as it is
committed. The channel's table image is edited in place, coalesced: however many moves happen,
at most one edit per ``min_edit_gap`` seconds, always of the newest state (Discord allows about
five edits per five seconds per channel). A player's DM is re-drawn the same way. A closed DM
(HTTP 403, code 50007) is told once in the channel with a "Show my hand" button, tried again
at the next deal, and never stalls the table. Views come only from :mod:`bot.service.privacy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import math
from collections import deque
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.drawing import Drawing
from bot.rules.analysis import ready_waits
from bot.rules.game import Discard
from bot.rules.tiles import WIND_NAMES, counts_of, tile_name
from bot.service.privacy import names_of, public_view, reveal_view, seat_view
from cogs.controls import describe_legal, move_controls, seat_button

if TYPE_CHECKING:
    from bot.rules.game.state import HandResult
    from bot.service.tables import LiveTable, TableService

log = logging.getLogger(__name__)

DM_CLOSED = 50007
LOG_LINES = 10


class DiscordTableNotifier:
    def __init__(self, bot: Any, service: TableService, drawing: Drawing | None = None) -> None:
        self.bot = bot
        self.service = service
        self.drawing = drawing or Drawing(processes=0)
        self.emojis: dict[int, discord.PartialEmoji] = {}
        self.min_edit_gap = 1.2
        self.dm_gap = 0.25
        self._logs: dict[int, deque[str]] = {}
        self._jobs: dict[Any, asyncio.Task[Any]] = {}
        self._dirty: set[Any] = set()
        self._last_edit: dict[Any, float] = {}
        self._dm_messages: dict[tuple[int, int], tuple[int, discord.Message]] = {}
        # (table, member) -> the deal their DMs were found closed in: tried again next deal.
        self._closed_dms: dict[tuple[int, int], int] = {}
        # What each table message and DM shows now, to skip edits that would change nothing
        # (an edit tells its reader that something happened: a seat answering a claim must
        # not show on the table or in other players' DMs).
        self._shown: dict[Any, Any] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._post_order: dict[int, asyncio.Lock] = {}

    async def upload_emojis(self) -> None:
        """Upload every tile as an application emoji once (skipping those already there), so
        buttons can show tile pictures; on any failure the buttons keep their text labels."""
        from renderer import emoji_name, render_tile_emoji

        try:
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
        self._spawn(self.upload_emojis(), "tile-emojis")

    # -- scheduling --------------------------------------------------------------------------
    def _spawn(self, coro: Any, name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _coalesce(self, key: Any, gap: float, work: Any) -> None:
        """Run ``work()`` soon, once, for the newest state, no more often than ``gap``."""
        self._dirty.add(key)
        job = self._jobs.get(key)
        if job is not None and not job.done():
            return

        async def runner() -> None:
            loop = asyncio.get_running_loop()
            while key in self._dirty:
                wait = self._last_edit.get(key, 0.0) + gap - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._dirty.discard(key)
                self._last_edit[key] = loop.time()
                try:
                    await work()
                except Exception:
                    log.exception("updating %s failed", key)

        self._jobs[key] = asyncio.create_task(runner(), name=f"notify-{key}")

    async def drain(self) -> None:
        """Wait for every scheduled update (used by tests and on shutdown)."""
        while True:
            pending = [t for t in (*self._jobs.values(), *self._tasks) if not t.done()]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    # -- the protocol the service calls ------------------------------------------------------
    async def lobby_changed(self, table: LiveTable) -> None:
        self._coalesce(("lobby", table.id), 0.0, lambda: self._edit_lobby(table))

    async def table_changed(self, table: LiveTable, line: str) -> None:
        lines = self._logs.setdefault(table.id, deque(maxlen=LOG_LINES))
        if line:
            lines.append(line)
        self._coalesce(("table", table.id), self.min_edit_gap, lambda: self._edit_table(table))

    async def table_notice(self, table: LiveTable, line: str) -> None:
        """A change of seat (a timeout, a player leaving): its own message in the channel, so
        it is not lost among the moves scrolling through the table's log."""
        await self.table_changed(table, line)
        self._spawn(self._in_order(table, self._channel(table).send(line)), f"notice-{table.id}")

    async def hand_changed(self, table: LiveTable, seat: int) -> None:
        self._coalesce(("hand", table.id, seat), self.dm_gap, lambda: self._send_hand(table, seat))

    async def hand_finished(self, table: LiveTable, result: HandResult) -> None:
        self._spawn(
            self._in_order(table, self._post_reveal(table, result)),
            f"reveal-{table.id}-{result.number}",
        )

    async def game_finished(self, table: LiveTable) -> None:
        self._spawn(self._in_order(table, self._post_standings(table)), f"standings-{table.id}")

    async def _in_order(self, table: LiveTable, post: Any) -> None:
        """Channel posts of a table go out in the order they were asked for (a reveal takes
        longer to draw than the standings that follow it)."""
        lock = self._post_order.setdefault(table.id, asyncio.Lock())
        async with lock:
            await post

    # -- the channel -------------------------------------------------------------------------
    def _channel(self, table: LiveTable) -> Any:
        return self.bot.get_channel(table.channel_id) or self.bot.get_partial_messageable(
            table.channel_id
        )

    def lobby_embed(self, table: LiveTable) -> discord.Embed:
        seats = "\n".join(
            f"{i + 1}. {p.name}{' (computer)' if p.computer else ''}"
            for i, p in enumerate(table.players)
        )
        status = {
            "lobby": "Join, add computer players, and the host starts the game.",
            "cancelled": "This table was cancelled.",
        }.get(table.status, "")
        embed = discord.Embed(
            title=f"Mahjong table: {table.ruleset}",
            description=f"{status}\n\n{seats or 'No one yet.'}",
            colour=discord.Colour.dark_green(),
        )
        options = ", ".join(f"{k}={v}" for k, v in table.options.items())
        timer = f"{table.turn_seconds}s a turn" if table.turn_seconds else "no turn timer"
        if table.hands:
            length = f"{table.hands} hands"
        elif table.sets and table.sets > 1:
            length = f"{table.sets} sets (four rounds each)"
        else:
            length = "one set (four rounds)"
        embed.add_field(name="Options", value=options or "defaults", inline=False)
        embed.add_field(name="Pace", value=f"{timer}, {table.claim_seconds}s to claim; {length}")
        embed.set_footer(text=f"Table {table.id}")
        return embed

    async def _edit_lobby(self, table: LiveTable) -> None:
        from cogs.controls import lobby_view

        if table.message_id is None:
            return
        message = self._channel(table).get_partial_message(table.message_id)
        closed = table.status != "lobby"
        if table.status == "playing":
            return
        await message.edit(embed=self.lobby_embed(table), view=lobby_view(table.id, closed=closed))

    def table_embed(self, table: LiveTable) -> discord.Embed:
        state = table.state
        assert state is not None
        wind = WIND_NAMES[state.round_wind]
        embed = discord.Embed(
            title=f"{table.ruleset}: {wind} round, hand {state.deal}",
            description="\n".join(self._logs.get(table.id, ())) or "The game begins.",
            colour=discord.Colour.dark_green(),
        )
        embed.set_image(url="attachment://table.png")
        embed.set_footer(
            text=f"Table {table.id} - wall seed SHA-256 {state.seed_hash} (revealed after the hand)"
        )
        return embed

    async def render_table_file(self, table: LiveTable) -> discord.File:
        view = public_view(table)
        names = names_of(table)
        png = await self.drawing.draw("table", view, names)
        return discord.File(io.BytesIO(png), "table.png", description=table_alt_text(view, names))

    async def _edit_table(self, table: LiveTable) -> None:
        if table.state is None:
            return
        file = await self.render_table_file(table)
        embed = self.table_embed(table)
        channel = self._channel(table)
        key = ("table", table.id)
        shown = (table.message_id, embed.to_dict(), _file_bytes(file), file.description)
        if table.message_id is not None:
            if self._shown.get(key) == shown:
                return
            try:
                await channel.get_partial_message(table.message_id).edit(
                    embed=embed, attachments=[file], view=None
                )
                self._shown[key] = shown
                return
            except discord.NotFound:
                pass
        message = await channel.send(embed=embed, file=file)
        table.message_id = message.id
        self._shown[key] = (message.id, *shown[1:])
        await self.service.store.set_message(table.id, message.id)

    async def repost_table(self, table: LiveTable) -> None:
        """Post the table image again at the bottom of the channel (``/mahjong table``)."""
        if table.state is None:
            return
        old = table.message_id
        table.message_id = None
        await self._edit_table(table)
        if old is not None:
            with contextlib.suppress(discord.HTTPException):
                await self._channel(table).get_partial_message(old).delete()

    async def _post_reveal(self, table: LiveTable, result: HandResult) -> None:
        view = reveal_view(table, result)
        names = names_of(table)
        png = await self.drawing.draw(
            "score_card",
            view,
            names,
            list(result.scores),
            list(result.payments),
            winner=result.winner,
            winning_tile=result.win.tile if result.win is not None else None,
        )
        embed = discord.Embed(
            title=f"Hand {result.number}: {_result_title(result, names)}",
            colour=discord.Colour.gold(),
        )
        for seat, score in enumerate(result.scores):
            if score is None or not names[seat]:
                continue
            lines = [
                f"{line.name}: {'x' + str(2**line.doubles) if line.doubles else line.points}"
                for line in score.lines[:12]
            ]
            if len(score.lines) > 12:  # the card above shows them all
                lines.append(f"... {len(score.lines) - 12} more on the card")
            value = "\n".join(lines) + f"\n**{score.total}**" if lines else "0"
            embed.add_field(name=names[seat], value=value[:1024], inline=True)
        paid = "\n".join(
            f"{names[p.payer]} pays {names[p.payee]} {p.amount}" for p in result.payments
        )
        embed.add_field(name="Payments", value=paid[:1024] or "No payments.", inline=False)
        embed.set_image(url="attachment://reveal.png")
        embed.set_footer(text=f"Wall seed {result.seed} (SHA-256 {result.seed_hash})")
        file = discord.File(
            io.BytesIO(png), "reveal.png", description=f"All hands of hand {result.number}"
        )
        await self._channel(table).send(embed=embed, file=file)

    async def _post_standings(self, table: LiveTable) -> None:
        state = table.state
        names = names_of(table) if state is not None else ()
        lines = []
        if state is not None:
            order = sorted(
                (s for s in range(4) if names[s]), key=lambda s: state.net[s], reverse=True
            )
            for rank, seat in enumerate(order, 1):
                lines.append(f"{rank}. {names[seat]}: {state.net[seat]:+d}")
        embed = discord.Embed(
            title="Final standings",
            description="\n".join(lines) or "The table closed before any hand was played.",
            colour=discord.Colour.blue(),
        )
        embed.set_footer(text=f"Table {table.id}; chips are in the server's ledger (/chips).")
        await self._channel(table).send(embed=embed)

    # -- a player's hand ---------------------------------------------------------------------
    def hand_content(self, table: LiveTable, seat: int) -> tuple[str, Any]:
        """The DM's words and controls for a seat, from that seat's own view."""
        seen = seat_view(table, seat)
        player = table.player_at(seat)
        legal = [] if player is None or player.away else self.service.legal_for(table, seat)
        status = describe_legal(legal)
        wind = WIND_NAMES[seen.seats[seat].wind]
        header = f"**Table {table.id}** ({table.ruleset}), you are {wind}. "
        if player is not None and player.away:
            text = header + "A computer player is keeping your seat warm."
        elif status:
            deadline = self.service.deadline(table, seat)
            # Discord shows <t:...:R> as a live countdown ("in 12 seconds") in each reader's
            # client; the timer itself runs out at the same moment.
            timer = f" Time runs out <t:{math.ceil(deadline)}:R>." if deadline else ""
            last = ""
            if seen.phase == "claim" and seen.last_discard is not None:
                who, tile = seen.last_discard
                last = f" {names_of(table)[who]} discarded {tile_name(tile)}."
            text = header + f"Your move: {status}.{last}{timer}"
        else:
            text = header + "Waiting for the other players."
        controls = move_controls(
            table.id,
            table.controls_move,
            legal,
            self.emojis,
            away=bool(player and player.away),
        )
        return text, controls

    async def render_hand_file(self, table: LiveTable, seat: int) -> discord.File:
        view = seat_view(table, seat)
        marks = ready_discards(view)
        png = await self.drawing.draw("hand", view, marks=marks)
        own = view.seats[seat]
        tiles = list(own.concealed or ()) + ([own.drawn] if own.drawn is not None else [])
        alt = "Your hand: " + ", ".join(tile_name(t) for t in sorted(tiles))
        return discord.File(io.BytesIO(png), "hand.png", description=alt[:1000])

    async def _send_hand(self, table: LiveTable, seat: int) -> None:
        state = table.state
        player = table.player_at(seat)
        if state is None or player is None or player.user_id is None:
            return
        key = (table.id, seat)
        closed_in = self._closed_dms.get((table.id, player.user_id))
        if closed_in == state.deal:
            return
        text, controls = self.hand_content(table, seat)
        file = await self.render_hand_file(table, seat)
        existing = self._dm_messages.get(key)
        shown = (text, _controls_shown(controls), _file_bytes(file), file.description)
        try:
            if existing is not None and existing[0] == state.deal:
                if self._shown.get(("hand", key)) == (existing[1].id, shown):
                    return
                await existing[1].edit(content=text, attachments=[file], view=controls)
                self._shown[("hand", key)] = (existing[1].id, shown)
                return
            user = self.bot.get_user(player.user_id) or await self.bot.fetch_user(player.user_id)
            message = await user.send(content=text, file=file, view=controls)
            self._dm_messages[key] = (state.deal, message)
            self._shown[("hand", key)] = (message.id, shown)
        except discord.Forbidden as exc:
            if exc.code != DM_CLOSED:
                raise
            self._closed_dms[(table.id, player.user_id)] = state.deal
            if closed_in is not None:
                return  # told already; still closed
            view = discord.ui.View(timeout=None)
            view.add_item(seat_button(table.id, "hand", "Show my hand"))
            await self._channel(table).send(
                f"<@{player.user_id}>, I cannot send you direct messages (your DMs are closed). "
                "Press **Show my hand** or use `/mahjong hand` to see your tiles and play; "
                "the table goes on.",
                view=view,
                allowed_mentions=discord.AllowedMentions(users=True),
            )
        except discord.NotFound:
            self._dm_messages.pop(key, None)


def _file_bytes(file: discord.File) -> bytes:
    fp = file.fp
    return fp.getvalue() if isinstance(fp, io.BytesIO) else b""


def _controls_shown(view: discord.ui.View | None) -> list[tuple[Any, ...]]:
    if view is None:
        return []
    return [
        (getattr(item, "custom_id", None), getattr(item, "label", None), str(item.emoji or ""))
        for item in (getattr(child, "item", child) for child in view.children)
    ]


def ready_discards(view: Any) -> frozenset[int]:
    """The tiles whose discard leaves the viewer's hand ready (marked on the hand image)."""
    own = view.seats[view.viewer]
    if own.concealed is None:
        return frozenset()
    tiles = list(own.concealed) + ([own.drawn] if own.drawn is not None else [])
    if len(tiles) % 3 != 2:
        return frozenset()
    counts = counts_of(tiles)
    marks = set()
    for tile in set(tiles):
        counts[tile] -= 1
        if ready_waits(counts):
            marks.add(tile)
        counts[tile] += 1
    return frozenset(marks)


def table_alt_text(view: Any, names: tuple[str, ...]) -> str:
    """The table image described in words, from the public view only."""
    parts = []
    for s in view.seats:
        if not s.occupied:
            continue
        wind = WIND_NAMES[s.wind]
        melds = len(s.melds)
        parts.append(
            f"{wind} {names[s.seat]}: {s.concealed_count} tiles in hand, {melds} sets shown, "
            f"{len(s.discards)} discards"
        )
    return ("Table: " + "; ".join(parts) + f"; {view.wall_remaining} tiles in the wall.")[:1000]


def _result_title(result: HandResult, names: tuple[str, ...]) -> str:
    if result.winner is not None:
        return f"{names[result.winner]} wins"
    if result.kind == "washing":
        return "the tiles are washed"
    return "drawn hand"


def can_discard(legal: list[Any]) -> bool:
    return any(isinstance(a, Discard) for a in legal)
