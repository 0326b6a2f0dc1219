"""The rule sets by name. Adding a variant: one module with a RuleSet, one line here."""

from __future__ import annotations

from bot.rules.rulesets.base import HandError, Outcome, RuleSet
from bot.rules.rulesets.filipino16 import RULESET as FILIPINO_16
from bot.rules.rulesets.pung_chow import RULESET as PUNG_CHOW
from bot.rules.rulesets.pung_chow_limit import RULESET as PUNG_CHOW_LIMIT
from bot.rules.rulesets.singapore import RULESET as SINGAPORE

RULESETS: dict[str, RuleSet] = {
    r.name: r for r in (PUNG_CHOW, PUNG_CHOW_LIMIT, FILIPINO_16, SINGAPORE)
}


def get_ruleset(name: str) -> RuleSet:
    """The rule set of that name; a clear error listing the known ones otherwise."""
    try:
        return RULESETS[name]
    except KeyError:
        known = ", ".join(RULESETS)
        raise HandError(f"unknown rule set '{name}' (known: {known})") from None


__all__ = ["RULESETS", "HandError", "Outcome", "RuleSet", "get_ruleset"]
