"""The buttons of a table: lobby controls and a seat's move controls, as restart-proof
``DynamicItem``s whose custom ids carry the table and the move they were drawn for.

    mj:<table>:lobby:<join|leave|cpu|start|cancel|cancel-yes|cancel-no>
    mj:<table>:<move>:<verb>[:<tile>][:d]       discard, chow, kong, riichi, pung, mahjong, ...
                                                (":d": the "Discard the drawn tile" button, so
                                                its id differs from a concealed twin's)
    mj:<table>:seat:<back|hand|again>           take my seat back, My hand, Play again
    mj:help                                     "How to play here" (cogs/help.py)
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import discord

from bot.i18n import FALLBACK, N_, _
from bot.i18n.tiles import tile_short
from bot.rules.game import (
    Action,
    Chow,
    DeclareFuriten,
    Discard,
    Kong,
    MahJongg,
    Pass,
    Pung,
    Riichi,
    WashTiles,
)
from bot.rules.tiles import short_name, tile_name
from cogs.common import expired, reply_error, shutting_down

log = logging.getLogger(__name__)

# The cog installs the handlers (so this module needs no service at import time).
Handler = Callable[[discord.Interaction, dict[str, str]], Awaitable[None]]
HANDLERS: dict[str, Handler] = {}


async def _dispatch(kind: str, interaction: discord.Interaction, match: re.Match[str]) -> None:
    handler = HANDLERS.get(kind)
    if handler is None:
        # Before the cog is loaded, or after it was unloaded by a stop: a stop also closes
        # the session, and ``reply_error`` drops the reply then instead of raising.
        await reply_error(interaction, N_("The table is starting up; try again in a moment."))
        return
    try:
        await handler(interaction, match.groupdict())
    except Exception as exc:
        await _failed(interaction, match, exc)
    finally:
        _release(interaction)


def _release(interaction: discord.Interaction) -> None:
    """Break the reference cycle of a handled click: discord.py keeps the click's response
    object on it, and that points back. Kept so, a click and the whole message it came from
    (its buttons) wait for the garbage collector's full pass; the notifier keeps each seat's
    last click for 30 s (its token edits the member's DM), so at 200 tables thousands a
    minute reached those passes, which stopped the bot 150-300 ms each. Only
    ``interaction.response`` is let go (made anew if asked for again); the token's edits
    (``edit_original_response``, ``followup``) do not use it."""
    with contextlib.suppress(AttributeError):
        del interaction._cs_response  # discord.py's cached slot for ``response``


async def _failed(interaction: discord.Interaction, match: re.Match[str], exc: Exception) -> None:
    """A click's handler failed: told to the member unless nobody is left to tell."""
    if shutting_down(interaction):
        # Cut short by the bot's shut-down (its session closed mid-answer): the move, if
        # taken, is committed; nobody is left to tell.
        log.info("button %s cut short by the shut-down: %s", match.group(0), exc)
        return
    if expired(exc):
        # Answered after Discord's 3 s (a stalled loop): answering again fails again.
        log.warning("button %s answered too late (Discord had forgotten it)", match.group(0))
        return
    # A click must always be answered: the traceback goes to the log, a short word to
    # the player (handlers answer the refusals they expect themselves).
    log.exception("button %s failed", match.group(0))
    await reply_error(
        interaction,
        N_("Something went wrong with that button; try again, or use /mahjong hand."),
    )


class _Dispatched:
    """What every control does: remember the custom id's fields and hand the click to the
    handler of its ``kind``. A mixin (not a base class) because discord.py's ``DynamicItem``
    needs each subclass to name its template."""

    kind: ClassVar[str]
    _match: re.Match[str]

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button[Any], match: re.Match[str]
    ) -> Any:
        control = cls(item)  # type: ignore[call-arg]
        control._match = match
        return control

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await _dispatch(self.kind, interaction, self._match)
        finally:
            # discord.py built a view of the clicked message's buttons to hand this one the
            # click: a web of cycles (each item points back at it) that lived through the
            # click's answer and waited for the collector's full pass, a view of up to 20
            # buttons for every click. Emptied, it dies by its reference count.
            if self.view is not None:
                self.view.clear_items()


class LobbyButton(
    _Dispatched,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mj:(?P<table>\d+):lobby:(?P<verb>join|leave|cpu|start|cancel(?:-yes|-no)?)",
):
    kind = "lobby"


class MoveButton(
    _Dispatched,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mj:(?P<table>\d+):(?P<move>\d+):(?P<verb>[a-z]+)(?::(?P<arg>\d+))?(?::(?P<drawn>d))?",
):
    kind = "move"


