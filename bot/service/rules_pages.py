"""``/rules`` answers cut into pages that each fit one Discord embed, whatever a topic holds.

The options topic lists every option of every rule set: 3,858 characters for four rule sets
when it was one message, 142 short of the embed description's 4,096 (the next option would
have been cut off). It is now a page per rule set (the topic's ``sections``), each after the
topic's short intro; a part longer than a page is cut at line ends into several, and a
single line longer than a page is shortened. Topics of one short text are one page. The cog
shows a page at a time with ◀ ▶ (cogs/scoring.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.service.rules_topics import Topic

#: Characters of a page's text: the embed description holds 4,096, and the title and footer
#: with the page's name stay far inside the embed's 6,000 in all.
PAGE_LIMIT = 4000


@dataclass(frozen=True, slots=True)
class Page:
    label: str  # what the page holds, e.g. a rule set's name ("" for a topic of one page)
    text: str


def pages(topic: Topic, limit: int = PAGE_LIMIT) -> tuple[Page, ...]:
    """The topic's pages in order: one when it fits and has no sections, else one or more
    per section (the intro at the head of each, when it is short enough to repeat)."""
    if not topic.sections:
        chunks = _pack(topic.text.splitlines(), limit)
        return tuple(Page("", chunk) for chunk in chunks)
    out: list[Page] = []
    head = topic.intro
    if len(head) > limit // 4:  # too long to repeat: a page (or more) of its own
        out += [Page("", chunk) for chunk in _pack(head.splitlines(), limit)]
        head = ""
    room = limit - len(head) - 1 if head else limit
    for label, text in topic.sections:
        chunks = _pack(text.splitlines(), room)
        for number, chunk in enumerate(chunks, 1):
            name = label if len(chunks) == 1 else f"{label} ({number}/{len(chunks)})"
            out.append(Page(name, f"{head}\n{chunk}" if head else chunk))
    return tuple(out)


def _pack(lines: list[str], limit: int) -> list[str]:
    """Lines joined into as few texts of at most ``limit`` characters as they go, cut only
    at line ends (a line longer than ``limit`` alone is shortened with "…")."""
    chunks: list[str] = []
    current = ""
    for line in lines:
        if len(line) > limit:
            line = line[: limit - 1] + "…"
        joined = f"{current}\n{line}" if current else line
        if len(joined) > limit and current:
            chunks.append(current)
            current = line
        else:
            current = joined
    chunks.append(current)
    return chunks
