"""Skill ratings per server, from the finished games of its members (issue 13.2).

The rating is OpenSkill's Bradley-Terry model with full pairing (Weng and Lin, "A Bayesian
Approximation Method for Online Ranking", 2011, Algorithm 1), made for free-for-all games of
any number of players: a game is the order its members finished in, each member a team of
one, compared with every other member. Not Plackett-Luce: its ties gave the member below a
shared place the same gain as those sharing it (tied first 28, 28, third -8: +37 each).
Each member has a skill estimate ``mu`` and its uncertainty ``sigma``, starting at
OpenSkill's 25 and 25/3; what people see is :data:`SCALE` times ``mu`` (1,000 to start).
Why these choices, and why computer players do not count, is in docs/ratings.md.

- A game is a table whose status is *finished* (its planned hands played, or ended by the
  host after some hands: the hands played stand, so ending early never dodges a loss).
- The finishing order is the chips each member won or lost at that table; equal chips share
  a place. A member who left their seat to a computer player before the end (``leave``, even
  during the first hand) finishes below every member who stayed, whatever their chips when
  they left; those who left share that last place (docs/ratings.md says why).
- Computer players are left out; a game needs two members or more, and a finished hand, to
  be rated.
- Every game is rated exactly once: ``rated_games`` holds a row per table, written in the
  same transaction as the ratings it changes (:meth:`RatingService.rate_game`). Games are
  rated in the order they finished; one missed at its end (a crash) is caught up before any
  rating is next shown.
- A rating is *provisional* until :data:`PROVISIONAL_GAMES` rated games: shown, but not ranked.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from openskill.models import BradleyTerryFull

from bot.store.ratings_repo import ChangeRow, RatingRow, RatingsRepository

log = logging.getLogger(__name__)

#: What one point of skill estimate is shown as: a new member's 25 shows as 1,000.
SCALE = 40
#: Rated games before a rating is ranked on the leaderboard.
PROVISIONAL_GAMES = 5
#: OpenSkill's defaults, written out: they are stored with every rating, so they may not move.
MU, SIGMA = 25.0, 25.0 / 3
MODEL = BradleyTerryFull(mu=MU, sigma=SIGMA)


def shown(mu: float) -> int:
    """The number people see for a skill estimate."""
    return round(SCALE * mu)


@dataclass(frozen=True, slots=True)
class Rating:
    """A member's rating as shown: ``value`` (1,000 to start), rated ``games``."""

    user_id: int
    mu: float
    sigma: float
    games: int

    @property
    def value(self) -> int:
        return shown(self.mu)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one game did to one member's rating."""

    table_id: int
    user_id: int
    place: int
    net: int
    before: int
    after: int
    games: int

    @property
    def delta(self) -> int:
        return self.after - self.before

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def places(nets: Mapping[int, int], left: Iterable[int] = ()) -> dict[int, int]:
    """Each member's place from their chips at the table: 1 for the most; equal chips share
    the better place (standard competition ranking: 1, 2, 2, 4). Members in ``left`` (who
    left their seat before the end) come after all who stayed, sharing the last place."""
    gone = set(left)
    stayed = {user: net for user, net in nets.items() if user not in gone}
    ordered = sorted(stayed.values(), reverse=True)
    place = {user: ordered.index(net) + 1 for user, net in stayed.items()}
    place.update({user: len(stayed) + 1 for user in nets if user in gone})
    return place


def members_who_left(events: Iterable[tuple[str, Mapping]]) -> set[int]:
    """The members who handed their seat to a computer player during the game, from the
    table's events (``join``/``unjoin`` give each place's member, ``leave`` names a place)."""
    players: list[int | None] = []
    left = set()
    for kind, payload in events:
        if kind == "join":
            players.append(payload.get("user_id"))
        elif kind == "unjoin":
            players = [p for p in players if p != payload.get("user_id")]
        elif kind == "leave" and 0 <= payload.get("player", -1) < len(players):
            user = players[payload["player"]]
            if user is not None:
                left.add(user)
    return left


