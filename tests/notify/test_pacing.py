"""The pacer: newest state only, Discord's per-channel and global budgets, claim prompts first,
and no background exception lost. Grants are recorded at the loop's time, so the budgets are
checked on the times the pacer let requests go (no timed asserts on how long the test took)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from cogs.notify.pacing import LOW, NORMAL, TABLE, URGENT, Pacer


async def _grants(pacer: Pacer, asks: list[tuple[str, int]]) -> list[tuple[float, str, int]]:
    """Ask for one turn per (channel, priority), all at once; the order and times granted."""
    loop = asyncio.get_running_loop()
    out: list[tuple[float, str, int]] = []

    async def one(channel: str, priority: int) -> None:
        await pacer.turn(channel, priority)
        out.append((loop.time(), channel, priority))

    await asyncio.gather(*(one(c, p) for c, p in asks))
    return out


def _most_in_window(times: list[float], window: float) -> int:
    times = sorted(times)
    return max(
        (sum(1 for t in times[i:] if t < start + window - 1e-9) for i, start in enumerate(times)),
        default=0,
    )


async def test_a_channel_never_gets_more_than_its_budget_in_a_window() -> None:
    pacer = Pacer(per_channel=5, window=0.3, global_rate=1000)
    grants = await _grants(pacer, [("dm", NORMAL)] * 12 + [("other", NORMAL)] * 3)
    dm = [t for t, c, _ in grants if c == "dm"]
    assert len(dm) == 12
    # Ordinary work keeps the channel's last slot free for a claim prompt.
    assert _most_in_window(dm, 0.3) == 4
    # Another channel is not held up by a busy one.
    other = [t for t, c, _ in grants if c == "other"]
    assert max(other) < sorted(dm)[4]
    await pacer.close()


async def test_a_claim_prompt_takes_the_slot_ordinary_work_leaves() -> None:
    pacer = Pacer(per_channel=5, window=60, global_rate=1000)
    for _ in range(4):
        await pacer.turn("dm", NORMAL)
    urgent = asyncio.ensure_future(pacer.turn("dm", URGENT))
    normal = asyncio.ensure_future(pacer.turn("dm", NORMAL))
    await asyncio.wait_for(urgent, timeout=5)  # at once, though the channel is nearly full
    assert not normal.done()  # ordinary work waits for the window
    normal.cancel()
    await pacer.close()


async def test_a_channels_new_messages_edits_and_deletes_have_budgets_of_their_own() -> None:
    """Discord counts a channel's creates and edits apart (the same bucket header, separate
    counts: discord/discord-api-docs#1442, #8073), and its deletes apart again."""
    pacer = Pacer(per_channel=5, window=60, global_rate=1000)
    for _ in range(4):
        await pacer.turn("dm", NORMAL)  # new messages: the channel's sends are nearly spent
    send = asyncio.ensure_future(pacer.turn("dm", NORMAL))
    for route in ("edit",) * 4 + ("delete",) * 4:
        await asyncio.wait_for(pacer.turn("dm", NORMAL, route=route), timeout=5)  # at once
    edit = asyncio.ensure_future(pacer.turn("dm", NORMAL, route="edit"))
    await asyncio.sleep(0.05)
    assert not send.done() and not edit.done()  # each waits for its own window
    send.cancel()
    edit.cancel()
    await pacer.close()


async def test_the_global_budget_is_served_by_priority() -> None:
    pacer = Pacer(per_channel=100, window=1, global_rate=20)
    loop = asyncio.get_running_loop()
    spent = []
    for i in range(20):  # spend the whole second's budget
        await pacer.turn(f"c{i}", NORMAL)
        spent.append(loop.time())
    asks = [(f"n{i}", NORMAL) for i in range(6)] + [("d", LOW), ("claim", URGENT)]
    grants = await _grants(pacer, asks)
    order = [c for _, c, _ in grants]
    assert order[0] == "claim" and order[-1] == "d"
    # Never more than the rate allows in any second, those spent first included (as Discord
    # counts: a token bucket's full bucket plus its refill let 28 through within 0.4 s).
    times = spent + [t for t, _, _ in grants]
    assert _most_in_window(times, 1.0) <= 20
    await pacer.close()


