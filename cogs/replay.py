"""``/mahjong replay``: watch a finished hand again, privately, frame by frame, from any seat.

Thin: the command and the viewer's controls parse what was pressed, ask
:class:`bot.service.replays.ReplayService` for the hand and the frame, have the bot's drawing
processes draw it (lane ``lookup``, behind every live table), and edit the member's own
ephemeral message through the interaction's token. Every answer is deferred first, so a hand
rebuilt or drawn slowly on a busy machine never misses Discord's 3 s.

The viewer's controls are ``DynamicItem``s whose custom ids carry everything (table, hand,
step, seat), so a viewer opened before a restart keeps working and the bot keeps no state
per viewer::

    mjr:<table>:<hand>:<step>:<seat>:<first|prev|next|last>    the buttons  ⏮ ◀ ▶ ⏭
    mjr:<table>:<hand>:<step>:seat                             "From the seat of" select

``<seat>`` is a physical seat 0-3, or 4 for the table as the channel saw it.

Who may see what: a replay code opens a hand for anyone on the server; a table number only
for a member who played there or can see its channel (:func:`_sees`, decided by
:func:`bot.service.replays.check_access`). The controls are not checked again: Discord
delivers a press only from the message that carries it, the member's own ephemeral answer.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.drawing import Superseded
from bot.i18n import FALLBACK, N_, _, answer_locale
from bot.i18n.moves import move_words
from bot.i18n.tiles import tile_words, wind_words
from bot.rules.tiles import WIND_NAMES
from bot.service.replays import MOVES, TABLE, HandReplay, ReplayError, Viewer
from cogs.common import GENERIC_FAILURE, picture_file, reply_error
from cogs.notify.words import win_words

log = logging.getLogger(__name__)

# The fully qualified emoji (with U+FE0F), as Discord's own picker sends them.
ARROWS = {
    "first": "\u23ee\ufe0f",
    "prev": "\u25c0\ufe0f",
    "next": "\u25b6\ufe0f",
    "last": "\u23ed\ufe0f",
}
LABELS = {"first": N_("First"), "prev": N_("Back"), "next": N_("Next"), "last": N_("Reveal")}
TABLE_LABEL = N_("The table (as the channel saw it)")


def custom_id(table: int, hand: int, step: int, seat: int, what: str) -> str:
    return f"mjr:{table}:{hand}:{step}:{seat}:{what}"


def _seat_label(replay: HandReplay, seat: int, locale: str) -> str:
    """ "alice (East)": the seat's player and wind at the deal, in ``locale``."""
    name, wind = next((n, w) for s, n, w in replay.seats() if s == seat)
    return _(locale, "{name} ({wind})", name=name, wind=wind_words(locale, WIND_NAMES.index(wind)))


def viewer_text(replay: HandReplay, step: int, seat: int, locale: str = FALLBACK) -> str:
    """The message above the picture, in the viewer's language: which hand, whose seat,
    where in the hand, what happened (the channel's own words for the move), and who won on
    the last frame."""
    index, count = replay.position(step, seat)
    at = replay.steps[step]
    if seat == TABLE:
        whose = _(locale, "the table, as the channel saw it")
    else:
        whose = _(locale, "the seat of {seat}", seat=_seat_label(replay, seat, locale))
    lines = [
        _(
            locale,
            "**Replay** · table {table} · hand {hand} · code `{code}`",
            table=replay.table_id,
            hand=replay.hand,
            code=replay.code,
        ),
        _(
            locale,
            "From {whose} · frame {number} of {count}",
            whose=whose,
            number=index + 1,
            count=count,
        ),
    ]
    if index == count - 1:
        lines.append(
            _(locale, "**Hand over.** {result}", result=win_words(replay.result, at.names, locale))
        )
    elif step == 0:
        lines.append("-# " + _(locale, "The deal."))
    elif at.words:
        lines += [f"-# {move_words(locale, line)}" for line in at.words.splitlines()[:3]]
    return "\n".join(lines)


