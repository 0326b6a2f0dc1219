"""Every message of the code, and every command string, has a translation in each shipped
catalogue (issue 13.4): extracted from the code with Babel (bot/i18n/extract.py) and compared
with each ``.po``. A translation keeps the message's ``{placeholders}`` exactly."""

from __future__ import annotations

import re
import string

import pytest
from babel.messages.pofile import read_po

from bot.i18n import SHIPPED, _, catalogue_of
from bot.i18n.catalogue import po_path
from bot.i18n.commands import NAME_CONTEXTS, valid_name
from bot.i18n.extract import code_messages


def catalogue(locale: str):  # type: ignore[no-untyped-def]
    with po_path(locale).open("rb") as f:
        return read_po(f, locale=locale.replace("-", "_"))


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


MESSAGES = code_messages()


def test_the_code_has_messages_to_translate() -> None:
    assert len(MESSAGES) > 50  # the extractor finds the wrapped messages at all


@pytest.mark.parametrize("locale", SHIPPED)
def test_every_message_is_translated(locale: str) -> None:
    found = catalogue(locale)
    missing = [
        f"{m!r} ({where[0][0]}:{where[0][1]})"
        for m, where in MESSAGES.items()
        if not (found.get(m) and found.get(m).string)
    ]
    assert not missing, f"{locale} lacks {len(missing)}: " + "; ".join(missing[:20])


@pytest.mark.parametrize("locale", SHIPPED)
def test_translations_keep_the_placeholders(locale: str) -> None:
    wrong = [
        m.id for m in catalogue(locale) if m.id and m.string and fields(m.id) != fields(m.string)
    ]
    assert not wrong, wrong


@pytest.mark.parametrize("locale", SHIPPED)
def test_command_names_follow_discords_rules(locale: str) -> None:
    names = [m for m in catalogue(locale) if m.context in NAME_CONTEXTS]
    assert names
    assert [m.string for m in names if not valid_name(m.string)] == []


def test_locales_resolve_to_catalogues_with_english_the_fallback() -> None:
    assert catalogue_of("zh-TW") == "zh-TW"
    assert catalogue_of("zh-CN") == "zh-CN"
    assert catalogue_of("zh-HK") == "zh-TW"
    assert catalogue_of("fr") == catalogue_of(None) == "en-US"
    text = "Final standings"
    assert _("en-US", text) == text
    assert _("zh-TW", text) != text and _("zh-CN", text) != text
    assert _("zh-TW", text) != _("zh-CN", text)
    assert re.search(r"[\u4e00-\u9fff]", _("zh-TW", text))
