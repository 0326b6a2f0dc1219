"""Tables, their seats, their append-only event logs and their finished hands.

For the table service: a table is created in the lobby, its seats follow joins, every move is
an event appended in order (``seq`` 1, 2, 3 ... with ``UNIQUE(table_id, seq)``), and on start-up
every open table comes back with its events to be replayed. Group several writes (an event and
the seat it changes, an event and a ledger posting) in one ``async with repo.transaction():``.

The methods of the table service's ``TableStore`` protocol (``create_table``, ``append_event``,
``set_status``, ``set_message``, ``open_tables``, ``record_hand``) are here with the same
signatures, so a ``TablesRepository`` can be handed to it as its store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.store.backend import Conflict, Refused, Statement
from bot.store.base import Repository, StoreError, dumps, loads
from bot.store.leases_repo import Fenced, Lease, fence

OPEN = ("lobby", "playing")
CLOSED = ("finished", "cancelled")
STATUSES = OPEN + CLOSED


class ChannelBusy(StoreError):
    """The channel already has an open table (the partial unique index said so)."""


class CapReached(StoreError):
    """A member, channel or server already has its most open tables (``create_capped``,
    ``seat_capped``): ``kind`` is "member", "channel" or "guild"."""

    def __init__(self, kind: str, count: int, cap: int) -> None:
        super().__init__(f"{kind} already has {count} open tables (cap {cap})")
        self.kind, self.count, self.cap = kind, count, cap


# The open tables a cap counts (issue 16 item 9): a member's (seated at), a channel's (playing
# in it or in a thread opened from it), a server's.
_OPEN = "t.status IN ('lobby', 'playing')"
_OF_MEMBER = (
    f"SELECT DISTINCT t.id FROM tables t JOIN seats s ON s.table_id = t.id "
    f"WHERE {_OPEN} AND s.user_id = ? AND t.id <> ? ORDER BY t.id"
)
_IN_CHANNEL = (
    f"SELECT t.id FROM tables t WHERE {_OPEN} AND (t.channel_id = ? OR t.home_channel_id = ?) "
    "AND t.id <> ? ORDER BY t.id"
)
_OF_GUILD = (
    f"SELECT t.id FROM tables t WHERE {_OPEN} AND t.guild_id = ? AND t.id <> ? ORDER BY t.id"
)


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A place at a table: the physical seat (0 = East's place at the start) once the game
    has started, the join order in the lobby. ``user_id`` None: a computer player."""

    seat: int
    user_id: int | None
    display_name: str
    is_computer: bool = False


@dataclass(frozen=True, slots=True)
class EventRow:
    seq: int
    kind: str
    payload: dict[str, Any]
    created_at: int