def alt_text(replay: HandReplay, step: int, seat: int, locale: str = FALLBACK) -> str:
    frame = replay.frame(step, seat)
    if seat == TABLE:
        return _(locale, "The table at hand {hand}, as the channel saw it", hand=replay.hand)
    own = frame.view.seats[seat]
    tiles = list(own.concealed or ()) + ([own.drawn] if own.drawn is not None else [])
    named = ", ".join(tile_words(locale, t) for t in sorted(tiles))
    name = replay.steps[step].names[seat]
    return _(locale, "{name}'s hand: {tiles}", name=name, tiles=named)[:1000]


def viewer_controls(
    replay: HandReplay, step: int, seat: int, locale: str = FALLBACK
) -> discord.ui.View:
    """⏮ ◀ ▶ ⏭ (those leading nowhere disabled) and the "From the seat of" select, labelled
    in the viewer's language."""
    index, count = replay.position(step, seat)
    view = discord.ui.View(timeout=None)
    for move in MOVES:
        stuck = index == 0 if move in ("first", "prev") else index == count - 1
        # Each control in its dynamic item: discord.py keeps a sent view holding a plain one
        # under its message for good (every replay ever shown, in memory).
        view.add_item(
            ReplayButton(
                discord.ui.Button(
                    emoji=ARROWS[move],
                    label=_(locale, LABELS[move]),
                    style=discord.ButtonStyle.secondary,
                    custom_id=custom_id(replay.table_id, replay.hand, step, seat, move),
                    disabled=stuck,
                    row=0,
                )
            )
        )
    options = [
        discord.SelectOption(
            label=_seat_label(replay, s, locale)[:100], value=str(s), default=s == seat
        )
        for s, _name, _wind in replay.seats()
    ]
    options.append(
        discord.SelectOption(
            label=_(locale, TABLE_LABEL)[:100], value=str(TABLE), default=seat == TABLE
        )
    )
    view.add_item(
        ReplaySeat(
            discord.ui.Select(
                custom_id=f"mjr:{replay.table_id}:{replay.hand}:{step}:seat",
                placeholder=_(locale, "From the seat of")[:150],
                options=options,
                row=1,
            )
        )
    )
    return view


class ReplayCog(commands.Cog):
    """Adds ``replay`` to the ``/mahjong`` group (another cog's) and answers the viewers."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.command = app_commands.Command(
            name="replay",
            description="Watch a finished hand again, privately (default: your last one)",
            callback=_replay_command,
        )
        self._group: app_commands.Group | None = None

    @property
    def service(self) -> Any:
        return self.bot.services.replays

    async def cog_load(self) -> None:
        group = self.bot.tree.get_command("mahjong")
        if isinstance(group, app_commands.Group):
            group.add_command(self.command)
            self._group = group
        else:
            log.warning("no /mahjong group: /mahjong replay is not offered")
        self.bot.add_dynamic_items(ReplayButton, ReplaySeat)

    async def cog_unload(self) -> None:
        if self._group is not None:
            self._group.remove_command(self.command.name)
        self.bot.remove_dynamic_items(ReplayButton, ReplaySeat)

    async def open(
        self,
        interaction: discord.Interaction,
        table: int | None,
        hand: int | None,
        code: str | None,
    ) -> None:
        """The command: find the hand, then show its deal from the member's own seat (the
        table's view when they did not play it)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        guild_id = interaction.guild_id
        assert guild_id is not None
        if code:
            replay = await self.service.open_code(guild_id, code)
        elif table is not None:
            viewer = Viewer(interaction.user.id, lambda channel: _sees(interaction, channel))
            replay = await self.service.open(guild_id, table, hand, viewer=viewer)
        elif hand is not None:
            raise ReplayError(N_("Give the table as well as the hand (or a replay code)."))
        else:
            replay = await self.service.last_of(guild_id, interaction.user.id)
        seat = _seat_of(replay, interaction.user.id)
        await self.show(interaction, replay, 0, seat)

    async def show(
        self, interaction: discord.Interaction, replay: HandReplay, step: int, seat: int
    ) -> None:
        """Draw ``step`` from ``seat`` and put it, with the controls, in the member's message
        (the interaction was deferred), all in the member's language (a private answer)."""
        locale = answer_locale(interaction, private=True)
        player = seat == _seat_of(replay, interaction.user.id)
        frame = replay.frame(step, seat, player=player, locale=locale)
        try:
            png = await self.bot.drawing.draw(
                frame.kind,
                *frame.args,
                lane="lookup",
                key=("replay", interaction.user.id),
                **frame.kwargs,
            )
        except Superseded:
            return  # the member pressed again meanwhile: that press shows the newer frame
        picture = picture_file(png, "replay.png", alt_text(replay, step, seat, locale))
        await interaction.edit_original_response(
            content=viewer_text(replay, step, seat, locale),
            attachments=[picture],
            view=viewer_controls(replay, step, seat, locale),
        )

    async def press(self, interaction: discord.Interaction, fields: dict[str, str]) -> None:
        """A viewer control: the step it leads to, from the seat chosen."""
        await interaction.response.defer()
        replay = await self.service.open(
            interaction.guild_id, int(fields["table"]), int(fields["hand"])
        )
        step = replay.clamp(int(fields["step"]))
        if fields.get("move") is not None:
            seat = replay.check_seat(int(fields["seat"]))
            step = replay.go(step, seat, fields["move"])
        else:
            values = (interaction.data or {}).get("values") or [""]
            try:
                seat = replay.check_seat(int(values[0]))
            except ValueError:
                raise ReplayError(N_("Pick a seat from the list.")) from None
            # Stay at the same moment: the newest picture of the new seat up to this step.
            step = replay.stops(seat)[replay.position(step, seat)[0]]
        await self.show(interaction, replay, step, seat)