async def test_an_interaction_tokens_edits_go_at_a_webhooks_pace() -> None:
    """5 per 2 s through a click's token (the fake's estimate of a webhook's pace), not a
    channel's 5 per 5 s: a member's prompt through their token waited for that window."""
    pacer = Pacer(per_channel=5, window=2.5, global_rate=1000)
    loop = asyncio.get_running_loop()

    async def edits(channel: tuple[str, int], counted: bool) -> list[float]:
        times = []
        for _ in range(9):
            await pacer.turn(channel, TABLE, route="edit", counted=counted)
            times.append(loop.time())
        return times

    token, channel = await asyncio.gather(edits(("token", 7), False), edits(("dm", 7), True))
    assert _most_in_window(token, 2.5 * 2 / 5) == 4  # a slot kept for prompts, as a channel
    assert _most_in_window(channel, 2.5) == 4
    # the token's pace is the quicker: 9 edits (two windows) take under half the time
    assert token[-1] - token[0] < 0.6 * (channel[-1] - channel[0])
    await pacer.close()


async def test_interaction_requests_are_outside_the_global_budget() -> None:
    pacer = Pacer(per_channel=100, window=1, global_rate=2)
    await pacer.turn("a", NORMAL)
    await pacer.turn("b", NORMAL)
    token = asyncio.ensure_future(pacer.turn("token", URGENT, counted=False))
    await asyncio.wait_for(token, timeout=5)
    assert pacer.counts == {"global": 2, "interaction": 1}
    await pacer.close()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=30))
def test_coalescing_runs_the_newest_state_and_never_two_at_once(states: list[int]) -> None:
    async def scenario() -> tuple[list[int], int]:
        pacer = Pacer()
        seen: list[int] = []
        running = 0
        most = 0
        current = {"state": None}

        async def work() -> None:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await asyncio.sleep(0)
            seen.append(current["state"])
            running -= 1

        for value in states:
            current["state"] = value
            pacer.coalesce("key", work)
            if value % 3 == 0:
                await asyncio.sleep(0)
        await pacer.drain()
        await pacer.close()
        return seen, most

    seen, most = asyncio.run(scenario())
    assert seen[-1] == states[-1]  # the newest state is always shown in the end
    assert len(seen) <= len(states)
    assert most == 1


async def test_a_background_failure_is_logged_with_its_cause(caplog) -> None:
    pacer = Pacer()

    async def fails() -> None:
        raise RuntimeError("403 Forbidden (error code: 50013): Missing Permissions")

    with caplog.at_level(logging.ERROR):
        pacer.spawn(fails(), "reveal-7-3")
        await pacer.drain()
        await asyncio.sleep(0)
    assert any(
        "reveal-7-3" in r.getMessage() and "Missing Permissions" in r.getMessage()
        for r in caplog.records
    ), [r.getMessage() for r in caplog.records]
    await pacer.close()


async def test_a_slow_request_counts_from_when_it_was_answered() -> None:
    """Discord counts a request when it arrives, which on a busy machine can be long after
    its turn: the window is counted from the answer, so six arrivals never fit in a window
    however late the first one arrived."""
    pacer = Pacer(per_channel=5, window=0.3, global_rate=1000)
    pacer.margin = 0.0
    loop = asyncio.get_running_loop()
    answered: list[float] = []
    granted: list[float] = []

    async def one(delay: float) -> None:
        async with pacer.request("dm", URGENT):
            granted.append(loop.time())
            await asyncio.sleep(delay)
            answered.append(loop.time())

    first = asyncio.ensure_future(one(0.2))  # slow: arrives 0.2 s after its turn
    await asyncio.sleep(0)
    await asyncio.gather(first, *(one(0) for _ in range(5)))
    assert granted[5] >= answered[0] + 0.3 - 1e-9
    await pacer.close()


