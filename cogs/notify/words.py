"""The words a table shows: the lobby, the table's caption and log, the reveal, the standings,
the summary line in the home channel, and alt texts. Pure functions of a table (through
:mod:`bot.service.privacy` wherever a game is shown), so they are tested without Discord."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import FALLBACK, N_, _
from bot.i18n.moves import move_words
from bot.i18n.score_words import score_words
from bot.i18n.tiles import tile_words, wind_words
from bot.service.privacy import names_of

if TYPE_CHECKING:
    from bot.rules.game.state import HandResult
    from bot.service.tables import LiveTable

HASH_SHOWN = 12  # hex digits of the wall seed's SHA-256 on the table; /mahjong verify has all


def option_words(name: str, value: Any, locale: str = FALLBACK) -> str:
    """One table option as people say it: ``limit=None`` is "no limit", ``flowers=False``
    "no flowers", ``mahjong_bonus=20`` "mahjong bonus 20" (the option's own name, which
    /rules options explains, stays as the code spells it in every language)."""
    words = name.replace("_", " ")
    if value is None or value is False:
        return _(locale, "no {option}", option=words)
    if value is True:
        return words
    return f"{words} {value}"


def options_in_words(options: dict[str, Any], locale: str = FALLBACK) -> str:
    said = [option_words(k, v, locale) for k, v in options.items()]
    return _(locale, ", ").join(said) or _(locale, "the rule set's defaults")


def length_words(table: LiveTable, locale: str = FALLBACK) -> str:
    if table.hands:
        if table.hands == 1:
            return _(locale, "one hand")
        return _(locale, "{hands} hands", hands=table.hands)
    if table.sets and table.sets > 1:
        return _(locale, "{sets} sets (four rounds each)", sets=table.sets)
    return _(locale, "one set (four rounds)")


def pace_words(table: LiveTable, locale: str = FALLBACK) -> str:
    if table.turn_seconds:
        timer = _(locale, "{seconds} s a turn", seconds=table.turn_seconds)
    else:
        timer = _(locale, "no turn timer")
    return _(
        locale,
        "{timer}, {seconds} s to claim; {length}",
        timer=timer,
        seconds=table.claim_seconds,
        length=length_words(table, locale),
    )


LOBBY_STATUS = {
    "lobby": N_("Join, add computer players, and the host starts the game."),
    "cancelled": N_("This table was cancelled."),
}


def lobby_embed(table: LiveTable, locale: str = FALLBACK) -> discord.Embed:
    """The lobby, in the server's language (a public message)."""
    computer = _(locale, " (computer)")
    seats = "\n".join(
        f"{i + 1}. {p.name}{computer if p.computer else ''}" for i, p in enumerate(table.players)
    )
    status = LOBBY_STATUS.get(table.status)
    status = _(locale, status) if status else ""
    expires = getattr(table, "lobby_expires_at", None)
    if table.status == "lobby" and expires:
        when = f"<t:{int(expires)}:R>"
        status += " " + _(locale, "It expires {when} unless started.", when=when)
    embed = discord.Embed(
        title=_(locale, "Mahjong table: {ruleset}", ruleset=table.ruleset),
        description=f"{status}\n\n{seats or _(locale, 'No one yet.')}",
        colour=discord.Colour.dark_green(),
    )
    embed.add_field(
        name=_(locale, "Options"),
        value=options_in_words(table.options, locale)[:1024],
        inline=False,
    )
    embed.add_field(name=_(locale, "Pace"), value=pace_words(table, locale))
    if not getattr(table, "hints", True):
        embed.add_field(name=_(locale, "Hints"), value=_(locale, "off (a competitive table)"))
    embed.set_footer(text=_(locale, "Table {table}", table=table.id))
    return embed


def short_hash(seed_hash: str) -> str:
    return seed_hash[:HASH_SHOWN]


def table_embed(table: LiveTable, log_lines: list[str], locale: str = FALLBACK) -> discord.Embed:
    state = table.state
    assert state is not None
    embed = discord.Embed(
        title=_(
            locale,
            "{ruleset}: {wind} round, hand {deal}",
            ruleset=table.ruleset,
            wind=wind_words(locale, state.round_wind),
            deal=state.deal,
        ),
        description="\n".join(move_words(locale, line) for line in log_lines)
        or _(locale, "The game begins."),
        colour=discord.Colour.dark_green(),
    )
    embed.set_image(url="attachment://table.png")
    embed.set_footer(
        text=_(
            locale,
            "Table {table} · wall {hash} (/mahjong verify)",
            table=table.id,
            hash=short_hash(state.seed_hash),
        )
    )
    return embed