def rate_standings(
    priors: Mapping[int, tuple[float, float]],
    nets: Mapping[int, int],
    left: Iterable[int] = (),
) -> dict[int, tuple[float, float]]:
    """New (mu, sigma) of each member of a game from their priors (missing: a new member),
    their chips at the table and who ``left`` before the end. Pure; the order of ``nets``
    does not matter."""
    users = sorted(nets)
    place = places(nets, left)
    teams = [[MODEL.rating(*priors.get(u, (MU, SIGMA)))] for u in users]
    rated = MODEL.rate(teams, ranks=[place[u] for u in users])
    return {u: (team[0].mu, team[0].sigma) for u, team in zip(users, rated, strict=True)}


def _change(row: ChangeRow) -> RatingChange:
    return RatingChange(
        row.table_id,
        row.user_id,
        row.place,
        row.net,
        shown(row.mu_before),
        shown(row.mu_after),
        row.games_after,
    )


class RatingService:
    def __init__(self, repo: RatingsRepository) -> None:
        self.repo = repo

    async def rate_game(self, table_id: int) -> dict[int, RatingChange]:
        """Rate a finished table (after every earlier unrated game of its server) and return
        its changes by member. Idempotent: a table rated before returns what it did then."""
        guild_id = await self.repo.guild_of(table_id)
        if guild_id is None:
            return {}
        await self.catch_up(guild_id, also=table_id)
        return {c.user_id: _change(c) for c in await self.repo.changes_of_game(table_id)}

    async def catch_up(self, guild_id: int, *, also: int | None = None) -> int:
        """Rate every finished, unrated game of a server, oldest first (and table ``also``,
        which the caller knows finished though the store may not say so yet). Returns how
        many games it rated."""
        games = await self.repo.unrated_games(guild_id)
        if also is not None and also not in games:
            games.append(also)
        rated = 0
        for table_id in games:
            rated += await self._rate_one(guild_id, table_id)
        return rated

    async def _rate_one(self, guild_id: int, table_id: int) -> int:
        """One game in one transaction: claimed in ``rated_games`` (or found already rated,
        then nothing changes) together with the ratings it moves."""
        async with self.repo.transaction():
            nets = await self.repo.game_nets(table_id)
            left = members_who_left(await self.repo.seat_events(table_id))
            if await self.repo.hands_settled(table_id):
                # One who left before any hand of theirs was settled played all the same.
                nets = {**{user: 0 for user in left}, **nets}
            members = len(nets) if len(nets) >= 2 else 0
            if not await self.repo.claim_game(table_id, guild_id, members):
                return 0
            if not members:
                return 0
            priors = await self.repo.ratings_of(guild_id, nets)
            after = rate_standings({u: (r.mu, r.sigma) for u, r in priors.items()}, nets, left)
            place = places(nets, left)
            changes = []
            for user, (mu, sigma) in sorted(after.items()):
                before = priors.get(user, RatingRow(user, MU, SIGMA, 0))
                changes.append(
                    ChangeRow(
                        table_id,
                        user,
                        place[user],
                        nets[user],
                        before.mu,
                        before.sigma,
                        mu,
                        sigma,
                        before.games + 1,
                    )
                )
            await self.repo.save_changes(guild_id, changes)
        log.info("rated table %s: %d members", table_id, len(changes))
        return 1

    async def rating(
        self, guild_id: int, user_id: int
    ) -> tuple[Rating | None, RatingChange | None]:
        """A member's rating (None: no rated game yet) and their last game's change."""
        await self.catch_up(guild_id)
        row, last = await self.repo.rating(guild_id, user_id)
        rating = None if row is None else Rating(row.user_id, row.mu, row.sigma, row.games)
        return rating, None if last is None else _change(last)

    async def leaderboard(self, guild_id: int) -> tuple[list[Rating], list[Rating]]:
        """The ranked ratings (highest first) and the provisional ones, apart."""
        await self.catch_up(guild_id)
        rows = [Rating(r.user_id, r.mu, r.sigma, r.games) for r in await self.repo.board(guild_id)]
        return [r for r in rows if not r.provisional], [r for r in rows if r.provisional]


__all__ = [
    "MODEL",
    "PROVISIONAL_GAMES",
    "SCALE",
    "Rating",
    "RatingChange",
    "RatingService",
    "members_who_left",
    "places",
    "rate_standings",
    "shown",
]
