"""``/score``, ``/rules``, ``/notation`` and ``/settle``: for people playing with real tiles.

The three look-ups (:class:`LookupCog`) work in any chat, also with the app installed to a
member's own account (issue 13.5); ``/settle`` (:class:`SettleCog`) writes to a server's
ledger, so it stays on servers with the bot installed there.

Thin: each command parses its options, calls the ScoringService, and renders the answer.
A mistake of the user's is found before anything slow and answered privately; then the
interaction is acknowledged (deferred) before any database write or drawing, so a burst of
commands never leaves one unanswered for Discord's 3 s. Score cards are drawn by the bot's
drawing processes (:mod:`bot.drawing`), never in its own threads.

``/settle`` posts a pending settlement with a Confirm and a Cancel button whose custom ids
(``mj:settle:<id>:confirm``) carry the settlement, as ``DynamicItem``s, so the buttons keep
working after a restart. Every player but the proposer must confirm, each once, whatever the
scores; nothing counts until then, and after ``PENDING_SECONDS`` it expires (its buttons then
answer so and the message shows it). ``/rules`` answers privately with a button that shares
the same text in the channel.
"""

from __future__ import annotations

import logging
import re
from typing import Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import FALLBACK, N_, _, answer_locale
from bot.i18n.score_words import score_words
from bot.i18n.tiles import wind_words
from bot.rules.options import parse_option_text
from bot.rules.rulesets import RULESETS
from bot.service.hand_reading import HINT_LENGTH, HandReading, hand_hint, read_hand
from bot.service.ledger import Settlement, others_of
from bot.service.rules_pages import pages
from bot.service.rules_topics import Topic, matching_topics
from bot.service.scoring import WINDS, ScoreResult, ScoringService, SettlePlayer
from cogs.common import (
    COLOUR,
    COLOUR_DONE,
    COLOUR_OFF,
    COLOUR_WARN,
    GuildOnly,
    UserError,
    can_manage,
    chips,
    clean,
    display_name,
    handle_error,
    make_embed,
    picture_file,
    reply_error,
    signed,
)
from cogs.notify.words import house_rules_words

log = logging.getLogger(__name__)

RULE_CHOICES = [app_commands.Choice(name=r.name, value=r.name) for r in RULESETS.values()]
WIND_CHOICES = [app_commands.Choice(name=w, value=w[0]) for w in WINDS]
RESULT_HELP = "a score (480) or the hand (123m 456p ... win 2p from W)"


def _scoring(client: Any) -> ScoringService:
    return client.services.scoring


# -- /score ------------------------------------------------------------------------------------


def _line(line: Any, previous: str | None = None, locale: str = FALLBACK) -> str:
    """One score line; its source is named when it differs from the line above's."""
    source = f" · *{line.source}*" if line.source and line.source != previous else ""
    name = score_words(locale, line.name)
    if line.doubles:
        factor = 2**line.doubles
        return f"`  ×{factor:<4}` {name}{source}"
    return f"`{line.points:>6} ` {name}{source}"


