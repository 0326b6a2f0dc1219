"""``docker-compose.yml`` read without Docker (no engine on the machines that test the bot):
a reader for the small part of YAML the file uses, Compose's ``${VAR:?message}``
substitution, and each bot service as the command and environment its container would get.

The YAML reader takes block mappings, lists of plain items, one-line flow lists
(``["CMD", "mahjong-bot", "health"]``), double-quoted and plain scalars, comments, anchors
(``&name``), aliases (``*name``) and merge keys (``<<: *name``), everything a string; anything
else in the file fails loudly (``ComposeError``), so the test is never quietly reading less
than Docker would.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


class ComposeError(ValueError):
    """Something in the file this reader does not know (or Compose would refuse)."""


def read_yaml(text: str) -> Any:
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise ComposeError(f"line {number}: a tab in the indentation")
        line = _uncommented(raw).rstrip()
        if line.strip():
            lines.append((len(line) - len(line.lstrip()), line.strip(), number))
    anchors: dict[str, Any] = {}
    value, end = _block(lines, 0, lines[0][0], anchors)
    if end != len(lines):
        raise ComposeError(f"line {lines[end][2]}: unexpected indentation")
    return value


def _uncommented(line: str) -> str:
    quoted = False
    for i, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == "#" and not quoted and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _block(lines: list, i: int, indent: int, anchors: dict[str, Any]) -> tuple[Any, int]:
    if lines[i][1].startswith("- "):
        items = []
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            items.append(_scalar(lines[i][1][2:].strip(), anchors, lines[i][2]))
            i += 1
        return items, i
    out: dict[str, Any] = {}
    written: set[str] = set()  # keys of the mapping itself (a merged key may be overridden)
    while i < len(lines) and lines[i][0] == indent:
        _, text, number = lines[i]
        key, colon, rest = text.partition(":")
        if not colon or not re.fullmatch(r"[A-Za-z0-9_.<-]+", key):
            raise ComposeError(f"line {number}: not a 'key: value' line: {text!r}")
        rest, i = rest.strip(), i + 1
        anchor = None
        if rest.startswith("&"):
            anchor, _, rest = rest[1:].partition(" ")
            rest = rest.strip()
        if rest:
            value = _scalar(rest, anchors, number)
        elif i < len(lines) and lines[i][0] > indent:
            value, i = _block(lines, i, lines[i][0], anchors)
        else:
            value = None
        if anchor:
            anchors[anchor] = value
        if key == "<<":
            if not isinstance(value, dict):
                raise ComposeError(f"line {number}: a merge of something not a mapping")
            for name, item in value.items():  # keys written in the mapping itself win
                out.setdefault(name, copy.deepcopy(item))
        elif key in written:
            raise ComposeError(f"line {number}: {key} given twice")
        else:
            out[key] = value
            written.add(key)
    if i < len(lines) and lines[i][0] > indent:
        raise ComposeError(f"line {lines[i][2]}: unexpected indentation")
    return out, i


def _scalar(text: str, anchors: dict[str, Any], number: int) -> Any:
    if text.startswith("*"):
        if text[1:] not in anchors:
            raise ComposeError(f"line {number}: no anchor {text[1:]!r} above")
        return copy.deepcopy(anchors[text[1:]])
    if text.startswith("["):
        if not text.endswith("]"):
            raise ComposeError(f"line {number}: a flow list on more than one line")
        items = re.findall(r'\s*("[^"]*"|[^,\]]+)\s*(?:,|$)', text[1:-1])
        return [_scalar(item.strip(), anchors, number) for item in items]
    if text.startswith(("{", "'", "|", ">", "!")):
        raise ComposeError(f"line {number}: {text[0]!r} is not read here")
    if text.startswith('"'):
        if not text.endswith('"') or len(text) < 2 or "\\" in text:
            raise ComposeError(f"line {number}: a quoted string this reader cannot read")
        return text[1:-1]
    return text


def substitute(value: str, env: dict[str, str]) -> str:
    """Compose's interpolation: ``${VAR}``, ``${VAR:-default}``, ``${VAR:?message}``."""

    def one(match: re.Match[str]) -> str:
        name, how, arg = match.group(1), match.group(2) or "", match.group(3) or ""
        given = env.get(name, "")
        if how == ":?" and not given:
            raise ComposeError(f"{name}: {arg}")
        return given or (arg if how == ":-" else "")

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:\?|:-)([^}]*))?\}", one, value)


@dataclass(frozen=True)
class BotService:
    """A bot container as Compose would start it: ``command`` (after the image's
    entrypoint), its environment with ``${...}`` substituted, and the rest of its entry."""

    name: str
    command: list[str]
    environment: dict[str, str]
    entry: dict[str, Any]


def services(text: str | None = None) -> dict[str, Any]:
    document = read_yaml(COMPOSE.read_text() if text is None else text)
    return document["services"]


def bot_services(secrets: dict[str, str], text: str | None = None) -> list[BotService]:
    """The services built from this repository (``build: .``): the bot processes."""
    found = []
    for name, entry in services(text).items():
        if entry.get("build") != ".":
            continue
        command = entry.get("command") or ["mahjong-bot"]  # the Dockerfile's CMD
        environment = {
            key: substitute(str(value), secrets)
            for key, value in (entry.get("environment") or {}).items()
        }
        found.append(BotService(name, list(command), environment, entry))
    return found
