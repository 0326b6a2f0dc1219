"""``/chips``, ``/history``, ``/stats`` and ``/leaderboard``: the server's chip ledger, and the
members' skill ratings (``metric:rating``, and a line in ``/stats``: bot/service/ratings.py).

Thin: each command asks the LedgerService and renders an embed. Each acknowledges the
interaction (defers) before reading the database, so a burst of commands never leaves one
unanswered for Discord's 3 s. Names come from the member cache, else the name stored when
the player last played, else a mention (which Discord shows as the member's name), so no
command waits on member look-ups.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import FALLBACK, N_, _, answer_locale
from bot.service.ledger import METRICS, MIN_HANDS_FOR_WIN_RATE, LeaderboardEntry, LedgerService
from bot.service.ratings import PROVISIONAL_GAMES, Rating, RatingChange, RatingService
from cogs.common import (
    COLOUR,
    GuildOnly,
    chips,
    clean,
    display_name,
    make_embed,
    names_of,
    signed,
)

RATING = "rating"
METRIC_CHOICES = [app_commands.Choice(name=m, value=m) for m in (*METRICS, RATING)]
PERIOD_CHOICES = [
    app_commands.Choice(name="this week (7 days)", value="week"),
    app_commands.Choice(name="this month (30 days)", value="month"),
    app_commands.Choice(name="all time", value="all"),
]
PERIOD_WORDS = {
    "week": N_("the last 7 days"),
    "month": N_("the last 30 days"),
    "all": N_("all time"),
}
HISTORY_LIMIT = 10
KIND_WORDS = {
    "hand": N_("hand"),
    "manual": "/settle",
    "washing": N_("washing"),
    "penalty": N_("penalty"),
}
METRIC_WORDS = {
    "chips": N_("chips"),
    "wins": N_("wins"),
    "biggest-hand": N_("biggest-hand"),
    "win-rate": N_("win-rate"),
}


def _ledger(client: Any) -> LedgerService:
    return client.services.ledger


def _ratings(client: Any) -> RatingService:
    return client.services.ratings


def rating_text(rating: Rating | None, last: RatingChange | None, locale: str = FALLBACK) -> str:
    """``/stats``'s rating field: the rating, how far the last game moved it, provisional."""
    if rating is None:
        return _(locale, "- (no rated game yet)")
    text = f"{rating.value:,}"
    if last is not None:
        text += _(locale, " ({delta} last game)", delta=f"{last.delta:+d}")
    if rating.provisional:
        text += "\n" + _(
            locale,
            "provisional: {games} of {needed} games",
            games=rating.games,
            needed=PROVISIONAL_GAMES,
        )
    return text


def _who(interaction: discord.Interaction, member: discord.Member | None) -> discord.abc.User:
    return member if member is not None else interaction.user


def _wins(n: int, locale: str) -> str:
    return _(locale, "{count} win", count=n) if n == 1 else _(locale, "{count} wins", count=n)


def _hands(n: int, locale: str) -> str:
    return _(locale, "{count} hand", count=n) if n == 1 else _(locale, "{count} hands", count=n)


def _games(n: int, locale: str) -> str:
    return _(locale, "{count} game", count=n) if n == 1 else _(locale, "{count} games", count=n)


def _value(entry: LeaderboardEntry, metric: str, period: str, locale: str = FALLBACK) -> str:
    if metric == "chips":
        if period != "all":
            return signed(int(entry.value))
        return _(locale, "{amount} chips", amount=chips(int(entry.value)))
    if metric == "wins":
        return _(
            locale,
            "{wins} in {hands}",
            wins=_wins(int(entry.value), locale),
            hands=_hands(entry.hands, locale),
        )
    if metric == "biggest-hand":
        return _(locale, "{points} points", points=chips(int(entry.value)))
    return _(locale, "{rate} of {hands} hands", rate=f"{entry.value:.0%}", hands=entry.hands)