async def test_no_second_ever_holds_more_than_the_budget_even_with_slow_requests() -> None:
    """A burst of requests, some of whose answers take longer than the budget's whole window
    (an upload on a loaded machine): whenever Discord may have counted each (anywhere between
    its turn and its answer), no window of the global budget holds more than it allows. A
    request was counted from its turn only until the window passed, so a slow one let a
    second's budget through again while it was still on its way (54 in one second)."""
    import random

    pacer = Pacer(per_channel=1000, window=1, global_rate=10)
    pacer.global_window, pacer.global_margin = 0.2, 0.0  # 10 per 0.2 s: a fast "second"
    loop = asyncio.get_running_loop()
    rng = random.Random(7)
    spans: list[tuple[float, float]] = []

    async def one(i: int) -> None:
        priority = rng.choice((URGENT, NORMAL, TABLE, LOW))
        async with pacer.request(f"c{i % 7}", priority):
            began = loop.time()
            await asyncio.sleep(rng.choice((0.0, 0.01, 0.05, 0.3)))  # 0.3: longer than 0.2
            spans.append((began, loop.time()))

    await asyncio.gather(*(one(i) for i in range(40)))
    assert len(spans) == 40
    worst = max(
        sum(1 for s, e in spans if s <= start + 1e-9 and e > start - 0.2 + 1e-9)
        for start, _ in spans
    )
    assert worst <= 10, worst
    await pacer.close()


async def test_table_images_and_cosmetic_work_leave_room_for_prompts() -> None:
    """With the second's budget nearly spent, a prompt still goes at once; a table image
    waits once only its reserve is left, cosmetic work earlier still."""
    pacer = Pacer(per_channel=100, window=1, global_rate=20)  # reserves: table 2, low 5
    for i in range(16):
        await pacer.turn(f"c{i}", NORMAL)
    low = asyncio.ensure_future(pacer.turn("summary", LOW))
    table = asyncio.ensure_future(pacer.turn("table", TABLE))
    await asyncio.wait_for(table, timeout=5)  # 4 left > its reserve of 2
    await asyncio.sleep(0.05)
    assert not low.done()  # 3 left: within cosmetic work's reserve of 5
    await pacer.turn("x", NORMAL)
    later = asyncio.ensure_future(pacer.turn("table2", TABLE))
    claim = asyncio.ensure_future(pacer.turn("claim", URGENT))
    await asyncio.wait_for(claim, timeout=5)  # 1 left: a prompt takes it
    await asyncio.sleep(0.05)
    assert not later.done()
    for waiting in (low, later):
        waiting.cancel()
    await pacer.close()


async def test_cosmetic_work_kept_waiting_by_a_full_budget_is_served_in_the_end() -> None:
    """A budget kept full by table images (50 busy tables) left the home channel's summary
    lines waiting for ever, each holding its finished table: the soak's memory grew with
    every game. Cosmetic work that has waited ``low_age`` queues with the table images, in
    the order it asked, and goes within a round of them."""
    pacer = Pacer(per_channel=100, window=1, global_rate=10)  # reserves: table 1, low 2
    pacer.low_age = 0.5
    loop = asyncio.get_running_loop()
    tables_served = 0

    async def table_images(stream: int) -> None:
        nonlocal tables_served
        for i in range(10_000):
            await pacer.turn(f"table-{stream}-{i % 20}", TABLE)
            tables_served += 1

    # More tables waiting than the budget has slots: whatever frees goes to them first.
    streams = [asyncio.ensure_future(table_images(n)) for n in range(30)]
    try:
        while tables_served < 9:  # the second's budget but the table level's reserve: full
            await asyncio.sleep(0.01)
        asked = loop.time()
        served_before = tables_served
        await asyncio.wait_for(pacer.turn("summary", LOW), timeout=30)
        granted = loop.time()
        assert granted - asked >= pacer.low_age  # not before: the table images had it all
        assert tables_served > served_before  # and they were being served all the while
    finally:
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        await pacer.close()