def _seat_of(replay: HandReplay, user_id: int) -> int:
    """The member's seat in the hand (also after they left it), else the table's view."""
    for seat, _name, _wind in replay.seats():
        index = replay.steps[0].state.seating.seats[seat]
        if index is not None and index < len(replay.seated) and replay.seated[index] == user_id:
            return seat
    return TABLE


def _sees(interaction: discord.Interaction, channel_id: int) -> bool:
    """Whether the member can see the channel or thread (discord.py's permissions: the
    server's roles and the channel's overwrites; a thread has its channel's). A channel no
    longer there is seen by nobody."""
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return False
    channel = guild.get_channel_or_thread(channel_id)
    if channel is None:
        return False
    return channel.permissions_for(member).view_channel


async def _answer(interaction: discord.Interaction, work: Any) -> None:
    """Run a command or a press; the member's mistakes and ours answered privately."""
    try:
        await work
    except ReplayError as exc:
        await reply_error(interaction, exc.text(answer_locale(interaction, private=True)))
    except Exception:
        log.exception("replay failed")
        await reply_error(interaction, GENERIC_FAILURE)


def _cog(interaction: discord.Interaction) -> ReplayCog:
    cog = interaction.client.get_cog("ReplayCog")  # type: ignore[attr-defined]
    assert isinstance(cog, ReplayCog)
    return cog


@app_commands.describe(
    table="The table's number (as its messages show it)",
    hand="The hand's number (default: the table's last finished hand)",
    code="A replay code someone shared, such as 3fa9c02b-2",
)
async def _replay_command(
    interaction: discord.Interaction,
    table: app_commands.Range[int, 1] | None = None,
    hand: app_commands.Range[int, 1, 9999] | None = None,
    code: app_commands.Range[str, 1, 80] | None = None,
) -> None:
    await _answer(interaction, _cog(interaction).open(interaction, table, hand, code))


class _ViewerControl:
    """What both viewer controls do: keep their custom id's fields and hand the press to the
    cog. A mixin, as discord.py's ``DynamicItem`` needs each subclass to name its template."""

    fields: dict[str, str]

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Any:
        control = cls(item)  # type: ignore[call-arg]
        control.fields = match.groupdict()
        return control

    async def callback(self, interaction: discord.Interaction) -> None:
        await _answer(interaction, _cog(interaction).press(interaction, self.fields))


class ReplayButton(
    _ViewerControl,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mjr:(?P<table>\d+):(?P<hand>\d+):(?P<step>\d+):(?P<seat>[0-4]):"
    r"(?P<move>first|prev|next|last)",
):
    """⏮ ◀ ▶ ⏭"""


class ReplaySeat(
    _ViewerControl,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"mjr:(?P<table>\d+):(?P<hand>\d+):(?P<step>\d+):seat",
):
    """The "From the seat of" menu."""


async def setup(bot: Any) -> None:
    await bot.add_cog(ReplayCog(bot))