class LedgerCog(GuildOnly, commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def service(self) -> LedgerService:
        return _ledger(self.bot)

    async def _remember(
        self, interaction: discord.Interaction, user: discord.abc.User | None = None
    ) -> None:
        """Keep the names of the members just seen (the invoker, the member asked about), for
        leaderboards when the member cache lacks them. Done after answering."""
        seen = {interaction.user, user or interaction.user}
        names = {u.id: display_name(u) for u in seen if not u.bot}
        if interaction.guild_id is not None and names:
            await self.service.remember_names(interaction.guild_id, names)

    @app_commands.command(name="chips", description="Chips in this server's ledger")
    @app_commands.guild_only()
    @app_commands.describe(member="Whose chips (default: yours)")
    async def chips_command(
        self, interaction: discord.Interaction, member: discord.Member | None = None
    ) -> None:
        assert interaction.guild_id is not None
        await interaction.response.defer(thinking=True)  # before the database
        locale = answer_locale(interaction)  # in the channel: the server's language
        user = _who(interaction, member)
        balance = await self.service.balance(interaction.guild_id, user.id)
        start = await self.service.start_of(interaction.guild_id, user.id)
        name = clean(display_name(user))
        embed = make_embed(
            _(locale, "{name}: {amount} chips", name=display_name(user), amount=chips(balance)),
            colour=COLOUR,
        )
        embed.description = _(
            locale,
            "{name} started with {start} and is {change} since.",
            name=name,
            start=chips(start),
            change=signed(balance - start),
        )
        await interaction.followup.send(embed=embed)
        await self._remember(interaction, user)

    @app_commands.command(name="history", description="Recent hands and settlements")
    @app_commands.guild_only()
    @app_commands.describe(member="Whose history (default: yours)")
    async def history(
        self, interaction: discord.Interaction, member: discord.Member | None = None
    ) -> None:
        assert interaction.guild_id is not None
        await interaction.response.defer(thinking=True)  # before the database
        locale = answer_locale(interaction)
        user = _who(interaction, member)
        rows = await self.service.history(interaction.guild_id, user.id, HISTORY_LIMIT)
        if not rows:
            text = _(
                locale,
                "No hands yet. Play at a table (`/mahjong new`) or record one with `/settle`.",
            )
        else:
            lines = []
            for row in rows:
                what = KIND_WORDS.get(row.kind, row.kind)
                what = _(locale, what) if what != "/settle" else what
                where = (
                    _(locale, " · table {table} hand {hand}", table=row.table_id, hand=row.hand_no)
                    if row.table_id
                    else ""
                )
                result = (
                    _(locale, "won with {score}", score=chips(row.score))
                    if row.won
                    else _(locale, "lost")
                )
                if row.kind not in ("hand", "manual"):
                    result = what
                lines.append(
                    f"<t:{row.created_at}:d> `{row.ruleset}` {what}{where} · {result} · "
                    f"**{signed(row.net)}**"
                )
            text = "\n".join(lines)
        embed = make_embed(_(locale, "{name}: recent hands", name=display_name(user)), text)
        await interaction.followup.send(embed=embed)
        await self._remember(interaction, user)

    @app_commands.command(name="stats", description="Hands, wins, biggest hand and streaks")
    @app_commands.guild_only()
    @app_commands.describe(member="Whose statistics (default: yours)")
    async def stats(
        self, interaction: discord.Interaction, member: discord.Member | None = None
    ) -> None:
        assert interaction.guild_id is not None
        await interaction.response.defer(thinking=True)  # before the database
        locale = answer_locale(interaction)
        user = _who(interaction, member)
        s = await self.service.stats(interaction.guild_id, user.id)
        embed = make_embed(_(locale, "{name}: statistics", name=display_name(user)))
        embed.add_field(name=_(locale, "Hands"), value=str(s.hands))
        embed.add_field(name=_(locale, "Wins"), value=str(s.wins))
        embed.add_field(name=_(locale, "Win rate"), value=f"{s.win_rate:.0%}" if s.hands else "-")
        embed.add_field(
            name=_(locale, "Biggest hand"),
            value=chips(s.biggest_hand) if s.biggest_hand is not None else "-",
        )
        embed.add_field(
            name=_(locale, "Best streak"),
            value=_(locale, "{wins} in a row", wins=_wins(s.best_streak, locale)),
        )
        embed.add_field(name=_(locale, "Current streak"), value=str(s.current_streak))
        embed.add_field(name=_(locale, "Chips won or lost"), value=signed(s.net))
        embed.add_field(name=_(locale, "Balance"), value=chips(s.balance))
        rating, last = await _ratings(self.bot).rating(interaction.guild_id, user.id)
        embed.add_field(name=_(locale, "Rating"), value=rating_text(rating, last, locale))
        await interaction.followup.send(embed=embed)
        await self._remember(interaction, user)

    @app_commands.command(name="leaderboard", description="The server's ranks")
    @app_commands.guild_only()
    @app_commands.describe(metric="What to rank by", period="Over what time")
    @app_commands.choices(metric=METRIC_CHOICES, period=PERIOD_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        metric: app_commands.Choice[str] | None = None,
        period: app_commands.Choice[str] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        await interaction.response.defer(thinking=True)  # before the database
        locale = answer_locale(interaction)
        what = metric.value if metric else "chips"
        when = period.value if period else "all"
        if what == RATING:
            await self._rating_board(interaction, when)
            return
        entries = await self.service.leaderboard(interaction.guild_id, what, when, limit=10)
        title = _(
            locale,
            "Leaderboard: {metric}, {period}",
            metric=_(locale, METRIC_WORDS.get(what, what)),
            period=_(locale, PERIOD_WORDS[when]),
        )
        if not entries:
            text = _(locale, "Nobody is ranked yet.")
            if what == "win-rate":
                text += _(
                    locale,
                    " A win rate needs at least {count} hands.",
                    count=MIN_HANDS_FOR_WIN_RATE,
                )
        else:
            ids = [e.user_id for e in entries]
            stored = await self.service.names(interaction.guild_id, ids)
            names = names_of(interaction.guild, ids, stored)
            text = "\n".join(
                f"**{e.rank}.** {names[e.user_id]} · {_value(e, what, when, locale)}"
                for e in entries
            )
        await interaction.followup.send(
            embed=make_embed(title, text),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await self._remember(interaction)

    async def _rating_board(self, interaction: discord.Interaction, period: str = "all") -> None:
        """Ranked ratings, then the provisional ones unranked (fewer than N rated games).
        A rating has no period: one asked for is answered with all time, and told so."""
        assert interaction.guild_id is not None
        locale = answer_locale(interaction)
        ranked, provisional = await _ratings(self.bot).leaderboard(interaction.guild_id)
        shown_ranked, shown_new = ranked[:10], provisional[:10]
        ids = [r.user_id for r in (*shown_ranked, *shown_new)]
        stored = await self.service.names(interaction.guild_id, ids)
        names = names_of(interaction.guild, ids, stored)
        lines = [
            f"**{rank}.** {names[r.user_id]} · {r.value:,} ({_games(r.games, locale)})"
            for rank, r in enumerate(shown_ranked, 1)
        ]
        if not lines:
            lines.append(
                _(
                    locale,
                    "Nobody is ranked yet: a rating is ranked after {count} games.",
                    count=PROVISIONAL_GAMES,
                )
            )
        if shown_new:
            lines += [
                "",
                _(
                    locale,
                    "**Provisional** (fewer than {count} rated games):",
                    count=PROVISIONAL_GAMES,
                ),
            ]
            lines += [
                f"{names[r.user_id]} · {r.value:,} ({_games(r.games, locale)})" for r in shown_new
            ]
        if period != "all":
            lines[:0] = [
                _(
                    locale,
                    "-# A rating sums up every game, not only those of {period}: "
                    "this board is all time.",
                    period=_(locale, PERIOD_WORDS[period]),
                ),
                "",
            ]
        embed = make_embed(_(locale, "Leaderboard: rating, all time"), "\n".join(lines))
        embed.set_footer(
            text=_(
                locale,
                "Ratings come from finished tables with two members or more; computer "
                "players do not count. 1,000 to start.",
            )
        )
        await interaction.followup.send(
            embed=embed, allowed_mentions=discord.AllowedMentions.none()
        )
        await self._remember(interaction)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LedgerCog(bot))
