"""``/rules`` pages (bot/service/rules_pages.py): every page of every topic fits one Discord
embed whatever a topic holds, nothing is lost between the pages, and the options topic is a
page per rule set, however many options a rule set has."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.options import OptionSpec
from bot.rules.rulesets import RULESETS
from bot.service.rules_pages import PAGE_LIMIT, pages
from bot.service.rules_topics import TOPICS, options_topic

EMBED_DESCRIPTION = 4096


def test_every_topic_of_the_bot_fits_and_options_is_a_page_per_rule_set() -> None:
    for topic in TOPICS.values():
        for page in pages(topic):
            assert 0 < len(page.text) <= PAGE_LIMIT <= EMBED_DESCRIPTION, topic.key
    options = pages(TOPICS["options"])
    assert [p.label for p in options] == list(RULESETS)
    for page, (name, rules) in zip(options, RULESETS.items(), strict=True):
        assert page.text.startswith(TOPICS["options"].intro)
        assert f"**{name}**" in page.text
        assert all(f"`{spec.name}`" in page.text for spec in rules.option_specs)


names = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=30)
specs = st.lists(
    st.builds(
        OptionSpec,
        name=names,
        default=st.one_of(st.none(), st.integers(0, 10**6), st.booleans()),
        help=st.text(min_size=1, max_size=700).map(lambda t: " ".join(t.split()) or "x"),
        allow_none=st.booleans(),
    ),
    max_size=120,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, specs, min_size=1, max_size=8))
def test_any_number_of_options_fits_every_page_and_loses_no_option(rulesets) -> None:
    topic = options_topic(
        {name: SimpleNamespace(option_specs=tuple(s)) for name, s in rulesets.items()}
    )
    shown = pages(topic)
    assert all(len(p.text) <= PAGE_LIMIT for p in shown)
    assert all(p.label.startswith(tuple(rulesets)) for p in shown)
    together = "\n".join(p.text for p in shown)
    for name, options in rulesets.items():
        assert f"**{name}**" in together
        for spec in options:
            assert f"`{spec.name}`" in together