def score_embed(result: ScoreResult, locale: str = FALLBACK) -> discord.Embed:
    """The itemised score: each line with its points or doubling and the rule it comes from,
    the total, and what each other seat pays (their hands scoring nothing); in ``locale``
    (the rule books' page references stay as cited)."""
    score = result.score

    def wind(seat: int) -> str:
        return wind_words(locale, seat)

    where = _(
        locale, "{seat} seat, {round} round", seat=wind(result.seat), round=wind(result.round_wind)
    )
    lines = [f"`{result.text}`", f"{where} · {result.title}", ""]
    previous: str | None = None
    for line in score.lines:
        lines.append(_line(line, previous, locale))
        previous = line.source
    if not score.lines:
        lines.append(_(locale, "Nothing in this hand scores."))
    if score.limit_hand:
        lines.append(
            _(locale, "**Limit hand:** {name}", name=score_words(locale, score.limit_hand))
        )
    if result.winner:
        title = _(locale, "Mah-Jongg: {points} points", points=chips(score.total))
    else:
        title = _(locale, "Losing hand: {points} points", points=chips(score.total))
    embed = make_embed(title, "\n".join(lines), colour=COLOUR)
    if result.payments:
        paid = [
            _(
                locale,
                "{payer} pays {payee} **{amount}**",
                payer=wind(p.payer),
                payee=wind(p.payee),
                amount=chips(p.amount),
            )
            + (
                f" ({score_words(locale, p.reason)})"
                if p.reason and p.reason != "Mah-Jongg"
                else ""
            )
            for p in result.payments
        ]
        net = result.net[result.seat]
        # A penalty (Furi Tem, a false Mah-Jongg) leaves the hand's player paying.
        paid.append(
            _(locale, "{seat} collects {amount}", seat=wind(result.seat), amount=signed(net))
            if net >= 0
            else _(
                locale, "{seat} pays {amount} in all", seat=wind(result.seat), amount=chips(-net)
            )
        )
        embed.add_field(name=_(locale, "Payments"), value="\n".join(paid)[:1024], inline=False)
    elif result.winner:
        embed.add_field(name=_(locale, "Payments"), value=_(locale, "Nobody pays."), inline=False)
    if result.house_rules:
        embed.add_field(
            name=_(locale, "House rules"),
            value=house_rules_words(result.house_rules, locale),
            inline=False,
        )
    notes = [_(locale, "The other hands count as scoring nothing.")]
    if result.limit is not None:
        notes.append(_(locale, "Limit {limit} (East double).", limit=chips(result.limit)))
    notes.append(_(locale, "/rules scoring explains the values."))
    embed.set_footer(text=" ".join(notes))
    return embed