def result_title(result: HandResult, names: tuple[str, ...], locale: str = FALLBACK) -> str:
    if result.winner is not None:
        return _(locale, "{name} wins", name=names[result.winner])
    if result.kind == "washing":
        return _(locale, "the tiles are washed")
    return _(locale, "drawn hand")


def win_words(result: HandResult, names: tuple[str, ...], locale: str = FALLBACK) -> str:
    """Who won with what, in one sentence, from the revealed result."""
    if result.winner is None:
        if result.kind == "washing":
            return _(locale, "The tiles were washed: nobody won.")
        return _(locale, "Nobody went out: a drawn hand.")
    who = names[result.winner]
    score = result.scores[result.winner]
    worth = ""
    if score is not None:
        lines = [
            score_words(locale, line.name)
            for line in score.lines
            if line.doubles or line.points >= 10
        ]
        named = f" ({', '.join(lines[:3])})" if lines else ""
        points = _(locale, "{points} points", points=score.total)
        limit = score_words(locale, score.limit_hand) if score.limit_hand else None
        worth = _(locale, " for {worth}", worth=f"{limit or points}{named}")
    if result.win is not None and result.win.tile is not None:
        tile = tile_words(locale, result.win.tile)
        if result.discarder is not None and result.discarder != result.winner:
            return _(
                locale,
                "{name} won on {discarder}'s {tile}{worth}.",
                name=who,
                discarder=names[result.discarder],
                tile=tile,
                worth=worth,
            )
        return _(locale, "{name} won, drawing {tile}{worth}.", name=who, tile=tile, worth=worth)
    return _(locale, "{name} won{worth}.", name=who, worth=worth)


def reveal_embed(table: LiveTable, result: HandResult, locale: str = FALLBACK) -> discord.Embed:
    names = names_of(table)
    embed = discord.Embed(
        title=_(
            locale,
            "Hand {number}: {what}",
            number=result.number,
            what=result_title(result, names, locale),
        ),
        colour=discord.Colour.gold(),
    )
    for seat, score in enumerate(result.scores):
        if score is None or not names[seat]:
            continue
        lines = [
            f"{score_words(locale, line.name)}: "
            f"{'x' + str(2**line.doubles) if line.doubles else line.points}"
            for line in score.lines[:12]
        ]
        if len(score.lines) > 12:  # the card above shows them all
            more = len(score.lines) - 12
            lines.append(_(locale, "... {more} more on the card", more=more))
        value = "\n".join(lines) + f"\n**{score.total}**" if lines else "0"
        embed.add_field(name=names[seat], value=value[:1024], inline=True)
    paid = "\n".join(
        _(
            locale,
            "{payer} pays {payee} {amount}",
            payer=names[p.payer],
            payee=names[p.payee],
            amount=p.amount,
        )
        for p in result.payments
    )
    embed.add_field(
        name=_(locale, "Payments"), value=paid[:1024] or _(locale, "No payments."), inline=False
    )
    house = house_rules_words(getattr(result, "house_rules", ()), locale)
    if house:
        embed.add_field(name=_(locale, "House rules"), value=house, inline=False)
    embed.set_image(url="attachment://reveal.png")
    embed.set_footer(
        text=_(
            locale,
            "Wall seed {seed} (SHA-256 {hash}…)",
            seed=result.seed,
            hash=short_hash(result.seed_hash),
        )
    )
    return embed


def house_rules_words(house: tuple[str, ...], locale: str = FALLBACK) -> str:
    """The house rules (bot/rules/house_rules.py) that changed a hand, said so; empty if none."""
    if not house:
        return ""
    named = ", ".join(f"`{h}`" for h in house)
    return _(
        locale,
        "{rules} changed this hand (the texts' reading scores it otherwise: /rules options).",
        rules=named,
    )


def standings(table: LiveTable) -> list[tuple[str, int]]:
    """(name, net) from first to last place (nothing when no hand was finished)."""
    state = table.state
    if state is None or not state.results:
        return []
    names = names_of(table)
    order = sorted((s for s in range(4) if names[s]), key=lambda s: state.net[s], reverse=True)
    return [(names[s], state.net[s]) for s in order]


def places(order: list[tuple[str, int]]) -> list[int]:
    """The place of each of ``standings``: equal chips share the better place (1, 2, 2, 4),
    as the ratings read a finish (bot/service/ratings.py ``places``)."""
    nets = [net for _, net in order]
    return [1 + sum(1 for other in nets if other > net) for net in nets]


