"""The one place that decides what each seat may see. Every message the bot sends about a
table (channel image, DM hand, reveal, alt texts, button labels) is built from these views.

A seat sees its own concealed tiles and drawn tile, everyone's exposed melds, flowers and
discards, and the wall count; the channel sees no concealed tile; everyone sees every hand once
the hand is over (the engine's ``view`` enforces the rule; this module is the only caller).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bot.rules.game import GAME_OVER, HAND_OVER, TableView, view

if TYPE_CHECKING:
    from bot.rules.game.state import HandResult
    from bot.service.tables import LiveTable


def seat_view(table: LiveTable, seat: int) -> TableView:
    """What the player in ``seat`` may see."""
    assert table.state is not None
    return view(table.state, seat)


def public_view(table: LiveTable) -> TableView:
    """What the channel may see: no concealed tile until the reveal."""
    assert table.state is not None
    return view(table.state, None)


def names_of(table: LiveTable) -> tuple[str, ...]:
    """The display name in each physical seat ('' for the dummy of a short table)."""
    names = []
    for seat in range(4):
        player = table.player_at(seat)
        names.append("" if player is None else player.name)
    return tuple(names)


def reveal_view(table: LiveTable, result: HandResult) -> TableView:
    """Every hand laid open for the reveal of a finished hand. While the table still shows that
    hand this is the public view (the engine reveals every hand once it is over); a hand
    announced later (after a restart) is rebuilt from its recorded result."""
    state = table.state
    assert state is not None
    if state.results and state.results[-1] is result and state.phase in (HAND_OVER, GAME_OVER):
        return view(state, None)
    current = view(state, None)
    seats = []
    for seat, shown in enumerate(current.seats):
        hand = result.hands[seat]
        if hand is None:
            seats.append(replace(shown, concealed=None, concealed_count=0, melds=(), discards=()))
            continue
        seats.append(
            replace(
                shown,
                wind=result.winds[seat] if result.winds[seat] is not None else shown.wind,
                concealed=hand.concealed,
                concealed_count=len(hand.concealed),
                drawn=None,
                melds=hand.melds,
                flowers=hand.flowers,
                discards=(),
            )
        )
    return replace(
        current,
        seats=tuple(seats),
        hand_number=result.number,
        dealer=result.dealer,
        round_wind=result.round_wind,
        revealed=True,
    )