class SeatButton(
    _Dispatched,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mj:(?P<table>\d+):seat:(?P<verb>back|hand|again)",
):
    kind = "seat"


DYNAMIC_ITEMS = (LobbyButton, MoveButton, SeatButton)


def lobby_view(
    table_id: int, *, closed: bool = False, locale: str = FALLBACK
) -> discord.ui.View | None:
    """Join, Leave, Add computer player, Start, Cancel and "How to play here"."""
    if closed:
        return None
    view = discord.ui.View(timeout=None)
    buttons = [
        ("join", _(locale, "Join"), discord.ButtonStyle.success),
        ("leave", _(locale, "Leave"), discord.ButtonStyle.secondary),
        ("cpu", _(locale, "Add computer player"), discord.ButtonStyle.secondary),
        ("start", _(locale, "Start"), discord.ButtonStyle.primary),
        ("cancel", _(locale, "Cancel"), discord.ButtonStyle.danger),
    ]
    for verb, label, style in buttons:
        button = discord.ui.Button(
            label=label,
            style=style,
            custom_id=f"mj:{table_id}:lobby:{verb}",
            row=0 if verb in ("join", "leave", "cpu", "start") else 1,
        )
        view.add_item(LobbyButton(button))
    help_button = how_to_play_button(locale)
    if help_button is not None:
        help_button.row = 1
        view.add_item(help_button)
    return view


def cancel_view(table_id: int, locale: str = FALLBACK) -> discord.ui.View:
    """Yes / No under the "Cancel this table for everyone?" question, asked privately of the
    member who pressed Cancel (nothing changes for the others until it is confirmed)."""
    view = discord.ui.View(timeout=None)
    for verb, label, style in (
        ("cancel-yes", _(locale, "Yes, cancel the table"), discord.ButtonStyle.danger),
        ("cancel-no", _(locale, "No, keep it"), discord.ButtonStyle.secondary),
    ):
        button = discord.ui.Button(
            label=label, style=style, custom_id=f"mj:{table_id}:lobby:{verb}"
        )
        view.add_item(LobbyButton(button))
    return view


def how_to_play_button(locale: str = FALLBACK) -> discord.ui.Item[Any] | None:
    """The "How to play here" button (answered by cogs/help.py), when that cog is there. Its
    dynamic item, not a plain button: discord.py keeps a sent view holding any plain button
    under its message for good, so every lobby ever opened stayed in memory (the soak)."""
    if importlib.util.find_spec("cogs.help") is None:
        return None
    from cogs.help import HelpButton

    return HelpButton(locale)


def table_view(table_id: int, *, again: bool = False, locale: str = FALLBACK) -> discord.ui.View:
    """The table message's own buttons: "My hand" while playing, "Play again" at the end."""
    view = discord.ui.View(timeout=None)
    if again:
        view.add_item(seat_button(table_id, "again", _(locale, "Play again")))
    else:
        view.add_item(seat_button(table_id, "hand", _(locale, "My hand")))
    return view


def seat_button(table_id: int, verb: str, label: str) -> discord.ui.Item[Any]:
    style = discord.ButtonStyle.primary if verb == "back" else discord.ButtonStyle.secondary
    return SeatButton(
        discord.ui.Button(label=label, style=style, custom_id=f"mj:{table_id}:seat:{verb}")
    )


def _move_button(
    table_id: int,
    move: int,
    verb: str,
    arg: int | None,
    label: str,
    style: discord.ButtonStyle,
    emoji: discord.PartialEmoji | None = None,
    row: int | None = None,
    suffix: str = "",
) -> discord.ui.Item[Any]:
    custom_id = f"mj:{table_id}:{move}:{verb}" + (f":{arg}" if arg is not None else "") + suffix
    return MoveButton(
        discord.ui.Button(label=label, style=style, custom_id=custom_id, emoji=emoji, row=row)
    )


DRAWN_LABEL = N_("Discard the drawn tile")
RIICHI_LABEL = N_("Riichi…")
BACK_LABEL = N_("Cancel")


