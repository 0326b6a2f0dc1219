"""LedgerService: posting once per source key, double entry, balances equal to the sum of the
ledger rows (property-tested), history, statistics and streaks, leaderboards and periods, and
pending settlements confirmed by every player but the proposer, counted nowhere until then,
and expiring."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service.guild_settings import GuildSettingsService
from bot.service.ledger import (
    MIN_HANDS_FOR_WIN_RATE,
    PENDING_SECONDS,
    Entry,
    LedgerError,
    LedgerService,
    Party,
    SettlementExpired,
    entries_of,
    expires_at,
    status_of,
)
from bot.services import build_services
from bot.store.database import open_database
from tests.store.helpers import FakeClock, rows, scalar

G = 1
ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104
DAY = 86400


async def post_hand(
    ledger: LedgerService,
    key: str,
    winner: int,
    losers: dict[int, int],
    *,
    score: int | None = None,
    kind: str = "hand",
    guild: int = G,
):
    """The winner collects ``losers[user]`` from each loser."""
    payments = [(loser, winner, amount) for loser, amount in losers.items()]
    total = sum(losers.values())
    results = [(winner, kind == "hand", score or max(losers.values()), total)]
    results += [(loser, False, 0, -amount) for loser, amount in losers.items()]
    return await ledger.post_settlement(
        guild, kind, payments, source_key=key, ruleset="pung-chow", results=results
    )


async def test_post_and_balance(ledger: LedgerService, settings: GuildSettingsService) -> None:
    assert await ledger.balance(G, ALICE) == 1000  # no history: the starting chips
    s = await post_hand(ledger, "t:1:h:1", ALICE, {BOB: 44, CAROL: 22, DAVE: 22})
    assert s.status == "posted" and s.posted_at is not None
    expected = {Entry(BOB, ALICE, 44), Entry(CAROL, ALICE, 22), Entry(DAVE, ALICE, 22)}
    assert set(s.entries) == expected
    assert await ledger.balance(G, ALICE) == 1088
    assert await ledger.balance(G, BOB) == 956
    assert await ledger.balance(2, ALICE) == 1000  # another server's ledger is its own
    await settings.update(G, starting_chips=500)
    assert await ledger.balance(G, ALICE) == 1088  # never rewritten: alice has played


async def test_starting_chips_apply_to_members_who_have_not_played_yet(
    ledger: LedgerService, settings: GuildSettingsService
) -> None:
    """Issue 16: changing starting_chips used to rewrite every member's balance."""
    await post_hand(ledger, "h1", ALICE, {BOB: 40})
    await settings.update(G, starting_chips=500)
    assert (await ledger.balance(G, ALICE), await ledger.balance(G, BOB)) == (1040, 960)
    assert await ledger.balance(G, CAROL) == 500 and await ledger.start_of(G, CAROL) == 500
    await post_hand(ledger, "h2", CAROL, {BOB: 10, -2: 10})  # carol plays: her 500 is fixed
    await settings.update(G, starting_chips=2000)
    assert await ledger.balance(G, CAROL) == 520 and await ledger.start_of(G, CAROL) == 500
    assert await ledger.balance(G, BOB) == 950 and await ledger.balance(G, DAVE) == 2000
    assert await ledger.repo.starts(G) == {ALICE: 1000, BOB: 1000, CAROL: 500}  # no computer
    board = await ledger.leaderboard(G, "chips", "all")
    assert [(e.user_id, e.value) for e in board] == [(ALICE, 1040), (BOB, 950), (CAROL, 520)]
    # A pending /settle fixes nobody's start; its posting does.
    pending = await propose(ledger, "settle:start")
    assert await ledger.repo.start_of(G, DAVE) is None
    await settings.update(G, starting_chips=300)
    for user in (ALICE, BOB, CAROL):
        await ledger.confirm(pending.id, user)
    assert await ledger.repo.start_of(G, DAVE) is None  # dave proposed, did not play
    assert await ledger.balance(G, CAROL) == 520 - 25