def standings_embed(table: LiveTable, locale: str = FALLBACK) -> discord.Embed:
    order = standings(table)
    lines = [
        f"{place}. {name}: {net:+d}"
        for place, (name, net) in zip(places(order), order, strict=True)
    ]
    embed = discord.Embed(
        title=_(locale, "Final standings"),
        description="\n".join(lines) or _(locale, "The table closed before any hand was played."),
        colour=discord.Colour.blue(),
    )
    rated = rating_lines(table, locale)
    if rated:
        embed.add_field(name=_(locale, "Ratings"), value="\n".join(rated)[:1024], inline=False)
    embed.set_footer(
        text=_(locale, "Table {table}; chips are in the server's ledger (/chips).", table=table.id)
    )
    return embed


def rating_lines(table: LiveTable, locale: str = FALLBACK) -> list[str]:
    """Each member's rating after the game and its change (bot/service/ratings.py), in the
    standings' order; computer players have none. A member who left the table (a computer
    player took the seat) is named as they played, "(left)"."""
    changes = getattr(table, "rating_changes", None) or {}
    names = {p.user_id: p.name for p in table.players if p.user_id is not None}
    for user_id, name in (getattr(table, "left", None) or {}).items():
        names.setdefault(user_id, _(locale, "{name} (left)", name=name))
    order = [name for name, _ in standings(table)]

    def where(change: Any) -> tuple[int, int, int]:
        name = names.get(change.user_id)
        shown = order.index(name) if name in order else len(order)
        return (change.place, shown, change.user_id)

    out = []
    for change in sorted(changes.values(), key=where):
        note = _(locale, " (provisional)") if change.provisional else ""
        name = names.get(change.user_id) or f"<@{change.user_id}>"
        out.append(f"{name}: {change.after:,} ({change.delta:+d}){note}")
    return out


def standings_line(table: LiveTable, locale: str = FALLBACK) -> str:
    said = [f"{name} {net:+d}" for name, net in standings(table)]
    return _(locale, ", ").join(said) or _(locale, "no hand played")


PLACES = {1: N_("1st"), 2: N_("2nd"), 3: N_("3rd"), 4: N_("4th")}


def place_words(place: int, locale: str = FALLBACK) -> str:
    return _(locale, PLACES[place]) if place in PLACES else f"{place}th"


def summary_line(table: LiveTable, link: str, locale: str = FALLBACK) -> str:
    """The one line the home channel keeps for a table once it plays (the lobby until then),
    in the server's language (a reason or status the catalogue lacks stays as written)."""
    state = table.state
    head = _(locale, "**Table {table}** ({ruleset})", table=table.id, ruleset=table.ruleset)
    where = " " + _(locale, "in {place}", place=link) if link else ""
    if table.status == "playing" and state is not None:
        if table.hands:
            playing = _(
                locale, "playing hand {deal} of {hands}", deal=state.deal, hands=table.hands
            )
        else:
            playing = _(locale, "playing hand {deal}", deal=state.deal)
        note = ""
        if getattr(table, "paused", False):
            reason = getattr(table, "pause_reason", "") or N_("a permission is missing")
            note = " " + _(locale, "(paused: {reason})", reason=_(locale, reason))
        return f"{head}: {playing}{where}{note}" + _(locale, ".")
    ended = getattr(table, "end_reason", "")
    if ended and table.status == "finished":  # its thread may be gone: no link
        return head + " " + _(locale, "ended: {reason}.", reason=_(locale, ended))
    if table.status == "finished":
        line = standings_line(table, locale)
        return (
            head + " " + _(locale, "finished: {standings}", standings=line) + where + _(locale, ".")
        )
    return f"{head}: {_(locale, table.status)}{where}" + _(locale, ".")


def table_alt_text(view: Any, names: tuple[str, ...], locale: str = FALLBACK) -> str:
    """The table image described in words, from the public view only."""
    parts = []
    for s in view.seats:
        if not s.occupied:
            continue
        parts.append(
            _(
                locale,
                "{wind} {name}: {tiles} tiles in hand, {sets} sets shown, {discards} discards",
                wind=wind_words(locale, s.wind),
                name=names[s.seat],
                tiles=s.concealed_count,
                sets=len(s.melds),
                discards=len(s.discards),
            )
        )
    text = _(
        locale,
        "Table: {seats}; {wall} tiles in the wall.",
        seats="; ".join(parts),
        wall=view.wall_remaining,
    )
    return text[:1000]
