"""The table moving on by itself: computer players, turn and claim timers, the next deal.

A mixin of :class:`~bot.service.tables.service.TableService` (it uses the service's
``_apply`` and notifier): one runner task per table makes the due automatic moves through the
same path as a click, and a timer per waiting member makes their move when it runs out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

from bot.rules.game import (
    CLAIM,
    GAME_OVER,
    HAND_OVER,
    Chow,
    Discard,
    NextHand,
    Pass,
    legal_actions,
    pending_seats,
    timeout_action,
)
from bot.service.computer import computer_action
from bot.service.tables.model import LiveTable, MemberSettings, WriteFailed

if TYPE_CHECKING:
    from bot.rules.game import Action
    from bot.service.tables.ports import TableNotifier

log = logging.getLogger("bot.service.tables")

MAX_TIMEOUTS = 2  # turns timed out in a row before a computer player takes the seat
MAX_BACKOFF = 30.0  # seconds: the longest pause between tries of a refused write


class TableTimers:
    """Runner, timers and seats kept warm; see the module's docstring."""

    notifier: TableNotifier | None
    computer_delay: float
    next_hand_delay: float
    retry_delay: float
    _stopping: bool

    def member_settings(self, user_id: int) -> MemberSettings:
        raise NotImplementedError

    async def _settle_new_results(self, table: LiveTable) -> None:
        raise NotImplementedError

    async def _apply(self, table: LiveTable, action: Action) -> str:
        raise NotImplementedError

    async def _record(self, table: LiveTable, kind: str, payload: dict[str, Any]) -> None:
        raise NotImplementedError

    def _kick(self, table: LiveTable) -> None:
        """Make sure the table's runner is going: computer moves, timers, the next deal."""
        if self._stopping or table.status != "playing" or table.paused:
            return
        if table.runner is None or table.runner.done():
            table.runner = asyncio.create_task(self._run(table), name=f"table-{table.id}")

    def _backoff(self, table: LiveTable) -> float:
        """How long to wait before trying a failed write again: doubling, at most 30 s."""
        return min(MAX_BACKOFF, self.retry_delay * 2 ** max(0, table.write_failures - 1))

    async def _run(self, table: LiveTable) -> None:
        """Automatic moves until the table waits for a member. A write the database refused
        (disk full, read-only) is tried again after a growing pause: the table is never left
        frozen, and carries on by itself once writes work again."""
        while not self._stopping and table.status == "playing" and not table.paused:
            try:
                acted = await self._step(table)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not isinstance(exc, WriteFailed):
                    table.write_failures += 1
                    log.warning(
                        "table %s: its runner failed (%s: %s); trying again",
                        table.id,
                        type(exc).__name__,
                        exc,
                        exc_info=table.write_failures == 1,  # the cause once, not each try
                    )
                await asyncio.sleep(self._backoff(table))
                continue
            if not acted:
                break

    async def _step(self, table: LiveTable) -> bool:
        """One automatic move if one is due; False when the table waits for a member."""
        state = table.state
        if state is None or state.phase == GAME_OVER:
            return False
        if table.settled < len(state.results):  # a hand whose settlement failed earlier
            async with table.lock:
                await self._settle_new_results(table)
        if state.phase == HAND_OVER:
            await asyncio.sleep(self.next_hand_delay)
            async with table.lock:
                if table.paused or table.state is None or table.state.phase != HAND_OVER:
                    return not table.paused
                await self._apply(table, NextHand(None))
            return True
        waiting = sorted(pending_seats(state))
        automatic = [seat for seat in waiting if self._moves_itself(table, seat)]
        if automatic:
            await asyncio.sleep(self.computer_delay)
            async with table.lock:
                current = table.state
                seat = automatic[0]
                # The member may have taken the seat back while the computer was thinking.
                if (
                    table.paused
                    or current is None
                    or current.move != state.move
                    or not self._moves_itself(table, seat)
                ):
                    return not table.paused
                # A member's own setting passes chows at once; a computer player decides.
                auto = table.plays_itself(seat)
                action = computer_action(current, seat) if auto else Pass(seat)
                await self._apply(table, action)
            return True
        self._arm_timers(table)
        return False

    def moves_itself_next(self, table: LiveTable) -> bool:
        """Whether the table's next move comes without a member, within ``computer_delay``:
        every seat it waits for moves by itself (a computer player, or a member's automatic
        pass). The channel's picture may wait for it, to show a member's move and the
        computers' answers in one edit. With a member among them (a claim window they are
        asked in), what the channel sees next waits for that member: the computers' passes
        show nothing, and waiting for them would only delay the picture."""
        state = table.state
        if state is None or table.paused or table.status != "playing":
            return False
        if state.phase in (HAND_OVER, GAME_OVER):
            return False
        waiting = pending_seats(state)
        return bool(waiting) and all(self._moves_itself(table, seat) for seat in waiting)

    def _moves_itself(self, table: LiveTable, seat: int) -> bool:
        """Whether the seat's move is made without asking: a computer player, or a member
        whose setting passes a claim window offering them nothing but Chow or Pass (a pass,
        like any other, tells no one what they could have claimed)."""
        if table.plays_itself(seat):
            return True
        state = table.state
        player = table.player_at(seat)
        if state is None or state.phase != CLAIM or player is None or player.user_id is None:
            return False
        if not self.member_settings(player.user_id).auto_pass_chows:
            return False
        legal = legal_actions(state, seat)
        return bool(legal) and all(isinstance(a, Chow | Pass) for a in legal)

    def timeout_move(self, table: LiveTable, seat: int) -> Action | None:
        """What the seat does when its time runs out. The engine's choice (discard the drawn
        tile, pass a claim), except for a member who turned off "discard the drawn tile on
        timeout": the computer player's discard for them instead (never its claims)."""
        state = table.state
        if state is None:
            return None
        action = timeout_action(state, seat)
        player = table.player_at(seat)
        if (
            isinstance(action, Discard)
            and player is not None
            and player.user_id is not None
            and not self.member_settings(player.user_id).discard_drawn_on_timeout
        ):
            chosen = computer_action(state, seat)
            if isinstance(chosen, Discard):
                return chosen
        return action

    def deadline(self, table: LiveTable, seat: int) -> float | None:
        """When the seat's time to answer the move it is asked about runs out (wall clock,
        for Discord's countdown), or None if it has no timer. Fixed when first asked for, so
        the countdown shown and the timer agree, and a re-drawn DM shows the same time."""
        state = table.state
        if (
            state is None
            or table.paused
            or seat not in pending_seats(state)
            or table.plays_itself(seat)
        ):
            return None
        seconds = table.turn_seconds if state.phase == "play" else table.claim_seconds
        if seconds <= 0 and state.phase == "play":
            return None
        move = table.controls_move
        known = table.deadlines.get(seat)
        if known is not None and known[0] == move:
            return known[1]
        deadline = time.time() + (seconds or table.claim_seconds or 15)
        table.deadlines[seat] = (move, deadline)
        return deadline

    def prompt_shown(self, table: LiveTable, seat: int, move: int) -> None:
        """The seat's prompt for ``move`` has just reached Discord (the notifier says so): its
        timer runs out no sooner than its whole time after that. A DM that waited for a busy
        bot's request budget must not eat the member's time (issue 16 item 5; REQUESTS.md).
        The deadline shown stays as it is (moving it would cost another edit): the member
        only ever gets more time than it says, never less. Once per seat and move."""
        state = table.state
        known = table.deadlines.get(seat)
        if state is None or table.paused or table.controls_move != move or known is None:
            return
        if known[0] != move or seat not in pending_seats(state):
            return
        reached: dict[tuple[int, int], int] | None = getattr(self, "_prompts_reached", None)
        if reached is None:
            reached = self._prompts_reached = {}
        if reached.get((table.id, seat)) == move:
            return
        reached[(table.id, seat)] = move
        seconds = table.turn_seconds if state.phase == "play" else table.claim_seconds
        fair = time.time() + (seconds or table.claim_seconds or 15)
        existing = table.timers.get(seat)
        if fair <= known[1] or existing is None or existing.done():
            return
        if table.timer_moves.get(seat) != move:
            return
        existing.cancel()
        table.timers[seat] = asyncio.create_task(
            self._expire(table, seat, move, fair - time.time()), name=f"timer-{table.id}-{seat}"
        )

    def _arm_timers(self, table: LiveTable) -> None:
        """A timer for each member the table waits for, for the move they are asked about
        (a claim window counts as one move: others answering does not restart it). A timer
        left from an earlier move is replaced, never taken for the new one."""
        state = table.state
        if state is None or table.paused:
            return
        move = table.controls_move
        for seat in pending_seats(state):
            deadline = self.deadline(table, seat)
            if deadline is None:
                continue
            seconds = max(0.0, deadline - time.time())
            existing = table.timers.get(seat)
            if existing is not None and not existing.done():
                if table.timer_moves.get(seat) == move:
                    continue
                existing.cancel()
            table.timer_moves[seat] = move
            table.timers[seat] = asyncio.create_task(
                self._expire(table, seat, move, seconds), name=f"timer-{table.id}-{seat}"
            )

    async def _expire(self, table: LiveTable, seat: int, move: int, seconds: float) -> None:
        try:
            await asyncio.sleep(seconds)
            async with table.lock:
                state = table.state
                action = None
                if (
                    state is not None
                    and not table.paused
                    and table.controls_move == move
                    and seat in pending_seats(state)
                ):
                    action = self.timeout_move(table, seat)
                if action is not None:
                    player = table.player_at(seat)
                    turn = state is not None and state.phase == "play"
                    await self._apply(table, action)
                    # Only a missed turn counts towards the take-over: letting a claim go
                    # by is a pass, and a teaching table (no turn timer) keeps its players.
                    if turn and player is not None and not player.computer:
                        player.timeouts += 1
                        if player.timeouts >= MAX_TIMEOUTS and not player.away:
                            await self._set_away(table, seat, True)
        except asyncio.CancelledError:
            return
        except WriteFailed:
            # The move was not stored and the table did not change; the timer is set again
            # for the same move after a pause (the runner, kicked below, re-arms it).
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(self._backoff(table))
        except Exception:
            log.exception("timer of table %s seat %s failed", table.id, seat)
        finally:
            if table.timers.get(seat) is asyncio.current_task():
                del table.timers[seat]
                table.timer_moves.pop(seat, None)
        # Whether it moved the table or found its move already made, the table may now be
        # waiting for someone else: make sure their timer runs.
        self._kick(table)

    async def _set_away(self, table: LiveTable, seat: int, away: bool) -> None:
        player = table.player_at(seat)
        assert player is not None and table.state is not None
        index = table.state.seating.seats[seat]
        await self._record(table, "away", {"player": index, "away": away})
        player.away = away
        player.timeouts = 0
        if self.notifier is not None:
            if away:
                line = f"{player.name} timed out twice: a computer player keeps the seat warm."
            else:
                line = f"{player.name} is back in their seat."
            await self.notifier.table_notice(table, line)
            await self.notifier.hand_changed(table, seat)