async def test_members_who_played_before_starting_chips_were_recorded_keep_their_balance(
    tmp_path,
) -> None:
    """Migration 0004 fixes the start of every member already in the ledger at the server's
    setting of that moment; computer players get none."""
    import sqlite3

    from bot.store.migrations import migrations

    path = tmp_path / "old.sqlite3"
    older = [m for m in migrations("sqlite") if m.version < 4]
    with sqlite3.connect(path) as old:
        for m in older:
            old.executescript(m.sql)
        old.execute(f"PRAGMA user_version = {max(m.version for m in older)}")
        old.execute(
            "INSERT INTO guild_settings (guild_id, starting_chips, updated_at) VALUES (1, 700, 0)"
        )
        old.executemany(
            "INSERT INTO accounts (guild_id, user_id, net) VALUES (?, ?, ?)",
            [(1, ALICE, 50), (1, -1, -50), (2, BOB, 0)],
        )
    old.close()
    db = await open_database(path)
    try:
        assert await rows(db, "SELECT guild_id, user_id, amount FROM starting_chips") == [
            (1, ALICE, 700),
            (2, BOB, 1000),
        ]
        services = build_services(None, db, tables=False)
        await services.guild_settings.update(G, starting_chips=100)
        assert await services.ledger.balance(G, ALICE) == 750
        assert await services.ledger.balance(G, CAROL) == 100
    finally:
        await db.close()


async def test_a_retry_never_posts_twice(ledger: LedgerService) -> None:
    first = await post_hand(ledger, "table:3:hand:1", ALICE, {BOB: 10})
    again = await post_hand(ledger, "table:3:hand:1", ALICE, {BOB: 10})
    both = await asyncio.gather(
        post_hand(ledger, "table:3:hand:2", BOB, {ALICE: 5}),
        post_hand(ledger, "table:3:hand:2", BOB, {ALICE: 5}),
    )
    assert again.id == first.id and both[0].id == both[1].id
    assert await ledger.balance(G, ALICE) == 1005
    assert await scalar(ledger.repo.db, "SELECT COUNT(*) FROM ledger") == 2


async def test_payments_between_two_players_are_one_row(ledger: LedgerService) -> None:
    """A liable discarder paying for three losers (and differences both ways) net per pair."""
    payments = [(BOB, ALICE, 100), (BOB, ALICE, 50), (CAROL, BOB, 30), (BOB, CAROL, 10)]
    assert entries_of(payments) == [Entry(BOB, ALICE, 150), Entry(CAROL, BOB, 20)]
    s = await ledger.post_settlement(
        G, "penalty", payments, source_key="p", ruleset="pung-chow-limit"
    )
    assert {(e.payer_id, e.payee_id) for e in s.entries} == {(BOB, ALICE), (CAROL, BOB)}
    assert await ledger.balance(G, BOB) == 1000 - 150 + 20


@pytest.mark.parametrize(
    ("payments", "results", "message"),
    [
        ([(ALICE, ALICE, 5)], None, "cannot pay themselves"),
        ([(ALICE, BOB, -5)], None, "between 0 and"),
        ([(ALICE, BOB, 5.5)], None, "whole number"),
        ([(ALICE, BOB, 5)], [(BOB, True, 5, 4)], "payments make it"),
        ([(ALICE, BOB, 5)], [(BOB, True, 5, 5), (BOB, True, 5, 5)], "two results"),
    ],
)
async def test_bad_settlements_are_refused(
    ledger: LedgerService, payments: list, results: list | None, message: str
) -> None:
    with pytest.raises(LedgerError, match=message):
        await ledger.post_settlement(
            G, "hand", payments, source_key="x", ruleset="pung-chow", results=results
        )
    with pytest.raises(LedgerError, match="kind must be"):
        await ledger.post_settlement(G, "gift", [], source_key="y", ruleset="pung-chow")
    assert await ledger.repo.by_key("x") is None


