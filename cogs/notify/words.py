"""The words a table shows: the lobby, the table's caption and log, the reveal, the standings,
the summary line in the home channel, and alt texts. Pure functions of a table (through
:mod:`bot.service.privacy` wherever a game is shown), so they are tested without Discord."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.rules.tiles import WIND_NAMES, tile_name
from bot.service.privacy import names_of

if TYPE_CHECKING:
    from bot.rules.game.state import HandResult
    from bot.service.tables import LiveTable

HASH_SHOWN = 12  # hex digits of the wall seed's SHA-256 on the table; /mahjong verify has all


def option_words(name: str, value: Any) -> str:
    """One table option as people say it: ``limit=None`` is "no limit", ``flowers=False``
    "no flowers", ``mahjong_bonus=20`` "mahjong bonus 20"."""
    words = name.replace("_", " ")
    if value is None:
        return f"no {words}"
    if value is True:
        return words
    if value is False:
        return f"no {words}"
    return f"{words} {value}"


def options_in_words(options: dict[str, Any]) -> str:
    return ", ".join(option_words(k, v) for k, v in options.items()) or "the rule set's defaults"


def length_words(table: LiveTable) -> str:
    if table.hands:
        return f"{table.hands} hands" if table.hands != 1 else "one hand"
    if table.sets and table.sets > 1:
        return f"{table.sets} sets (four rounds each)"
    return "one set (four rounds)"


def pace_words(table: LiveTable) -> str:
    timer = f"{table.turn_seconds} s a turn" if table.turn_seconds else "no turn timer"
    return f"{timer}, {table.claim_seconds} s to claim; {length_words(table)}"


def lobby_embed(table: LiveTable) -> discord.Embed:
    seats = "\n".join(
        f"{i + 1}. {p.name}{' (computer)' if p.computer else ''}"
        for i, p in enumerate(table.players)
    )
    status = {
        "lobby": "Join, add computer players, and the host starts the game.",
        "cancelled": "This table was cancelled.",
    }.get(table.status, "")
    expires = getattr(table, "lobby_expires_at", None)
    if table.status == "lobby" and expires:
        status += f" It expires <t:{int(expires)}:R> unless started."
    embed = discord.Embed(
        title=f"Mahjong table: {table.ruleset}",
        description=f"{status}\n\n{seats or 'No one yet.'}",
        colour=discord.Colour.dark_green(),
    )
    embed.add_field(name="Options", value=options_in_words(table.options)[:1024], inline=False)
    embed.add_field(name="Pace", value=pace_words(table))
    if not getattr(table, "hints", True):
        embed.add_field(name="Hints", value="off (a competitive table)")
    embed.set_footer(text=f"Table {table.id}")
    return embed


def short_hash(seed_hash: str) -> str:
    return seed_hash[:HASH_SHOWN]


def table_embed(table: LiveTable, log_lines: list[str]) -> discord.Embed:
    state = table.state
    assert state is not None
    wind = WIND_NAMES[state.round_wind]
    embed = discord.Embed(
        title=f"{table.ruleset}: {wind} round, hand {state.deal}",
        description="\n".join(log_lines) or "The game begins.",
        colour=discord.Colour.dark_green(),
    )
    embed.set_image(url="attachment://table.png")
    embed.set_footer(
        text=f"Table {table.id} · wall {short_hash(state.seed_hash)} (/mahjong verify)"
    )
    return embed


def result_title(result: HandResult, names: tuple[str, ...]) -> str:
    if result.winner is not None:
        return f"{names[result.winner]} wins"
    if result.kind == "washing":
        return "the tiles are washed"
    return "drawn hand"


def win_words(result: HandResult, names: tuple[str, ...]) -> str:
    """Who won with what, in one sentence, from the revealed result."""
    if result.winner is None:
        if result.kind == "washing":
            return "The tiles were washed: nobody won."
        return "Nobody went out: a drawn hand."
    who = names[result.winner]
    how = ""
    if result.win is not None and result.win.tile is not None:
        tile = tile_name(result.win.tile)
        if result.discarder is not None and result.discarder != result.winner:
            how = f" on {names[result.discarder]}'s {tile}"
        else:
            how = f", drawing {tile}"
    score = result.scores[result.winner]
    worth = ""
    if score is not None:
        lines = [line.name for line in score.lines if line.doubles or line.points >= 10]
        named = f" ({', '.join(lines[:3])})" if lines else ""
        worth = f" for {score.limit_hand or f'{score.total} points'}{named}"
    return f"{who} won{how}{worth}."


def reveal_embed(table: LiveTable, result: HandResult) -> discord.Embed:
    names = names_of(table)
    embed = discord.Embed(
        title=f"Hand {result.number}: {result_title(result, names)}",
        colour=discord.Colour.gold(),
    )
    for seat, score in enumerate(result.scores):
        if score is None or not names[seat]:
            continue
        lines = [
            f"{line.name}: {'x' + str(2**line.doubles) if line.doubles else line.points}"
            for line in score.lines[:12]
        ]
        if len(score.lines) > 12:  # the card above shows them all
            lines.append(f"... {len(score.lines) - 12} more on the card")
        value = "\n".join(lines) + f"\n**{score.total}**" if lines else "0"
        embed.add_field(name=names[seat], value=value[:1024], inline=True)
    paid = "\n".join(f"{names[p.payer]} pays {names[p.payee]} {p.amount}" for p in result.payments)
    embed.add_field(name="Payments", value=paid[:1024] or "No payments.", inline=False)
    house = house_rules_words(getattr(result, "house_rules", ()))
    if house:
        embed.add_field(name="House rules", value=house, inline=False)
    embed.set_image(url="attachment://reveal.png")
    embed.set_footer(text=f"Wall seed {result.seed} (SHA-256 {short_hash(result.seed_hash)}…)")
    return embed


def house_rules_words(house: tuple[str, ...]) -> str:
    """The house rules (bot/rules/house_rules.py) that changed a hand, said so; empty if none."""
    if not house:
        return ""
    named = ", ".join(f"`{h}`" for h in house)
    return f"{named} changed this hand (the texts' reading scores it otherwise: /rules options)."


def standings(table: LiveTable) -> list[tuple[str, int]]:
    """(name, net) from first to last place (nothing when no hand was dealt)."""
    state = table.state
    if state is None:
        return []
    names = names_of(table)
    order = sorted((s for s in range(4) if names[s]), key=lambda s: state.net[s], reverse=True)
    return [(names[s], state.net[s]) for s in order]


def standings_embed(table: LiveTable) -> discord.Embed:
    lines = [f"{rank}. {name}: {net:+d}" for rank, (name, net) in enumerate(standings(table), 1)]
    embed = discord.Embed(
        title="Final standings",
        description="\n".join(lines) or "The table closed before any hand was played.",
        colour=discord.Colour.blue(),
    )
    rated = rating_lines(table)
    if rated:
        embed.add_field(name="Ratings", value="\n".join(rated)[:1024], inline=False)
    embed.set_footer(text=f"Table {table.id}; chips are in the server's ledger (/chips).")
    return embed


def rating_lines(table: LiveTable) -> list[str]:
    """Each member's rating after the game and its change (bot/service/ratings.py), in the
    standings' order; computer players have none."""
    changes = getattr(table, "rating_changes", None) or {}
    names = {p.user_id: p.name for p in table.players if p.user_id is not None}
    order = [name for name, _ in standings(table)]

    def where(change: Any) -> tuple[int, int, int]:
        name = names.get(change.user_id)
        shown = order.index(name) if name in order else len(order)
        return (change.place, shown, change.user_id)

    out = []
    for change in sorted(changes.values(), key=where):
        note = " (provisional)" if change.provisional else ""
        name = names.get(change.user_id) or f"<@{change.user_id}>"
        out.append(f"{name}: {change.after:,} ({change.delta:+d}){note}")
    return out


