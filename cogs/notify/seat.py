"""What one seat is shown about its game: the words, the controls and the picture of its DM
(and of its private "My hand"), built from that seat's own view only (:mod:`bot.service.privacy`).

The content carries a ``key`` of what it shows, worked out BEFORE anything is drawn: a DM is
edited only when the key changes, and its picture re-uploaded only when the picture's own key
changes. The wall count is text, refreshed with the next edit, and never a reason for one:
it changes every draw, and edits for it alone were nearly half of all DM edits.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import FALLBACK, _
from bot.i18n.tiles import tile_words, wind_words
from bot.rules.game import GAME_OVER, HAND_OVER, Chow, Kong, MahJongg, Pung, Riichi
from bot.service.hints import seat_hints
from bot.service.privacy import names_of, seat_view
from cogs.controls import Controls, describe_legal, move_controls
from cogs.notify.words import place_words, places, standings, win_words

if TYPE_CHECKING:
    from bot.rules.game.state import HandResult
    from bot.service.tables import LiveTable, TableService

CLAIM_KINDS = (Chow, Pung, Kong, MahJongg)
HINT_MARK = "-# Hint: "  # a hint line (small print), from bot.service.hints


def _hints(table: LiveTable, view: Any, locale: str = "en-US") -> Any:
    """The seat's hints in words, in the member's language (nothing on a table played with
    hints off)."""
    if not getattr(table, "hints", True):
        return None
    return seat_hints(view, locale=locale) or None


@dataclass(frozen=True)
class Picture:
    """What to draw (``drawing.draw(kind, *args, **kwargs)``) and the key of what it shows."""

    kind: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(hash=False, compare=False)
    key: Hashable = None
    filename: str = "hand.png"
    description: str = ""


@dataclass(frozen=True)
class SeatContent:
    text: str
    wall: str  # "Wall: 54" (text shown, not part of the key)
    view: Controls | None
    picture: Picture | None
    deal: int
    prompt: str | None = None  # "turn" or "claim": the seat is asked to act
    prompt_id: tuple[int, int] | None = None  # (deal, move the controls are for)
    finished: bool = False

    @property
    def controls(self) -> tuple[tuple[Any, ...], ...]:
        return controls_shown(self.view)

    @property
    def key(self) -> Hashable:
        """What the message shows, apart from the wall count."""
        return (self.text, self.controls, self.picture.key if self.picture else None)

    @property
    def content(self) -> str:
        return f"{self.text}\n-# {self.wall}" if self.wall else self.text


def controls_shown(view: Controls | None) -> tuple[tuple[Any, ...], ...]:
    return () if view is None else view.shown


def seat_picture(
    view: Any,
    seat: int,
    names: tuple[str, ...],
    marks: frozenset[int],
    locale: str = FALLBACK,
) -> Picture:
    """The table from the seat (its hand large at the bottom, everyone's sets and discards,
    whose turn). Its key leaves out what changes without being worth a new picture: the wall
    count (text in the message), the move number and the engine's event log."""
    own = view.seats[seat]
    tiles = list(own.concealed or ()) + ([own.drawn] if own.drawn is not None else [])
    named = ", ".join(tile_words(locale, t) for t in sorted(tiles))
    alt = _(locale, "Your hand: {tiles}", tiles=named)
    shown = replace(view, wall_remaining=0, move=0, events=(), drawable=0)
    key = ("seat_table", shown, names, marks, locale)
    kwargs = {"marks": marks, "locale": locale}
    return Picture("seat_table", (view, names), kwargs, key, "seat.png", alt[:1000])


def _result_of(table: LiveTable, deal: int) -> HandResult | None:
    state = table.state
    if state is None:
        return None
    return next((r for r in reversed(state.results) if r.number == deal), None)


