"""A finished hand of a table, posted to the server's chip ledger and recorded."""

from __future__ import annotations

from typing import Any

from bot.rules.game.state import HandResult
from bot.service.tables.model import LiveTable, Player
from bot.service.tables.ports import TableStore


async def post_hand(ledger: Any, store: TableStore, table: LiveTable, result: HandResult) -> None:
    """Post a finished hand to the ledger, then record it. In that order: on start-up
    the hands recorded count as settled, so a hand recorded but not yet posted when the
    bot stopped would never be posted; posting again is harmless (once per source key)."""
    payments = []
    for p in result.payments:
        payer, payee = table.player_at(p.payer), table.player_at(p.payee)
        payer_id = _ledger_id(payer, p.payer)
        payee_id = _ledger_id(payee, p.payee)
        payments.append((payer_id, payee_id, p.amount))
    results = []
    for seat in range(4):
        player = table.player_at(seat)
        if player is None:
            continue
        score = result.scores[seat]
        results.append(
            (
                _ledger_id(player, seat),
                seat == result.winner,
                score.total if score is not None else 0,
                result.net[seat],
            )
        )
    await ledger.post_settlement(
        table.guild_id,
        "washing" if result.kind == "washing" else "hand",
        payments,
        source_key=f"table:{table.id}:hand:{result.number}",
        table_id=table.id,
        hand_no=result.number,
        ruleset=table.ruleset,
        description=f"{table.ruleset} hand {result.number}",
        results=results,
        names={p.user_id: p.name for p in table.players if p.user_id is not None},
    )
    await store.record_hand(table, result)


def _ledger_id(player: Player | None, seat: int) -> int:
    """Members by their id; computer players as -1..-4 by seat, so a hand still balances."""
    if player is None or player.user_id is None:
        return -(seat + 1)
    return player.user_id
