"""Checks of what a game left behind: the ledger in SQLite, and what every user was shown.

The ledger checks read the database file directly (``sqlite3``, read-only, beside the running
bot: SQLite's WAL lets them). The privacy checks compare every version of every message a
user can see (content, embeds, alt texts, button labels and custom ids, images) with the truth
the tests recorded during the game (``harness.StateLog``) and with the views the renderer was
asked to draw (``ImageLog``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.rules.game import (
    CLAIM,
    GAME_OVER,
    HAND_OVER,
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
    legal_actions,
    view,
)
from bot.rules.tiles import short_name, tile_name

TILE_NAMES = {tile_name(t): t for t in range(42)}
TILE_WORDS = re.compile("|".join(re.escape(n) for n in sorted(TILE_NAMES, key=len, reverse=True)))
MOVE_ID = re.compile(r"^mj:(\d+):(\d+):([a-z]+)(?::(\d+))?(:d)?$")
DRAWN_LABEL = "Discard the drawn tile"
HINT_MARK = "-# Hint: "


# -- the database -----------------------------------------------------------------------------


@contextlib.contextmanager
def database(path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    db.row_factory = sqlite3.Row
    try:
        yield db
    finally:
        db.close()


def events_of(path: Path, table_id: int) -> list[tuple[str, dict[str, Any]]]:
    import json

    with database(path) as db:
        rows = db.execute(
            "SELECT seq, kind, payload FROM events WHERE table_id = ? ORDER BY seq", (table_id,)
        ).fetchall()
    seqs = [r["seq"] for r in rows]
    assert seqs == list(range(1, len(rows) + 1)), f"table {table_id}: events {seqs} have gaps"
    return [(r["kind"], json.loads(r["payload"])) for r in rows]


@dataclass
class Replayed:
    """A table rebuilt test-side from its events (independently of the bot's own code)."""

    players: list[dict[str, Any]]  # {"user_id": int | None, "name": str}
    state: Any
    status: str
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (move before, action)
    seat_ids_by_hand: dict[int, list[int | None]] = field(default_factory=dict)
    window_opened: int | None = None  # the move the open claim window opened at

    @property
    def controls_move(self) -> int:
        """The move a seat's controls should carry now: the claim window's first move while
        a discard waits for claims, else the current move."""
        if self.state.phase == CLAIM and self.window_opened is not None:
            return self.window_opened
        return self.state.move

    def ledger_id(self, seat: int, hand: int | None = None) -> int | None:
        ids = self.seat_ids_by_hand.get(hand) if hand is not None else None
        if ids is None:
            ids = self.seat_ids()
        return ids[seat]

    def seat_ids(self) -> list[int | None]:
        out: list[int | None] = []
        for seat in range(4):
            index = self.state.seating.seats[seat]
            if index is None:
                out.append(None)
                continue
            user = self.players[index]["user_id"]
            out.append(user if user is not None else -(seat + 1))
        return out

    def seat_of(self, user_id: int) -> int | None:
        for seat in range(4):
            index = self.state.seating.seats[seat]
            if index is not None and self.players[index]["user_id"] == user_id:
                return seat
        return None


def replay(path: Path, table_id: int) -> Replayed:
    """The table as its events make it: players, the game state, every action with the move
    it was applied at, and who sat in each seat when each hand finished."""
    from bot.rules.game import actions as actions_module
    from bot.rules.game import apply, new_game

    with database(path) as db:
        row = db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
    import json

    options = json.loads(row["options"])
    players: list[dict[str, Any]] = []
    state = None
    status = "lobby"
    out = Replayed(players, None, status)
    for kind, payload in events_of(path, table_id):
        if kind == "join":
            players.append({"user_id": payload.get("user_id"), "name": payload["name"]})
        elif kind == "unjoin":
            players[:] = [p for p in players if p["user_id"] != payload["user_id"]]
        elif kind == "start":
            status = "playing"
            state = new_game(
                row["ruleset"],
                options,
                payload["seed"],
                players=len(players),
                sets=None if row["hands_planned"] else 1,
                hands=row["hands_planned"],
            )
            out.state = state
        elif kind == "action":
            assert state is not None
            cls = getattr(actions_module, payload["type"])
            fields = {k: v for k, v in payload.items() if k != "type"}
            before = state
            state = apply(state, cls(**fields))
            out.state = state
            out.moves.append((before.move, payload))
            if state.phase != CLAIM:
                out.window_opened = None
            elif before.phase != CLAIM or (before.deal, before.claim.number) != (
                state.deal,
                state.claim.number,
            ):
                out.window_opened = state.move
            if len(state.results) > len(before.results):
                out.seat_ids_by_hand[state.results[-1].number] = out.seat_ids()
        elif kind == "leave":
            players[payload["player"]]["user_id"] = None
            players[payload["player"]]["name"] = payload["name"]
        elif kind == "end":
            status = payload.get("status", "finished")
    out.status = status
    return out


@dataclass
class LedgerFacts:
    hands: int
    balances: dict[int, int]  # every party of the guild: starting chips + net
    table_net: dict[int, int]  # per ledger id, over the table's settlements


def check_ledger(path: Path, guild_id: int, table_id: int, *, starting: int = 1000) -> LedgerFacts:
    """Every finished hand of the table is posted once; each settlement balances and moves
    exactly what the hand's payments say between the right players; accounts, results and
    balances agree with the ledger rows."""
    table = replay(path, table_id)
    state = table.state
    with database(path) as db:
        hands = db.execute(
            "SELECT * FROM hands WHERE table_id = ? ORDER BY hand_no", (table_id,)
        ).fetchall()
        assert [h["hand_no"] for h in hands] == [r.number for r in state.results], (
            f"hands recorded {[h['hand_no'] for h in hands]}, "
            f"finished {[r.number for r in state.results]}"
        )
        table_net: Counter[int] = Counter()
        for hand, result in zip(hands, state.results, strict=True):
            import json

            key = f"table:{table_id}:hand:{hand['hand_no']}"
            settlements = db.execute(
                "SELECT * FROM settlements WHERE source_key = ?", (key,)
            ).fetchall()
            assert len(settlements) == 1, f"{key}: {len(settlements)} settlements"
            settlement = settlements[0]
            assert settlement["status"] == "posted", f"{key} is {settlement['status']}"
            assert settlement["guild_id"] == guild_id
            rows = db.execute(
                "SELECT payer_id, payee_id, amount FROM ledger WHERE settlement_id = ?",
                (settlement["id"],),
            ).fetchall()
            ledger_net: Counter[int] = Counter()
            for r in rows:
                assert r["amount"] > 0 and r["payer_id"] != r["payee_id"]
                ledger_net[r["payer_id"]] -= r["amount"]
                ledger_net[r["payee_id"]] += r["amount"]
            assert sum(ledger_net.values()) == 0, f"{key} does not balance: {ledger_net}"
            # The hand's own payments, by seat, mapped to who sat there.
            payments = json.loads(hand["payments"])
            assert payments == [
                {"payer": p.payer, "payee": p.payee, "amount": p.amount, "reason": p.reason}
                for p in result.payments
            ], f"{key}: recorded payments differ from the replayed game's"
            seat_net: Counter[int] = Counter()
            for p in payments:
                seat_net[p["payer"]] -= p["amount"]
                seat_net[p["payee"]] += p["amount"]
            assert sum(seat_net.values()) == 0, f"{key}: payments do not sum to zero"
            expected: Counter[int] = Counter()
            for seat, amount in seat_net.items():
                party = table.ledger_id(seat, result.number)
                assert party is not None, f"{key}: a payment names the empty seat {seat}"
                expected[party] += amount
            assert _nonzero(ledger_net) == _nonzero(expected), (
                f"{key}: ledger moves {dict(ledger_net)}, the hand says {dict(expected)}"
            )
            results = db.execute(
                "SELECT user_id, net FROM player_results WHERE settlement_id = ?",
                (settlement["id"],),
            ).fetchall()
            for r in results:
                assert r["net"] == ledger_net.get(r["user_id"], 0), f"{key}: result of {r}"
            assert sum(r["net"] for r in results) == 0
            table_net.update(ledger_net)
        # Accounts (the running net) against the whole guild's ledger.
        sums: Counter[int] = Counter()
        for r in db.execute(
            "SELECT payer_id, payee_id, amount FROM ledger WHERE guild_id = ?", (guild_id,)
        ):
            sums[r["payer_id"]] -= r["amount"]
            sums[r["payee_id"]] += r["amount"]
        accounts = {
            r["user_id"]: r["net"]
            for r in db.execute("SELECT user_id, net FROM accounts WHERE guild_id = ?", (guild_id,))
        }
        for user, net in sums.items():
            assert accounts.get(user, 0) == net, f"account of {user}: {accounts.get(user)} != {net}"
        for user, net in accounts.items():
            assert sums.get(user, 0) == net, f"account of {user} without ledger rows: {net}"
    assert sum(sums.values()) == 0
    # The engine's running totals are what the ledger moved at this table (when the same
    # players sat in the same seats all game).
    if all(ids == table.seat_ids() for ids in table.seat_ids_by_hand.values()):
        for seat in range(4):
            party = table.ledger_id(seat)
            if party is not None:
                assert state.net[seat] == table_net.get(party, 0), (
                    f"seat {seat}: the game says {state.net[seat]}, the ledger "
                    f"{table_net.get(party, 0)}"
                )
    balances = {user: starting + net for user, net in accounts.items()}
    return LedgerFacts(len(hands), balances, dict(table_net))


def _nonzero(counter: Counter[int]) -> dict[int, int]:
    return {k: v for k, v in counter.items() if v}


def standings_of(message: Any) -> dict[str, int]:
    """``{name: net}`` from a "Final standings" embed."""
    (embed,) = [e for e in message.embeds if e.get("title") == "Final standings"]
    out = {}
    for line in embed.get("description", "").splitlines():
        match = re.fullmatch(r"\d+\. (.+): ([+-]\d+)", line.strip())
        assert match, f"standings line {line!r}"
        out[match.group(1)] = int(match.group(2))
    return out


async def check_chips_commands(w: Any, facts: LedgerFacts, members: list[Any]) -> None:
    """``/chips`` of every member and the ``/leaderboard`` of chips say what the ledger says."""
    for member in members:
        reply = await (await member.slash(w.channel, "chips")).reply()
        title = reply.embeds[0]["title"]
        expected = facts.balances.get(member.id, 1000)
        assert title == f"{member.name}: {expected:,} chips", (title, expected)
    reply = await (await members[0].slash(w.channel, "leaderboard")).reply()
    text = reply.embeds[0].get("description", "")
    ranked = [
        (m.group(2), int(m.group(3).replace(",", "")))
        for m in re.finditer(r"\*\*(\d+)\.\*\* (.+?) · ([\d,]+) chips", text)
    ]
    names = {m.name: m.id for m in members}
    shown = [(name, chips) for name, chips in ranked if name in names]
    for name, chips in shown:
        assert chips == facts.balances.get(names[name], 1000), (name, chips)
    values = [chips for _, chips in ranked]
    assert values == sorted(values, reverse=True), f"leaderboard out of order: {ranked}"
    people = {u: b for u, b in facts.balances.items() if u > 0}
    top = sorted(people.values(), reverse=True)[: len(values)]
    assert values == top, f"leaderboard {ranked} but balances {people}"


# -- what users were shown ----------------------------------------------------------------------


@dataclass
class Drawn:
    kind: str  # table, hand, score_card
    view: Any
    args: tuple[Any, ...] = ()


@dataclass
class ImageLog:
    """Every image the renderer drew for the bot, by its PNG bytes."""

    drawn: dict[bytes, list[Drawn]] = field(default_factory=dict)

    def add(self, png: bytes, item: Drawn) -> None:
        self.drawn.setdefault(png, []).append(item)


@contextlib.contextmanager
def recording_images() -> Iterator[ImageLog]:
    """Keep, for each PNG the bot drew, the view it was drawn from, by wrapping
    :meth:`bot.drawing.Drawing.draw` (the bot's one way to draw, in a process or a thread)."""
    from bot.drawing import Drawing

    log = ImageLog()
    original = Drawing.draw

    async def draw(self: Drawing, kind: str, view: Any, *args: Any, **kwargs: Any) -> bytes:
        png = await original(self, kind, view, *args, **kwargs)
        log.add(png, Drawn(kind, view, args or tuple(kwargs.values())))
        return png

    Drawing.draw = draw  # type: ignore[method-assign]
    try:
        yield log
    finally:
        Drawing.draw = original  # type: ignore[method-assign]


@dataclass
class Version:
    """One state of a message as a user saw it, and when it was made."""

    message: Any
    made_at: float
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    attachments: list[Any]

    def texts(self) -> list[str]:
        out = [self.content]
        for e in self.embeds:
            out += [e.get("title", ""), e.get("description", "")]
            out.append((e.get("footer") or {}).get("text", ""))
            out.append((e.get("author") or {}).get("name", ""))
            for f in e.get("fields") or []:
                out += [f.get("name", ""), f.get("value", "")]
        out += [c.get("label", "") or "" for c in _walk(self.components)]
        return [t for t in out if t]


def _without_urls(embeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Embeds without their media URLs (a re-uploaded identical image gets a new URL)."""
    out = []
    for e in embeds:
        e = dict(e)
        for key in ("image", "thumbnail"):
            if key in e:
                e[key] = {k: v for k, v in e[key].items() if k not in ("url", "proxy_url")}
        out.append(e)
    return out


def _walk(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out, stack = [], list(components)
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(c.get("components") or [])
    return out


def _time(iso: str | None) -> float:
    return dt.datetime.fromisoformat(iso).timestamp() if iso else 0.0


def versions(message: Any) -> list[Version]:
    out = []
    made = _time(message.created_at)
    for old in message.history:
        made_at = _time(old.edited_at) if old.edited_at else made
        out.append(
            Version(message, made_at, old.content, old.embeds, old.components, old.attachments)
        )
    made_at = _time(message.edited_at) if message.edited_at else made
    out.append(
        Version(
            message,
            made_at,
            message.content,
            message.embeds,
            message.components,
            message.attachments,
        )
    )
    return out


def seen_by(server: Any, user: Any, channels: list[Any]) -> list[Version]:
    """Every version of every message ``user`` could see: the channels (with their own
    ephemerals) and their DMs, deleted messages included (they were seen before)."""
    out = []
    for channel in channels:
        ch = server.channel(channel)
        for m in ch.messages:
            if m.visible_to is None or m.visible_to == user.id:
                out += versions(m)
    dm = server.state.dm_channel(user.record, create=False)
    if dm is not None:
        for m in dm.messages:
            out += versions(m)
    return out


def controls_of(legal: list[Any], *, choosing_riichi: bool = False) -> set[tuple[str, int | None]]:
    """The buttons a seat should be offered for its legal actions (independent of the bot).
    Riichi with one possible discard is a button naming it; with more, one "Riichi…" button
    (no tile), whose press shows ``choosing_riichi``: a button per Riichi discard and Cancel."""
    riichi = {a.tile for a in legal if isinstance(a, Riichi)}
    if choosing_riichi:
        return {("riichi", t) for t in riichi} | {("back", None)}
    out: set[tuple[str, int | None]] = set()
    for a in legal:
        if isinstance(a, Discard):
            out.add(("discard", a.tile))
        elif isinstance(a, Riichi):
            out.add(("riichi", a.tile if len(riichi) == 1 else None))
        elif isinstance(a, Chow):
            out.add(("chow", a.tile))
        elif isinstance(a, Kong):
            out.add(("kong", a.tile))
        elif isinstance(a, Pung):
            out.add(("pung", None))
        elif isinstance(a, MahJongg):
            out.add(("mahjong", None))
        elif isinstance(a, Pass):
            out.add(("pass", None))
        elif isinstance(a, WashTiles):
            out.add(("wash", None))
        elif isinstance(a, DeclareFuriten):
            out.add(("furiten", None))
        elif not isinstance(a, NextHand):
            raise AssertionError(f"unknown action {a!r}")
    return out


def own_tiles(state: Any, seat: int) -> list[int]:
    st = state.seats[seat]
    return sorted([*st.concealed, *([st.drawn] if st.drawn is not None else [])])


@dataclass
class Privacy:
    """Checks that nothing a user saw showed another seat's concealed tiles before the reveal.

    ``states`` is every state of the table (from ``StateLog``), ``seats`` maps each member's
    user id to their physical seat, ``images`` the renderer's log.
    """

    table_id: int
    states: list[Any]
    seats: dict[int, int]
    images: ImageLog
    checked: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.by_move = {s.move: s for s in self.states}
        self._hint_cache: dict[tuple[int, int, int], tuple[str, ...]] = {}
        self.times: list[float] = []

    def _public_until(self, snapshots: list[Any], t: float, seat: int) -> set[int]:
        """Tiles the user in ``seat`` could know by time ``t``: every tile shown face up at
        the table (discards, sets, flowers, the discard lying), every hand laid open at a
        reveal, and the user's own tiles."""
        known: set[int] = set()
        for snap in snapshots:
            if snap.at > t + 0.001:
                break
            s = snap.state
            for st in s.seats:
                known.update(st.discards)
                known.update(st.flowers)
                for meld in st.melds:
                    known.update(meld.tiles)
            if s.last_discard is not None:
                known.add(s.last_discard[1])
            if s.phase in (HAND_OVER, GAME_OVER):
                for st in s.seats:
                    known.update(st.concealed)
                    if st.drawn is not None:
                        known.add(st.drawn)
            known.update(own_tiles(s, seat))
        return known

    def check_user(self, user: Any, versions_seen: list[Version], snapshots: list[Any]) -> None:
        seat = self.seats[user.id]
        previous: dict[int, Version] = {}
        for version in versions_seen:
            self._check_edit(user, previous.get(version.message.id), version)
            previous[version.message.id] = version
            self._check_images(user, seat, version)
            self._check_controls(user, seat, version)
            self._check_words(user, seat, version, snapshots)

    def _check_edit(self, user: Any, before: Version | None, version: Version) -> None:
        """An edit that changes nothing still tells its reader that something happened (for
        a seat answering a claim: that it was asked, so what it holds); and the table never
        says who passed."""
        if version.message.guild_id is not None and version.message.visible_to is None:
            for text in version.texts():
                for line in text.splitlines():
                    assert not line.rstrip().endswith(": pass"), (
                        f"the channel tells who passed on a discard: {line!r}"
                    )
        if before is None:
            return
        same = (
            before.content == version.content
            and _without_urls(before.embeds) == _without_urls(version.embeds)
            and before.components == version.components
            and [(a.data, a.description) for a in before.attachments]
            == [(a.data, a.description) for a in version.attachments]
        )
        assert not same, (
            f"{user} saw message {version.message.id} edited to the same thing: "
            f"{version.content!r} {version.embeds and version.embeds[0].get('title')}"
        )
        self.checked["edits"] += 1

    def _check_images(self, user: Any, seat: int, version: Version) -> None:
        for att in version.attachments:
            if not att.filename.endswith(".png"):
                continue
            drawn = self.images.drawn.get(att.data)
            assert drawn, f"{user}: an image the tests did not see drawn: {att.filename}"
            self.checked["images"] += 1
            for item in drawn:
                self._check_drawn(user, seat, att, item)
            if att.filename == "table.png":
                words = TILE_WORDS.findall(att.description or "")
                assert not words, f"the table's alt text names tiles: {att.description!r}"
            if att.filename in ("hand.png", "seat.png"):
                for item in drawn:
                    state = self.by_move[item.view.move]
                    expected = ", ".join(tile_name(t) for t in own_tiles(state, seat))
                    assert att.description == f"Your hand: {expected}", (
                        f"{user}'s hand alt text {att.description!r} is not their hand {expected!r}"
                    )

    def _check_drawn(self, user: Any, seat: int, att: Any, item: Drawn) -> None:
        v = item.view
        state = self.by_move.get(v.move)
        if item.kind in ("hand", "seat_table"):
            assert v.viewer == seat, f"{user} (seat {seat}) got the hand of seat {v.viewer}"
            assert state is not None and view(state, seat) == v, (
                f"{user}'s hand image at move {v.move} is not drawn from their true view"
            )
        elif item.kind == "table":
            assert v.viewer is None, f"{user} saw a table drawn for seat {v.viewer}"
            assert state is not None and view(state, None) == v, (
                f"the table image at move {v.move} is not the public view"
            )
        else:
            assert v.revealed, f"{user} saw a score card of a hand not yet revealed"
            if state is not None and state.phase in (HAND_OVER, GAME_OVER):
                assert view(state, None) == v, f"the reveal at move {v.move} is not the table's"
        if not v.revealed:
            for s in v.seats:
                if s.seat != v.viewer:
                    assert s.concealed is None and s.drawn is None, (
                        f"{user} saw seat {s.seat}'s concealed tiles in {att.filename}"
                    )

    def _check_controls(self, user: Any, seat: int, version: Version) -> None:
        by_move: dict[int, set[tuple[str, int | None]]] = {}
        for c in _walk(version.components):
            match = MOVE_ID.match(c.get("custom_id") or "")
            if not match:
                continue
            assert int(match.group(1)) == self.table_id
            move = int(match.group(2))
            tile = int(match.group(4)) if match.group(4) else None
            by_move.setdefault(move, set()).add((match.group(3), tile))
            if match.group(3) in ("discard", "riichi") and tile is not None:
                if match.group(5):  # "Discard the drawn tile": only for the seat's drawn tile
                    state = self.by_move.get(move)
                    assert c.get("label") == DRAWN_LABEL, c
                    assert state is not None and state.seats[seat].drawn == tile, c
                elif match.group(3) == "riichi":  # the one Riichi discard, or one of the choice
                    labels = (short_name(tile), f"Riichi, discard {short_name(tile)}")
                    assert c.get("label") in labels, c
                else:
                    assert c.get("label") == short_name(tile), c
        for move, shown in by_move.items():
            state = self.by_move.get(move)
            assert state is not None, f"{user} got controls for move {move} never reached"
            expected = controls_of(
                legal_actions(state, seat), choosing_riichi=("back", None) in shown
            )
            assert shown == expected, (
                f"{user} (seat {seat}) at move {move} was offered {sorted(shown, key=str)}, "
                f"but may do {sorted(expected, key=str)}"
            )
            self.checked["controls"] += 1

    def _check_hints(
        self, user: Any, seat: int, version: Version, snapshots: list[Any]
    ) -> list[str]:
        """Hint lines (``-# Hint: ...``) are checked whole: each must be what
        ``seat_hints`` says from the seat's own view at some state reached by then (it names
        the tiles a hand waits on, which nobody may have seen: the words check cannot judge
        those). The texts without the hint lines are returned for the words check."""
        from bot.service.hints import seat_hints

        out = []
        for text in version.texts():
            kept = []
            for line in text.splitlines():
                if not line.startswith(HINT_MARK):
                    kept.append(line)
                    continue
                hint = line.removeprefix(HINT_MARK)
                possible: set[str] = set()
                for snap in snapshots:
                    if snap.at > version.made_at + 0.001:
                        break
                    key = (snap.state.move, snap.state.deal, seat)
                    if key not in self._hint_cache:
                        self._hint_cache[key] = seat_hints(view(snap.state, seat)).lines
                    possible.update(self._hint_cache[key])
                assert hint in possible, (
                    f"{user} (seat {seat}) got a hint not from their view: {hint!r}"
                )
                self.checked["hints"] += 1
            out.append("\n".join(kept))
        return out

    def _check_words(self, user: Any, seat: int, version: Version, snapshots: list[Any]) -> None:
        texts = self._check_hints(user, seat, version, snapshots)
        words = [w for text in texts for w in TILE_WORDS.findall(text)]
        for att in version.attachments:
            if att.filename != "table.png":
                words += TILE_WORDS.findall(att.description or "")
        if not words:
            return
        known = self._public_until(snapshots, version.made_at, seat)
        for word in words:
            assert TILE_NAMES[word] in known, (
                f"{user} (seat {seat}) read {word!r} before anyone could know it: {version.texts()}"
            )
            self.checked["tile words"] += 1


def check_privacy(
    server: Any,
    users: list[Any],
    channels: list[Any],
    table_id: int,
    snapshots: list[Any],
    seats: dict[int, int],
    images: ImageLog,
) -> Counter[str]:
    """Run the privacy checks for every member; returns how much was checked."""
    privacy = Privacy(table_id, [s.state for s in snapshots], seats, images)
    for user in users:
        privacy.check_user(user, seen_by(server, user, channels), snapshots)
    return privacy.checked
