"""Finished games for the rating tests: a table row and its hands posted to the ledger, as a
table's own posting writes them (``bot/service/tables/settlement.py``)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from bot.service.ledger import LedgerService
from bot.store.backend import Database
from bot.store.tables_repo import TablesRepository
from tests.store.helpers import FakeClock

GUILD = 7
_channels = itertools.count(5000)


def payments_for(nets: Mapping[int, int]) -> list[tuple[int, int, int]]:
    """(payer, payee, amount) moving chips so that each player ends at their net."""
    assert sum(nets.values()) == 0
    owe = sorted(((-n, u) for u, n in nets.items() if n < 0), reverse=True)
    due = sorted(((n, u) for u, n in nets.items() if n > 0), reverse=True)
    out = []
    owe_list = [[a, u] for a, u in owe]
    due_list = [[a, u] for a, u in due]
    i = j = 0
    while i < len(owe_list) and j < len(due_list):
        amount = min(owe_list[i][0], due_list[j][0])
        out.append((owe_list[i][1], due_list[j][1], amount))
        owe_list[i][0] -= amount
        due_list[j][0] -= amount
        if owe_list[i][0] == 0:
            i += 1
        if due_list[j][0] == 0:
            j += 1
    return out


async def finished_game(
    db: Database,
    ledger: LedgerService,
    clock: FakeClock,
    *hands: Mapping[int, int],
    guild: int = GUILD,
    finish: bool = True,
    seated: tuple[int, ...] = (),
    left: Mapping[int, int] | None = None,
) -> int:
    """A table of ``guild`` whose hands moved these chips (each a {player: net}; computer
    players are -1..-4), finished at the clock's time (then moved on a minute). ``seated``:
    the members who joined, in order (their join events); ``left``: member -> the hand during
    which they handed their seat to a computer player (a leave event before it settled)."""
    tables = TablesRepository(db, clock=clock)
    table_id = await tables.create(
        guild_id=guild, channel_id=next(_channels), host_id=1, ruleset="pung-chow"
    )
    await tables.set_status(table_id, "playing")
    log = [("join", {"user_id": user, "name": f"m{user}"}) for user in seated]
    log.append(("start", {"seed": "s"}))

    async def leave_during(number: int) -> None:
        for user, during in (left or {}).items():
            if during == number:
                log.append(("leave", {"player": seated.index(user), "name": "Computer"}))
        written = len(await tables.events(table_id))
        for seq, (kind, payload) in enumerate(log[written:], written + 1):
            await tables.append_event(table_id, seq, kind, payload)

    for number, nets in enumerate(hands, 1):
        await leave_during(number)
        await ledger.post_settlement(
            guild,
            "hand",
            payments_for(nets),
            source_key=f"table:{table_id}:hand:{number}",
            table_id=table_id,
            hand_no=number,
            ruleset="pung-chow",
            results=[(u, n > 0, max(n, 0), n) for u, n in nets.items()],
        )
    await leave_during(len(hands) + 1)  # during a hand never finished
    if finish:
        await tables.set_status(table_id, "finished")
    clock.advance(60)
    return table_id