async def test_a_waiting_update_gives_way_to_a_newer_state_and_keeps_its_place() -> None:
    """A coalesced job waiting for its turn is asked again urgently (the seat's turn came):
    it stops waiting, runs at once with the newest state, and the out-of-date one is never
    sent."""
    pacer = Pacer(per_channel=100, window=1, global_rate=2)
    await pacer.turn("a", NORMAL)
    await pacer.turn("b", NORMAL)  # the budget is spent for a second
    sent: list[str] = []
    state = {"now": "watching"}

    async def work() -> None:
        shown = state["now"]
        priority = URGENT if shown == "turn" else TABLE
        async with pacer.request("dm", priority, supersede=True):
            sent.append(shown)

    pacer.coalesce("dm-1", work)
    await asyncio.sleep(0.05)
    assert sent == []  # waiting for a slot
    state["now"] = "still watching"
    pacer.coalesce("dm-1", work)  # not urgent: the waiting request keeps waiting
    await asyncio.sleep(0.05)
    state["now"] = "turn"
    pacer.coalesce("dm-1", work, urgent=True)
    await pacer.drain()
    assert sent == ["turn"]
    await pacer.close()


async def test_a_drawing_for_an_out_of_date_update_does_not_hold_up_the_prompt() -> None:
    """A watching seat's update waits for its picture (the drawing pool is busy); the seat's
    turn comes: the prompt goes at once, and the old update's picture is never awaited."""
    pacer = Pacer(per_channel=100, window=1, global_rate=100)
    never = asyncio.Event()  # the watching picture's drawing: stuck in a busy pool
    sent: list[str] = []
    state = {"now": "watching"}

    async def draw(shown: str) -> str:
        if shown == "watching":
            await never.wait()
        return shown

    async def work() -> None:
        picture = await pacer.unless_newer(draw(state["now"]))
        async with pacer.request("dm", URGENT, supersede=True):
            sent.append(picture)

    pacer.coalesce("dm-1", work)
    await asyncio.sleep(0.05)
    state["now"] = "turn"
    pacer.coalesce("dm-1", work, urgent=True)
    await pacer.drain()
    assert sent == ["turn"]
    await pacer.close()


async def test_an_update_failing_at_shut_down_is_no_error_but_one_failing_before_is(
    caplog,
) -> None:
    """The bot marks the pacer once the last updates had their moment; an update still running
    then meets a closed drawing or session (CI saw 'drawing is closed' logged as an error)."""
    pacer = Pacer()

    async def fails() -> None:
        raise RuntimeError("drawing is closed")

    pacer.coalesce("running", fails)
    await pacer.drain()
    assert [r.levelno for r in caplog.records] == [logging.ERROR]
    caplog.clear()
    caplog.set_level(logging.INFO)
    pacer.shutting_down = True
    pacer.coalesce("stopping", fails)
    await pacer.drain()
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    assert "stopped by the shut-down" in caplog.text
    await pacer.close()


async def test_the_budget_is_pressed_once_half_of_the_second_is_taken() -> None:
    pacer = Pacer(per_channel=100, window=1, global_rate=4)
    pacer.global_window = 3600.0  # no grant leaves the window while the test runs, however slow
    assert not pacer.pressed()
    await pacer.turn("a", NORMAL)
    await pacer.turn("b", NORMAL)
    assert not pacer.pressed()  # half left
    await pacer.turn("c", NORMAL)
    assert pacer.pressed()
    await pacer.close()


