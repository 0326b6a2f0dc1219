"""Discord's payload limits, checked the way the real API would reject a request.

A bot that works against the fake must also work against Discord, so the fake refuses what
Discord refuses (message length, embed and component limits, command naming rules) with the
same 400 "Invalid Form Body" error, and the fixture reports it as a test problem.
"""

from __future__ import annotations

import re
from typing import Any

from .state import walk_components

COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
EMOJI_NAME = re.compile(r"^\w{2,32}$")


def _embed_text_length(embed: dict[str, Any]) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for f in embed.get("fields") or []:
        total += len(f.get("name") or "") + len(f.get("value") or "")
    return total


def check_embeds(embeds: list[dict[str, Any]]) -> list[str]:
    """Discord's embed limits (per embed and 6000 characters across all embeds)."""
    errors: list[str] = []
    if len(embeds) > 10:
        errors.append(f"embeds: at most 10 embeds, got {len(embeds)}")
    total = 0
    for i, embed in enumerate(embeds):
        where = f"embeds[{i}]"
        limits = {
            "title": (embed.get("title"), 256),
            "description": (embed.get("description"), 4096),
            "footer.text": ((embed.get("footer") or {}).get("text"), 2048),
            "author.name": ((embed.get("author") or {}).get("name"), 256),
        }
        for key, (value, limit) in limits.items():
            if value is not None and len(value) > limit:
                errors.append(f"{where}.{key}: longer than {limit} characters")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.append(f"{where}.fields: at most 25 fields")
        for j, f in enumerate(fields):
            if not f.get("name") or len(f["name"]) > 256:
                errors.append(f"{where}.fields[{j}].name: must be 1-256 characters")
            if not f.get("value") or len(f["value"]) > 1024:
                errors.append(f"{where}.fields[{j}].value: must be 1-1024 characters")
        total += _embed_text_length(embed)
    if total > 6000:
        errors.append(f"embeds: {total} characters in total, the limit is 6000")
    return errors


def check_components(components: list[dict[str, Any]], *, v2: bool) -> list[str]:
    """Action row / button / select limits and custom_id uniqueness."""
    errors: list[str] = []
    if not v2 and len(components) > 5:
        errors.append(f"components: at most 5 action rows, got {len(components)}")
    if not v2:
        for i, row in enumerate(components):
            if row.get("type") != 1:
                errors.append(
                    f"components[{i}]: top level must be action rows (type 1) unless the "
                    "IS_COMPONENTS_V2 flag is set"
                )
                continue
            children = row.get("components") or []
            if not children:
                errors.append(f"components[{i}]: action row is empty")
            buttons = [c for c in children if c.get("type") == 2]
            if len(buttons) > 5:
                errors.append(f"components[{i}]: at most 5 buttons per row")
            if len(buttons) != len(children) and len(children) > 1:
                errors.append(f"components[{i}]: a select menu must be alone in its row")
    seen: set[str] = set()
    for comp in walk_components(components):
        ctype = comp.get("type")
        custom_id = comp.get("custom_id")
        if custom_id is not None:
            if not 1 <= len(custom_id) <= 100:
                errors.append(f"custom_id {custom_id!r}: must be 1-100 characters")
            if custom_id in seen:
                errors.append(f"custom_id {custom_id!r}: duplicated in one message")
            seen.add(custom_id)
        if ctype == 2:
            style = comp.get("style")
            if style == 5:
                if not comp.get("url"):
                    errors.append("link button without url")
            elif style == 6:
                if not comp.get("sku_id"):
                    errors.append("premium button without sku_id")
            elif not custom_id:
                errors.append("button without custom_id")
            if len(comp.get("label") or "") > 80:
                errors.append(f"button {custom_id!r}: label longer than 80 characters")
            if not comp.get("label") and not comp.get("emoji") and style != 6:
                errors.append(f"button {custom_id!r}: needs a label or an emoji")
        if ctype == 3:
            options = comp.get("options") or []
            if not 1 <= len(options) <= 25:
                errors.append(f"select {custom_id!r}: needs 1-25 options, got {len(options)}")
            values = [o.get("value") for o in options]
            if len(set(values)) != len(values):
                errors.append(f"select {custom_id!r}: option values must be unique")
            for o in options:
                if not 1 <= len(o.get("label") or "") <= 100:
                    errors.append(f"select {custom_id!r}: option labels must be 1-100 characters")
        if ctype in (3, 5, 6, 7, 8):
            lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
            if not 0 <= lo <= hi <= 25:
                errors.append(f"select {custom_id!r}: bad min_values/max_values {lo}/{hi}")
    return errors