def move_controls(
    table_id: int,
    move: int,
    legal: list[Action],
    emojis: dict[int, discord.PartialEmoji],
    *,
    away: bool = False,
    drawn: int | None = None,
    concealed: tuple[int, ...] = (),
    locale: str = FALLBACK,
    choosing_riichi: bool = False,
) -> discord.ui.View | None:
    """The buttons for a seat's legal actions, in the order of the hand picture: a button per
    distinct concealed tile to discard (its tile picture when the emojis are uploaded), then
    the claims and calls, and last, on a row of its own, "Discard the drawn tile" (the drawn
    tile sits apart at the end of the picture too). ``concealed``: the seat's concealed tiles
    (the drawn tile not among them), so a drawn tile with no concealed twin has only its own
    button; without it every discardable tile has a button in the rows.

    Riichi (singapore) with one possible discard is one button, "Riichi, discard 5B"; with
    more it is one "Riichi…" button whose press shows the choice (``choosing_riichi``): the
    tiles that may be discarded with Riichi, laid out like the discards, and "Cancel". A hand
    can have a dozen Riichi discards: as buttons of their own they would not fit Discord's
    five rows beside the discards."""
    view = discord.ui.View(timeout=None)
    if away:
        view.add_item(seat_button(table_id, "back", _(locale, "Take my seat back")))
        return view
    riichi = sorted({a.tile for a in legal if isinstance(a, Riichi)})
    if choosing_riichi and riichi:
        _add_tile_rows(view, table_id, move, "riichi", riichi, [], emojis, drawn, concealed, locale)
        back = _move_button(
            table_id, move, "back", None, _(locale, BACK_LABEL), discord.ButtonStyle.secondary
        )
        back.item.row = min(4, max(c.row or 0 for c in _items(view)) + 1)  # type: ignore[attr-defined]
        view.add_item(back)
        return view
    discardable = sorted({a.tile for a in legal if isinstance(a, Discard)})
    calls = _calls(table_id, move, legal, locale, riichi_choice=len(riichi) > 1)
    _add_tile_rows(
        view, table_id, move, "discard", discardable, calls, emojis, drawn, concealed, locale
    )
    if not view.children:
        return None
    return view


class Controls:
    """A message's buttons as Discord's JSON, made once from discord.py's view and sent as
    they are (discord.py takes any object that says it is a view, ``__discord_ui_view__``).

    A ``discord.ui.View`` is a web of reference cycles (each item points back at its view),
    which only the garbage collector's passes free. A seat's content kept its view for
    seconds, so at 200 tables thousands a minute reached the full passes, which then stopped
    the bot 150-300 ms each: acknowledgements waited behind them. These are plain data, freed
    the moment nothing needs them; the view they are made from is emptied once read
    (``clear_items`` lets each item go of it), so it too dies by its reference count, before
    any pass: views were still most of the garbage the full passes found (benchmarks/
    bot_process.py ``MAHJONG_GC_GARBAGE``).
    """

    __discord_ui_view__ = True
    __slots__ = ("_rows", "shown")
    timeout = None  # discord.py asks; nothing here times out

    def __init__(self, view: discord.ui.View) -> None:
        self._rows = view.to_components()
        # What the member sees of each button: (custom id, label, emoji)
        self.shown: tuple[tuple[Any, ...], ...] = tuple(
            (getattr(item, "custom_id", None), getattr(item, "label", None), str(item.emoji or ""))
            for item in _items(view)
        )
        view.clear_items()

    @classmethod
    def of(cls, view: discord.ui.View | None) -> Controls | None:
        return None if view is None else cls(view)

    def to_components(self) -> list[dict[str, Any]]:
        return [_copy_json(row) for row in self._rows]

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True  # discord.py keeps no view for it: the buttons are dynamic items

    def is_dispatchable(self) -> bool:
        return False

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Controls) and self.shown == other.shown and self._rows == other._rows
        )

    def __hash__(self) -> int:
        return hash(self.shown)


