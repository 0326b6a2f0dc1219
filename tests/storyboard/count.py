"""What one member's client shows, counted hand by hand (pure functions over the fake's
timeline).

A change is a new message, an edit or a deletion, in one of three places: the channel where
the table was opened, a thread of it, or the member's DMs with the bot. Channel counts include
the table's thread (both are the table's public place); the per-hand lines show them apart.

An edit "changes nothing visible" when what the client draws after it equals what it drew
before: the same text, embeds, buttons (labels, styles, emoji, disabled; custom ids and
component ids are invisible) and attachments (compared by their bytes and alt text, since a
re-upload of the same picture gets a new URL).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

INVISIBLE_COMPONENT_KEYS = {"custom_id", "id"}
PLACES = ("channel", "thread", "dm")


@dataclass(frozen=True)
class Change:
    """One change in the member's client, placed and attributed to a hand (0: before the
    first deal)."""

    kind: str  # "create", "edit", "delete"
    place: str  # "channel", "thread", "dm"
    message_id: int
    hand: int
    look: Any  # what the client draws (see `look_of`); equal looks = nothing visible changed


@dataclass
class HandCount:
    """Counts of one hand."""

    hand: int
    messages: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PLACES, 0))
    edits: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PLACES, 0))
    deletes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PLACES, 0))
    invisible_edits: int = 0

    @property
    def channel_messages(self) -> int:
        return self.messages["channel"] + self.messages["thread"]

    @property
    def channel_edits(self) -> int:
        return self.edits["channel"] + self.edits["thread"]

    def line(self) -> str:
        label = f"hand {self.hand}" if self.hand else "before the first hand"
        return (
            f"{label}: {self.channel_messages} channel messages "
            f"({self.messages['thread']} in the thread), {self.channel_edits} channel edits "
            f"({self.edits['thread']} in the thread), {self.messages['dm']} DM messages, "
            f"{self.edits['dm']} DM edits, {sum(self.deletes.values())} deletions, "
            f"{self.invisible_edits} edits that change nothing visible"
        )


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:12]


def look_of(
    content: str,
    embeds: list[dict[str, Any]],
    components: list[dict[str, Any]],
    attachments: Iterable[tuple[str, bytes, str | None]],
    flags: int = 0,
) -> Any:
    """What the client draws for one version of a message, as a comparable value.

    `attachments` are (url, bytes, alt text); embed media that point at an attachment are
    replaced by the attachment's bytes digest, so a re-upload of the same image looks the same.
    """
    by_url = {url: digest(data) for url, data, _ in attachments}
    shown_embeds = []
    for embed in embeds:
        embed = copy.deepcopy(embed)
        for key in ("image", "thumbnail"):
            media = embed.get(key)
            if isinstance(media, dict):
                url = media.get("url", "")
                embed[key] = {"picture": by_url.get(url, url)}
        shown_embeds.append(embed)
    return (
        content,
        _freeze(shown_embeds),
        _freeze(_visible_components(components)),
        tuple(sorted((digest(data), alt or "") for _, data, alt in attachments)),
        flags & (1 << 2),  # SUPPRESS_EMBEDS changes what is drawn; other flags do not
    )


def _visible_components(components: list[dict[str, Any]]) -> list[Any]:
    out = []
    for comp in components:
        shown = {k: v for k, v in comp.items() if k not in INVISIBLE_COMPONENT_KEYS}
        if "components" in shown:
            shown["components"] = _visible_components(shown["components"])
        for key in ("accessory", "component"):
            if isinstance(shown.get(key), dict):
                shown[key] = _visible_components([shown[key]])[0]
        out.append(shown)
    return out


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def count_hands(changes: Iterable[Change]) -> list[HandCount]:
    """Counts per hand (in hand order), with edits compared to the message's previous look."""
    counts: dict[int, HandCount] = {}
    last_look: dict[int, Any] = {}
    for change in changes:
        count = counts.setdefault(change.hand, HandCount(change.hand))
        if change.kind == "create":
            count.messages[change.place] += 1
        elif change.kind == "edit":
            count.edits[change.place] += 1
            if change.message_id in last_look and last_look[change.message_id] == change.look:
                count.invisible_edits += 1
        else:
            count.deletes[change.place] += 1
        last_look[change.message_id] = change.look
    return [counts[h] for h in sorted(counts)]


def summary(counts: list[HandCount], hands: int) -> str:
    """The last line: ``N hands: A channel messages, B channel edits, C DM messages, D DM
    edits, E edits that change nothing visible`` (totals over the whole game)."""
    a = sum(c.channel_messages for c in counts)
    b = sum(c.channel_edits for c in counts)
    c_ = sum(c.messages["dm"] for c in counts)
    d = sum(c.edits["dm"] for c in counts)
    e = sum(c.invisible_edits for c in counts)
    return (
        f"{hands} hands: {a} channel messages, {b} channel edits, {c_} DM messages, "
        f"{d} DM edits, {e} edits that change nothing visible"
    )


def hand_at(times: list[tuple[float, int]]) -> Callable[[float], int]:
    """A function from a moment to the hand in play then, given (time, hand) points sorted
    by time (hand 0 before the first)."""

    def at(moment: float) -> int:
        hand = 0
        for when, number in times:
            if when > moment:
                break
            hand = number
        return hand

    return at
