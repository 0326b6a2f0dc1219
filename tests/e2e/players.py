"""Simulated players for end-to-end tests: they read only what their Discord client shows
(their DMs, the channel, their own ephemeral replies) and press the buttons the bot posted."""

from __future__ import annotations

import asyncio
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MOVE = re.compile(r"^mj:(\d+):(\d+):([a-z]+)(?::(\d+))?(?::d)?$")
SEAT = re.compile(r"^mj:(\d+):seat:(back|hand|again)$")

Button = tuple[str, str, int | None, int]  # custom_id, verb, tile, move

_PLAYERS: weakref.WeakSet[SimPlayer] = weakref.WeakSet()  # for the stall report


def move_buttons(message: Any) -> list[Button]:
    """(custom_id, verb, tile, move) of every move control on a message."""
    out = []
    for cid in message.custom_ids():
        match = MOVE.match(cid)
        if match:
            out.append((cid, match.group(3), _int(match.group(4)), int(match.group(2))))
    return out


def _move_key(button: Button) -> tuple[str, int]:
    return button[0].split(":")[1], button[3]


def same_move(a: Button, b: Button) -> bool:
    """Two controls of the same table drawn for the same move."""
    return a[3] == b[3] and a[0].split(":")[1] == b[0].split(":")[1]


def seat_button(message: Any, verb: str) -> str | None:
    for cid in message.custom_ids():
        match = SEAT.match(cid)
        if match and match.group(2) == verb:
            return cid
    return None


def _int(text: str | None) -> int | None:
    return None if text is None else int(text)


def choose(buttons: list[Button]) -> str | None:
    """A simple sensible policy: always win, claim a pung or kong, pass on chows, and discard
    the tile that looks least useful (honours and terminals alone first)."""
    by_verb: dict[str, list[Button]] = {}
    for item in buttons:
        by_verb.setdefault(item[1], []).append(item)
    for verb in ("mahjong", "kong", "pung", "wash"):
        if verb in by_verb:
            return by_verb[verb][0][0]
    if "pass" in by_verb:
        return by_verb["pass"][0][0]
    discards = by_verb.get("discard", [])
    if not discards:
        return None
    tiles = [tile for _, _, tile, _ in discards if tile is not None]

    def usefulness(tile: int) -> int:
        if tile >= 27:
            return 0
        near = sum(
            1
            for other in tiles
            if other != tile and abs(other - tile) <= 2 and other // 9 == tile // 9
        )
        edge = 1 if tile % 9 in (0, 8) else 2
        return edge + 2 * near

    best = min(discards, key=lambda item: usefulness(item[2] or 0))
    return best[0]


@dataclass
class Click:
    custom_id: str
    message_id: int
    handle: Any
    ack: int | None = None