def check_message(body: dict[str, Any], *, n_attachments: int, editing: bool = False) -> list[str]:
    """Everything Discord checks on a message create or edit body."""
    errors: list[str] = []
    content = body.get("content")
    if content is not None and len(content) > 2000:
        errors.append(f"content: {len(content)} characters, the limit is 2000")
    embeds = body.get("embeds") or []
    errors.extend(check_embeds(embeds))
    flags = int(body.get("flags") or 0)
    v2 = bool(flags & (1 << 15))
    components = body.get("components") or []
    errors.extend(check_components(components, v2=v2))
    if v2 and (content or embeds):
        errors.append("IS_COMPONENTS_V2 messages cannot have content or embeds")
    if not editing and not (
        content
        or embeds
        or components
        or n_attachments
        or body.get("sticker_ids")
        or body.get("poll")
    ):
        errors.append("Cannot send an empty message (code 50006)")
    if n_attachments > 10:
        errors.append(f"attachments: at most 10 files, got {n_attachments}")
    return errors


def _check_options(options: list[dict[str, Any]], where: str) -> list[str]:
    errors: list[str] = []
    if len(options) > 25:
        errors.append(f"{where}: at most 25 options")
    names: set[str] = set()
    seen_optional = False
    for opt in options:
        name = opt.get("name", "")
        label = f"{where} option {name!r}"
        if not COMMAND_NAME.match(name) or name != name.lower():
            errors.append(f"{label}: names must be 1-32 lowercase letters, digits, - or _")
        if name in names:
            errors.append(f"{label}: duplicated")
        names.add(name)
        if not 1 <= len(opt.get("description") or "") <= 100:
            errors.append(f"{label}: description must be 1-100 characters")
        if opt.get("type") in (1, 2):
            errors.extend(_check_options(opt.get("options") or [], f"{where} {name}"))
            continue
        if opt.get("required"):
            if seen_optional:
                errors.append(f"{label}: required options must come before optional ones")
        else:
            seen_optional = True
        if len(opt.get("choices") or []) > 25:
            errors.append(f"{label}: at most 25 choices")
    return errors


def check_commands(commands: list[dict[str, Any]]) -> list[str]:
    """Command naming and structure rules applied on bulk overwrite."""
    errors: list[str] = []
    seen: set[tuple[int, str]] = set()
    chat = [c for c in commands if c.get("type", 1) == 1]
    if len(chat) > 100:
        errors.append(f"at most 100 slash commands, got {len(chat)}")
    for cmd in commands:
        name = cmd.get("name", "")
        ctype = cmd.get("type", 1)
        if (ctype, name) in seen:
            errors.append(f"command {name!r}: duplicated")
        seen.add((ctype, name))
        if ctype == 1:
            if not COMMAND_NAME.match(name) or name != name.lower():
                errors.append(f"command {name!r}: names must be 1-32 lowercase characters")
            if not 1 <= len(cmd.get("description") or "") <= 100:
                errors.append(f"command {name!r}: description must be 1-100 characters")
            errors.extend(_check_options(cmd.get("options") or [], f"/{name}"))
    return errors


def check_emoji_name(name: str) -> list[str]:
    """Application emoji names are 2-32 word characters."""
    if not EMOJI_NAME.match(name or ""):
        return [f"emoji name {name!r}: must be 2-32 letters, digits or underscores"]
    return []