def standings_line(table: LiveTable) -> str:
    return ", ".join(f"{name} {net:+d}" for name, net in standings(table)) or "no hand played"


def place_words(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def summary_line(table: LiveTable, link: str) -> str:
    """The one line the home channel keeps for a table once it plays (the lobby until then)."""
    state = table.state
    where = f" in {link}" if link else ""
    if table.status == "playing" and state is not None:
        total = f" of {table.hands}" if table.hands else ""
        paused = getattr(table, "paused", False)
        note = f" (paused: {getattr(table, 'pause_reason', '') or 'a permission is missing'})"
        return (
            f"**Table {table.id}** ({table.ruleset}): playing hand {state.deal}{total}{where}"
            + (note if paused else "")
            + "."
        )
    if table.status == "finished":
        return f"**Table {table.id}** ({table.ruleset}) finished: {standings_line(table)}{where}."
    return f"**Table {table.id}** ({table.ruleset}): {table.status}{where}."


def table_alt_text(view: Any, names: tuple[str, ...]) -> str:
    """The table image described in words, from the public view only."""
    parts = []
    for s in view.seats:
        if not s.occupied:
            continue
        wind = WIND_NAMES[s.wind]
        parts.append(
            f"{wind} {names[s.seat]}: {s.concealed_count} tiles in hand, {len(s.melds)} sets "
            f"shown, {len(s.discards)} discards"
        )
    return ("Table: " + "; ".join(parts) + f"; {view.wall_remaining} tiles in the wall.")[:1000]