@dataclass(eq=False)
class SimPlayer:
    """One member at the table. They play from their DMs, pressing a button for the newest
    move offered there (on the first message that offers it, so a DM sent before a restart is
    used if it is still current); when the bot says in the channel that their DMs are closed
    they use the channel's "Show my hand" button and ``/mahjong hand`` (ephemeral answers)
    instead, asking again whenever the table changes.

    ``patient``: a click the bot never answers (it was down) is not a failure; the player
    tries again when the bot shows the move anew.
    """

    user: Any
    channel: Any
    policy: Callable[[list[Button]], str | None] = choose
    patient: bool = False
    ack_timeout: float = 5.0
    paused: bool = False  # looking away from the screen
    # Presses "Take my seat back" when a computer player keeps their seat (off: a member
    # who stays away until told otherwise, whenever the take-over comes).
    takes_seat_back: bool = True
    think: Callable[[], float] | None = None  # seconds to think before each press
    poll: float = 0.02  # how often they look at the screen
    # Look again as soon as their DMs or the table's channel change, and at the latest every
    # ``poll`` (benchmarks: hundreds of members polling starved the fake of CPU).
    on_change: bool = False
    busy: bool = False  # in the middle of pressing something
    clicks: list[Click] = field(default_factory=list)
    # Only the last this many clicks are kept in ``clicks`` (None: all); a long benchmark's
    # members would otherwise hold every interaction of the evening.
    keep_clicks: int | None = None
    pressed: int = 0  # buttons pressed, kept or not
    refusals: list[str] = field(default_factory=list)
    asked: int = 0  # times they asked for their hand privately
    _done: set[Any] = field(default_factory=set)
    _seen_table: int = -1
    _asked_at: float = 0.0
    # Each message's controls by (id, edits): every look reads every DM, and at 200 tables
    # parsing them again each time was a tenth of the benchmark process's CPU.
    _controls: dict[tuple[int, int], list[Button]] = field(default_factory=dict)

    def controls(self, message: Any) -> list[Button]:
        """``move_buttons(message)``, read once per version of the message."""
        version = (message.id, message.edits)
        buttons = self._controls.get(version)
        if buttons is None:
            if len(self._controls) > 64:
                self._controls.clear()
            buttons = self._controls[version] = move_buttons(message)
        return buttons

    @property
    def accepted(self) -> list[Click]:
        return [c for c in self.clicks if c.ack == 6]

    def closed_dm_notice(self) -> Any | None:
        """The channel message telling this user their DMs are closed (with the button)."""
        for message in self.user.messages(self.channel):
            if self.user.mention in message.content and seat_button(message, "hand"):
                return message
        return None

    async def press(self, message: Any, custom_id: str) -> int | None:
        from fakediscord import FakeDiscordTimeout

        handle = await self.user.click(message, custom_id)
        click = Click(custom_id, message.id, handle)
        self.clicks.append(click)
        self.pressed += 1
        if self.keep_clicks is not None and len(self.clicks) > 2 * self.keep_clicks:
            del self.clicks[: -self.keep_clicks]
            del self.refusals[: -self.keep_clicks]
        try:
            click.ack = await handle.ack(timeout=self.ack_timeout)
        except FakeDiscordTimeout:
            if not self.patient:
                raise
            return None
        if click.ack == 4:
            reply = await handle.reply()
            self.refusals.append(reply.content)
        return click.ack

    async def _act_on(self, message: Any) -> bool:
        version = ("tried", message.id, message.edits)
        if version in self._done:
            return False
        back = seat_button(message, "back")
        if back is not None:
            if ("back", message.id) in self._done or not self.takes_seat_back:
                return False
            ack = await self.press(message, back)
            self._done.add(("back", message.id) if ack else version)
            return True
        buttons = self.controls(message)
        if not buttons:
            return False
        key = _move_key(buttons[0])
        if key in self._done:
            return False
        choice = self.policy(buttons)
        if choice is None:
            return False
        if self.think is not None:
            await asyncio.sleep(self.think())
        ack = await self.press(message, choice)
        self._done.add(key if ack else version)
        return True

    def try_again(self) -> None:
        """Press again what was refused (a move the bot could not save says to try again):
        forget which moves were answered, so the newest controls are pressed anew."""
        self._done.clear()

    def done(self, button: Button) -> None:
        """Remember that the move of ``button`` was answered (one press per move)."""
        self._done.add(_move_key(button))

    def _dm_to_use(self) -> Any | None:
        dms = self.hand_dms()
        if not dms:
            return None
        newest = dms[-1]
        if seat_button(newest, "back"):
            return newest
        buttons = self.controls(newest)
        if not buttons:
            return newest
        for message in dms:
            offered = self.controls(message)
            tried = ("tried", message.id, message.edits) in self._done
            if offered and same_move(offered[0], buttons[0]) and not tried:
                return message
        return newest

    def hand_dms(self) -> list[Any]:
        """The hand messages the bot sent by DM (not its answers to clicks there)."""
        return [m for m in self.user.dm_messages() if not m.deleted and m.interaction_id is None]

    def _table_signature(self) -> int:
        return sum(1 + m.edits for m in self.user.messages(self.channel))

    async def step(self) -> bool:
        """Do one thing if the client shows something to do; False if there is nothing."""
        notice = self.closed_dm_notice()
        if notice is None:
            message = self._dm_to_use()
            return message is not None and await self._act_on(message)
        signature = self._table_signature()
        loop = asyncio.get_running_loop()
        if signature == self._seen_table and loop.time() < self._asked_at + 1.0:
            return False
        self._seen_table = signature
        self._asked_at = loop.time()
        self.asked += 1
        if self.asked % 2:
            handle = await self.user.click(notice, seat_button(notice, "hand"))
        else:
            handle = await self.user.slash(self.channel, "mahjong hand")
        message = await handle.reply()
        if not message.ephemeral or message.visible_to != self.user.id:
            raise AssertionError(f"{self.user}'s hand was not private: {message.content!r}")
        await self._act_on(message)
        return True

    def __post_init__(self) -> None:
        _PLAYERS.add(self)

    def report(self) -> str:
        """What every player's client shows and what they did: for a game that stalls."""
        from tests.e2e.harness import tasks_report

        players = sorted(_PLAYERS, key=lambda p: p.user.id)
        return "\n".join([*(p._report() for p in players), tasks_report()])

    def _report(self) -> str:
        lines = [f"{self.user}: {self.pressed} clicks, refusals {self.refusals[-3:]}"]
        for message in self.user.dm_messages()[-4:]:
            lines.append(
                f"  DM {message.id} deleted={message.deleted} edits={message.edits} "
                f"interaction={message.interaction_id} controls={message.custom_ids()[:4]} "
                f"text={message.content[:160]!r}"
            )
        for click in self.clicks[-3:]:
            lines.append(f"  click {click.custom_id} on {click.message_id}: ack {click.ack}")
        done = sorted(str(d) for d in self._done)[-6:]
        lines.append(f"  done {done}")
        return "\n".join(lines)

    async def play(self, until: Callable[[], bool], *, timeout: float = 120.0) -> int:
        """Play until ``until()``; returns how many buttons were pressed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not until():
            if loop.time() > deadline:
                raise AssertionError(
                    f"{self.user} did not see the game end in {timeout} s\n{self.report()}"
                )
            if self.paused:
                await asyncio.sleep(self.poll)
                continue
            self.busy = True
            try:
                acted = await self.step()
            finally:
                self.busy = False
            if not acted:
                await self._look_away()
        return self.pressed

    async def _look_away(self) -> None:
        if not self.on_change:
            await asyncio.sleep(self.poll)
            return
        server = self.user.server
        place = server.channel(self.channel).id
        await server.place_changed([("dm", self.user.id), place], self.poll)


async def pause(players: list[SimPlayer]) -> None:
    """Stop everyone pressing, and wait until nobody is in the middle of a press."""
    for p in players:
        p.paused = True
    while any(p.busy for p in players):
        await asyncio.sleep(0.01)


def resume(players: list[SimPlayer]) -> None:
    for p in players:
        p.paused = False


async def play_all(players: list[SimPlayer], until: Callable[[], bool], timeout: float) -> None:
    """Every player plays at once until ``until()``; the first failure is raised."""
    await asyncio.gather(*(p.play(until, timeout=timeout) for p in players))
