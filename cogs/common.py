"""What the cogs share: short private error replies, embeds, permission checks, names,
pictures as attachments.

A mistake of the user's (a bad hand, an unknown rule set, a click that is not theirs) reaches
them as a short ephemeral message and changes nothing; anything else is logged with its
traceback and answered with a generic line, so the user is never left with "The application
did not respond".
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Iterable, Mapping
from typing import TypeVar

import discord
from discord import app_commands

from bot.i18n import N_
from bot.i18n.refusals import refusal_words
from bot.rules.options import OptionError
from bot.rules.rulesets import HandError
from bot.rules.table_score import RequestError
from bot.rules.tiles import NotationError
from bot.service.guild_settings import SettingsError
from bot.service.ledger import LedgerError
from bot.service.scoring import ScoringError
from bot.service.tables import TableError

log = logging.getLogger(__name__)

# Errors whose message is written for the user.
USER_ERRORS: tuple[type[Exception], ...] = (
    ScoringError,
    LedgerError,
    SettingsError,
    HandError,
    OptionError,
    NotationError,
    RequestError,
    TableError,
)
DM_REFUSAL = N_("This command works in a server, not in direct messages.")
GENERIC_FAILURE = N_("Something went wrong on our side; nothing was changed.")
COLOUR = discord.Colour(0x2E7D4F)  # the felt of a mahjong table
COLOUR_WARN = discord.Colour(0xC9A227)
COLOUR_DONE = discord.Colour(0x3B6EA5)
COLOUR_OFF = discord.Colour(0x777777)
MAX_MESSAGE = 1900
# Discord wants a first answer within 3 s of the press; past this much work on a busy bot,
# "thinking…" is shown first (a deferral) so the 3 s never run out while the work goes on.
ANSWER_BY = 1.5
UNKNOWN_INTERACTION = 10062  # Discord's code: the 3 s (or the token's 15 minutes) ran out

T = TypeVar("T")


class UserError(Exception):
    """A refusal raised by a cog itself (bad option combination); shown as is."""


def user_text(text: str) -> str:
    """A message for the user: first letter capitalised, never over Discord's length."""
    text = text.strip() or GENERIC_FAILURE
    if text[0].islower():
        text = text[0].upper() + text[1:]
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


async def reply_error(interaction: discord.Interaction, text: str) -> None:
    """A short private answer that changes nothing (a follow-up if already answered), in
    the member's language when the catalogue knows the refusal or its form
    (bot/i18n/refusals.py)."""
    text = user_text(refusal_words(getattr(interaction, "locale", None), text))
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not deliver an error reply", exc_info=True)
    except Exception:
        if not shutting_down(interaction):
            raise
        # The bot closed its session while the command ran: nobody is left to tell.
        log.info("shutting down: an error reply was not sent")


def shutting_down(interaction: discord.Interaction) -> bool:
    client = getattr(interaction, "client", None)
    return bool(client is not None and client.is_closed())


def error_text(error: BaseException) -> str | None:
    """The user's message for an error of theirs; None for a fault of ours."""
    original = getattr(error, "original", None) or error
    if isinstance(original, (*USER_ERRORS, UserError)):
        return str(original)
    if isinstance(error, app_commands.NoPrivateMessage):
        return DM_REFUSAL
    if isinstance(error, app_commands.TransformerError):
        return f"'{error.value}' is not a valid {error.type.name.lower().replace('_', ' ')}."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or N_("You cannot use this command here.")
    return None


async def in_time(interaction: discord.Interaction, work: Awaitable[T]) -> T:
    """``work``'s result, the interaction deferred meanwhile if the work takes longer than
    ``ANSWER_BY``: a quick answer stays one request, a slow one never misses Discord's 3 s.

    A command is deferred with "thinking…" (public), which its answer then fills
    (``edit_original_response`` or the first follow-up); a button press with a deferred
    update, which shows nothing (its answer edits the pressed message, or follows up).

    ``work`` runs in the caller's own task, a timer beside it: a task of its own and a wait
    for it took two more turns of the loop before every answer, tens of milliseconds each
    at 200 tables."""
    deferring: list[asyncio.Task[None]] = []

    def late() -> None:
        if not interaction.response.is_done():
            deferring.append(asyncio.ensure_future(_defer(interaction)))

    timer = asyncio.get_running_loop().call_later(ANSWER_BY, late)
    try:
        return await work
    finally:
        timer.cancel()
        if deferring:  # what answers next must find the deferral done, not racing it
            await deferring[0]


