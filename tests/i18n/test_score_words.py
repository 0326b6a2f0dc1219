"""Every score line, limit hand and payment reason the engine writes has a translation
(bot/i18n/score_words.py): hands of every rule set sampled (winners and losers, flowers,
flags, seats and rounds), every tile's lines built by the engine's own functions, and the
named limit and maximum hands."""

from __future__ import annotations

import random

import pytest

from bot.i18n.score_words import known, score_words
from bot.rules.analysis import KONG, PAIR, PUNG
from bot.rules.hand import Hand, Situation, Win
from bot.rules.rulesets import RULESETS
from bot.rules.rulesets.pung_chow import combination_line, pair_line
from bot.rules.rulesets.pung_chow_limit import (
    LIMIT_HAND_NAMES,
    PungChowLimit,
    other_pair_line,
)
from bot.rules.rulesets.singapore import MAXIMUM_HANDS, fundamental_line
from bot.rules.sampling import random_complete_hand

FLAGS = ["first-discard", "last-tile", "original-hand", "last-discard", "robbing-kong", "riichi"]


def sampled_names(ruleset: str, hands: int = 300) -> set[str]:
    rules = RULESETS[ruleset]
    rng = random.Random(13)
    names: set[str] = set()
    options = {"flowers": True} if "flowers" in {o.name for o in rules.option_specs} else {}
    for _ in range(hands):
        hand, win = random_complete_hand(rng, sets=5 if ruleset == "filipino-16" else 4)
        flowers = tuple(sorted(rng.sample(range(34, 42), rng.randint(0, 4))))
        hand = Hand(hand.concealed, hand.melds, flowers)
        flags = frozenset(rng.sample(FLAGS, rng.randint(0, 2)))
        win = Win(win.tile, win.by, win.from_seat, flags)
        situation = Situation(rng.randint(0, 3), rng.randint(0, 3), {"renchon": 9})
        try:
            score = rules.score(hand, situation, win, options)
        except Exception:  # a hand this rule set does not take (its size, flowers)
            continue
        names |= {line.name for line in score.lines}
        if score.limit_hand:
            names.add(score.limit_hand)
    return names


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_every_sampled_score_line_is_translated(ruleset: str) -> None:
    names = sampled_names(ruleset)
    assert len(names) > 10
    assert sorted(n for n in names if not known(n)) == []


def test_every_tiles_lines_and_the_named_hands_are_translated() -> None:
    names = {f"Limit hand: {n}" for n in LIMIT_HAND_NAMES.values()}
    names |= {f"Maximum hand: {n}" for n in MAXIMUM_HANDS.values()}
    for tile in range(34):
        for concealed in (False, True):
            for kind in (PUNG, KONG):
                names.add(combination_line(kind, tile, concealed, "").name)
                names.add(fundamental_line(kind, tile, concealed).name)
        names.add(other_pair_line(tile, 2).name)
        for seat in range(4):
            names.add(pair_line(tile, seat, 2, "").name)
            for drawn in (False, True):
                names.add(PungChowLimit.completing_pair_points(tile, Situation(seat, 0), drawn)[0])
    names |= {fundamental_line(PAIR, tile, True).name for tile in range(27, 34)}
    names |= {fundamental_line(-1, tile, True).name for tile in range(34, 42)}
    names |= {"washing the tiles (9 heads)", "Renchon ante x3", "difference of scores"}
    names |= {"pays S's share (discard)", "pays for W (liable)"}
    assert sorted(n for n in names if not known(n)) == []


def test_lines_read_in_each_language_and_english_stays_as_written() -> None:
    assert score_words("en-US", "3 ones (dots) (concealed)") == "3 ones (dots) (concealed)"
    assert score_words("zh-TW", "3 ones (dots) (concealed)") == "一筒暗刻"
    assert score_words("zh-CN", "Pung of Red Dragon (hidden)") == "红中暗刻"
    assert score_words("zh-TW", "Limit hand: East wins on his original draw").startswith("滿貫")
    assert score_words("zh-TW", "Rounded to the nearest 10 (40)") == "進位到十（40）"
    assert score_words("zh-TW", "something new") == "something new"
    assert score_words("zh-TW", "pays S's share (discard)") == "代付南家的份額（放槍）"


def test_every_options_help_is_translated() -> None:
    from bot.i18n.option_words import OPTION_HELP, option_help

    helps = {spec.help for rules in RULESETS.values() for spec in rules.option_specs}
    assert sorted(helps - set(OPTION_HELP)) == []
    assert option_help("zh-TW", "Renchon ante per counter") == "每個連莊數的底注"
