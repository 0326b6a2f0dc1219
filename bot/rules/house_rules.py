"""House rules: which of a table's non-default readings changed a hand's scores or payments.

Every place where a rule text can be read two ways is a table option marked ``house``
(:class:`bot.rules.options.OptionSpec`, docs/rules.md), its default the bot's reading. The
reveal and ``/score`` name a house rule only when it changed something: the hand is scored
and settled again with that one option back at its default, and the results compared. Only
tables that set a house rule pay for this (once per hand, never per reading), so the
scorer's own speed is unchanged. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from bot.rules.options import OptionSpec


def house_rules_set(specs: tuple[OptionSpec, ...], options: Mapping[str, Any]) -> list[OptionSpec]:
    """The house rules a table plays other than the texts' reading."""
    return [s for s in specs if s.house and s.name in options and options[s.name] != s.default]


def shown(spec: OptionSpec, value: Any) -> str:
    """``name=value`` as a table writes it (on/off for switches)."""
    if isinstance(value, bool):
        value = "on" if value else "off"
    return f"{spec.name}={value}"


def changed_by_house_rules(
    specs: tuple[OptionSpec, ...],
    options: Mapping[str, Any],
    outcome_of: Callable[[Mapping[str, Any]], Any],
    played: Any = None,
) -> tuple[str, ...]:
    """The house rules (``name=value``) whose text reading would have given another outcome.

    ``outcome_of(options)`` scores and settles the hand under those options and returns
    something comparable (totals and payments); ``played`` is its result under ``options``
    when the caller has it already."""
    chosen = house_rules_set(specs, options)
    if not chosen:
        return ()
    if played is None:
        played = outcome_of(options)
    out = []
    for spec in chosen:
        reading = MappingProxyType({**options, spec.name: spec.default})
        try:
            other = outcome_of(reading)
        except ValueError:
            other = None  # the text's reading refuses the hand: the house rule changed it
        if other != played:
            out.append(shown(spec, options[spec.name]))
    return tuple(out)


__all__ = ["changed_by_house_rules", "house_rules_set", "shown"]
