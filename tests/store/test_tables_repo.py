"""TablesRepository: tables, seats, the event log in order, open tables with their events,
finishing and cancelling, finished hands; and the table service running on it for real."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from bot.rules.score import Payment, Score, ScoreLine
from bot.services import build_services
from bot.store.backend import Database
from bot.store.base import StoreError
from bot.store.tables_repo import ChannelBusy, SeatRow, TablesRepository
from tests.store.helpers import FakeClock, scalar


@pytest.fixture
def repo(db: Database, clock: FakeClock) -> TablesRepository:
    return TablesRepository(db, clock=clock)


async def new_table(repo: TablesRepository, channel: int = 10) -> int:
    return await repo.create(
        guild_id=1,
        channel_id=channel,
        host_id=101,
        ruleset="pung-chow",
        options={"limit": 500},
        turn_seconds=45,
        claim_seconds=10,
        hands_planned=4,
    )


async def test_create_seats_and_events_come_back_as_an_open_table(repo: TablesRepository) -> None:
    table = await new_table(repo)
    await repo.set_seats(table, [SeatRow(0, 101, "alice"), SeatRow(1, None, "Computer 1")])
    await repo.append_event(table, 1, "join", {"user_id": 101, "name": "alice"})
    await repo.append_event(table, 2, "join", {"user_id": None, "name": "Computer 1"})
    await repo.set_message(table, 555)
    [(row, events)] = await repo.open_tables()
    assert row["id"] == table and row["status"] == "lobby"
    assert row["options"] == {"limit": 500} and row["hands"] == 4
    assert (row["turn_seconds"], row["claim_seconds"], row["message_id"]) == (45, 10, 555)
    assert row["hands_recorded"] == 0
    assert row["seats"] == [
        SeatRow(0, 101, "alice", False),
        SeatRow(1, None, "Computer 1", True),
    ]
    assert events == [
        ("join", {"user_id": 101, "name": "alice"}),
        ("join", {"user_id": None, "name": "Computer 1"}),
    ]
    assert [e.seq for e in await repo.events(table)] == [1, 2]


async def test_events_must_follow_each_other(repo: TablesRepository) -> None:
    table = await new_table(repo)
    await repo.append_event(table, 1, "join", {})
    for bad in (1, 3, 0):
        with pytest.raises(StoreError):
            await repo.append_event(table, bad, "join", {})
    assert len(await repo.events(table)) == 1


async def test_two_stores_racing_on_one_log_write_each_seq_once(
    repo: TablesRepository, db: Database
) -> None:
    """Two processes' stores on one database (two SQLite connections to the file, or two
    PostgreSQL pools) append the same seqs at once: each seq is written once, the loser of
    each race gets StoreError, and the log has no gap."""
    from bot.store.database import open_database

    table = await new_table(repo)
    other_db = await open_database(db.target)
    try:
        other = TablesRepository(other_db)
        for seq in range(1, 41):
            results = await asyncio.gather(
                repo.append_event(table, seq, "move", {"by": "first"}),
                other.append_event(table, seq, "move", {"by": "second"}),
                return_exceptions=True,
            )
            refused = [r for r in results if isinstance(r, BaseException)]
            assert len(refused) == 1 and isinstance(refused[0], StoreError), results
        assert [e.seq for e in await other.events(table)] == list(range(1, 41))
    finally:
        await other_db.close()


async def test_an_event_and_its_seat_change_commit_or_fail_together(
    repo: TablesRepository,
) -> None:
    table = await new_table(repo)
    with pytest.raises(StoreError):
        async with repo.transaction():
            await repo.set_seats(table, [SeatRow(0, 101, "alice")])
            await repo.append_event(table, 2, "join", {})  # out of order: all rolled back
    assert await repo.seats(table) == []
    async with repo.transaction():
        await repo.set_seats(table, [SeatRow(0, 101, "alice")])
        await repo.append_event(table, 1, "join", {"user_id": 101})
    assert len(await repo.seats(table)) == 1 and len(await repo.events(table)) == 1


async def test_one_open_table_per_channel_until_it_closes(
    repo: TablesRepository, clock: FakeClock
) -> None:
    first = await new_table(repo)
    with pytest.raises(ChannelBusy):
        await new_table(repo)
    await repo.set_status(first, "playing", seed="abc")
    clock.advance(60)
    await repo.finish(first)
    await repo.finish(first)  # finishing twice is harmless
    row = await repo.get(first)
    assert row is not None and row["status"] == "finished" and row["seed"] == "abc"
    assert row["finished_at"] == int(clock.t)
    with pytest.raises(StoreError):
        await repo.set_status(first, "playing")  # a closed table stays closed
    second = await new_table(repo)
    assert (await repo.open_in_channel(10))["id"] == second
    await repo.cancel(second)
    assert await repo.open_tables() == []
    assert await repo.open_in_channel(10) is None


def _result(number: int) -> SimpleNamespace:
    score = Score((ScoreLine("Mah-Jongg", 20, 0, "Pung Chow p.3"),), 22)
    return SimpleNamespace(
        number=number,
        kind="win",
        winner=1,
        scores=(None, score, None, None),
        payments=(Payment(0, 1, 44, "Mah-Jongg"), Payment(2, 1, 22, "Mah-Jongg")),
        seed="s",
        seed_hash="h",
    )


async def test_record_hand_is_idempotent_and_counted(repo: TablesRepository) -> None:
    table_id = await new_table(repo)
    players = {1: SimpleNamespace(user_id=None)}
    table = SimpleNamespace(id=table_id, ruleset="pung-chow", player_at=players.get)
    await repo.record_hand(table, _result(1))
    await repo.record_hand(table, _result(1))
    [hand] = await repo.hands(table_id)
    assert hand["winner_seat"] == 1 and hand["winner_id"] == -2  # a computer in seat 1
    assert hand["scores"][1]["total"] == 22 and hand["scores"][0] is None
    assert hand["scores"][1]["lines"][0]["source"] == "Pung Chow p.3"
    assert hand["payments"][0] == {"payer": 0, "payee": 1, "amount": 44, "reason": "Mah-Jongg"}
    [(row, _)] = await repo.open_tables()
    assert row["hands_recorded"] == 1


# -- the table service on the real store and ledger -------------------------------------------

ALICE = 101


async def _settle(table) -> None:
    for _ in range(200):
        await asyncio.sleep(0)
        if table.runner is None or table.runner.done():
            return
    while table.runner is not None and not table.runner.done():
        await asyncio.sleep(0.001)


async def _play(service, table, moves: int | None = None) -> None:
    """Play alice's seat with the computer policy (``moves`` of them, or to the end)."""
    from bot.players import decide
    from bot.rules.game import GAME_OVER, legal_actions, view
    from bot.rules.rulesets import get_ruleset
    from bot.service.tables import control_of

    done = 0
    for _ in range(5000):
        await _settle(table)
        state = table.state
        if state is None or state.phase == GAME_OVER or table.status != "playing":
            return
        if moves is not None and done >= moves:
            return
        seat = table.seat_of_user(ALICE)
        legal = legal_actions(state, seat) if seat is not None else []
        if not legal:
            await asyncio.sleep(0.001)
            continue
        choice = decide(view(state, seat), legal, get_ruleset(table.ruleset), state.config.options)
        verb, arg = control_of(choice)
        await service.act(table.id, ALICE, verb, None if arg is None else str(arg), state.move)
        done += 1
    raise AssertionError("the game did not end")