class TablesRepository(Repository):
    # -- tables ------------------------------------------------------------------------------
    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        ruleset: str,
        options: dict[str, Any] | None = None,
        turn_seconds: int = 60,
        claim_seconds: int = 15,
        hands_planned: int | None = None,
        seed: str | None = None,
        sets_planned: int | None = None,
        home_channel_id: int | None = None,
        hints: bool = True,
    ) -> int:
        """A new table in the lobby; raises ChannelBusy if the channel has an open one.
        ``home_channel_id`` equal to ``channel_id``: it will play in a thread of its own, and
        does not hold the channel (see migration 0003)."""
        try:
            result = await self.write(
                "INSERT INTO tables (guild_id, channel_id, host_id, ruleset, options, seed, "
                "turn_seconds, claim_seconds, hands_planned, sets_planned, home_channel_id, "
                "hints, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    guild_id,
                    channel_id,
                    host_id,
                    ruleset,
                    dumps(dict(options or {})),
                    seed,
                    turn_seconds,
                    claim_seconds,
                    hands_planned,
                    sets_planned,
                    home_channel_id,
                    int(hints),
                    self.now(),
                ),
            )
        except Conflict as exc:
            if "channel_id" in str(exc) or "one_open_per_channel" in str(exc):
                raise ChannelBusy(f"channel {channel_id} already has an open table") from None
            raise
        return result.lastrowid

    async def create_table(self, table: Any) -> int:
        """``TableStore.create_table``: from the service's live table object."""
        return await self.create(
            guild_id=table.guild_id,
            channel_id=table.channel_id,
            host_id=table.host_id,
            ruleset=table.ruleset,
            options=dict(table.options),
            turn_seconds=table.turn_seconds,
            claim_seconds=table.claim_seconds,
            hands_planned=table.hands,
            sets_planned=table.sets,
            seed=table.seed or None,
            home_channel_id=table.home_channel_id,
            hints=table.hints,
        )

    # -- open tables across processes (issue 15: caps and commands on PostgreSQL) -------------
    async def open_ids(
        self,
        *,
        user_id: int | None = None,
        channel_id: int | None = None,
        guild_id: int | None = None,
    ) -> list[int]:
        """The open tables a member sits at, or in a channel (or its threads), or on a server,
        whichever process runs them."""
        async with self.reading():
            return await self._open_ids(user_id=user_id, channel_id=channel_id, guild_id=guild_id)

    async def _open_ids(
        self,
        *,
        user_id: int | None = None,
        channel_id: int | None = None,
        guild_id: int | None = None,
        excluding: int = 0,
    ) -> list[int]:
        if user_id is not None:
            rows = await self.fetchall(_OF_MEMBER, (user_id, excluding))
        elif channel_id is not None:
            rows = await self.fetchall(_IN_CHANNEL, (channel_id, channel_id, excluding))
        else:
            rows = await self.fetchall(_OF_GUILD, (guild_id, excluding))
        return [int(r["id"]) for r in rows]

    async def create_capped(self, table: Any, host_name: str, caps: dict[str, int]) -> int:
        """``create_table`` with the host seated, unless the host, the channel or the server
        already has its cap of open tables (``caps``: "member", "channel", "guild"); raises
        ``CapReached`` then. Counted and written in one transaction: PostgreSQL's write
        transactions run one at a time across processes (``bot/store/postgres.py``, the
        transaction lock), so several processes together never exceed a cap."""
        async with self.transaction():
            counts = {
                "member": await self._open_ids(user_id=table.host_id),
                "channel": await self._open_ids(channel_id=table.channel_id),
                "guild": await self._open_ids(guild_id=table.guild_id),
            }
            for kind, ids in counts.items():
                if len(ids) >= caps[kind]:
                    raise CapReached(kind, len(ids), caps[kind])
            table_id = await self.create_table(table)
            await self.add_seat(table_id, 0, table.host_id, host_name)
            return table_id

    async def seat_capped(
        self, table_id: int, seat: int, user_id: int, display_name: str, cap: int
    ) -> None:
        """Seat a member joining a lobby unless they already sit at ``cap`` other open tables
        (``CapReached``), in one transaction as ``create_capped``. The joining event and
        ``set_seats`` follow; the seat taken here is what the next count sees."""
        async with self.transaction():
            mine = await self._open_ids(user_id=user_id, excluding=table_id)
            if len(mine) >= cap:
                raise CapReached("member", len(mine), cap)
            await self.execute(
                "DELETE FROM seats WHERE table_id = ? AND (seat = ? OR user_id = ?)",
                (table_id, seat, user_id),
            )
            await self.add_seat(table_id, seat, user_id, display_name)

    async def get(self, table_id: int) -> dict[str, Any] | None:
        async with self.reading():
            row = await self.fetchone("SELECT * FROM tables WHERE id = ?", (table_id,))
            if row is None:
                return None
            return await self._row(row)

    async def open_in_channel(self, channel_id: int) -> dict[str, Any] | None:
        async with self.reading():
            row = await self.fetchone(
                "SELECT * FROM tables WHERE channel_id = ? AND status IN ('lobby', 'playing') "
                "AND (home_channel_id IS NULL OR home_channel_id <> channel_id)",
                (channel_id,),
            )
            return None if row is None else await self._row(row)

    async def _row(self, row: Any) -> dict[str, Any]:
        out = dict(row)
        out["options"] = loads(out["options"], {})
        out["hands"] = out["hands_planned"]
        out["sets"] = out.get("sets_planned")
        count = await self.fetchone(
            "SELECT COUNT(*) AS n FROM hands WHERE table_id = ?", (out["id"],)
        )
        out["hands_recorded"] = count["n"] if count else 0
        out["seats"] = await self._seats(out["id"])
        return out

    async def set_status(
        self, table_id: int, status: str, *, seed: str | None = None, lease: Lease | None = None
    ) -> None:
        """Move a table on: lobby -> playing -> finished, or to cancelled. A closed table
        stays closed (its channel may already hold a new one). With ``lease``: fenced like
        ``append_event`` (raises ``Fenced`` once another process took the table over)."""
        if status not in STATUSES:
            raise StoreError(f"unknown table status {status!r}")
        finished_at = self.now() if status in CLOSED else None
        update = Statement(
            "UPDATE tables SET status = ?, finished_at = ?, seed = COALESCE(?, seed) "
            "WHERE id = ? AND status IN ('lobby', 'playing')",
            (status, finished_at, seed, table_id),
        )
        if lease is None:
            changed = (await self.db.batch([update]))[0].rowcount
        else:
            _check(lease, table_id)
            try:
                changed = (await self.db.batch([fence(lease), update]))[1].rowcount
            except Refused:
                raise Fenced(f"table {table_id}: lease {lease.generation} is lost") from None
        if changed == 1:
            return
        async with self.reading():
            row = await self.fetchone("SELECT status FROM tables WHERE id = ?", (table_id,))
        if row is None:
            raise StoreError(f"no table {table_id}")
        if row["status"] != status:
            raise StoreError(f"table {table_id} is already {row['status']}")

    async def finish(self, table_id: int) -> None:
        await self.set_status(table_id, "finished")

    async def cancel(self, table_id: int) -> None:
        await self.set_status(table_id, "cancelled")

    async def set_seed(self, table_id: int, seed: str) -> None:
        await self.write("UPDATE tables SET seed = ? WHERE id = ?", (seed, table_id))

    async def set_message(self, table_id: int, message_id: int | None) -> None:
        """The channel message that shows the lobby, then the table (edited as play goes)."""
        await self.write("UPDATE tables SET message_id = ? WHERE id = ?", (message_id, table_id))

    async def set_summary_message(self, table_id: int, message_id: int | None) -> None:
        """The table's one message in its home channel (lobby, then a line of state)."""
        await self.write(
            "UPDATE tables SET summary_message_id = ? WHERE id = ?", (message_id, table_id)
        )

    async def set_place(self, table_id: int, channel_id: int, home_channel_id: int | None) -> None:
        """Where the table plays (its thread, or the channel) and its home channel. Raises
        ChannelBusy if it would play in a channel that has an open table."""
        try:
            await self.write(
                "UPDATE tables SET channel_id = ?, home_channel_id = ? WHERE id = ?",
                (channel_id, home_channel_id, table_id),
            )
        except Conflict as exc:
            if "channel_id" in str(exc) or "one_open_per_channel" in str(exc):
                raise ChannelBusy(f"channel {channel_id} already has an open table") from None
            raise

    async def set_paused(self, table_id: int, paused: bool, reason: str) -> None:
        await self.write(
            "UPDATE tables SET paused = ?, pause_reason = ? WHERE id = ?",
            (int(paused), reason, table_id),
        )

    # -- seats -------------------------------------------------------------------------------
    async def add_seat(
        self, table_id: int, seat: int, user_id: int | None, display_name: str
    ) -> None:
        await self.write(
            "INSERT INTO seats (table_id, seat, user_id, display_name, is_computer, "
            "joined_at) VALUES (?, ?, ?, ?, ?, ?)",
            (table_id, seat, user_id, display_name, int(user_id is None), self.now()),
        )

    async def set_seats(self, table_id: int, seats: Sequence[SeatRow]) -> None:
        """Replace the table's seats with ``seats`` (after a join, a leave, a take-over),
        keeping the join time of anyone still seated."""
        async with self.transaction():
            old = {
                (r["seat"], r["user_id"]): r["joined_at"]
                for r in await self.fetchall(
                    "SELECT seat, user_id, joined_at FROM seats WHERE table_id = ?", (table_id,)
                )
            }
            await self.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
            for s in seats:
                await self.execute(
                    "INSERT INTO seats (table_id, seat, user_id, display_name, is_computer, "
                    "joined_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        table_id,
                        s.seat,
                        s.user_id,
                        s.display_name,
                        int(s.is_computer or s.user_id is None),
                        old.get((s.seat, s.user_id), self.now()),
                    ),
                )

    async def seats(self, table_id: int) -> list[SeatRow]:
        async with self.reading():
            return await self._seats(table_id)

    async def _seats(self, table_id: int) -> list[SeatRow]:
        rows = await self.fetchall(
            "SELECT seat, user_id, display_name, is_computer FROM seats WHERE table_id = ? "
            "ORDER BY seat",
            (table_id,),
        )
        return [
            SeatRow(r["seat"], r["user_id"], r["display_name"], bool(r["is_computer"]))
            for r in rows
        ]

    # -- events ------------------------------------------------------------------------------
    async def append_event(
        self, table_id: int, seq: int, kind: str, payload: dict, *, lease: Lease | None = None
    ) -> None:
        """Append event ``seq`` (the previous one must be ``seq - 1``): a gap or a repeat is a
        bug in the caller and raises StoreError, leaving the log as it was.

        One statement, so that outside a transaction it is one write of a group commit: the
        INSERT happens only if the log's last ``seq`` is ``seq - 1``, and ``UNIQUE (table_id,
        seq)`` refuses a second writer of the same ``seq`` that raced it.

        With ``lease`` (several processes on one database) the append is fenced: it commits
        only while ``lease`` is still the table's, and raises ``Fenced`` otherwise
        (``bot/store/leases_repo.py``)."""
        insert = Statement(
            "INSERT INTO events (table_id, seq, kind, payload, created_at) "
            "SELECT CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), "
            "CAST(? AS BIGINT) WHERE (SELECT COALESCE(MAX(seq), 0) FROM events "
            "WHERE table_id = ?) = ?",
            (table_id, seq, kind, dumps(payload), self.now(), table_id, seq - 1),
            guard=True,
        )
        if lease is not None:
            _check(lease, table_id)
        statements = [insert] if lease is None else [fence(lease, seq=seq), insert]
        try:
            await self.db.batch(statements)
        except Refused as exc:
            if statements[exc.index] is not insert:
                raise Fenced(
                    f"table {table_id}: lease generation {lease.generation if lease else 0} "
                    "is no longer the table's"
                ) from None
            raise StoreError(
                f"table {table_id}: event {seq} does not follow the log's last"
            ) from None
        except Conflict as exc:
            raise StoreError(f"table {table_id}: event {seq} refused ({exc})") from None

    async def events(self, table_id: int) -> list[EventRow]:
        async with self.reading():
            rows = await self.fetchall(
                "SELECT seq, kind, payload, created_at FROM events WHERE table_id = ? ORDER BY seq",
                (table_id,),
            )
        return [
            EventRow(r["seq"], r["kind"], loads(r["payload"], {}), r["created_at"]) for r in rows
        ]

    async def open_tables(self) -> list[tuple[dict[str, Any], list[tuple[str, dict]]]]:
        """Every open table with its events in order (``TableStore.open_tables``)."""
        async with self.reading():
            rows = await self.fetchall(
                "SELECT * FROM tables WHERE status IN ('lobby', 'playing') ORDER BY id"
            )
            out: list[tuple[dict[str, Any], list[tuple[str, dict]]]] = []
            for row in rows:
                events = await self.fetchall(
                    "SELECT kind, payload FROM events WHERE table_id = ? ORDER BY seq",
                    (row["id"],),
                )
                out.append(
                    (await self._row(row), [(e["kind"], loads(e["payload"], {})) for e in events])
                )
        return out

    async def open_table(
        self, table_id: int, *, closed_too: bool = False
    ) -> tuple[dict[str, Any], list[tuple[str, dict]]] | None:
        """One open table with its events in order (a table this process just took over from
        another; issue 15), or None if it is gone or (unless ``closed_too``) closed."""
        status = "" if closed_too else "AND status IN ('lobby', 'playing')"
        async with self.reading():
            row = await self.fetchone(f"SELECT * FROM tables WHERE id = ? {status}", (table_id,))
            if row is None:
                return None
            events = await self.fetchall(
                "SELECT kind, payload FROM events WHERE table_id = ? ORDER BY seq", (table_id,)
            )
            return await self._row(row), [(e["kind"], loads(e["payload"], {})) for e in events]

    # -- finished hands ----------------------------------------------------------------------
    async def add_hand(
        self,
        table_id: int,
        hand_no: int,
        *,
        ruleset: str,
        kind: str = "win",
        winner_seat: int | None = None,
        winner_id: int | None = None,
        scores: list[Any] | None = None,
        payments: list[Any] | None = None,
        seed: str = "",
        seed_hash: str = "",
    ) -> bool:
        """Record a finished hand once; False if it was already recorded (a retry)."""
        result = await self.write(
            "INSERT INTO hands (table_id, hand_no, ruleset, kind, winner_seat, winner_id, "
            "scores, payments, seed, seed_hash, finished_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (table_id, hand_no) DO NOTHING",
            (
                table_id,
                hand_no,
                ruleset,
                kind,
                winner_seat,
                winner_id,
                dumps(scores or []),
                dumps(payments or []),
                seed,
                seed_hash,
                self.now(),
            ),
        )
        return result.rowcount == 1

    async def record_hand(self, table: Any, result: Any) -> None:
        """``TableStore.record_hand``: a game engine ``HandResult`` of the service's table."""
        winner_id = None
        if result.winner is not None:
            player = table.player_at(result.winner)
            winner_id = getattr(player, "user_id", None)
            if winner_id is None:
                winner_id = -(result.winner + 1)
        await self.add_hand(
            table.id,
            result.number,
            ruleset=table.ruleset,
            kind=result.kind,
            winner_seat=result.winner,
            winner_id=winner_id,
            scores=[score_json(s) for s in result.scores],
            payments=[
                {"payer": p.payer, "payee": p.payee, "amount": p.amount, "reason": p.reason}
                for p in result.payments
            ],
            seed=result.seed,
            seed_hash=result.seed_hash,
        )

    async def hands(self, table_id: int) -> list[dict[str, Any]]:
        async with self.reading():
            rows = await self.fetchall(
                "SELECT * FROM hands WHERE table_id = ? ORDER BY hand_no", (table_id,)
            )
        out = []
        for row in rows:
            item = dict(row)
            item["scores"] = loads(item["scores"], [])
            item["payments"] = loads(item["payments"], [])
            out.append(item)
        return out


def _check(lease: Lease, table_id: int) -> None:
    if lease.table_id != table_id:
        raise StoreError(f"a lease of table {lease.table_id} used for table {table_id}")


def score_json(score: Any) -> dict[str, Any] | None:
    """An itemised score as stored: total, limit hand, and its lines with their sources."""
    if score is None:
        return None
    return {
        "total": score.total,
        "limit_hand": score.limit_hand,
        "dead": bool(getattr(score, "dead", False)),
        "lines": [
            {"name": ln.name, "points": ln.points, "doubles": ln.doubles, "source": ln.source}
            for ln in score.lines
        ],
    }
