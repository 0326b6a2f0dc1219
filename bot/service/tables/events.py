"""A table's event log, pure: the verbs of its controls, actions as stored, and the replay
that rebuilds a table from its events. No I/O: the service appends, this module reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.i18n import N_
from bot.rules.game import (
    Action,
    Chow,
    DeclareFuriten,
    Discard,
    Kong,
    MahJongg,
    NextHand,
    Pass,
    Pung,
    Riichi,
    WashTiles,
    apply,
    new_game,
)
from bot.rules.game.state import GameState
from bot.rules.tiles import WIND_NAMES
from bot.service.tables.model import LiveTable, Player, TableError

# -- the verbs of the controls --------------------------------------------------------------


def action_of(verb: str, arg: str | None, seat: int) -> Action:
    """The engine action a control stands for (``mj:<table>:<move>:<verb>:<arg>``)."""
    try:
        if verb == "discard":
            return Discard(seat, int(arg or ""))
        if verb == "riichi":
            return Riichi(seat, int(arg or ""))
        if verb == "chow":
            return Chow(seat, int(arg or ""))
        if verb == "kong":
            return Kong(seat, int(arg or ""))
    except ValueError:
        raise TableError(N_("That control is damaged; use /mahjong hand for fresh ones.")) from None
    simple: dict[str, Callable[[int], Action]] = {
        "pung": Pung,
        "mahjong": MahJongg,
        "pass": Pass,
        "wash": WashTiles,
        "furiten": DeclareFuriten,
    }
    if verb in simple:
        return simple[verb](seat)
    raise TableError(N_("That control is not one of this table's."))


_VERBS: dict[type, str] = {
    Discard: "discard",
    Riichi: "riichi",
    Chow: "chow",
    Kong: "kong",
    Pung: "pung",
    MahJongg: "mahjong",
    Pass: "pass",
    WashTiles: "wash",
    DeclareFuriten: "furiten",
}


def control_of(action: Action) -> tuple[str, int | None]:
    """The verb and tile a control carries for ``action`` (the inverse of :func:`action_of`)."""
    return _VERBS[type(action)], getattr(action, "tile", None)


def action_payload(action: Action) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": type(action).__name__}
    for name in ("seat", "tile"):
        if hasattr(action, name):
            payload[name] = getattr(action, name)
    return payload


_ACTIONS: dict[str, Callable[..., Action]] = {
    cls.__name__: cls
    for cls in (Discard, Riichi, Chow, Pung, Kong, MahJongg, Pass, WashTiles, DeclareFuriten)
}
_ACTIONS["NextHand"] = NextHand


def action_from_payload(payload: dict[str, Any]) -> Action:
    cls = _ACTIONS[payload["type"]]
    fields = {k: v for k, v in payload.items() if k != "type"}
    return cls(**fields)


# -- replay -----------------------------------------------------------------------------------


def new_state(table: LiveTable) -> GameState:
    """The first state of the table's game, from its options and seed."""
    return new_game(
        table.ruleset,
        table.options,
        table.seed,
        players=len(table.players),
        sets=None if table.hands else (table.sets or 1),
        hands=table.hands,
    )


def replay_event(table: LiveTable, kind: str, payload: dict[str, Any]) -> None:
    """Apply one stored event to the table, as it was applied when it happened."""
    if kind == "join":
        table.players.append(Player(payload.get("user_id"), payload["name"]))
    elif kind == "unjoin":
        table.players = [p for p in table.players if p.user_id != payload["user_id"]]
    elif kind == "start":
        table.seed = payload["seed"]
        table.status = "playing"
        table.state = new_state(table)
    elif kind == "action":
        assert table.state is not None
        before = table.state
        table.state = apply(before, action_from_payload(payload))
        table.track_window(before, table.state)
    elif kind == "away":
        table.players[payload["player"]].away = payload["away"]
    elif kind == "leave":
        player = table.players[payload["player"]]
        if player.user_id is not None:
            table.left[player.user_id] = player.name
        player.user_id = None
        player.name = payload["name"]
    elif kind == "end":
        table.status = payload.get("status", "finished")


def rebuild(row: dict[str, Any], events: list[tuple[str, dict]]) -> LiveTable:
    """A live table from its stored row and its events in order."""
    table = LiveTable(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        host_id=row["host_id"],
        ruleset=row["ruleset"],
        options=dict(row["options"]),
        turn_seconds=row["turn_seconds"],
        claim_seconds=row["claim_seconds"],
        hands=row["hands"],
        sets=row.get("sets"),
        message_id=row.get("message_id"),
        home_channel_id=row.get("home_channel_id"),
        summary_message_id=row.get("summary_message_id"),
        hints=bool(row.get("hints", True)),
        paused=bool(row.get("paused", False)),
        pause_reason=row.get("pause_reason") or "",
        created_at=float(row.get("created_at") or 0),
        status="lobby",
        restored=True,
    )
    for kind, payload in events:
        table.seq += 1
        replay_event(table, kind, payload)
    # Hands recorded before the stop are settled; a result replayed beyond them was accepted
    # but not yet posted when the bot stopped, and is posted on start.
    table.settled = row.get("hands_recorded", 0)
    return table


# -- words ------------------------------------------------------------------------------------


def describe(table: LiveTable, state: GameState) -> str:
    """The channel's lines for a move: the engine's own public account of what it caused,
    with the players' names. Not the action itself: a claim is only an answer until the
    claim window settles (a pung beats a chow), and announcing answers (or passes) told the
    table what the answering seat held, claims that never happened included."""
    lines = []
    for event in state.events:
        if not event.text or event.kind == "drew":  # a draw is on the table image
            continue
        text = event.text
        if event.seat is not None:
            player = table.player_at(event.seat)
            wind = WIND_NAMES[(event.seat - state.dealer) % 4]
            text = text.removeprefix(f"{wind} ")
            text = f"{player.name if player is not None else wind}: {text}"
        lines.append(text)
    return "\n".join(lines)


def describe_seating(table: LiveTable, state: GameState) -> str:
    """How the seats were chosen, with the players' names (the engine numbers players by
    join order: "player 2 is the first East" tells a member nothing)."""
    record = state.seating

    def name(index: int | None) -> str:
        if index is None or not 0 <= index < len(table.players):
            return "?"
        return table.players[index].name

    parts = [f"{name(p)} threw {a}+{b}" for p, (a, b) in record.throws]
    if record.method == "wind-box" and record.indicators:
        laid = ", ".join(WIND_NAMES[w] for w in record.indicators)
        parts.append(f"indicators laid out: {laid}")
    parts.append(f"{name(record.seats[0])} is the first East")
    return "; ".join(parts)
