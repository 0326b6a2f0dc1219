"""``/mahjong``: open a table, play it, and the buttons of the lobby and of each hand.

Thin: each handler parses the interaction, calls the TableService, and answers. A move is
answered only after the service committed it; refusals (a stale or foreign click, a second
click, an illegal move) get a short ephemeral message and change nothing.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import N_, _, guild_locale
from bot.rules.options import OptionError, parse_option_text
from bot.rules.rulesets import RULESETS, HandError
from bot.service.guild_settings import SettingsError
from bot.service.tables import LiveTable, TableError, TableService
from cogs import controls
from cogs.notify import DiscordTableNotifier

log = logging.getLogger(__name__)

RULE_CHOICES = [app_commands.Choice(name=name, value=name) for name in RULESETS]


async def _refuse(interaction: discord.Interaction, text: str) -> None:
    """A short private answer that changes nothing, in the member's language (a refusal
    marked for the catalogue is translated; one built with numbers in it stays English)."""
    text = _(interaction.locale, text)
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


def _can_manage(interaction: discord.Interaction) -> bool:
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_guild or perms.administrator))


def _missing_permissions(interaction: discord.Interaction) -> list[str]:
    """What the bot lacks in the channel to show a table: without these the lobby would
    answer, then the table image and the log could never be posted or edited."""
    perms = interaction.app_permissions
    in_thread = isinstance(interaction.channel, discord.Thread)
    needed = (
        ("view_channel", "View Channel"),
        ("send_messages_in_threads" if in_thread else "send_messages", "Send Messages"),
        ("embed_links", "Embed Links"),
        ("attach_files", "Attach Files"),
        ("read_message_history", "Read Message History"),
    )
    return [label for name, label in needed if not getattr(perms, name, False)]


def _display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


class TableCog(commands.GroupCog, group_name="mahjong", group_description="Play mahjong"):
    def __init__(self, bot: Any, service: TableService, notifier: DiscordTableNotifier) -> None:
        self.bot = bot
        self.service = service
        self.notifier = notifier
        super().__init__()

    async def cog_load(self) -> None:
        controls.HANDLERS.update(lobby=self.on_lobby, move=self.on_move, seat=self.on_seat)
        self.bot.add_dynamic_items(*controls.DYNAMIC_ITEMS)
        self.notifier.start_emoji_upload()

    async def cog_unload(self) -> None:
        for key in ("lobby", "move", "seat"):
            controls.HANDLERS.pop(key, None)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        original = getattr(error, "original", error)
        if isinstance(original, TableError | HandError | OptionError | SettingsError):
            await _refuse(interaction, str(original))
            return
        log.error("command failed", exc_info=original)
        await _refuse(interaction, "Something went wrong; the table is unchanged.")

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
        missing = _missing_permissions(interaction)
        if missing:
            await _refuse(
                interaction,
                "I cannot run a table here: I need "
                + ", ".join(f"**{name}**" for name in missing)
                + " in this channel. Ask someone who manages the server, or use another channel.",
            )
            return
        parent_id = getattr(interaction.channel, "parent_id", None)  # a thread's channel
        if not defaults.allows(interaction.channel_id, parent_id):
            channels = ", ".join(f"<#{c}>" for c in defaults.allowed_channels)
            await _refuse(interaction, f"Tables are opened in {channels} on this server.")
            return
        ruleset = rules.value if rules else defaults.ruleset
        chosen: dict[str, Any] = dict(defaults.options) if ruleset == defaults.ruleset else {}
        chosen.update(parse_option_text(options))
        if limit is not None and ruleset != "singapore":
            chosen["limit"] = limit or None
        elif limit is not None:
            chosen["maximum"] = limit or 2000
        if flowers is not None:
            chosen["flowers"] = flowers
        table = await self.service.open_table(
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
        )
        await interaction.response.send_message(
            embed=self.notifier.lobby_embed(table),
            view=controls.lobby_view(table.id, locale=guild_locale(self.bot, table.guild_id)),
        )
        message = await interaction.original_response()
        table.message_id = message.id
        await self.service.store.set_message(table.id, message.id)

    def _table_here(self, interaction: discord.Interaction) -> LiveTable:
        table = self.service.in_channel(interaction.channel_id or 0)
        if table is None:
            mine = self.service.tables_of_user(interaction.user.id)
            if len(mine) == 1:
                return mine[0]
            raise TableError(N_("There is no table in this channel."))
        return table

    @app_commands.command(name="hand", description="Show your hand and controls (privately)")
    async def hand(self, interaction: discord.Interaction) -> None:
        table = self._table_here(interaction)
        await self._show_hand(interaction, table)

    async def _show_hand(self, interaction: discord.Interaction, table: LiveTable) -> None:
        seat = table.seat_of_user(interaction.user.id)
        if table.state is None or seat is None:
            raise TableError(N_("You are not playing at this table."))
        await self.notifier.show_hand(interaction, table, seat)

    @app_commands.command(name="table", description="Post the table image again")
    async def table(self, interaction: discord.Interaction) -> None:
        table = self._table_here(interaction)
        if table.state is None:
            raise TableError(N_("The game has not started yet."))
        await interaction.response.send_message(
            _(interaction.locale, "Here is the table."), ephemeral=True
        )
        await self.notifier.repost_table(table)

    @app_commands.command(name="leave", description="Give your seat to a computer player")
    async def leave(self, interaction: discord.Interaction) -> None:
        table = self._table_here(interaction)
        if table.status == "lobby":
            await self.service.unjoin(table.id, interaction.user.id)
            await _refuse(interaction, "You left the table.")
            return
        await self.service.leave(table.id, interaction.user.id)
        await _refuse(interaction, "You left the table; a computer player has your seat.")

    @app_commands.command(name="end", description="End the table (host or Manage Server)")
    async def end(self, interaction: discord.Interaction) -> None:
        table = self._table_here(interaction)
        await self.service.end(table.id, interaction.user.id, _can_manage(interaction))
        await interaction.response.send_message("The table is closed; finished hands stay settled.")

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
            key = "maximum" if ruleset == "singapore" else "limit"
            chosen[key] = (limit or None) if key == "limit" else (limit or 2000)
        if flowers is not None:
            chosen["flowers"] = flowers
        if limit is not None or flowers is not None or options or "ruleset" in changes:
            changes["options"] = chosen
        for name, value in (
            ("starting_chips", starting_chips),
            ("turn_seconds", turn_seconds),
            ("claim_seconds", claim_seconds),
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
        await interaction.response.send_message(embed=settings_embed(settings), ephemeral=True)

    # -- buttons -----------------------------------------------------------------------------
    async def on_lobby(self, interaction: discord.Interaction, groups: dict[str, str]) -> None:
        table_id, verb = int(groups["table"]), groups["verb"]
        user = interaction.user
        try:
            if verb == "join":
                await self.service.join(table_id, user.id, _display_name(user))
            elif verb == "leave":
                await self.service.unjoin(table_id, user.id)
            elif verb == "cpu":
                await self.service.add_computer(table_id, user.id)
            elif verb == "start":
                await self.service.start_game(table_id, user.id, _can_manage(interaction))
            elif verb == "cancel":
                # Cancel asks first: the lobby's buttons become "Yes, cancel" / "No, keep it".
                await self._confirm_cancel(interaction, table_id, asked=True)
                return
            elif verb == "cancel-no":
                await self._confirm_cancel(interaction, table_id, asked=False)
                return
            elif verb == "cancel-yes":
                await self.service.cancel(table_id, user.id, _can_manage(interaction))
        except TableError as exc:
            await _refuse(interaction, str(exc))
            return
        await interaction.response.defer()

    async def _confirm_cancel(
        self, interaction: discord.Interaction, table_id: int, *, asked: bool
    ) -> None:
        table = self.service.get(table_id)
        if table.status != "lobby":
            raise TableError(N_("This table is not in its lobby any more."))
        if table.host_id != interaction.user.id and not _can_manage(interaction):
            raise TableError(
                N_("Only the host (or someone with Manage Server) can cancel the table.")
            )
        self.notifier.ask_cancel(table, asked)
        await interaction.response.edit_message(
            embed=self.notifier.lobby_embed(table),
            view=controls.lobby_view(
                table_id, confirm_cancel=asked, locale=guild_locale(self.bot, table.guild_id)
            ),
        )

    async def on_move(self, interaction: discord.Interaction, groups: dict[str, str]) -> None:
        table_id, move = int(groups["table"]), int(groups["move"])
        try:
            await self.service.act(
                table_id, interaction.user.id, groups["verb"], groups.get("arg"), move
            )
        except TableError as exc:
            if await self._answer_stale(interaction, table_id, move):
                return
            await _refuse(interaction, str(exc))
            return
        table = self.service.tables.get(table_id)
        seat = table.seat_of_user(interaction.user.id) if table is not None else None
        if table is None or seat is None or table.state is None:
            await interaction.response.defer()
            return
        await self.notifier.answer_click(interaction, table, seat)

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
            if verb == "back":
                await self.service.take_back(table_id, interaction.user.id)
                await interaction.response.defer()
            elif verb == "again":
                rematch = getattr(self.service, "rematch", None)
                if rematch is None:
                    raise TableError(N_("Play again is not available yet; use /mahjong new."))
                await rematch(table_id, interaction.user.id)
                await interaction.response.defer()
            else:
                await self._show_hand(interaction, self.service.get(table_id))
        except TableError as exc:
            await _refuse(interaction, str(exc))

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Count what is posted below a table (see cogs.notify.channel)."""
        self.notifier.message_created(message)


def settings_embed(settings: Any) -> discord.Embed:
    embed = discord.Embed(title="Mahjong settings for this server", colour=discord.Colour.blue())
    embed.add_field(name="Rule set", value=settings.ruleset)
    options = ", ".join(f"{k}={v}" for k, v in settings.resolved_options().items())
    embed.add_field(name="Options", value=options or "defaults", inline=False)
    embed.add_field(name="Starting chips", value=str(settings.starting_chips))
    timer = f"{settings.turn_seconds} s" if settings.turn_seconds else "none"
    embed.add_field(name="Timers", value=f"turn {timer}, claim {settings.claim_seconds} s")
    where = ", ".join(f"<#{c}>" for c in settings.allowed_channels) or "every channel"
    embed.add_field(name="Tables allowed in", value=where, inline=False)
    return embed


async def setup(bot: Any) -> None:
    service = bot.services.tables
    notifier = DiscordTableNotifier(bot, service, bot.drawing)
    service.notifier = notifier
    await bot.add_cog(TableCog(bot, service, notifier))