def score_card_request(
    result: ScoreResult, name: str = "", locale: str = FALLBACK
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of ``renderer.render_score_card`` for a hand scored by ``/score``
    (``name``: whose hand): the hand alone at its seat, the others empty."""
    from bot.rules.game.view import SeatView, TableView

    hand = result.hand
    seats = tuple(
        SeatView(
            seat=s,
            wind=s,
            concealed=tuple(hand.concealed) if s == result.seat else None,
            concealed_count=len(hand.concealed) if s == result.seat else 0,
            melds=tuple(hand.melds) if s == result.seat else (),
            flowers=tuple(hand.flowers) if s == result.seat else (),
            occupied=s == result.seat,
        )
        for s in range(4)
    )
    view = TableView(
        viewer=None,
        ruleset=result.ruleset,
        seats=seats,
        round_wind=result.round_wind,
        hand_number=0,  # no game around it: the card says no hand number
        dealer=0,
        turn=result.seat,
        wall_remaining=0,
        dead_wall=0,
        revealed=True,
    )
    names = [wind_words(locale, s) for s in range(4)]
    if name:
        names[result.seat] = name
    scores = [result.score if s == result.seat else None for s in range(4)]
    title = None
    if not result.winner:
        title = _(
            locale,
            "A losing hand: {points} points (no Mah-Jongg)",
            points=chips(result.score.total),
        )
    kwargs: dict[str, Any] = {
        "winner": result.seat if result.winner else None,
        "winning_tile": result.win.tile if result.win is not None else None,
        "title": title,
        "locale": locale,
    }
    return (view, names, scores, list(result.payments)), kwargs


async def score_card_png(
    client: Any, result: ScoreResult, name: str = "", locale: str = FALLBACK
) -> bytes | None:
    """The score card image of a scored hand, drawn by the bot's drawing processes; None if
    drawing fails (the embed alone is a full answer)."""
    drawing = getattr(client, "drawing", None)
    if drawing is None:
        return None
    try:
        args, kwargs = score_card_request(result, name, locale)
        # The "lookup" lane: a look-up waits behind no table's or player's picture.
        return await drawing.draw("score_card", *args, lane="lookup", **kwargs)
    except Exception:
        log.exception("score card failed; answering with the embed only")
        return None


# -- /settle -----------------------------------------------------------------------------------


STATUS_WORDS = {
    "pending": (N_("waiting for confirmation"), COLOUR_WARN),
    "posted": (N_("posted to the ledger"), COLOUR_DONE),
    "cancelled": (N_("cancelled: nothing recorded"), COLOUR_OFF),
    "expired": (N_("expired: nothing recorded"), COLOUR_OFF),
}


def settle_embed(
    settlement: Settlement,
    status: str | None = None,
    expires: int | None = None,
    locale: str = FALLBACK,
) -> discord.Embed:
    """A settlement as its message shows it: the players and their scores, who pays whom,
    who has confirmed, and until when; its colour and title follow its ``status`` (the
    stored one unless given: ``expired`` is a pending one past its time). In ``locale``: a
    public message, so the server's language, whoever pressed a button."""
    status = status or settlement.status
    details = settlement.details
    names = {p.user_id: clean(p.display_name or str(p.user_id)) for p in settlement.parties}
    winner = details.get("winner")
    rows = []
    for player in details.get("players", []):
        user_id = player["user_id"]
        mark = " · **" + _(locale, "Mah-Jongg") + "**" if user_id == winner else ""
        limit_hand = player.get("limit_hand")
        limit = f" ({score_words(locale, limit_hand)})" if limit_hand else ""
        rows.append(
            f"{wind_words(locale, player['seat'])}: {names.get(user_id, user_id)} · "
            f"{chips(player['score'])}{limit}{mark} · {signed(player['net'])}"
        )
    round_wind = wind_words(locale, details.get("round", 0))
    head = _(locale, "`{rules}`, {wind} round", rules=settlement.ruleset, wind=round_wind)
    if settlement.created_by is not None:
        head += _(locale, " · proposed by {member}", member=f"<@{settlement.created_by}>")
    words, colour = STATUS_WORDS.get(status, STATUS_WORDS["pending"])
    text = head + "\n" + "\n".join(rows)
    if status == "pending":
        until = _(locale, " It expires {when}.", when=f"<t:{expires}:R>") if expires else ""
        text += "\n\n" + _(
            locale,
            "Nothing counts (chips, history, statistics, leaderboards) until every player "
            "below has pressed **Confirm**.{until} Any of them may **Cancel** it.",
            until=until,
        )
    elif status == "expired":
        text += "\n\n" + _(locale, "Not every player confirmed in time: nothing was recorded.")
    embed = make_embed(
        _(
            locale,
            "Settlement #{number}: {status}",
            number=settlement.id,
            status=_(locale, words),
        ),
        text,
        colour=colour,
    )
    payments = [
        _(
            locale,
            "{payer} pays {payee} **{amount}**",
            payer=names.get(p["payer"], p["payer"]),
            payee=names.get(p["payee"], p["payee"]),
            amount=chips(p["amount"]),
        )
        for p in details.get("payments", [])
    ]
    embed.add_field(
        name=_(locale, "Payments"),
        value="\n".join(payments)[:1024] or _(locale, "Nobody pays."),
    )
    asked = others_of(settlement)
    if asked:
        marks = [f"{'✅' if p.confirmed else '⏳'} {names[p.user_id]}" for p in asked]
        embed.add_field(name=_(locale, "Confirmed by the players"), value="\n".join(marks)[:1024])
    return embed


def settle_view(
    settlement: Settlement, status: str | None = None, locale: str = FALLBACK
) -> discord.ui.View | None:
    if (status or settlement.status) != "pending":
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(SettleButton(settlement.id, "confirm", locale))
    view.add_item(SettleButton(settlement.id, "cancel", locale))
    return view


class SettleButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mj:settle:(?P<id>\d+):(?P<verb>confirm|cancel)",
):
    """Confirm (a paying player) or Cancel (the proposer) a pending settlement."""

    def __init__(self, settlement_id: int, verb: str, locale: str = FALLBACK) -> None:
        confirm = verb == "confirm"
        super().__init__(
            discord.ui.Button(
                label=_(locale, "Confirm") if confirm else _(locale, "Cancel"),
                style=discord.ButtonStyle.success if confirm else discord.ButtonStyle.secondary,
                custom_id=f"mj:settle:{settlement_id}:{verb}",
            )
        )
        self.settlement_id = settlement_id
        self.verb = verb

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Button[Any],
        match: re.Match[str],
    ) -> SettleButton:
        return cls(int(match["id"]), match["verb"])

    async def callback(self, interaction: discord.Interaction) -> None:
        service = _scoring(interaction.client)
        try:
            if self.verb == "confirm":
                settlement, posted = await service.confirm(
                    self.settlement_id, interaction.user.id, guild_id=interaction.guild_id
                )
            else:
                settlement = await service.cancel(
                    self.settlement_id,
                    interaction.user.id,
                    can_manage=can_manage(interaction),
                    guild_id=interaction.guild_id,
                )
                posted = False
        except Exception as exc:  # the user's mistake privately, ours in the log
            await handle_error(interaction, exc)
            await self._show_if_closed(interaction, service)
            return
        status = service.settlement_status(settlement)
        locale = answer_locale(interaction)  # the message is public: the server's language
        await interaction.response.edit_message(
            embed=settle_embed(settlement, status, service.expires_at(settlement), locale),
            view=settle_view(settlement, status, locale),
        )
        if posted:
            await interaction.followup.send(
                _(
                    locale,
                    "Settlement #{number} is posted to the ledger. See `/chips`.",
                    number=settlement.id,
                ),
                allowed_mentions=discord.AllowedMentions.none(),
            )

    async def _show_if_closed(
        self, interaction: discord.Interaction, service: ScoringService
    ) -> None:
        """A press refused because the settlement is over (expired, cancelled, posted): the
        message is brought up to date, so its buttons no longer invite presses."""
        settlement = await service.get_settlement(self.settlement_id)
        if settlement is None or interaction.message is None:
            return
        if settlement.guild_id != interaction.guild_id:
            return
        status = service.settlement_status(settlement)
        if status == "pending":
            return
        locale = answer_locale(interaction)
        try:
            await interaction.message.edit(
                embed=settle_embed(settlement, status, locale=locale),
                view=settle_view(settlement, status, locale),
            )
        except discord.HTTPException:
            log.warning("could not update settlement %s's message", settlement.id)


