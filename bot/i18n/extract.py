"""The messages of the code, and the catalogues brought up to date with them.

``python -m bot.i18n.extract`` finds every ``_(locale, "...")`` and ``N_("...")`` in ``bot/``,
``cogs/`` and ``renderer/`` (Babel's extractor) and every command string of the bot's command
tree (:mod:`bot.i18n.commands`, under its gettext context), and merges them into each shipped
``.po``: a new message gets an empty translation to fill in, a message the code no longer has
is dropped. ``tests/i18n/test_catalogues.py`` uses the same functions to fail while a shipped
catalogue lacks a message.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from bot.i18n.catalogue import po_path
from bot.i18n.locales import SHIPPED

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "cogs", "renderer")
#: Babel's keyword spec: ``_(locale, message, ...)`` has its message second.
KEYWORDS: dict[str, Any] = {"_": (2,), "N_": None}


def code_messages() -> dict[str, list[tuple[str, int]]]:
    """Every message in the code -> where it is (file, line)."""
    found: dict[str, list[tuple[str, int]]] = {}
    for package in PACKAGES:
        for filename, line, message, _comments, _context in extract_from_dir(
            ROOT / package,
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
            comment_tags=(),
            strip_comment_tags=True,
        ):
            if isinstance(message, str) and message:
                found.setdefault(message, []).append((f"{package}/{filename}", line))
    return found


async def _tree_strings() -> set[tuple[str, str]]:
    """The command strings of the real bot's tree, built offline (no login, a scratch DB)."""
    from bot.app import COGS, MahjongBot
    from bot.config import Settings
    from bot.i18n.commands import command_strings
    from bot.services import build_services
    from bot.store.database import open_database

    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "db.sqlite3"
        settings = Settings(token="x", database=db_path, dev_guild=None, log_level="WARNING")
        bot = MahjongBot(settings)
        bot.db = await open_database(db_path)
        try:
            bot.services = build_services(bot, bot.db)
            for name in COGS:
                await bot.load_extension(name)
            return await command_strings(bot.tree)
        finally:
            await bot.db.close()


def command_messages() -> set[tuple[str, str]]:
    return asyncio.run(_tree_strings())


def update(locale: str, messages: dict[str, Any], commands: set[tuple[str, str]]) -> int:
    """Merge the code's messages into ``locale``'s catalogue; the number of untranslated."""
    path = Path(str(po_path(locale)))
    if path.exists():
        with path.open("rb") as f:
            old = read_po(f, locale=locale.replace("-", "_"))
    else:
        old = Catalog(locale=locale.replace("-", "_"))
    new = Catalog(
        locale=locale.replace("-", "_"),
        project="mahjong-bot",
        fuzzy=False,
        creation_date=old.creation_date,  # a run that adds nothing leaves the file alone
        revision_date=old.revision_date,
    )
    for message, where in sorted(messages.items()):
        kept = old.get(message)
        new.add(message, kept.string if kept else "", locations=where)
    for context, message in sorted(commands):
        kept = old.get(message, context=context)
        new.add(message, kept.string if kept else "", context=context)
    with path.open("wb") as f:
        # No line numbers: they would change with every edit of the code around a message.
        write_po(f, new, width=100, sort_output=False, include_lineno=False)
    return sum(1 for m in new if m.id and not m.string)


def main() -> None:
    import logging

    logging.disable(logging.CRITICAL)  # the offline bot's background tasks would complain
    messages = code_messages()
    commands = command_messages()
    for locale in SHIPPED:
        left = update(locale, messages, commands)
        print(f"{locale}: {len(messages) + len(commands)} messages, {left} to translate")


if __name__ == "__main__":
    main()