async def test_a_busy_tables_edits_come_evenly_not_in_bursts() -> None:
    """A table changing faster than its channel allows: spread out, each edit waits an even
    share of the window after the last; without, four go at once and the next waits for
    the rest of the window (a move in that gap is shown late). Only lower bounds on the
    gaps are checked (the pacer never grants early; a loaded machine may grant late)."""
    loop = asyncio.get_running_loop()

    async def gaps(spread: bool) -> list[float]:
        pacer = Pacer(per_channel=5, window=2.0, global_rate=1000)
        pacer.margin = 0.0
        granted: list[float] = []
        for _ in range(6):  # one after another: the next change waits for the last edit
            async with pacer.request("table", TABLE, route="edit", spread=spread):
                granted.append(loop.time())
        await pacer.close()
        return [b - a for a, b in itertools.pairwise(granted)]

    even = 2.0 / 4  # four of the five slots: TABLE keeps one free
    assert min(await gaps(True)) >= even - 1e-9
    assert min(await gaps(False)) < even  # the first four together, 0.5 s nowhere near


async def test_waiting_until_a_channel_is_ready_takes_no_slot() -> None:
    """``until_ready`` returns once the channel's spread-out turn has come, not before, and
    takes no slot: the request that follows is the only one counted (a table job waits
    there, then draws its newest state, then asks)."""
    loop = asyncio.get_running_loop()
    pacer = Pacer(per_channel=5, window=2.0, global_rate=1000)
    pacer.margin = 0.0
    bucket = ("table", "edit")
    async with pacer.request("table", TABLE, route="edit", spread=True):
        pass
    answered = pacer._sent[bucket][-1][0]
    await pacer.until_ready("table", TABLE, route="edit", spread=True)
    assert loop.time() >= answered + 2.0 / 4 - 1e-9  # four of the five slots: one kept free
    assert len(pacer._sent[bucket]) == 1  # waiting took nothing
    assert pacer._channel_wait(bucket, 1, loop.time(), spread=True) <= 0
    async with pacer.request("table", TABLE, route="edit", spread=True):
        assert len(pacer._sent[bucket]) == 2
    await pacer.close()


async def test_waiting_for_a_channel_whose_request_is_in_flight_lasts_until_its_answer() -> None:
    """A request still in flight counts as sent now: the wait ends only a spread after its
    answer, however long the answer takes."""
    loop = asyncio.get_running_loop()
    pacer = Pacer(per_channel=5, window=0.4, global_rate=1000)
    pacer.margin = 0.0
    answer = asyncio.Event()
    ready = asyncio.Event()

    async def edit() -> None:
        async with pacer.request("table", TABLE, route="edit", spread=True):
            await answer.wait()

    async def wait_ready() -> None:
        await pacer.until_ready("table", TABLE, route="edit", spread=True)
        ready.set()

    sending = asyncio.create_task(edit())
    while not pacer._sent.get(("table", "edit")):  # granted: in flight
        await asyncio.sleep(0)
    stamp = pacer._sent[("table", "edit")][0]  # inf while in flight, then the answer's time
    waiting = asyncio.create_task(wait_ready())
    for _ in range(20):  # many polls while the answer has not come
        await asyncio.sleep(0.01)
        assert not ready.is_set()
    answer.set()
    await sending
    answered = stamp[0]
    assert answered != math.inf
    await waiting
    assert loop.time() >= answered + 0.4 / 4 - 1e-9
    await pacer.close()


async def test_waiting_with_the_drawing_time_ahead_returns_that_much_sooner() -> None:
    """``ahead``: the wait ends that long before the channel's turn (the drawing is done when
    the turn comes); with ``ahead`` beyond the whole wait it does not wait at all."""
    loop = asyncio.get_running_loop()
    pacer = Pacer(per_channel=5, window=2.0, global_rate=1000)
    pacer.margin = 0.0
    async with pacer.request("table", TABLE, route="edit", spread=True):
        pass
    answered = pacer._sent[("table", "edit")][-1][0]
    waiting = pacer.until_ready("table", TABLE, route="edit", spread=True, ahead=10.0)
    try:
        waiting.send(None)  # runs to its end without once giving the loop a turn
    except StopIteration:
        pass
    else:
        raise AssertionError("waited although the turn comes within the drawing's time")
    await pacer.until_ready("table", TABLE, route="edit", spread=True, ahead=0.3)
    assert loop.time() >= answered + 2.0 / 4 - 0.3 - 1e-9
    await pacer.close()