def _as_win(text: str | None) -> str | None:
    """The ``win`` option as notation: "2p from W" reads as "win 2p from W"."""
    if not text or not text.strip():
        return None
    words = text.split()
    return text if words[0].lower() in ("win", "won", "winning", "+") else f"win {text}"


def _card_alt(result: ScoreResult, locale: str = FALLBACK) -> str:
    what = _(locale, "Mah-Jongg") if result.winner else _(locale, "A losing hand")
    return _(
        locale,
        "Score card: {what}, {hand}, {points} points",
        what=what,
        hand=result.text,
        points=result.score.total,
    )[:1000]


def rules_message(
    topic: Topic, page: int = 0, locale: str = FALLBACK
) -> tuple[discord.Embed, discord.ui.View]:
    """A ``/rules`` answer: page ``page`` of the topic (bot/service/rules_pages.py: each
    fits one embed whatever the topic holds), ◀ ▶ when it has more than one, and the button
    that shares the page shown. ``topic`` comes in its language; ``locale`` words the rest."""
    shown = pages(topic)
    page = max(0, min(page, len(shown) - 1))
    title = topic.title
    if shown[page].label:
        title += f": {shown[page].label}"
    if len(shown) > 1:
        title += _(locale, " ({page} of {pages})", page=page + 1, pages=len(shown))
    view = discord.ui.View(timeout=None)
    if len(shown) > 1:
        for emoji, to in (("\u25c0\ufe0f", page - 1), ("\u25b6\ufe0f", page + 1)):
            target = max(0, min(to, len(shown) - 1))
            button: discord.ui.Button[Any] = discord.ui.Button(
                emoji=emoji,
                style=discord.ButtonStyle.secondary,
                custom_id=f"mj:rules:page:{topic.key}:{target}",
                disabled=not 0 <= to < len(shown),
            )
            # Its dynamic item: discord.py keeps a sent view holding a plain button under its
            # message for good (every /rules answer ever shown, in memory).
            view.add_item(RulesPageButton(button, topic.key, target))
    view.add_item(ShareRulesButton(topic.key, page if len(shown) > 1 else None, locale))
    return make_embed(title, shown[page].text), view


class ShareRulesButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mj:rules:share:(?P<topic>[a-z0-9-]{1,40})(?::(?P<page>\d{1,3}))?",
):
    """Under a private ``/rules`` answer: post the same text (the page shown) in the channel,
    for everyone."""

    def __init__(self, topic: str, page: int | None = None, locale: str = FALLBACK) -> None:
        super().__init__(
            discord.ui.Button(
                label=_(locale, "Share in the channel"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"mj:rules:share:{topic}" + (f":{page}" if page is not None else ""),
            )
        )
        self.topic = topic
        self.page = page or 0

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Button[Any],
        match: re.Match[str],
    ) -> ShareRulesButton:
        return cls(match["topic"], int(match["page"]) if match["page"] else None)

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            topic = None if self.topic == "topics" else self.topic
            locale = answer_locale(interaction)  # shared in the channel: the server's language
            found = _scoring(interaction.client).rules_text(topic, locale)
            embed, _view = rules_message(found, self.page, locale)
            embed.set_footer(
                text=_(locale, "Shared by {name} · /rules", name=display_name(interaction.user))
            )
            await interaction.response.send_message(
                embed=embed, allowed_mentions=discord.AllowedMentions.none()
            )
        except Exception as exc:
            await handle_error(interaction, exc)


class RulesPageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mj:rules:page:(?P<topic>[a-z0-9-]{1,40}):(?P<page>\d{1,3})",
):
    """◀ ▶ under a ``/rules`` answer of several pages: that page, in the same message."""

    def __init__(self, item: discord.ui.Button[Any], topic: str, page: int) -> None:
        super().__init__(item)
        self.topic = topic
        self.page = page

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Button[Any],
        match: re.Match[str],
    ) -> RulesPageButton:
        return cls(item, match["topic"], int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            topic = None if self.topic == "topics" else self.topic
            locale = answer_locale(interaction, private=True)
            found = _scoring(interaction.client).rules_text(topic, locale)
            embed, view = rules_message(found, self.page, locale)
            await interaction.response.edit_message(embed=embed, view=view)
        except Exception as exc:
            await handle_error(interaction, exc)


def reading_embed(reading: HandReading, locale: str = FALLBACK) -> discord.Embed:
    """``/notation``'s answer: the compact form to paste, what each part became, the count."""
    text = "\n".join([f"`{reading.compact}`", "", *reading.lines, "", reading.verdict])
    embed = make_embed(_(locale, "How the bot reads your hand"), text)
    embed.set_footer(
        text=_(locale, "/score takes the same text · /notation alone: how to write a hand")
    )
    return embed


# -- the cog -----------------------------------------------------------------------------------


#: Where the look-ups are offered (issue 13.5): anywhere, also where the app is installed to
#: a member's own account, so people playing with real tiles at home or in a group DM can
#: look up a score. They read no server's data but its default rule set when there is one.
#: The ledger and /settle stay on servers, installed with the bot (bot/app.py's defaults).
ANYWHERE = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True)
ANY_INSTALL = app_commands.AppInstallationType(guild=True, user=True)


class _ScoringCog(commands.Cog):
    """What both cogs share: the bot, the scoring service, and their buttons registered
    (``DynamicItem``s, so buttons sent before a restart still answer)."""

    items: ClassVar[tuple[type[Any], ...]] = ()

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def service(self) -> ScoringService:
        return _scoring(self.bot)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(*self.items)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(*self.items)


