"""``/mahjong``: open a table, play it, and the buttons of the lobby and of each hand.

Thin: each handler parses the interaction, calls the TableService, and answers. A move is
answered only after the service committed it; refusals (a stale or foreign click, a second
click, an illegal move) get a short ephemeral message and change nothing.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import N_, _, guild_locale
from bot.permissions import PERMISSION_NAMES, missing_in, names_list
from bot.rules.options import OptionError, parse_option_text
from bot.rules.rulesets import RULESETS, HandError
from bot.service.tables import LiveTable, TableError, TableService
from cogs import controls
from cogs.common import handle_error, in_time, reply_error
from cogs.notify import DiscordTableNotifier

log = logging.getLogger(__name__)

NOT_BEGUN = N_("Use this in a table's thread or channel once its game has begun.")
RULE_CHOICES = [app_commands.Choice(name=name, value=name) for name in RULESETS]


async def _acknowledge(interaction: discord.Interaction) -> None:
    """Acknowledge a press with nothing to say, unless it already was: a press handed over
    from another process (bot/cluster/forwarding.py) arrives acknowledged there."""
    if not interaction.response.is_done():
        await interaction.response.defer()


def _can_manage(interaction: discord.Interaction) -> bool:
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_guild or perms.administrator))


THREAD_NEEDS = (
    PERMISSION_NAMES["create_public_threads"],
    PERMISSION_NAMES["send_messages_in_threads"],
)
# Buttons that change a seat's controls without a move: "Riichi…" and its "Cancel".
CHOICE_VERBS = ("riichi", "back")
THREAD_ARCHIVE_MINUTES = 10080  # a week: a table that waits on a slow player keeps its thread


def _place_for(interaction: discord.Interaction) -> tuple[bool, list[str]]:
    """Whether the table gets a thread of its own here, and what the bot lacks to run it.

    In a text channel where the bot may open public threads and post in them, the table plays
    in its own thread; inside a thread already it plays there; elsewhere (no thread
    permission, a voice channel's chat) it plays in the channel itself, needing only the
    channel permissions (bot/permissions.py: one list for the README, the invite and this)."""
    channel = interaction.channel
    perms = interaction.app_permissions
    in_thread = isinstance(channel, discord.Thread)
    missing = missing_in(perms, in_thread=in_thread)
    threadable = isinstance(channel, discord.TextChannel)
    thread = threadable and not any(name in missing for name in THREAD_NEEDS)
    if not thread:
        missing = [name for name in missing if name not in THREAD_NEEDS]
    return thread, missing


def limit_option(ruleset: str, limit: int) -> dict[str, Any]:
    """The option the ``limit`` field sets (singapore's is its ``maximum``). 0 means none,
    which only rules with a limit that may be off take: Pung Chow Part II always plays with
    one ("the limit hand", p.60; its game without one is Part I, the pung-chow rules) and
    Singapore with a maximum, so 0 there is refused rather than read as "the default"."""
    key = "maximum" if ruleset == "singapore" else "limit"
    if limit:
        return {key: limit}
    spec = next(s for s in RULESETS[ruleset].option_specs if s.name == key)
    if spec.allow_none:
        return {key: None}
    if key == "limit":
        raise OptionError(
            N_(
                "These rules always play with a limit (Pung Chow Part II, p.60), so limit 0 "
                "(none) is not one of them: give a limit of 10 or more, or leave it out for "
                "the book's (300; 400 with a Mah-Jongg bonus of 20). To play without a limit, "
                "choose the pung-chow rules."
            )
        )
    raise OptionError(
        N_(
            "These rules always play with a maximum, so 0 (none) is not one: give a maximum "
            "of 10 or more, or leave limit out for the default 2,000."
        )
    )


def thread_name(table: LiveTable) -> str:
    """The table's thread: its rule set and number, e.g. "pung-chow table 12"."""
    return f"{table.ruleset} table {table.id}"


def _display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


class TableCog(commands.GroupCog, group_name="mahjong", group_description="Play mahjong"):
    def __init__(self, bot: Any, service: TableService, notifier: DiscordTableNotifier) -> None:
        self.bot = bot
        self.service = service
        self.notifier = notifier
        self._told_no_threads: set[int] = set()  # channels told they get no threads
        super().__init__()

    async def cog_load(self) -> None:
        controls.HANDLERS.update(
            lobby=self.on_lobby, move=self.on_move, seat=self.on_seat, command=self.on_command
        )
        self.bot.add_dynamic_items(*controls.DYNAMIC_ITEMS)
        self.notifier.start_emoji_upload()

    async def cog_unload(self) -> None:
        for key in ("lobby", "move", "seat", "command"):
            controls.HANDLERS.pop(key, None)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await handle_error(interaction, error)

    # -- commands ----------------------------------------------------------------------------
    @app_commands.command(name="new", description="Open a mahjong table in this channel")
    @app_commands.guild_only()
    @app_commands.describe(
        rules="Rule set (default: the server's)",
        limit="The limit on a hand (0 for none)",
        flowers="Play with flowers and seasons",
        computer_players="Computer players to seat now (0-3)",
        turn_seconds="Seconds to discard (0: no timer)",
        claim_seconds="Seconds to claim a discard",
        hands="Number of hands (default: one set of four rounds)",
        sets="Number of sets of four rounds (instead of a number of hands)",
        options="More rule-set options as name=value, e.g. mahjong_bonus=20 (see /rules options)",
    )
    @app_commands.choices(rules=RULE_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction,
        rules: app_commands.Choice[str] | None = None,
        limit: app_commands.Range[int, 0, 100000] | None = None,
        flowers: bool | None = None,
        computer_players: app_commands.Range[int, 0, 3] = 0,
        turn_seconds: app_commands.Range[int, 0, 600] | None = None,
        claim_seconds: app_commands.Range[int, 5, 120] | None = None,
        hands: app_commands.Range[int, 1, 64] | None = None,
        sets: app_commands.Range[int, 1, 4] | None = None,
        options: app_commands.Range[str, 1, 300] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        defaults = await self.bot.services.guild_settings.get(interaction.guild_id)
        thread, missing = _place_for(interaction)
        if missing:
            await reply_error(
                interaction,
                f"I cannot run a table here: I need {names_list(missing)} in this channel. "
                "Ask someone who manages the server, or use another channel.",
            )
            return
        parent_id = getattr(interaction.channel, "parent_id", None)  # a thread's channel
        if not defaults.allows(interaction.channel_id, parent_id):
            channels = ", ".join(f"<#{c}>" for c in defaults.allowed_channels)
            await reply_error(interaction, f"Tables are opened in {channels} on this server.")
            return
        ruleset = rules.value if rules else defaults.ruleset
        chosen: dict[str, Any] = dict(defaults.options) if ruleset == defaults.ruleset else {}
        chosen.update(parse_option_text(options))
        if limit is not None:
            chosen.update(limit_option(ruleset, limit))
        if flowers is not None:
            chosen["flowers"] = flowers
        opening = self.service.open_table(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            host_id=interaction.user.id,
            host_name=_display_name(interaction.user),
            ruleset=ruleset,
            options=chosen,
            computer_players=computer_players,
            turn_seconds=defaults.turn_seconds if turn_seconds is None else turn_seconds,
            claim_seconds=defaults.claim_seconds if claim_seconds is None else claim_seconds,
            hands=hands,
            sets=sets,
            thread=thread,
        )
        table = await in_time(interaction, opening)
        embed = self.notifier.lobby_embed(table)
        view = controls.Controls.of(
            controls.lobby_view(table.id, locale=guild_locale(self.bot, table.guild_id))
        )
        try:
            if interaction.response.is_done():  # deferred: the lobby fills "thinking…"
                message: discord.Message = await interaction.edit_original_response(
                    embed=embed, view=view
                )
            else:
                await interaction.response.send_message(embed=embed, view=view)
                message = await interaction.original_response()
        except discord.HTTPException:
            # Nobody can see or join a lobby without its message: closed at once, so the
            # host's next /mahjong new is not refused for a table they never saw.
            await self.service.close_for(table, N_("its lobby message could not be posted"))
            raise
        await self._settle_place(table, message, interaction)

    async def _settle_place(
        self, table: LiveTable, message: discord.Message, interaction: discord.Interaction
    ) -> None:
        """Open the table's thread from its lobby message, or let it play in the channel."""
        if not table.thread_pending:
            await self.service.set_message(table.id, message.id)
            channel = interaction.channel
            if isinstance(channel, discord.TextChannel) and channel.id not in self._told_no_threads:
                self._told_no_threads.add(channel.id)
                await interaction.followup.send(
                    "I cannot open threads here, so this table plays in the channel (one table "
                    "at a time). Give me **Create Public Threads** and **Send Messages in "
                    "Threads** for a thread per table.",
                    ephemeral=True,
                )
            return
        # Stored first: a bot stopped before the thread is placed opens it on start-up.
        await self.service.set_summary_message(table.id, message.id)
        try:
            async with self.notifier.paced(message.channel.id):  # the global budget
                thread = await message.create_thread(
                    name=thread_name(table), auto_archive_duration=THREAD_ARCHIVE_MINUTES
                )
        except discord.HTTPException as exc:
            log.warning("table %s: could not open its thread (%s)", table.id, exc)
            await self.service.play_in_channel(table.id)
            await self.service.set_message(table.id, message.id)
            return
        await self.service.place_in_thread(table.id, thread.id, message.id)

    async def _on_table(self, interaction: discord.Interaction, verb: str) -> None:
        """A command about one table, run by the process running that table: handed to it
        when another process does (bot/cluster/forwarding.py wraps ``HANDLERS["command"]``)."""
        user = interaction.user.id
        table_id = await self.service.table_here(interaction.channel_id or 0, user)
        await controls.HANDLERS["command"](interaction, {"table": str(table_id), "verb": verb})

    async def on_command(self, interaction: discord.Interaction, groups: dict[str, str]) -> None:
        """``/mahjong hand|table|leave|end|verify`` on the table ``groups["table"]``, in the
        process running it (the interaction may come from another process, already answered
        with a deferral: its answers then go through the interaction's token)."""
        try:
            table = self.service.get(int(groups["table"]))
            await self._COMMANDS[groups["verb"]](self, interaction, table)
        except (TableError, HandError) as exc:
            await reply_error(interaction, str(exc))

    @app_commands.command(name="settings", description="Your own settings for every table")
    @app_commands.describe(
        pings="Your turns and claim prompts notify you (a new message, not a silent edit)",
        auto_pass_chows="Pass at once when a discard offers you only a chow",
        discard_drawn_on_timeout="When your turn runs out, discard the drawn tile (off: a "
        "computer player's choice of discard)",
    )
    async def settings(
        self,
        interaction: discord.Interaction,
        pings: bool | None = None,
        auto_pass_chows: bool | None = None,
        discard_drawn_on_timeout: bool | None = None,
    ) -> None:
        changes = {
            name: value
            for name, value in (
                ("pings", pings),
                ("auto_pass_chows", auto_pass_chows),
                ("discard_drawn_on_timeout", discard_drawn_on_timeout),
            )
            if value is not None
        }
        user = interaction.user.id
        if changes:
            chosen = await self.service.set_member_settings(user, **changes)
        else:
            chosen = self.service.member_settings(user)
        await interaction.response.send_message(
            member_settings_text(chosen, changed=bool(changes), locale=interaction.locale),
            ephemeral=True,
        )

    @app_commands.command(name="help", description="How to play here: DMs, buttons, timers")
    async def help(self, interaction: discord.Interaction) -> None:
        from cogs.help import help_embed

        await interaction.response.send_message(
            embed=help_embed(getattr(interaction, "locale", None)), ephemeral=True
        )

    @app_commands.command(
        name="verify", description="The wall's seeds, to check nobody arranged it"
    )
    async def verify(self, interaction: discord.Interaction) -> None:
        try:
            await self._on_table(interaction, "verify")
        except TableError:
            raise TableError(NOT_BEGUN) from None

    async def _verify(self, interaction: discord.Interaction, table: LiveTable) -> None:
        if table.state is None:
            raise TableError(NOT_BEGUN)
        await interaction.response.send_message(
            verify_text(table, getattr(interaction, "locale", None)), ephemeral=True
        )

    @app_commands.command(name="hand", description="Show your hand and controls (privately)")
    async def hand(self, interaction: discord.Interaction) -> None:
        await self._on_table(interaction, "hand")

    async def _show_hand(self, interaction: discord.Interaction, table: LiveTable) -> None:
        seat = table.seat_of_user(interaction.user.id)
        if table.state is None or seat is None:
            raise TableError(N_("You are not playing at this table."))
        await self.notifier.show_hand(interaction, table, seat)

    @app_commands.command(name="table", description="Post the table image again")
    async def table(self, interaction: discord.Interaction) -> None:
        await self._on_table(interaction, "table")

    async def _repost(self, interaction: discord.Interaction, table: LiveTable) -> None:
        if table.state is None:
            raise TableError(N_("The game has not started yet."))
        await interaction.response.send_message(
            _(interaction.locale, "Here is the table."), ephemeral=True
        )
        await self.notifier.repost_table(table)

    @app_commands.command(name="leave", description="Give your seat to a computer player")
    async def leave(self, interaction: discord.Interaction) -> None:
        await self._on_table(interaction, "leave")

    async def _leave(self, interaction: discord.Interaction, table: LiveTable) -> None:
        if table.status == "lobby":
            await self.service.unjoin(table.id, interaction.user.id)
            await reply_error(interaction, N_("You left the table."))
            return
        await self.service.leave(table.id, interaction.user.id)
        await reply_error(interaction, N_("You left the table; a computer player has your seat."))

    @app_commands.command(name="end", description="End the table (host or Manage Server)")
    async def end(self, interaction: discord.Interaction) -> None:
        await self._on_table(interaction, "end")

    async def _end(self, interaction: discord.Interaction, table: LiveTable) -> None:
        await self.service.end(table.id, interaction.user.id, _can_manage(interaction))
        await interaction.response.send_message(
            _(
                guild_locale(self.bot, interaction.guild_id),
                "The table is closed; finished hands stay settled.",
            )
        )

    _COMMANDS: ClassVar[dict[str, Any]] = {
        "hand": _show_hand,
        "table": _repost,
        "leave": _leave,
        "end": _end,
        "verify": _verify,
    }

    @app_commands.command(name="config", description="Server defaults (Manage Server)")
    @app_commands.guild_only()
    @app_commands.describe(
        rules="Default rule set for new tables",
        limit="Default limit (0: none; singapore: the maximum)",
        flowers="Play with flowers and seasons by default",
        starting_chips="Chips a member starts with (fixed at their first hand)",
        turn_seconds="Default seconds to discard (0: no timer)",
        claim_seconds="Default seconds to claim",
        allow_channel="Allow tables in this channel (the first one limits tables to the list)",
        remove_channel="Stop allowing tables in this channel",
        all_channels="Allow tables in every channel again",
        options="More default rule-set options as name=value, e.g. washing=no (see /rules options)",
        lobby_minutes="Minutes before a lobby nobody started expires",
        idle_minutes="Minutes a table may go on with no member playing before it ends",
        max_tables_per_member="Open tables a member may be at, at once",
        max_tables_per_channel="Open tables in one channel (with their threads), at once",
        max_tables_per_server="Open tables on this server, at once",
    )
    @app_commands.choices(rules=RULE_CHOICES)
    async def config(
        self,
        interaction: discord.Interaction,
        rules: app_commands.Choice[str] | None = None,
        limit: app_commands.Range[int, 0, 100000] | None = None,
        flowers: bool | None = None,
        starting_chips: app_commands.Range[int, 0, 10_000_000] | None = None,
        turn_seconds: app_commands.Range[int, 0, 600] | None = None,
        claim_seconds: app_commands.Range[int, 5, 120] | None = None,
        allow_channel: discord.TextChannel | None = None,
        remove_channel: discord.TextChannel | None = None,
        all_channels: bool | None = None,
        options: app_commands.Range[str, 1, 300] | None = None,
        lobby_minutes: app_commands.Range[int, 1, 10080] | None = None,
        idle_minutes: app_commands.Range[int, 1, 10080] | None = None,
        max_tables_per_member: app_commands.Range[int, 1, 1000] | None = None,
        max_tables_per_channel: app_commands.Range[int, 1, 1000] | None = None,
        max_tables_per_server: app_commands.Range[int, 1, 1000] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        service = self.bot.services.guild_settings
        current = await service.get(interaction.guild_id)
        changes: dict[str, Any] = {}
        if rules is not None:
            changes["ruleset"] = rules.value
        ruleset = changes.get("ruleset", current.ruleset)
        chosen: dict[str, Any] = dict(current.options) if ruleset == current.ruleset else {}
        chosen.update(parse_option_text(options))
        if limit is not None:
            chosen.update(limit_option(ruleset, limit))
        if flowers is not None:
            chosen["flowers"] = flowers
        if limit is not None or flowers is not None or options or "ruleset" in changes:
            changes["options"] = chosen
        for name, value in (
            ("starting_chips", starting_chips),
            ("turn_seconds", turn_seconds),
            ("claim_seconds", claim_seconds),
            ("lobby_minutes", lobby_minutes),
            ("idle_minutes", idle_minutes),
            ("max_tables_per_member", max_tables_per_member),
            ("max_tables_per_channel", max_tables_per_channel),
            ("max_tables_per_guild", max_tables_per_server),
        ):
            if value is not None:
                changes[name] = value
        channels = list(current.allowed_channels)
        if allow_channel is not None and allow_channel.id not in channels:
            channels.append(allow_channel.id)
        if remove_channel is not None and remove_channel.id in channels:
            channels.remove(remove_channel.id)
        if all_channels:
            channels = []
        if channels != list(current.allowed_channels):
            changes["allowed_channels"] = channels
        if changes and not _can_manage(interaction):
            raise TableError(N_("Changing the server's mahjong settings needs Manage Server."))
        settings = await service.update(interaction.guild_id, **changes) if changes else current
        await interaction.response.send_message(
            embed=settings_embed(settings, interaction.locale), ephemeral=True
        )

    # -- buttons -----------------------------------------------------------------------------
    async def on_lobby(self, interaction: discord.Interaction, groups: dict[str, str]) -> None:
        table_id, verb = int(groups["table"]), groups["verb"]
        user = interaction.user
        try:
            if verb == "join":
                await in_time(
                    interaction, self.service.join(table_id, user.id, _display_name(user))
                )
            elif verb == "leave":
                await in_time(interaction, self.service.unjoin(table_id, user.id))
            elif verb == "cpu":
                await in_time(interaction, self.service.add_computer(table_id, user.id))
            elif verb == "start":
                starting = self.service.start_game(table_id, user.id, _can_manage(interaction))
                await in_time(interaction, starting)
            elif verb == "cancel":
                # Asked privately, so nothing changes for the others until it is confirmed.
                self.service.check_can_cancel(table_id, user.id, _can_manage(interaction))
                await interaction.response.send_message(
                    _(interaction.locale, "Cancel this table for everyone?"),
                    view=controls.Controls(controls.cancel_view(table_id)),
                    ephemeral=True,
                )
                return
            elif verb == "cancel-yes":
                await self.service.cancel(table_id, user.id, _can_manage(interaction))
                await interaction.response.edit_message(
                    content=_(interaction.locale, "The table is cancelled."), view=None
                )
                return
            elif verb == "cancel-no":
                await interaction.response.edit_message(
                    content=_(interaction.locale, "The table stays open."), view=None
                )
                return
        except TableError as exc:
            await reply_error(interaction, str(exc))
            return
        await _acknowledge(interaction)

    async def on_move(self, interaction: discord.Interaction, groups: dict[str, str]) -> None:
        table_id, move = int(groups["table"]), int(groups["move"])
        if groups["verb"] in CHOICE_VERBS and groups.get("arg") is None:
            await self._riichi_choice(interaction, table_id, move, groups["verb"] == "riichi")
            return
        try:
            acting = self.service.act(
                table_id, interaction.user.id, groups["verb"], groups.get("arg"), move
            )
            await in_time(interaction, acting)
        except TableError as exc:
            if await self._answer_stale(interaction, table_id, move):
                return
            await reply_error(interaction, str(exc))
            return
        table = self.service.tables.get(table_id)
        seat = table.seat_of_user(interaction.user.id) if table is not None else None
        if table is None or seat is None or table.state is None:
            await _acknowledge(interaction)
            return
        await self.notifier.answer_click(interaction, table, seat)

    async def _riichi_choice(
        self, interaction: discord.Interaction, table_id: int, move: int, choosing: bool
    ) -> None:
        """ "Riichi…" / "Cancel": a change of the controls, not a move (nothing is stored)."""
        try:
            table = self.service.get(table_id)
        except TableError as exc:
            await reply_error(interaction, str(exc))
            return
        seat = table.seat_of_user(interaction.user.id)
        if table.state is None or seat is None:
            await reply_error(interaction, N_("You are not seated at this table."))
        elif move == table.controls_move:
            await self.notifier.show_riichi_choice(interaction, table, seat, choosing)
        elif not await self._answer_stale(interaction, table_id, move):
            await reply_error(
                interaction, N_("Those controls are from an earlier move; use the newest ones.")
            )

    async def _answer_stale(
        self, interaction: discord.Interaction, table_id: int, move: int
    ) -> bool:
        """A click on controls from an earlier move, while the seat has newer controls: the
        message it came from is brought up to date instead of refused (a double tap never
        meets "controls from an earlier move")."""
        table = self.service.tables.get(table_id)
        if table is None or table.state is None or move == table.controls_move:
            return False
        seat = table.seat_of_user(interaction.user.id)
        if seat is None or not self.service.legal_for(table, seat):
            return False
        await self.notifier.answer_click(interaction, table, seat)
        return True

    async def on_seat(self, interaction: discord.Interaction, groups: dict[str, str]) -> None:
        table_id, verb = int(groups["table"]), groups["verb"]
        try:
            if verb == "again":
                await self._play_again(interaction, table_id)
                return
            if verb == "back":
                await self.service.take_back(table_id, interaction.user.id)
                await _acknowledge(interaction)
            else:
                await self._show_hand(interaction, self.service.get(table_id))
        except TableError as exc:
            await reply_error(interaction, str(exc))

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Count what is posted below a table (see cogs.notify.channel)."""
        self.notifier.message_created(message)

    async def _play_again(self, interaction: discord.Interaction, table_id: int) -> None:
        """ "Play again": a new lobby where the last one was (its thread opened from it)."""
        table = await self.service.rematch(table_id, interaction.user.id)
        await _acknowledge(interaction)
        home = table.home_channel_id if table.home_channel_id is not None else table.channel_id
        channel = self.bot.get_channel(home) or self.bot.get_partial_messageable(home)
        message = await channel.send(
            embed=self.notifier.lobby_embed(table),
            view=controls.Controls.of(controls.lobby_view(table.id)),
        )
        await self._settle_place(table, message, interaction)
        await interaction.followup.send(
            f"A new table is open: {message.jump_url}. Press **Join** to sit down.",
            ephemeral=True,
        )


def member_settings_text(chosen: Any, *, changed: bool, locale: Any = None) -> str:
    """A member's own settings, privately in their language (the option names stay: they
    are what ``/mahjong settings`` takes)."""

    def word(on: bool) -> str:
        return _(locale, "on") if on else _(locale, "off")

    head = (
        _(locale, "Saved. Your settings for every table:")
        if changed
        else _(locale, "Your settings for every table:")
    )
    return "\n".join(
        (
            head,
            _(
                locale,
                "- pings: **{value}** (your turns and claim prompts notify you)",
                value=word(chosen.pings),
            ),
            _(
                locale,
                "- auto_pass_chows: **{value}** (a discard you could only chow is passed at once)",
                value=word(chosen.auto_pass_chows),
            ),
            _(
                locale,
                "- discard_drawn_on_timeout: **{value}** (when your turn runs out: the drawn "
                "tile, or else a computer player's choice)",
                value=word(chosen.discard_drawn_on_timeout),
            ),
            _(locale, "Change one with `/mahjong settings name:True|False`."),
        )
    )


def verify_text(table: LiveTable, locale: Any = None) -> str:
    """The seeds of a table: the hash of the hand in play (its seed is revealed when it
    ends) and each finished hand's seed beside its hash, with how to check them."""
    state = table.state
    assert state is not None
    lines = [
        _(locale, "**Table {table}**: each wall is shuffled from its hand's seed.", table=table.id)
    ]
    if state.seed_hash:
        lines.append(
            _(
                locale,
                "Hand in play: SHA-256 of its seed `{hash}` (seed after the hand)",
                hash=state.seed_hash,
            )
        )
    for result in state.results[-10:]:
        lines.append(
            _(
                locale,
                "Hand {number}: seed `{seed}`, SHA-256 `{hash}`",
                number=result.number,
                seed=result.seed,
                hash=result.seed_hash,
            )
        )
    lines.append(
        _(
            locale,
            "To check a finished hand: the SHA-256 of its seed text must be the hash shown while "
            "it was played, e.g. `printf %s SEED | sha256sum` (or any SHA-256 tool).",
        )
    )
    return "\n".join(lines)[:2000]


def settings_embed(settings: Any, locale: Any = None) -> discord.Embed:
    """The server's settings, answered privately: in the asker's language."""
    embed = discord.Embed(
        title=_(locale, "Mahjong settings for this server"), colour=discord.Colour.blue()
    )
    embed.add_field(name=_(locale, "Rule set"), value=settings.ruleset)
    options = ", ".join(f"{k}={v}" for k, v in settings.resolved_options().items())
    embed.add_field(name=_(locale, "Options"), value=options or _(locale, "defaults"), inline=False)
    embed.add_field(name=_(locale, "Starting chips"), value=str(settings.starting_chips))
    timer = (
        _(locale, "{seconds} s", seconds=settings.turn_seconds)
        if settings.turn_seconds
        else _(locale, "none")
    )
    embed.add_field(
        name=_(locale, "Timers"),
        value=_(locale, "turn {turn}, claim {claim} s", turn=timer, claim=settings.claim_seconds),
    )
    where = ", ".join(f"<#{c}>" for c in settings.allowed_channels) or _(locale, "every channel")
    embed.add_field(name=_(locale, "Tables allowed in"), value=where, inline=False)
    embed.add_field(
        name=_(locale, "How long tables live"),
        value=_(
            locale,
            "a lobby nobody starts: {lobby} min; a table with no member playing: {idle} min",
            lobby=settings.lobby_minutes,
            idle=settings.idle_minutes,
        ),
        inline=False,
    )
    embed.add_field(
        name=_(locale, "Open tables at once"),
        value=_(
            locale,
            "{member} per member, {channel} per channel, {server} on the server",
            member=settings.max_tables_per_member,
            channel=settings.max_tables_per_channel,
            server=settings.max_tables_per_guild,
        ),
        inline=False,
    )
    return embed


async def setup(bot: Any) -> None:
    service = bot.services.tables
    notifier = DiscordTableNotifier(bot, service, bot.drawing)
    service.notifier = notifier
    await bot.add_cog(TableCog(bot, service, notifier))
