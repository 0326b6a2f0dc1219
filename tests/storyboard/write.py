"""Write a story to a directory: ``index.md`` (every change in order, hand by hand, with the
text, buttons and pictures the client shows) and one PNG per distinct picture."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .count import Change, count_hands, digest, summary
from .play import Story


def write(story: Story, out: Path) -> str:
    """Write the storyboard; return its last line."""
    out.mkdir(parents=True, exist_ok=True)
    counts = count_hands(story.changes)
    lines = [
        f"# Storyboard: what {story.member}'s Discord client showed",
        "",
        "Every message, edit and deletion in the channel, the table's thread and the DMs, in",
        "order. Pictures are the files beside this index.",
        "",
    ]
    written: set[str] = set()
    previous: dict[int, Any] = {}
    hand = None
    for number, (change, entry) in enumerate(zip(story.changes, story.entries, strict=True)):
        if change.hand != hand:
            hand = change.hand
            title = f"Hand {hand}" if hand else "Before the first hand"
            lines += [f"## {title}", ""]
        lines += _describe(number, change, entry, story, previous.get(change.message_id))
        lines += _pictures(number, entry, out, written)
        lines.append("")
        previous[change.message_id] = change.look
    lines += ["## Counts", ""]
    lines += [f"- {c.line()}" for c in counts]
    last = summary(counts, story.hands)
    lines += ["", last]
    (out / "index.md").write_text("\n".join(lines) + "\n")
    return last


def _describe(number: int, change: Change, entry: Any, story: Story, before: Any) -> list[str]:
    version = entry.version
    where = story.names[entry.message.channel_id]
    what = {"create": "new message", "edit": "edit", "delete": "deleted"}[change.kind]
    notes = []
    if entry.message.ephemeral:
        notes.append("only you can see this")
    if change.kind == "edit" and before == change.look:
        notes.append("**changes nothing visible**")
    head = f"### {number:04d} · {where} · {what} (message {entry.message.id})"
    if notes:
        head += " · " + ", ".join(notes)
    lines = [head, ""]
    if change.kind == "delete":
        return lines
    if version.content:
        lines += [f"> {line}" for line in version.content.splitlines()] + [""]
    for embed in version.embeds:
        for key in ("title", "description"):
            if embed.get(key):
                lines.append(f"- {key}: " + _indent(embed[key]))
        for f in embed.get("fields") or []:
            lines.append(f"- {f.get('name')}: " + _indent(f.get("value") or ""))
        if (embed.get("footer") or {}).get("text"):
            lines.append(f"- footer: {embed['footer']['text']}")
    for row in version.components:
        labels = []
        for comp in row.get("components") or []:
            label = comp.get("label") or (comp.get("emoji") or {}).get("name") or "?"
            if comp.get("disabled"):
                label += " (disabled)"
            labels.append(f"[{label}]")
        if labels:
            lines.append("- buttons: " + " ".join(labels))
    return lines


def _pictures(number: int, entry: Any, out: Path, written: set[str]) -> list[str]:
    if entry.kind == "delete":
        return []
    lines = []
    for att in entry.version.attachments:
        if not att.content_type.startswith("image/"):
            continue
        name = f"{digest(att.data)}-{att.filename}"
        if name not in written:
            (out / name).write_bytes(att.data)
            written.add(name)
        size = f" {att.width}x{att.height}" if att.width else ""
        alt = (att.description or "").replace("\n", " ")
        lines.append(f"![{alt}]({name}){size}")
    return lines


def _indent(text: str) -> str:
    """Keep a multi-line text inside its list item."""
    return text.replace("\n", "\n  ")