class LookupCog(_ScoringCog):
    """``/score``, ``/rules`` and ``/notation``: offered in servers, the bot's DMs and group
    DMs, with the app installed to the server or to the member (integration types 0 and 1).
    In a group DM the bot is not a member: it can only answer the interaction (its response
    and follow-ups), which is all these commands do."""

    items = (ShareRulesButton, RulesPageButton)

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await handle_error(interaction, error)

    @app_commands.command(name="score", description="Score a hand played with real tiles")
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.rename(round_wind="round")
    @app_commands.describe(
        hand="The hand, e.g. 123m 456m 789s 55s 22p win 2p from W (see /rules notation)",
        rules="Rule set (default: the server's)",
        seat="Your wind (default East)",
        round_wind="The round's wind (default East)",
        win="The winning tile and how it came, e.g. 2p from W, 5s self-draw (or in the hand)",
        options="Rule-set options as name=value, e.g. limit=none (see /rules options)",
        renchon="singapore: East's wins in a row before this hand (Renchon games)",
    )
    @app_commands.choices(rules=RULE_CHOICES, seat=WIND_CHOICES, round_wind=WIND_CHOICES)
    async def score(
        self,
        interaction: discord.Interaction,
        hand: app_commands.Range[str, 1, 300],
        rules: app_commands.Choice[str] | None = None,
        seat: app_commands.Choice[str] | None = None,
        round_wind: app_commands.Choice[str] | None = None,
        win: app_commands.Range[str, 1, 100] | None = None,
        options: app_commands.Range[str, 1, 300] | None = None,
        renchon: app_commands.Range[int, 0, 9] = 0,
    ) -> None:
        result = await self.service.score(
            hand,
            guild_id=interaction.guild_id,
            rules=rules.value if rules else None,
            seat=seat.value if seat else 0,
            round_wind=round_wind.value if round_wind else 0,
            win=_as_win(win),
            options=parse_option_text(options) or None,
            renchon=renchon,
        )
        await interaction.response.defer(thinking=True)  # before drawing the card
        locale = answer_locale(interaction)  # public: the server's language (a DM: the member's)
        embed = score_embed(result, locale)
        png = await score_card_png(
            interaction.client, result, display_name(interaction.user), locale
        )
        if png is None:
            await interaction.followup.send(embed=embed)
            return
        card = picture_file(png, "score.png", _card_alt(result, locale))
        embed.set_image(url="attachment://score.png")
        await interaction.followup.send(embed=embed, file=card)

    @app_commands.command(name="rules", description="The rules in short, with the book's pages")
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.describe(topic="A topic: scoring, limit-hands, washing, claims, settling...")
    async def rules(
        self,
        interaction: discord.Interaction,
        topic: app_commands.Range[str, 0, 60] | None = None,
    ) -> None:
        locale = answer_locale(interaction, private=True)
        embed, view = rules_message(self.service.rules_text(topic, locale), locale=locale)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    @score.autocomplete("hand")
    async def _hand_hint(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """While the hand is typed: one suggestion, the text itself, named by what the bot
        reads in it (a mistake, or the count and whether it is complete). Discord takes a
        suggestion's value up to 100 characters; a longer hand gets none."""
        if not current.strip() or len(current) > HINT_LENGTH:
            return []
        rules = getattr(interaction.namespace, "rules", None)
        name = rules if isinstance(rules, str) and rules in RULESETS else "pung-chow"
        locale = answer_locale(interaction, private=True)
        return [app_commands.Choice(name=hand_hint(current, name, locale), value=current)]

    @rules.autocomplete("topic")
    async def _topic_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        locale = answer_locale(interaction, private=True)
        return [
            app_commands.Choice(name=f"{t.key}: {_(locale, t.summary)}"[:100], value=t.key)
            for t in matching_topics(current)
        ]

    @app_commands.command(
        name="notation", description="How the bot reads a hand you type (before /score)"
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.describe(
        hand="The hand as you would give it to /score (empty: how to write one)",
        rules="Rule set: how many tiles a hand has (default pung-chow)",
    )
    @app_commands.choices(rules=RULE_CHOICES)
    async def notation(
        self,
        interaction: discord.Interaction,
        hand: app_commands.Range[str, 1, 300] | None = None,
        rules: app_commands.Choice[str] | None = None,
    ) -> None:
        if hand is None:
            found = self.service.rules_text("notation", answer_locale(interaction, private=True))
            await interaction.response.send_message(
                embed=make_embed(found.title, found.text), ephemeral=True
            )
            return
        locale = answer_locale(interaction, private=True)
        reading = read_hand(hand, rules.value if rules else "pung-chow", locale)
        await interaction.response.send_message(
            embed=reading_embed(reading, locale), ephemeral=True
        )


class SettleCog(GuildOnly, _ScoringCog):
    """``/settle``: writes to the server's ledger, so servers only (GuildOnly refuses it
    anywhere else, should a client offer it)."""

    items = (SettleButton,)

    @app_commands.command(
        name="settle", description="Record a game played with real tiles (payers confirm)"
    )
    @app_commands.guild_only()
    @app_commands.rename(round_wind="round")
    @app_commands.describe(
        winner="Who went Mah-Jongg",
        east="The player at East",
        south="The player at South",
        east_score=f"East's {RESULT_HELP}",
        south_score=f"South's {RESULT_HELP}",
        west="The player at West",
        west_score=f"West's {RESULT_HELP}",
        north="The player at North",
        north_score=f"North's {RESULT_HELP}",
        rules="Rule set (default: the server's)",
        round_wind="The round's wind (default East)",
    )
    @app_commands.choices(rules=RULE_CHOICES, round_wind=WIND_CHOICES)
    async def settle(
        self,
        interaction: discord.Interaction,
        winner: discord.Member,
        east: discord.Member,
        south: discord.Member,
        east_score: app_commands.Range[str, 1, 300] | None = None,
        south_score: app_commands.Range[str, 1, 300] | None = None,
        west: discord.Member | None = None,
        west_score: app_commands.Range[str, 1, 300] | None = None,
        north: discord.Member | None = None,
        north_score: app_commands.Range[str, 1, 300] | None = None,
        rules: app_commands.Choice[str] | None = None,
        round_wind: app_commands.Choice[str] | None = None,
    ) -> None:
        seats = (
            ("E", east, east_score),
            ("S", south, south_score),
            ("W", west, west_score),
            ("N", north, north_score),
        )
        players = []
        for wind, member, result in seats:
            if member is None:
                if result is not None:
                    raise UserError(f"{WINDS['ESWN'.index(wind)]}'s score is given, not the player")
                continue
            if member.bot:
                raise UserError(f"{display_name(member)} is a bot; only members play.")
            players.append(SettlePlayer(member.id, wind, result, display_name(member)))
        proposal = await self.service.prepare_settlement(
            interaction.guild_id or 0,
            interaction.channel_id,
            interaction.user.id,
            rules.value if rules else None,
            players,
            winner.id,
            round_wind=round_wind.value if round_wind else 0,
            source_key=f"settle:{interaction.id}",
        )
        await interaction.response.defer(thinking=True)  # before writing it down
        settlement = await self.service.store_settlement(proposal)
        status = self.service.settlement_status(settlement)
        expires = self.service.expires_at(settlement)
        locale = answer_locale(interaction)  # public: the server's language
        view = settle_view(settlement, status, locale)
        await interaction.followup.send(
            embed=settle_embed(settlement, status, expires, locale),
            view=view if view is not None else discord.utils.MISSING,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        waiting = settlement.waiting_for
        if waiting and status == "pending":
            # Its own message: filling the deferred answer is an edit, and edits never ping.
            await interaction.followup.send(
                " ".join(f"<@{p.user_id}>" for p in waiting)
                + _(
                    locale,
                    ": {name} recorded a game with you (settlement #{number} above). Nothing "
                    "counts until each of you presses **Confirm**; it expires {when}.",
                    name=display_name(interaction.user),
                    number=settlement.id,
                    when=f"<t:{expires}:R>",
                ),
                allowed_mentions=discord.AllowedMentions(
                    users=[discord.Object(p.user_id) for p in waiting], roles=False, everyone=False
                ),
            )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(LookupCog(bot))
    await bot.add_cog(SettleCog(bot))


__all__ = [
    "LookupCog",
    "RulesPageButton",
    "SettleButton",
    "SettleCog",
    "ShareRulesButton",
    "reply_error",
    "rules_message",
    "score_card_png",
    "score_card_request",
    "score_embed",
    "setup",
]