def _copy_json(value: Any) -> Any:
    """A copy of JSON data: what discord.py is handed is never what the next send reuses."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


def _items(view: discord.ui.View) -> list[Any]:
    return [getattr(c, "item", c) for c in view.children]


def _add_tile_rows(
    view: discord.ui.View,
    table_id: int,
    move: int,
    verb: str,
    tiles: list[int],
    calls: list[discord.ui.Item[Any]],
    emojis: dict[int, discord.PartialEmoji],
    drawn: int | None,
    concealed: tuple[int, ...],
    locale: str,
) -> None:
    """A button per tile in the picture's order (rows of five), then ``calls``, then the
    drawn tile's own button on a row of its own; cut to Discord's five rows."""
    drawn_button = drawn is not None and drawn in tiles
    in_rows = [t for t in tiles if not concealed or t in concealed]
    call_rows = (len(calls) + 4) // 5
    tile_rows = min((len(in_rows) + 4) // 5, 5 - (1 if drawn_button else 0))
    call_rows = min(call_rows, 5 - tile_rows - (1 if drawn_button else 0))
    for index, tile in enumerate(in_rows[: 5 * tile_rows]):
        view.add_item(
            _move_button(
                table_id,
                move,
                verb,
                tile,
                tile_short(locale, tile),
                discord.ButtonStyle.secondary,
                emojis.get(tile),
                row=index // 5,
            )
        )
    for index, item in enumerate(calls[: 5 * call_rows]):
        item.item.row = tile_rows + index // 5  # type: ignore[attr-defined]
        view.add_item(item)
    if drawn_button:
        assert drawn is not None
        view.add_item(
            _move_button(
                table_id,
                move,
                verb,
                drawn,
                _(locale, DRAWN_LABEL),
                discord.ButtonStyle.primary,
                emojis.get(drawn),
                row=tile_rows + call_rows,
                suffix=":d",
            )
        )


def _calls(
    table_id: int,
    move: int,
    legal: list[Action],
    locale: str = FALLBACK,
    *,
    riichi_choice: bool = False,
) -> list[discord.ui.Item[Any]]:
    """Claims and calls, in the engine's order; ``riichi_choice``: every Riichi discard is
    behind one "Riichi…" button (see ``move_controls``)."""

    def short(tile: int) -> str:
        return tile_short(locale, tile)

    calls: list[discord.ui.Item[Any]] = []
    offered_riichi = False
    for action in legal:
        if isinstance(action, MahJongg):
            calls.append(
                _move_button(
                    table_id,
                    move,
                    "mahjong",
                    None,
                    _(locale, "Mah-Jongg!"),
                    discord.ButtonStyle.success,
                )
            )
        elif isinstance(action, Kong):
            calls.append(
                _move_button(
                    table_id,
                    move,
                    "kong",
                    action.tile,
                    _(locale, "Kong {tile}", tile=short(action.tile)),
                    discord.ButtonStyle.primary,
                )
            )
        elif isinstance(action, Pung):
            calls.append(
                _move_button(
                    table_id, move, "pung", None, _(locale, "Pung"), discord.ButtonStyle.primary
                )
            )
        elif isinstance(action, Chow):
            run = "-".join(short(action.tile + i) for i in range(3))
            calls.append(
                _move_button(
                    table_id,
                    move,
                    "chow",
                    action.tile,
                    _(locale, "Chow {run}", run=run),
                    discord.ButtonStyle.primary,
                )
            )
        elif isinstance(action, WashTiles):
            calls.append(
                _move_button(
                    table_id,
                    move,
                    "wash",
                    None,
                    _(locale, "Wash the tiles"),
                    discord.ButtonStyle.primary,
                )
            )
        elif isinstance(action, DeclareFuriten):
            calls.append(
                _move_button(
                    table_id,
                    move,
                    "furiten",
                    None,
                    _(locale, "Declare Furi Tem"),
                    discord.ButtonStyle.secondary,
                )
            )
        elif isinstance(action, Riichi) and riichi_choice:
            if not offered_riichi:
                offered_riichi = True
                calls.append(
                    _move_button(
                        table_id,
                        move,
                        "riichi",
                        None,
                        _(locale, RIICHI_LABEL),
                        discord.ButtonStyle.secondary,
                    )
                )
        elif isinstance(action, Riichi):
            calls.append(
                _move_button(
                    table_id,
                    move,
                    "riichi",
                    action.tile,
                    _(locale, "Riichi, discard {tile}", tile=short(action.tile)),
                    discord.ButtonStyle.secondary,
                )
            )
        elif isinstance(action, Pass):
            calls.append(
                _move_button(
                    table_id, move, "pass", None, _(locale, "Pass"), discord.ButtonStyle.secondary
                )
            )
    return calls


CLAIM_NAMES = {Chow: N_("Chow"), Pung: N_("Pung"), Kong: N_("Kong"), MahJongg: N_("Mah-Jongg")}


def describe_legal(legal: list[Action], locale: str = FALLBACK) -> str:
    """A sentence saying what the seat may do now (also the alt text of the controls)."""
    kinds = []
    if any(isinstance(a, Discard) for a in legal):
        kinds.append(_(locale, "discard a tile"))
    claims = [a for a in legal if isinstance(a, Chow | Pung | Kong | MahJongg)]
    if claims:
        names = sorted({CLAIM_NAMES[type(a)] for a in claims})
        said = _(locale, ", ").join(_(locale, n) for n in names)
        kinds.append(_(locale, "claim ({claims})", claims=said))
    if any(isinstance(a, Riichi) for a in legal):
        kinds.append(_(locale, "declare Riichi"))
    if any(isinstance(a, Pass) for a in legal):
        kinds.append(_(locale, "pass"))
    return _(locale, " or ").join(kinds) if kinds else ""


def tile_label(tile: int) -> str:
    return f"{tile_name(tile)} ({short_name(tile)})"