def finished_text(
    table: LiveTable,
    seat: int,
    deal: int,
    *,
    next_at: float | None,
    note: str = "",
    locale: str = FALLBACK,
) -> str:
    """The DM of a hand that is over: who won with what, what this seat paid or collected,
    its running total, and when the next hand starts (or its place at the game's end)."""
    state = table.state
    assert state is not None
    names = names_of(table)
    result = _result_of(table, deal)
    lines = [_(locale, "**Hand {deal} is over.**", deal=deal)]
    if note:
        lines.append(note)
    if result is None:
        lines.append(_(locale, "The hand ended without a result (the table closed)."))
        return "\n".join(lines)
    lines.append(win_words(result, names, locale))
    net = result.net[seat]
    if net > 0:
        lines.append(_(locale, "You collected {amount}.", amount=net))
    elif net < 0:
        lines.append(_(locale, "You paid {amount}.", amount=-net))
    else:
        lines.append(_(locale, "You paid nothing and collected nothing."))
    total = sum(r.net[seat] for r in state.results if r.number <= deal)
    lines.append(_(locale, "Your total: {total}.", total=f"{total:+d}"))
    last = state.results and state.results[-1].number == deal
    if state.phase == GAME_OVER and last:
        order = standings(table)
        place = next(
            (p for p, (name, _) in zip(places(order), order, strict=True) if name == names[seat]),
            None,
        )
        if place is not None:
            lines.append(
                _(
                    locale,
                    "**The game is over:** you finished {place} of {players}.",
                    place=place_words(place, locale),
                    players=len(order),
                )
            )
    elif next_at is not None and last:
        when = f"<t:{math.ceil(next_at)}:R>"
        lines.append(_(locale, "The next hand is dealt {when}.", when=when))
    return "\n".join(lines)


def seat_content(
    service: TableService,
    table: LiveTable,
    seat: int,
    emojis: dict[int, discord.PartialEmoji],
    *,
    next_at: float | None = None,
    note: str = "",
    locale: str = FALLBACK,
    choosing_riichi: bool = False,
) -> SeatContent:
    """The DM (or private hand) of ``seat`` now, in ``locale`` (the member's language);
    ``choosing_riichi``: its "Riichi…" button was pressed, the controls ask which tile."""
    state = table.state
    assert state is not None
    seen = seat_view(table, seat)
    player = table.player_at(seat)
    wind = wind_words(locale, seen.seats[seat].wind)
    header = _(
        locale,
        "**Table {table}** · {ruleset} · hand {deal} · you are {wind}",
        table=table.id,
        ruleset=table.ruleset,
        deal=state.deal,
        wind=wind,
    )
    wall = _(locale, "Wall: {tiles}", tiles=seen.wall_remaining)
    names = names_of(table)
    hints = _hints(table, seen, locale)
    marks = frozenset(hints.ready_discards) if hints else frozenset()
    picture = seat_picture(seen, seat, names, marks, locale)
    if state.phase in (HAND_OVER, GAME_OVER):
        text = (
            header
            + "\n"
            + finished_text(table, seat, state.deal, next_at=next_at, note=note, locale=locale)
        )
        return SeatContent(text, "", None, picture, state.deal, finished=True)
    away = bool(player and player.away)
    legal = [] if player is None or away else service.legal_for(table, seat)
    status = describe_legal(legal, locale)
    prompt = None
    if away:
        body = _(
            locale,
            "A computer player is keeping your seat warm. Take it back when you are ready.",
        )
    elif status:
        deadline = service.deadline(table, seat)
        # Discord shows <t:...:R> as a live countdown in each reader's client; the timer
        # itself runs out at the same moment.
        when = f"<t:{math.ceil(deadline)}:R>" if deadline else ""
        timer = " " + _(locale, "Time runs out {when}.", when=when) if deadline else ""
        if seen.phase == "claim" and seen.last_discard is not None:
            who, tile = seen.last_discard
            shown = emojis.get(tile)
            picture_of = f"{shown} " if shown is not None else ""
            body = _(
                locale,
                "**{name} discarded {tile}.** You may {choices}.",
                name=names[who],
                tile=f"{picture_of}{tile_words(locale, tile)}",
                choices=status,
            )
            body += timer
            prompt = "claim"
        else:
            body = _(locale, "**Your turn:** {choices}.", choices=status) + timer
            prompt = "turn"
            if choosing_riichi and any(isinstance(a, Riichi) for a in legal):
                body += "\n" + _(locale, "**Riichi:** which tile do you discard?")
    else:
        body = _(locale, "Waiting for the other players.")
    if note and not prompt:
        body = f"{note}\n{body}"
    if hints and not away:
        mark = "-# " + _(locale, "Hint:") + " "
        body += "\n" + "\n".join(f"{mark}{line}" for line in hints.lines)
    controls = Controls.of(
        move_controls(
            table.id,
            table.controls_move,
            legal,
            emojis,
            away=away,
            drawn=seen.seats[seat].drawn,
            concealed=tuple(seen.seats[seat].concealed or ()),
            locale=locale,
            choosing_riichi=choosing_riichi,
        )
    )
    prompt_id = (state.deal, table.controls_move) if prompt else None
    return SeatContent(f"{header}\n{body}", wall, controls, picture, state.deal, prompt, prompt_id)
