"""Ratings (issue 13.2) on a real store, each backend: a hand-worked four-player example,
computer players left out, ties, and every finished game rated exactly once, whatever fails
or restarts in between."""

from __future__ import annotations

import math

import pytest

from bot.service.ratings import MU, PROVISIONAL_GAMES, SIGMA, RatingService, places
from bot.store.ratings_repo import RatingsRepository
from tests.service.ratings_helpers import GUILD, finished_game
from tests.store.helpers import scalar

ANN, BO, CY, DI = 11, 12, 13, 14


def ratings(db, clock) -> RatingService:
    return RatingService(RatingsRepository(db, clock=clock))


def test_places_share_the_better_place_on_equal_chips() -> None:
    assert places({ANN: 30, BO: 10, CY: 10, DI: -50}) == {ANN: 1, BO: 2, CY: 2, DI: 4}
    assert places({ANN: 0, BO: 0}) == {ANN: 1, BO: 1}


async def test_four_new_members_move_as_worked_out_by_hand(db, ledger, clock) -> None:
    """Bradley-Terry, full pairing (Weng and Lin 2011, Algorithm 1), for four new members,
    by hand.

    Every prior is mu = 25, sigma = 25/3; OpenSkill first adds its dynamics tau = 25/300 to
    sigma, and beta = 25/6. Each member is compared with each other one: with equal mu the
    model's chance of winning each comparison is 1/2, and a comparison moves mu by
    (s2 / c) * (outcome - 1/2), s2 = sigma^2 + tau^2, c = sqrt(2 s2 + 2 beta^2), outcome 1
    for a win, 0 for a loss, 1/2 for a tie:
      1st: three wins                 =  3/2
      2nd: one loss, two wins         =  1/2
      3rd: two losses, one win        = -1/2
      4th: three losses               = -3/2
    So the first two go up, the last two down, the winner by three times the second."""
    game = await finished_game(db, ledger, clock, {ANN: 40, BO: 10, CY: -15, DI: -35})
    changes = await ratings(db, clock).rate_game(game)

    s2 = SIGMA**2 + (25 / 300) ** 2
    c = math.sqrt(2 * s2 + 2 * (25 / 6) ** 2)
    omega = {ANN: 3 / 2, BO: 1 / 2, CY: -1 / 2, DI: -3 / 2}
    stored = {
        r[0]: r[1] for r in await _rows(db, "SELECT user_id, mu FROM ratings WHERE guild_id = ?")
    }
    for user, w in omega.items():
        assert stored[user] == pytest.approx(MU + s2 / c * w, abs=1e-9)
    assert [changes[u].place for u in (ANN, BO, CY, DI)] == [1, 2, 3, 4]
    assert [changes[u].delta for u in (ANN, BO, CY, DI)] == [316, 105, -105, -316]
    assert all(changes[u].before == 1000 for u in omega)
    # Direction and order: up, up, down, down; first > second > third > fourth.
    deltas = [stored[u] - MU for u in (ANN, BO, CY, DI)]
    assert deltas[0] > deltas[1] > 0 > deltas[2] > deltas[3]
    assert deltas[0] / deltas[1] == pytest.approx(3)
    assert deltas[3] / deltas[2] == pytest.approx(3)


async def test_a_shared_place_moves_those_who_share_it_alike_and_no_one_below_as_much(
    db, ledger, clock
) -> None:
    """Tied first (28, 28), then -8 and -48: the two tied gain alike (one tie, two wins:
    +1 comparison's worth), the third loses (-1/2), the last the most (-3/2). Plackett-Luce,
    the model before, gave the third the same +37 as the tied first two (CI caught it)."""
    game = await finished_game(db, ledger, clock, {ANN: 28, BO: 28, CY: -8, DI: -48})
    changes = await ratings(db, clock).rate_game(game)
    delta = [changes[u].delta for u in (ANN, BO, CY, DI)]
    assert delta[0] == delta[1] > 0 > delta[2] > delta[3]
    assert delta == [211, 211, -105, -316]


async def test_computer_players_do_not_count(db, ledger, clock) -> None:
    # Two members and two computer players: the members are rated as a game of two.
    game = await finished_game(db, ledger, clock, {ANN: 50, -2: 20, BO: -30, -4: -40})
    changes = await ratings(db, clock).rate_game(game)
    assert set(changes) == {ANN, BO}
    assert changes[ANN].place == 1 and changes[BO].place == 2
    assert changes[ANN].delta == -changes[BO].delta > 0  # two equal priors move equally
    assert await scalar(db, "SELECT COUNT(*) FROM ratings WHERE user_id < 0") == 0

    # One member among computer players: no rating moves, the game is still done with.
    alone = await finished_game(db, ledger, clock, {CY: 30, -2: -10, -3: -10, -4: -10})
    assert await ratings(db, clock).rate_game(alone) == {}
    members = await scalar(db, "SELECT members FROM rated_games WHERE table_id = ?", (alone,))
    assert members == 0
    assert await scalar(db, "SELECT COUNT(*) FROM ratings WHERE user_id = ?", (CY,)) == 0