async def test_table_service_plays_restarts_and_settles_on_sqlite(
    db: Database, clock: FakeClock
) -> None:
    from bot.service.tables import TableService

    services = build_services(None, db, clock=clock, tables=False)
    settings, ledger = services.guild_settings, services.ledger

    def service() -> TableService:
        made = TableService(None, TablesRepository(db, clock=clock), ledger, settings)
        made.computer_delay = 0
        made.next_hand_delay = 0
        return made

    first = service()
    table = await first.open_table(
        guild_id=1,
        channel_id=10,
        host_id=ALICE,
        host_name="alice",
        ruleset="pung-chow",
        options={},
        computer_players=3,
        turn_seconds=0,
        claim_seconds=15,
        hands=2,
    )
    lobby_seats = await TablesRepository(db).seats(table.id)
    assert [(r.seat, r.user_id, r.is_computer) for r in lobby_seats] == [
        (0, ALICE, False),
        (1, None, True),
        (2, None, True),
        (3, None, True),
    ]
    await first.start_game(table.id, ALICE, can_manage=False)
    # Once dealt, the seats table tells the physical seats the dice gave.
    seated = await TablesRepository(db).seats(table.id)
    assert [(r.seat, r.user_id) for r in seated if r.user_id] == [
        (table.seat_of_user(ALICE), ALICE)
    ]
    assert {r.display_name for r in seated} == {"alice", "Computer 1", "Computer 2", "Computer 3"}
    await _play(first, table, moves=3)
    await _settle(table)
    await first.stop()
    before = table.state

    second = service()
    await second.start()
    rebuilt = second.in_channel(10)
    assert rebuilt is not None and rebuilt.state == before
    await _play(second, rebuilt)
    await second.stop()

    repo = TablesRepository(db)
    row = await repo.get(table.id)
    assert row is not None and row["status"] == "finished"
    results = rebuilt.state.results
    assert [h["hand_no"] for h in await repo.hands(table.id)] == [r.number for r in results]
    for r in results:
        posted = await ledger.repo.by_key(f"table:{table.id}:hand:{r.number}")
        assert posted is not None and posted.status == "posted"
    seat = rebuilt.seat_of_user(ALICE)
    assert await ledger.balance(1, ALICE) == 1000 + rebuilt.state.net[seat]
    # The computers balance the members.
    assert await scalar(db, "SELECT SUM(net) FROM accounts WHERE guild_id = 1") in (0, None)
    # Leaderboards name the members from the ledger, without asking Discord.
    assert await ledger.names(1, [ALICE]) == {ALICE: "alice"}


async def test_two_tables_opened_in_one_channel_at_once_one_is_refused_clearly(
    db: Database, clock: FakeClock
) -> None:
    from bot.service.tables import TableError, TableService

    services = build_services(None, db, clock=clock, tables=False)
    service = TableService(
        None, TablesRepository(db, clock=clock), services.ledger, services.guild_settings
    )

    def new(host: int):
        return service.open_table(
            guild_id=1,
            channel_id=10,
            host_id=host,
            host_name=str(host),
            ruleset="pung-chow",
            options={},
            computer_players=1,
            turn_seconds=0,
            claim_seconds=15,
            hands=1,
        )

    results = await asyncio.gather(new(ALICE), new(ALICE + 1), return_exceptions=True)
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(refused) == 1 and isinstance(refused[0], TableError), results
    assert "already has a table" in str(refused[0])