async def test_every_settlement_sums_to_zero_and_results_match(ledger: LedgerService) -> None:
    await post_hand(ledger, "a", ALICE, {BOB: 44, CAROL: 22, -4: 22})  # a computer in seat 3
    await ledger.post_settlement(
        G,
        "hand",
        [(BOB, -1, 30), (CAROL, -1, 30), (CAROL, BOB, 8)],
        source_key="b",
        ruleset="pung-chow",
        results=[(-1, True, 30, 60)],  # the others are recorded from the payments
    )
    db = ledger.repo.db
    totals = await rows(
        db, "SELECT settlement_id, SUM(net) FROM player_results GROUP BY settlement_id"
    )
    assert totals and all(total == 0 for _, total in totals)
    assert await scalar(db, "SELECT SUM(net) FROM accounts WHERE guild_id = ?", (G,)) == 0
    history = await ledger.history(G, CAROL)
    assert [h.net for h in history] == [-38, -22]


def _payments():
    players = st.sampled_from([ALICE, BOB, CAROL, DAVE, -1, -2])
    payment = st.tuples(players, players, st.integers(0, 5000)).filter(lambda p: p[0] != p[1])
    return st.lists(st.lists(payment, max_size=6), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None)
@given(_payments(), st.integers(0, 10_000))
def test_balances_equal_the_sum_of_ledger_entries(settlements, start) -> None:
    async def run() -> None:
        db = await open_database(":memory:")
        try:
            services = build_services(None, db, tables=False)
            guild_settings, ledger = services.guild_settings, services.ledger
            await guild_settings.update(G, starting_chips=start)
            expected: dict[int, int] = {}
            for i, payments in enumerate(settlements):
                await ledger.post_settlement(
                    G, "manual", payments, source_key=f"k{i}", ruleset="pung-chow"
                )
                if i % 3 == 0:  # retries change nothing
                    await ledger.post_settlement(
                        G, "manual", payments, source_key=f"k{i}", ruleset="pung-chow"
                    )
                for payer, payee, amount in payments:
                    expected[payer] = expected.get(payer, 0) - amount
                    expected[payee] = expected.get(payee, 0) + amount
            total = 0
            for user in (ALICE, BOB, CAROL, DAVE, -1, -2):
                balance = await ledger.balance(G, user)
                from_rows = await ledger.repo.net_from_entries(G, user)
                assert balance == start + from_rows == start + expected.get(user, 0)
                total += balance - start
            assert total == 0
        finally:
            await db.close()

    asyncio.run(run())


async def test_history_is_newest_first_and_limited(ledger: LedgerService, clock: FakeClock) -> None:
    for i in range(5):
        await post_hand(ledger, f"h{i}", ALICE, {BOB: i + 1})
        clock.advance(60)
    history = await ledger.history(G, BOB, limit=3)
    assert [h.net for h in history] == [-5, -4, -3]
    assert history[0].ruleset == "pung-chow" and not history[0].won
    assert await ledger.history(G, CAROL) == []


async def test_stats_count_hands_wins_biggest_and_streaks(
    ledger: LedgerService, clock: FakeClock
) -> None:
    # alice: W W L W W W L ; a washing payment does not count as a hand
    plan = [True, True, False, True, True, True, False]
    for i, alice_wins in enumerate(plan):
        if alice_wins:
            await post_hand(ledger, f"s{i}", ALICE, {BOB: 10 * (i + 1)}, score=10 * (i + 1))
        else:
            await post_hand(ledger, f"s{i}", BOB, {ALICE: 7}, score=7)
        clock.advance(1)
    await post_hand(ledger, "wash", ALICE, {BOB: 50}, kind="washing")
    stats = await ledger.stats(G, ALICE)
    assert (stats.hands, stats.wins) == (7, 5)
    assert stats.biggest_hand == 60
    assert (stats.best_streak, stats.current_streak) == (3, 0)
    assert stats.net == 10 + 20 + 40 + 50 + 60 - 14 + 50
    assert stats.balance == 1000 + stats.net
    assert stats.win_rate == pytest.approx(5 / 7)
    nobody = await ledger.stats(G, DAVE)
    assert (nobody.hands, nobody.wins, nobody.biggest_hand, nobody.balance) == (0, 0, None, 1000)