async def test_a_member_who_leaves_finishes_last_even_during_the_first_hand(
    db, ledger, clock
) -> None:
    """A member who hands their seat to a computer player before the end is rated, below
    every member who stayed (docs/ratings.md): DI leaves during hand 1, before any result of
    his; the computer in his seat loses 35. The others place as the worked example, DI
    fourth: the same +316 +105 -105 -316. Rated once, also by a new service (a restart)."""
    seated = (ANN, BO, CY, DI)
    game = await finished_game(
        db, ledger, clock, {ANN: 40, BO: 10, CY: -15, -4: -35}, seated=seated, left={DI: 1}
    )
    changes = await ratings(db, clock).rate_game(game)
    assert {u: (c.place, c.net) for u, c in changes.items()} == {
        ANN: (1, 40),
        BO: (2, 10),
        CY: (3, -15),
        DI: (4, 0),
    }
    assert [changes[u].delta for u in seated] == [316, 105, -105, -316]
    assert await ratings(db, clock).catch_up(GUILD) == 0
    assert await ratings(db, clock).rate_game(game) == changes
    assert await scalar(db, "SELECT COUNT(*) FROM rating_changes") == 4

    # Ahead when he left (+60 in hand 1), DI still finishes below all who stayed; two who
    # leave share the last place.
    ahead = await finished_game(
        db,
        ledger,
        clock,
        {DI: 60, ANN: -20, BO: -20, CY: -20},
        {ANN: 30, BO: 0, CY: -10, -4: -20},
        seated=seated,
        left={DI: 2},
    )
    changes = await ratings(db, clock).rate_game(ahead)
    assert changes[DI].net == 60 and changes[DI].place == 4 and changes[DI].delta < 0
    assert [changes[u].place for u in (ANN, BO, CY)] == [1, 2, 3]
    assert places({ANN: 5, BO: 50, CY: -5, DI: -50}, left={BO, DI}) == {
        ANN: 1,
        CY: 2,
        BO: 3,
        DI: 3,
    }

    # A game ended before any hand was settled is rated for nobody, leavers included.
    empty = await finished_game(db, ledger, clock, seated=seated, left={DI: 1, CY: 1})
    assert await ratings(db, clock).rate_game(empty) == {}


async def test_each_game_is_rated_once_and_in_finishing_order(db, ledger, clock) -> None:
    first = await finished_game(db, ledger, clock, {ANN: 20, BO: -20})
    second = await finished_game(db, ledger, clock, {BO: 30, ANN: -30})
    open_table = await finished_game(db, ledger, clock, {ANN: 5, BO: -5}, finish=False)

    # A restart is a new service on the same store: whoever asks first rates both, in order.
    service = ratings(db, clock)
    rating, last = await service.rating(GUILD, ANN)
    assert rating is not None and rating.games == 2 and last is not None
    assert last.table_id == second and last.place == 2
    snapshot = await _rows(db, "SELECT user_id, mu, sigma, games FROM ratings ORDER BY user_id")
    for again in (service, ratings(db, clock)):
        assert await again.catch_up(GUILD) == 0
        changes = await again.rate_game(first)  # idempotent: what the game did then
        assert changes[ANN].place == 1 and changes[ANN].games == 1
    assert await _rows(db, "SELECT user_id, mu, sigma, games FROM ratings ORDER BY user_id") == (
        snapshot
    )
    assert await scalar(db, "SELECT COUNT(*) FROM rating_changes") == 4
    assert (
        await scalar(db, "SELECT COUNT(*) FROM rated_games WHERE table_id = ?", (open_table,)) == 0
    )


async def test_a_failure_inside_the_game_rates_nothing_and_it_is_caught_up_once(
    db, ledger, clock, monkeypatch
) -> None:
    """The claim and the ratings commit together: a write failing after the claim (as a
    kill between the two would) leaves the game unrated, and the next reader rates it once."""
    game = await finished_game(db, ledger, clock, {ANN: 25, BO: 5, CY: -30})
    service = ratings(db, clock)
    real_save = service.repo.save_changes

    async def fail_midway(guild_id, changes):
        await real_save(guild_id, changes[:1])  # one member's rows written, then it fails
        raise OSError("disk I/O error")

    monkeypatch.setattr(service.repo, "save_changes", fail_midway)
    with pytest.raises(OSError):
        await service.rate_game(game)
    for table in ("ratings", "rated_games", "rating_changes"):
        assert await scalar(db, f"SELECT COUNT(*) FROM {table}") == 0, table
    monkeypatch.setattr(service.repo, "save_changes", real_save)

    ranked, provisional = await service.leaderboard(GUILD)
    assert ranked == [] and [r.user_id for r in provisional] == [ANN, BO, CY]
    assert await service.catch_up(GUILD) == 0
    assert await scalar(db, "SELECT COUNT(*) FROM rating_changes") == 3


async def test_provisional_until_enough_games_then_ranked(db, ledger, clock) -> None:
    service = ratings(db, clock)
    for n in range(PROVISIONAL_GAMES):
        await finished_game(db, ledger, clock, {ANN: 10, BO: -10})
        ranked, provisional = await service.leaderboard(GUILD)
        done = n + 1 >= PROVISIONAL_GAMES
        assert [r.user_id for r in ranked] == ([ANN, BO] if done else [])
        assert [r.user_id for r in provisional] == ([] if done else [ANN, BO])
    # Another server's games are its own.
    assert await service.leaderboard(GUILD + 1) == ([], [])


async def _rows(db, sql: str, params: tuple = ()) -> list[tuple]:
    async with db.reading() as unit:
        return [tuple(r) for r in await unit.fetchall(sql, params or (GUILD,) * sql.count("?"))]