async def _defer(interaction: discord.Interaction) -> None:
    command = interaction.type == discord.InteractionType.application_command
    try:
        await interaction.response.defer(thinking=command)
    except discord.HTTPException:
        log.warning("could not defer a slow answer", exc_info=True)


def expired(error: BaseException) -> bool:
    """Whether answering failed because Discord no longer knows the interaction: answering
    again would only fail again (each failure counts against the bot's invalid requests)."""
    original = getattr(error, "original", None) or error
    return isinstance(original, discord.NotFound) and original.code == UNKNOWN_INTERACTION


async def handle_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer a failed command or button: the user's mistake privately, ours in the log."""
    text = error_text(error)
    if text is None:
        original = getattr(error, "original", None) or error
        command = interaction.command.qualified_name if interaction.command else "component"
        if expired(error):
            log.warning("%s answered too late (Discord had forgotten the interaction)", command)
            return
        if shutting_down(interaction):
            # Cut short by a shut-down (its session closed mid-request): not a fault.
            log.info("%s cut short by the shut-down: %s", command, original)
            return
        log.error("%s failed", command, exc_info=original)
        text = GENERIC_FAILURE
    await reply_error(interaction, text)


class GuildOnly:
    """Mixin for cogs whose commands need a server: refused in DMs with a clear message
    (the commands are also declared guild-only, so clients normally hide them there)."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None:
            raise app_commands.NoPrivateMessage(DM_REFUSAL)
        return True

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await handle_error(interaction, error)


def can_manage(interaction: discord.Interaction) -> bool:
    """Manage Server (or Administrator) in this channel."""
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_guild or perms.administrator))


def display_name(user: discord.abc.User | discord.Member) -> str:
    return getattr(user, "display_name", None) or user.name


def chips(amount: int) -> str:
    return f"{amount:,}"


def signed(amount: int) -> str:
    return f"{amount:+,}"


def make_embed(
    title: str, description: str | None = None, *, colour: discord.Colour = COLOUR
) -> discord.Embed:
    """An embed held to Discord's limits (title 256, description 4096 characters)."""
    if description is not None and len(description) > 4000:
        description = description[:3999] + "…"
    return discord.Embed(title=title[:256], description=description, colour=colour)


def names_of(
    guild: discord.Guild | None, user_ids: Iterable[int], stored: Mapping[int, str]
) -> dict[int, str]:
    """Markdown-safe names for players: the member's display name when the member is cached,
    else the name stored when they last played, else a mention (which Discord shows as the
    name). Computer players (negative ids) are "Computer (seat)"."""
    out: dict[int, str] = {}
    for user_id in user_ids:
        if user_id < 0:
            out[user_id] = f"Computer ({'ESWN'[(-user_id - 1) % 4]})"
            continue
        member = guild.get_member(user_id) if guild is not None else None
        if member is not None:
            out[user_id] = clean(display_name(member))
        elif stored.get(user_id):
            out[user_id] = clean(stored[user_id])
        else:
            out[user_id] = f"<@{user_id}>"
    return out


def clean(text: str) -> str:
    """A name safe inside markdown (no accidental bold, code or mentions)."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


class PictureBytes(io.BytesIO):
    """A picture's bytes for a ``discord.File`` that do not wait for the garbage collector.

    discord.File stubs its file's ``close`` while it sends, then puts the real one back as an
    attribute of the file itself: a bound method of the object, kept in the object's own
    ``__dict__``, a reference cycle that only a full pass of the collector frees. Every
    picture the bot uploaded (60 KB each) stayed until then, and there were hundreds
    between two passes at 200 tables. Putting back the file's own ``close`` here drops the
    stub instead, so the class's method serves and nothing points back."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "close" and getattr(value, "__self__", None) is self:
            self.__dict__.pop("close", None)
            return
        super().__setattr__(name, value)


def picture_file(png: bytes, filename: str, description: str | None = None) -> discord.File:
    """A PNG as a message's attachment (``attachment://filename`` in an embed)."""
    return discord.File(PictureBytes(png), filename, description=description)