async def test_leaderboards_by_metric_and_period(ledger: LedgerService, clock: FakeClock) -> None:
    # Forty days ago: carol wins big. Ten days ago: bob. Today: alice twice, dave once.
    await post_hand(ledger, "old", CAROL, {BOB: 900, -2: 900}, score=900)
    clock.advance(30 * DAY)
    await post_hand(ledger, "mid", BOB, {ALICE: 100, -2: 100}, score=100)
    clock.advance(10 * DAY)
    await post_hand(ledger, "new1", ALICE, {DAVE: 40, -2: 40}, score=40)
    await post_hand(ledger, "new2", ALICE, {DAVE: 30}, score=30)
    await post_hand(ledger, "new3", DAVE, {ALICE: 20}, score=20)

    chips = await ledger.leaderboard(G, "chips", "all")
    assert [(e.user_id, e.value) for e in chips] == [
        (CAROL, 2800),
        (ALICE, 990),
        (DAVE, 950),
        (BOB, 300),
    ]  # the computer (-2) is not ranked
    week = await ledger.leaderboard(G, "chips", "week")
    assert [(e.user_id, e.value) for e in week] == [(ALICE, 90), (DAVE, -50)]
    month = await ledger.leaderboard(G, "wins", "month")
    assert [(e.rank, e.user_id, e.value) for e in month] == [
        (1, ALICE, 2),
        (2, BOB, 1),
        (3, DAVE, 1),  # same wins as bob, more hands: ranked after him
    ]
    biggest = await ledger.leaderboard(G, "biggest-hand", "all", limit=2)
    assert [(e.user_id, e.value) for e in biggest] == [(CAROL, 900), (BOB, 100)]
    assert await ledger.leaderboard(G, "win-rate", "all") == []  # nobody has 5 hands yet
    with pytest.raises(LedgerError):
        await ledger.leaderboard(G, "luck", "all")
    with pytest.raises(LedgerError):
        await ledger.leaderboard(G, "chips", "year")


async def test_win_rate_needs_enough_hands_and_ties_share_a_rank(ledger: LedgerService) -> None:
    erin = 105
    plan = [(ALICE, BOB)] * 3 + [(BOB, ALICE)] * 2 + [(CAROL, DAVE)] * 3 + [(DAVE, CAROL)] * 2
    plan += [(erin, -1)] * (MIN_HANDS_FOR_WIN_RATE - 1)  # four wins of four: too few hands
    for i, (winner, loser) in enumerate(plan):
        await post_hand(ledger, f"r{i}", winner, {loser: 10})
    board = await ledger.leaderboard(G, "win-rate", "all")
    assert [(e.rank, e.user_id, e.value) for e in board] == [
        (1, ALICE, 0.6),
        (1, CAROL, 0.6),
        (3, BOB, 0.4),
        (3, DAVE, 0.4),
    ]


async def test_equal_players_share_a_rank(ledger: LedgerService) -> None:
    await post_hand(ledger, "x", ALICE, {DAVE: 10})
    await post_hand(ledger, "y", BOB, {DAVE: 10})
    board = await ledger.leaderboard(G, "chips", "all")
    assert [(e.rank, e.user_id) for e in board] == [(1, ALICE), (1, BOB), (3, DAVE)]


# -- pending settlements ----------------------------------------------------------------------

ERIN = 105


async def propose(ledger: LedgerService, key: str = "settle:1", created_by: int = DAVE):
    """Alice won; Bob and Carol pay. Dave (not playing) proposes it: all three must confirm."""
    return await ledger.propose(
        G,
        [(BOB, ALICE, 40), (CAROL, ALICE, 20), (CAROL, BOB, 5)],
        source_key=key,
        ruleset="pung-chow",
        description="test",
        created_by=created_by,
        parties=[
            Party(user, seat, name, must_confirm=user != created_by)
            for user, seat, name in ((ALICE, 0, "alice"), (BOB, 1, "bob"), (CAROL, 2, "carol"))
        ],
        results=[(ALICE, True, 20, 60), (BOB, False, 5, -35), (CAROL, False, 0, -25)],
    )