async def test_a_prepared_request_is_made_when_its_turn_is_near_and_holds_no_slot_meanwhile() -> (
    None
):
    """``prepare`` (a table's picture) runs once the request's turn is ``ahead`` away, not
    when it is asked for: what it makes is the newest state. The request keeps its place
    while it is prepared, a request behind it goes meanwhile (no slot is held for a
    drawing), and it is granted once prepared; the budget holds throughout."""
    loop = asyncio.get_running_loop()
    pacer = Pacer(per_channel=100, window=1, global_rate=3)
    grants: list[tuple[float, str]] = []
    prepared: list[float] = []
    drawn = asyncio.Event()

    async def prepare() -> None:
        prepared.append(loop.time())
        await drawn.wait()

    async def table() -> None:
        async with pacer.request("t", TABLE, prepare=prepare, ahead=lambda: 0.2):
            grants.append((loop.time(), "t"))

    async def plain(channel: str) -> None:
        await pacer.turn(channel, TABLE)
        grants.append((loop.time(), channel))

    began = loop.time()
    first = [asyncio.create_task(plain(f"c{i}")) for i in range(3)]  # the second's budget
    await asyncio.gather(*first)
    asked = asyncio.create_task(table())
    await asyncio.sleep(0)
    behind = asyncio.create_task(plain("after"))
    await asyncio.wait_for(behind, 5)  # granted when the budget frees, the table still drawing
    assert prepared and not drawn.is_set()
    # Not made while its turn was a second away; made when it came near.
    assert prepared[0] >= began + 1.0 - 0.2 - 1e-9
    drawn.set()
    await asyncio.wait_for(asked, 5)
    order = [name for _, name in grants]
    assert order == ["c0", "c1", "c2", "after", "t"]
    assert _most_in_window([t for t, _ in grants], 1.0) <= 3
    await pacer.close()


async def test_a_prepared_request_keeps_its_place_ahead_of_later_ones() -> None:
    """Prepared before its turn came, a request goes before those asked for after it. (The
    budget has two slots left, which a table image leaves to prompts: its turn is near,
    it is prepared at once, and waits with its place kept.)"""
    pacer = Pacer(per_channel=100, window=1, global_rate=20)
    order: list[str] = []
    prepared = asyncio.Event()

    async def prepare() -> None:
        prepared.set()

    async def table() -> None:
        async with pacer.request("t", TABLE, prepare=prepare, ahead=lambda: 0.5):
            order.append("t")

    async def plain(channel: str) -> None:
        await pacer.turn(channel, TABLE)
        order.append(channel)

    await asyncio.gather(*(plain(f"c{i}") for i in range(18)))  # room for prompts only
    tasks = [asyncio.create_task(table())]
    await asyncio.wait_for(prepared.wait(), 5)
    assert pacer.snapshot()["recent"] == 18  # made while the budget was still spent
    tasks += [asyncio.create_task(plain(f"later{i}")) for i in range(2)]
    await asyncio.gather(*tasks)
    assert order[18:] == ["t", "later0", "later1"]
    await pacer.close()


async def test_a_turn_given_back_counts_against_no_budget() -> None:
    """A turn granted for an edit that turned out to change nothing is given back: the
    global budget and the channel's take the next requests at once."""
    loop = asyncio.get_running_loop()
    pacer = Pacer(per_channel=5, window=1, global_rate=2)
    for _ in range(2):
        async with pacer.request("c", TABLE, route="edit") as turn:
            pacer.give_back(turn)
    assert pacer.snapshot()["recent"] == 0  # counted nowhere
    for _ in range(2):
        async with pacer.request("c", TABLE, route="edit"):
            pass
    assert pacer.snapshot()["recent"] == 2
    sent = loop.time()
    async with pacer.request("d", NORMAL):  # now the second's budget is spent
        pass
    assert loop.time() >= sent + 1.0 - 0.05  # waited for the sent ones' second
    await pacer.close()


