"""Table options a rule text leaves to the players, with their documented defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


class OptionError(ValueError):
    """An option that does not exist or has a value the rule set does not allow."""


#: The largest number any option takes (a limit, a maximum, an ante): as /settle's largest
#: score. Without it ``ante=99999999999999999999`` was taken, and a hand's payments (up to
#: twice the maximum, or the ante times nine counters, doubled) could pass what the ledger
#: stores in a 64-bit integer.
MAX_NUMBER = 10_000_000


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option: its default, what values it takes, and where the text speaks of it.

    A *house rule* (``house=True``) is a place where the text can be read two ways
    (docs/rules.md, "Choices"): its default is the reading the bot takes, the other values
    the readings a club may prefer; ``source`` names the text's line. A house rule that
    changed a score is named with that score (:mod:`bot.rules.house_rules`)."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    kind: type = int
    minimum: int | None = None
    allow_none: bool = False
    source: str = ""
    house: bool = False

    def coerce(self, value: Any) -> Any:
        if value is None and self.default is None:
            return None  # the default itself: resolving resolved options changes nothing
        if value is None or (isinstance(value, str) and value.lower() in ("none", "off", "")):
            if self.allow_none:
                return None
            if self.kind is bool and value is not None:
                return False
            raise OptionError(f"option '{self.name}' needs a value ({self.help})")
        if self.kind is bool:
            if isinstance(value, str):
                low = value.lower()
                if low in ("on", "yes", "true", "1"):
                    return True
                if low in ("no", "false", "0"):
                    return False
                raise OptionError(f"option '{self.name}' is on or off, not '{value}'")
            return bool(value)
        if self.kind is int:
            try:
                number = int(value)
            except (TypeError, ValueError):
                raise OptionError(
                    f"option '{self.name}' must be a whole number, not '{value}'"
                ) from None
            if self.minimum is not None and number < self.minimum:
                raise OptionError(f"option '{self.name}' must be at least {self.minimum}")
            if number > MAX_NUMBER:
                raise OptionError(f"option '{self.name}' must be at most {MAX_NUMBER:,}")
            if self.choices is not None and number not in self.choices:
                allowed = ", ".join(str(c) for c in self.choices)
                raise OptionError(f"option '{self.name}' must be one of {allowed}")
            return number
        text = str(value)
        if self.choices is not None and text not in self.choices:
            raise OptionError(f"option '{self.name}' must be one of {', '.join(self.choices)}")
        return text


Options = Mapping[str, Any]


def resolve_options(specs: tuple[OptionSpec, ...], given: Mapping[str, Any] | None) -> Options:
    """The full option set: defaults overridden by ``given``; unknown names are an error."""
    by_name = {spec.name: spec for spec in specs}
    values = {spec.name: spec.default for spec in specs}
    for name, value in (given or {}).items():
        key = name.replace("-", "_")
        spec = by_name.get(key)
        if spec is None:
            known = ", ".join(sorted(by_name))
            raise OptionError(f"unknown option '{name}' (this rule set has: {known})")
        values[key] = spec.coerce(value)
    return MappingProxyType(values)


def parse_option_text(text: str | None) -> dict[str, str]:
    """``"mahjong_bonus=20 washing=no"`` (spaces or commas between pairs) as a mapping of
    names to the values as typed; :func:`resolve_options` checks and converts them."""
    options: dict[str, str] = {}
    for item in (text or "").replace(",", " ").split():
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise OptionError(
                f"options are written name=value, like 'mahjong_bonus=20 washing=no', not '{item}'"
            )
        options[name.strip().replace("-", "_")] = value.strip()
    return options