async def counted_anywhere(ledger: LedgerService, *users: int) -> bool:
    """Whether anything of these players shows in chips, history, stats or a leaderboard."""
    for user in users:
        stats = await ledger.stats(G, user)
        if stats.hands or stats.net or await ledger.history(G, user):
            return True
        if await ledger.balance(G, user) != 1000:
            return True
    for metric in ("chips", "wins", "biggest-hand", "win-rate"):
        for period in ("week", "all"):
            if await ledger.leaderboard(G, metric, period):
                return True
    return bool(await ledger.names(G, users))


async def test_pending_settlement_posts_once_every_other_player_confirmed(
    ledger: LedgerService,
) -> None:
    pending = await propose(ledger)
    assert pending.status == "pending" and pending.entries == ()
    assert [p.user_id for p in pending.waiting_for] == [ALICE, BOB, CAROL]
    assert not await counted_anywhere(ledger, ALICE, BOB, CAROL)
    with pytest.raises(LedgerError, match="You proposed this settlement"):
        await ledger.confirm(pending.id, DAVE)
    with pytest.raises(LedgerError, match="Only the players"):
        await ledger.confirm(pending.id, ERIN)  # a stranger
    for user in (BOB, ALICE):  # the winner confirms too: a win is a claim about the others
        _, posted = await ledger.confirm(pending.id, user)
        assert not posted
    with pytest.raises(LedgerError, match="already confirmed"):
        await ledger.confirm(pending.id, BOB)
    assert not await counted_anywhere(ledger, ALICE, BOB, CAROL)
    done, posted = await ledger.confirm(pending.id, CAROL)
    assert posted and done.status == "posted"
    assert await ledger.balance(G, ALICE) == 1060 and await ledger.balance(G, CAROL) == 975
    with pytest.raises(LedgerError, match="already posted"):
        await ledger.confirm(pending.id, CAROL)
    with pytest.raises(LedgerError, match="already posted"):
        await ledger.cancel(pending.id, DAVE)
    assert (await ledger.stats(G, ALICE)).wins == 1
    assert await ledger.names(G, [ALICE, BOB, 999]) == {ALICE: "alice", BOB: "bob"}


async def test_the_proposer_playing_counts_as_their_confirmation(ledger: LedgerService) -> None:
    pending = await propose(ledger, created_by=ALICE)
    assert [p.user_id for p in pending.waiting_for] == [BOB, CAROL]
    with pytest.raises(LedgerError, match="You proposed this settlement"):
        await ledger.confirm(pending.id, ALICE)
    await ledger.confirm(pending.id, BOB)
    assert not await counted_anywhere(ledger, ALICE, BOB, CAROL)
    _, posted = await ledger.confirm(pending.id, CAROL)
    assert posted and await ledger.balance(G, ALICE) == 1060


async def test_simultaneous_last_confirmations_post_exactly_once(ledger: LedgerService) -> None:
    pending = await propose(ledger)
    await ledger.confirm(pending.id, ALICE)
    outcomes = await asyncio.gather(
        ledger.confirm(pending.id, BOB),
        ledger.confirm(pending.id, CAROL),
        ledger.confirm(pending.id, CAROL),
        return_exceptions=True,
    )
    posted = [o[1] for o in outcomes if not isinstance(o, Exception)]
    assert posted.count(True) == 1
    assert sum(isinstance(o, LedgerError) for o in outcomes) == 1
    assert await ledger.balance(G, ALICE) == 1060


