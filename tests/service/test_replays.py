"""Replays at service level (bot/service/replays.py): the steps of a hand from its deal to its
reveal, the viewer's stops and buttons, the privacy of every frame (the same gate as live
play), the refusals (a hand in play, not dealt, abandoned), replay codes, and the service's
look-ups over a store fake. The games are played by computer players on the engine alone and
stored as the table service stores them (join, start, action events)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.players import decide
from bot.rules.game import GAME_OVER, HAND_OVER, NextHand, legal_actions, pending_seats, view
from bot.rules.rulesets import get_ruleset
from bot.service.replays import (
    TABLE,
    ReplayError,
    ReplayService,
    Viewer,
    build_replay,
    parse_code,
    replay_code,
    seated_at_start,
    table_hash,
)
from bot.service.tables.events import action_payload, rebuild, replay_event

GUILD = 7


def table_row(table_id: int = 1, *, hands: int = 2, hints: bool = True) -> dict[str, Any]:
    return {
        "id": table_id,
        "guild_id": GUILD,
        "channel_id": 10,
        "host_id": 101,
        "ruleset": "pung-chow",
        "options": {},
        "turn_seconds": 0,
        "claim_seconds": 15,
        "hands": hands,
        "hints": hints,
    }


def play(
    seed: str, *, hands: int = 2, stop_in_hand: int | None = None, stop_after: int = 5
) -> tuple[dict[str, Any], list[tuple[str, dict]]]:
    """A stored game of alice and three computer players, played by the computer policy on
    the engine. ``stop_in_hand``: the log ends ``stop_after`` moves into that hand."""
    row = table_row(hands=hands)
    events: list[tuple[str, dict]] = [("join", {"user_id": 101, "name": "alice"})]
    events += [("join", {"user_id": None, "name": f"Computer {i}"}) for i in (1, 2, 3)]
    events.append(("start", {"seed": seed}))
    table = rebuild(row, events)
    rules = get_ruleset("pung-chow")
    moves_in_hand = 0
    while table.state is not None and table.state.phase != GAME_OVER:
        state = table.state
        if stop_in_hand == state.deal and moves_in_hand >= stop_after:
            return row, events
        if state.phase == HAND_OVER:
            action: Any = NextHand()
            moves_in_hand = 0
        else:
            seat = min(pending_seats(state))
            legal = legal_actions(state, seat)
            action = decide(view(state, seat), legal, rules, state.config.options)
            moves_in_hand += 1
        payload = action_payload(action)
        events.append(("action", payload))
        replay_event(table, "action", payload)
    return row, events


def states_of(row: dict[str, Any], events: list[tuple[str, dict]]) -> list[Any]:
    """Every state the live table went through, in order."""
    table = rebuild(row, [])
    out = []
    for kind, payload in events:
        replay_event(table, kind, payload)
        if table.state is not None and (not out or out[-1] is not table.state):
            out.append(table.state)
    return out


@pytest.fixture(scope="module")
def game() -> tuple[dict[str, Any], list[tuple[str, dict]]]:
    return play("replay-test-seed")


def test_a_hand_steps_from_its_deal_through_every_state_to_its_reveal(game) -> None:
    row, events = game
    lived = states_of(row, events)
    for hand in (1, 2):
        replay = build_replay(row, events, hand)
        states = [s.state for s in replay.steps]
        assert states[0].deal == hand and states[0].phase == "play"
        assert all(s.deal == hand for s in states)
        assert states[-1].phase in (HAND_OVER, GAME_OVER)
        assert replay.result.number == hand and states[-1].results[-1] is replay.result
        # Every state of the hand, the live table's own, none skipped.
        first = next(i for i, s in enumerate(lived) if s.deal == hand)
        assert [s.move for s in states] == [s.move for s in lived[first : first + len(states)]]
        assert replay.code == replay_code("replay-test-seed", hand)
        assert replay.steps[0].words == "" and any(s.words for s in replay.steps[1:])


def test_the_viewer_moves_between_stops_and_stays_put_at_either_end(game) -> None:
    replay = build_replay(*game, 1)
    for seat in [*(s for s, _, _ in replay.seats()), TABLE]:
        stops = replay.stops(seat)
        assert stops[0] == 0 and stops[-1] == len(replay.steps) - 1
        walked, step = [0], 0
        while (step := replay.go(step, seat, "next")) != walked[-1]:
            walked.append(step)
        assert tuple(walked) == stops
        back = [step]
        while (step := replay.go(step, seat, "prev")) != back[-1]:
            back.append(step)
        assert back == list(reversed(stops))
        assert replay.go(stops[len(stops) // 2], seat, "last") == stops[-1]
        assert replay.go(stops[-1], seat, "first") == 0
        # A step between stops shows the last stop before it.
        for i, stop in enumerate(stops):
            assert replay.position(stop, seat) == (i, len(stops))
        # Consecutive stops are different pictures; steps between them repeat the stop's.
        keys = [replay.frame(s, seat).key for s in range(len(replay.steps))]
        for a, b in itertools.pairwise(stops):
            assert keys[a] != keys[b]
            assert all(keys[i] == keys[a] for i in range(a, b))
    with pytest.raises(ReplayError):
        replay.go(0, 0, "sideways")


def test_no_frame_shows_a_tile_its_seat_could_not_see_until_the_reveal(game) -> None:
    for hand in (1, 2):
        replay = build_replay(*game, hand)
        seats = [s for s, _, _ in replay.seats()]
        last = len(replay.steps) - 1
        for index, step in enumerate(replay.steps):
            truth = step.state
            for seat in [*seats, TABLE]:
                frame = replay.frame(index, seat)
                shown = frame.view
                assert frame.kind == ("table" if seat == TABLE else "seat_table")
                assert shown.viewer == (None if seat == TABLE else seat)
                for s in seats:
                    mine = s == seat
                    if index == last:
                        assert shown.seats[s].concealed == truth.seats[s].concealed
                    elif mine:
                        assert shown.seats[s].concealed == truth.seats[s].concealed
                        assert shown.seats[s].drawn == truth.seats[s].drawn
                    else:
                        assert shown.seats[s].concealed is None and shown.seats[s].drawn is None
                if seat != TABLE and index < last:
                    # Hint marks come from the seat's own tiles only.
                    own = set(truth.seats[seat].tiles())
                    assert frame.kwargs["marks"] <= own
        assert replay.frame(last, TABLE).view.revealed


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(alphabet="0123456789abcdef", min_size=4, max_size=12))
def test_privacy_holds_for_any_game(seed: str) -> None:
    row, events = play(seed, hands=1)
    replay = build_replay(row, events, 1)
    seats = [s for s, _, _ in replay.seats()]
    for seat in [*seats, TABLE]:
        for stop in replay.stops(seat)[:-1]:
            shown = replay.frame(stop, seat).view
            hidden = [s for s in seats if s != seat]
            assert all(shown.seats[s].concealed is None for s in hidden)
    assert replay.frame(len(replay.steps) - 1, seats[0]).view.revealed


def test_hints_off_draws_no_marks(game) -> None:
    row, events = game
    replay = build_replay(dict(row, hints=False), events, 1)
    assert all(
        replay.frame(i, seat).kwargs["marks"] == frozenset()
        for i in range(len(replay.steps))
        for seat, _, _ in replay.seats()
    )


def test_a_hand_in_play_not_dealt_or_abandoned_is_refused() -> None:
    row, events = play("in-play", hands=2, stop_in_hand=2)
    with pytest.raises(ReplayError, match="still being played"):
        build_replay(row, events, 2)
    assert build_replay(row, events, 1).result.number == 1  # the hand before it is finished
    with pytest.raises(ReplayError, match="has no hand 3"):
        build_replay(row, events, 3)
    abandoned = [*events, ("end", {"status": "finished", "reason": "ended by the host"})]
    with pytest.raises(ReplayError, match="never finished"):
        build_replay(row, abandoned, 2)
    lobby = events[:4]
    with pytest.raises(ReplayError, match="never started"):
        build_replay(row, lobby, 1)


def test_codes_read_as_typed() -> None:
    code = replay_code("some-seed", 3)
    assert code == table_hash("some-seed")[:8] + "-3"
    prefix = code.split("-")[0]
    for typed in (code, code.upper(), f"  {prefix} 3 ", f"{prefix}#3", f"{prefix}:3"):
        assert parse_code(typed) == (prefix, 3)
    for bad in ("", "xyz-1", f"{prefix}-0", f"{prefix}3", "12345-1", f"{prefix}-"):
        with pytest.raises(ReplayError, match="is not a replay code"):
            parse_code(bad)
    # Eight letters and digits, as the refusal used to describe a code, but not hex digits:
    # the refusal says which characters a code has.
    with pytest.raises(ReplayError, match=r"digits 0-9 and letters a-f"):
        parse_code("zzzzzzzz-1")


class MemoryReplays:
    """The replay store over stored games (as ReplaysRepository reads the database)."""

    def __init__(self) -> None:
        self.tables: dict[int, tuple[dict[str, Any], list[tuple[str, dict]]]] = {}
        self.hashes: dict[int, str] = {}
        self.last: dict[tuple[int, int], tuple[int, int]] = {}
        self.reads = 0

    def add(self, row: dict[str, Any], events: list[tuple[str, dict]]) -> None:
        self.tables[row["id"]] = (row, events)

    async def table(self, table_id: int) -> Any:
        self.reads += 1
        found = self.tables.get(table_id)
        if found is None:
            return None
        row, events = found
        return dict(row, seed_hash=self.hashes.get(table_id)), list(events)

    async def set_seed_hash(self, table_id: int, seed_hash: str) -> None:
        self.hashes.setdefault(table_id, seed_hash)

    async def by_seed_hash(self, guild_id: int | None, prefix: str) -> list[int]:
        return sorted(
            t
            for t, h in self.hashes.items()
            if h.startswith(prefix) and guild_id in (None, self.tables[t][0]["guild_id"])
        )

    async def unhashed(self, guild_id: int | None) -> list[tuple[int, str]]:
        return [
            (t, next(p["seed"] for k, p in events if k == "start"))
            for t, (row, events) in self.tables.items()
            if t not in self.hashes and guild_id in (None, row["guild_id"])
        ]

    async def last_hand(self, guild_id: int, user_id: int) -> tuple[int, int] | None:
        return self.last.get((guild_id, user_id))


async def test_the_service_opens_hands_of_its_server_by_number_code_or_member(game) -> None:
    row, events = game
    store = MemoryReplays()
    store.add(row, events)
    other_row = dict(table_row(2), guild_id=GUILD + 1)
    store.add(other_row, play("elsewhere", hands=1)[1])
    service = ReplayService(store)

    # By code before anyone opened the table by number: the hash is found and kept.
    code = replay_code("replay-test-seed", 2)
    replay = await service.open_code(GUILD, code)
    assert (replay.table_id, replay.hand) == (1, 2) and store.hashes[1] == table_hash(
        "replay-test-seed"
    )
    # The other server's table is not this server's, by number or by code.
    with pytest.raises(ReplayError, match="no table 2 on this server"):
        await service.open(GUILD, 2, 1)
    with pytest.raises(ReplayError, match="No table on this server has"):
        await service.open_code(GUILD, replay_code("elsewhere", 1))
    assert (await service.open_code(None, replay_code("elsewhere", 1))).table_id == 2

    # Cached: the viewer's presses read nothing again; another server still cannot see it.
    reads = store.reads
    assert await service.open(GUILD, 1, 2) is replay and store.reads == reads
    with pytest.raises(ReplayError, match="no table 1 on this server"):
        await service.open(GUILD + 1, 1, 2)

    # The table's last finished hand, and a member's last hand.
    assert (await service.open(GUILD, 1)).hand == 2
    with pytest.raises(ReplayError, match="no finished hand"):
        await service.last_of(GUILD, 555)
    store.last[(GUILD, 555)] = (1, 1)
    assert (await service.last_of(GUILD, 555)).hand == 1

    # Two tables whose hashes share the prefix typed: the member is asked for more.
    store.hashes[3] = store.hashes[1][:8] + "0" * 56
    store.tables[3] = (dict(table_row(3)), events)
    with pytest.raises(ReplayError, match="fits several tables"):
        await service.open_code(GUILD, code)
    assert (await service.open_code(GUILD, store.hashes[1][:12] + "-2")).table_id == 1


def test_the_seats_own_player_gets_their_dm_picture_anyone_else_the_seats_name(game) -> None:
    """The picture drawn for the seat's own player is the live DM's, with exactly its
    arguments (so byte-equal); anyone else watching that seat gets it with ``player=False``
    (the plate and the header name the seat instead of "You")."""
    replay = build_replay(*game, 1)
    seat = replay.seats()[0][0]
    step = replay.stops(seat)[1]
    own = replay.frame(step, seat, player=True)
    watched = replay.frame(step, seat)
    assert own.kwargs == {"marks": own.kwargs["marks"], "locale": "en-US"}  # as the DM's
    assert watched.kwargs == {**own.kwargs, "player": False}
    chinese = replay.frame(step, seat, player=True, locale="zh-TW")
    assert chinese.kwargs["locale"] == "zh-TW" and chinese.key != own.key
    assert own.args == watched.args and own.key != watched.key


async def test_a_table_number_opens_only_for_who_played_or_can_see_its_channel(game) -> None:
    """Table numbers count up, so anyone could type one: by number a hand is shown to a
    member who played at the table or can see its thread or the channel it was opened from;
    a replay code (shared by someone who played) opens it for anyone on the server."""
    row, events = game
    row = dict(row, channel_id=10, home_channel_id=11)  # played in thread 10 of channel 11
    store = MemoryReplays()
    store.add(row, events)
    service = ReplayService(store)
    stranger = Viewer(999, lambda channel: False)
    for _ in range(2):  # the second time from the cache
        with pytest.raises(ReplayError, match="channel you cannot see") as refused:
            await service.open(GUILD, 1, 1, viewer=stranger)
        assert "table 1" not in str(refused.value).lower()  # nothing said about the table
        assert (await service.open(GUILD, 1, 1)).hand == 1  # (the cache filled for the 2nd)
    for sees in ({10}, {11}):
        viewer = Viewer(999, lambda channel, sees=sees: channel in sees)
        assert (await service.open(GUILD, 1, 1, viewer=viewer)).hand == 1
    # alice played it (user 101): she may open it wherever she is.
    assert (await service.open(GUILD, 1, 1, viewer=Viewer(101, lambda channel: False))).hand == 1
    assert seated_at_start(events) == (101, None, None, None)
    # Nor does a stranger learn that a hand is in play: refused before the hand is looked at.
    store.add(dict(row, id=5), play("in-play", stop_in_hand=1)[1])
    with pytest.raises(ReplayError, match="channel you cannot see"):
        await service.open(GUILD, 5, 1, viewer=stranger)
    code = replay_code("replay-test-seed", 1)
    assert (await service.open_code(GUILD, code)).hand == 1