async def test_a_turn_given_back_to_let_something_go_first_keeps_the_job_s_place() -> None:
    """A table's update whose turn came while a post had to go first gives the turn back
    and asks again: its job keeps its place in the queue, ahead of those asked for after
    it (with a new place it went behind every table waiting, a whole round later)."""
    pacer = Pacer(per_channel=100, window=1, global_rate=1)
    await pacer.turn("spent", NORMAL)  # the second's budget is spent
    sent: list[str] = []
    gave_way = [False]

    async def draw() -> None:
        pass

    async def update() -> None:
        prepare = draw if gave_way[0] else None  # asked again: drawn as its turn nears
        async with pacer.request("t", TABLE, prepare=prepare) as turn:
            if not gave_way[0]:
                gave_way[0] = True
                pacer.give_back(turn, keep_place=True)
                pacer.coalesce("table", update)  # asks again, after the post
                return
            sent.append("t")

    async def plain(channel: str) -> None:
        await pacer.turn(channel, TABLE)
        sent.append(channel)

    pacer.coalesce("table", update)
    await asyncio.sleep(0)
    others = [asyncio.create_task(plain(c)) for c in ("x", "y")]
    await asyncio.gather(*others)
    await pacer.drain()
    # The slot given back goes to x while the table draws again; then the table, with its
    # old place, goes before y (with a new one it went after y).
    assert gave_way[0] and sent == ["x", "t", "y"]
    await pacer.close()


async def test_a_prepared_request_waits_while_its_turn_is_further_than_its_drawing() -> None:
    """With ten requests before it waiting for the budget (the table images' reserve left to
    prompts), a table's turn is over half a second away: its drawing (0.2 s) does not start
    then, only once the budget frees and its turn is near."""
    loop = asyncio.get_running_loop()
    pacer = Pacer(per_channel=100, window=1, global_rate=20)
    prepared: list[float] = []

    async def prepare() -> None:
        prepared.append(loop.time())

    async def table() -> None:
        async with pacer.request("t", TABLE, prepare=prepare, ahead=lambda: 0.2):
            pass

    await asyncio.gather(*(pacer.turn(f"c{i}", TABLE) for i in range(18)))  # 2 left: reserve
    spent = loop.time()
    before = [asyncio.create_task(pacer.turn(f"b{i}", TABLE)) for i in range(10)]
    await asyncio.sleep(0)
    asked = asyncio.create_task(table())
    await asyncio.wait_for(asyncio.gather(*before, asked), 5)
    assert prepared[0] >= spent + 0.8
    await pacer.close()


async def test_a_request_answered_before_its_block_ends_holds_no_slot() -> None:
    """A table's edit that found its message deleted posts it anew inside the edit's block:
    the edit, answered, counts from its answer, and the post gets a turn of its own (held
    as in flight, the one slot of the budget waited for itself for ever)."""
    pacer = Pacer(per_channel=100, window=0.2, global_rate=1)
    pacer.global_window = 0.2

    async def edit_then_post() -> None:
        async with pacer.request("t", TABLE, route="edit") as turn:
            pacer.answered(turn)  # the edit's 404
            async with pacer.request("t", NORMAL):  # the table posted anew
                pass

    await asyncio.wait_for(edit_then_post(), 5)
    await pacer.close()


async def test_a_turn_answered_and_then_given_back_still_counts() -> None:
    """Giving back a turn whose request went (and was answered) changes nothing: it was
    sent, and Discord counted it."""
    pacer = Pacer(per_channel=5, window=1, global_rate=1)
    async with pacer.request("c", TABLE, route="edit") as turn:
        pacer.answered(turn)
        pacer.give_back(turn)
    assert pacer.snapshot()["recent"] == 1  # the second's one slot is the sent edit's
    await pacer.close()
