"""Translating a message into a reader's language.

``_(locale, message, **values)``: the English ``message`` is the key (gettext's msgid); the
values are put in with ``str.format`` after translating, so a translation may move them. The
locale comes first and is always given: there is no "current language".

``N_(message)`` marks a message for the catalogue without translating it (a table of texts
built at import time, translated where it is shown). ``pgettext`` contexts keep a command's
name apart from the same English word in a message (:mod:`bot.i18n.commands`).
"""

from __future__ import annotations

import gettext
import io
from functools import lru_cache
from importlib import resources
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.i18n.locales import FALLBACK, catalogue_of


def po_path(locale: str) -> Any:
    return resources.files("bot.i18n") / "catalogues" / f"{locale.replace('-', '_')}.po"


@lru_cache(maxsize=8)
def translations(locale: str) -> gettext.NullTranslations:
    """The catalogue of a shipped locale, read from its ``.po`` once (Babel compiles it in
    memory); English is the messages themselves."""
    if locale == FALLBACK:
        return gettext.NullTranslations()
    with po_path(locale).open("rb") as f:
        catalog = read_po(f, locale=locale.replace("-", "_"))
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def translate(locale: Any, message: str, /, **values: Any) -> str:
    text = translations(catalogue_of(locale)).gettext(message)
    return text.format(**values) if values else text


def ptranslate(locale: Any, context: str, message: str) -> str | None:
    """``message`` in context ``context``, or None when the catalogue has none (English)."""
    found = translations(catalogue_of(locale)).pgettext(context, message)
    return found if found != message else None


_ = translate


def N_(message: str) -> str:
    return message