async def test_cancel_by_the_proposer_a_player_or_a_manager(ledger: LedgerService) -> None:
    pending = await propose(ledger)
    with pytest.raises(LedgerError, match="Only the players of this settlement and the member"):
        await ledger.cancel(pending.id, ERIN)
    cancelled = await ledger.cancel(pending.id, DAVE)
    assert cancelled.status == "cancelled"
    with pytest.raises(LedgerError, match="cancelled"):
        await ledger.confirm(pending.id, BOB)
    declined = await propose(ledger, "settle:2")
    assert (await ledger.cancel(declined.id, CAROL)).status == "cancelled"  # a player declines
    other = await propose(ledger, "settle:3")
    assert (await ledger.cancel(other.id, ERIN, can_manage=True)).status == "cancelled"
    with pytest.raises(LedgerError, match="does not exist"):
        await ledger.confirm(other.id, BOB, guild_id=99)
    assert not await counted_anywhere(ledger, ALICE, BOB, CAROL)


async def test_a_proposal_where_nobody_pays_still_waits_for_everyone(
    ledger: LedgerService,
) -> None:
    """Issue 11: five /settle of zero scores made one member 5 wins and 100% win rate."""
    nothing = await ledger.propose(
        G,
        [],
        source_key="settle:zero",
        ruleset="pung-chow",
        description="alice won",
        created_by=ALICE,
        parties=[Party(ALICE, 0, "alice"), Party(BOB, 1, "bob", must_confirm=True)],
        results=[(ALICE, True, 0, 0), (BOB, False, 0, 0)],
    )
    assert nothing.status == "pending" and [p.user_id for p in nothing.waiting_for] == [BOB]
    assert not await counted_anywhere(ledger, ALICE, BOB)
    _, posted = await ledger.confirm(nothing.id, BOB)
    assert posted and (await ledger.stats(G, ALICE)).wins == 1
    for parties, message in (
        ([Party(ALICE, 0), Party(BOB, 1)], "every player but the proposer must confirm"),
        ([Party(ALICE, 0)], "needs another player"),
    ):
        with pytest.raises(LedgerError, match=message):
            await ledger.propose(
                G,
                [],
                source_key="settle:bad",
                ruleset="pung-chow",
                description="",
                created_by=ALICE,
                parties=parties,
                results=[],
            )
    with pytest.raises(LedgerError, match="must be a party"):
        await ledger.propose(
            G,
            [(CAROL, ALICE, 5)],  # carol pays but is not a party
            source_key="settle:bad",
            ruleset="pung-chow",
            description="",
            created_by=ALICE,
            parties=[Party(ALICE, 0), Party(BOB, 1, must_confirm=True)],
            results=[],
        )


async def test_an_unconfirmed_settlement_expires_and_counts_nowhere(
    ledger: LedgerService, clock: FakeClock
) -> None:
    pending = await propose(ledger)
    await ledger.confirm(pending.id, ALICE)
    await ledger.confirm(pending.id, BOB)
    assert status_of(pending, ledger.now()) == "pending"
    assert expires_at(pending) == pending.created_at + PENDING_SECONDS
    clock.advance(PENDING_SECONDS)
    stored = await ledger.get(pending.id)
    assert stored is not None and status_of(stored, ledger.now()) == "expired"
    for action in (
        lambda: ledger.confirm(pending.id, CAROL),
        lambda: ledger.cancel(pending.id, DAVE),
    ):
        with pytest.raises(SettlementExpired, match="expired a day after it was proposed"):
            await action()
    assert not await counted_anywhere(ledger, ALICE, BOB, CAROL)


async def test_a_settlement_stored_when_only_payers_confirmed_never_posts_without_everyone(
    ledger: LedgerService,
) -> None:
    """A pending settlement from before this rule (the winner not asked) cannot post when the
    payers confirm: it waits until it expires."""
    async with ledger.repo.transaction():
        settlement_id = await ledger.repo.insert(
            guild_id=G,
            kind="manual",
            source_key="settle:old",
            ruleset="pung-chow",
            created_by=DAVE,
            details={"entries": [[BOB, ALICE, 40]], "results": [[ALICE, True, 20, 40]]},
        )
        await ledger.repo.add_parties(
            settlement_id, [Party(ALICE, 0), Party(BOB, 1, must_confirm=True)]
        )
    _, posted = await ledger.confirm(settlement_id, BOB)
    assert not posted
    assert not await counted_anywhere(ledger, ALICE, BOB)
