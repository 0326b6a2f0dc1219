"""A member's controls and tile names in their own language; the same call in English is
unchanged (the English words are the catalogue's keys)."""

from __future__ import annotations

from bot.i18n.tiles import tile_short, tile_words, wind_words
from bot.rules.game import Chow, Discard, Pass, Pung
from bot.rules.tiles import N_TILES, tile_name
from cogs.controls import describe_legal, move_controls


def _labels(view):
    return [getattr(c, "item", c).label for c in view.children]


def test_claim_buttons_in_each_language() -> None:
    legal = [Pung(2), Chow(2, 3), Pass(2)]
    assert _labels(move_controls(1, 7, legal, {})) == ["Pung", "Chow 4c-5c-6c", "Pass"]
    assert _labels(move_controls(1, 7, legal, {}, locale="zh-TW")) == [
        "碰",
        "吃 4萬-5萬-6萬",
        "過",
    ]
    assert _labels(move_controls(1, 7, legal, {}, locale="zh-CN")) == [
        "碰",
        "吃 4万-5万-6万",
        "过",
    ]


def test_what_a_seat_may_do_in_words() -> None:
    legal = [Discard(0, 5), Pung(0), Pass(0)]
    assert describe_legal(legal) == "discard a tile or claim (Pung) or pass"
    assert describe_legal(legal, "zh-TW") == "打一張牌或吃碰（碰）或過"


def test_every_tile_has_a_distinct_name_in_each_language() -> None:
    for locale in ("zh-TW", "zh-CN", "en-US"):
        names = [tile_words(locale, t) for t in range(N_TILES)]
        assert len(set(names)) == N_TILES, locale
        assert len({tile_short(locale, t) for t in range(N_TILES)}) == N_TILES
    assert tile_words("fr", 26) == tile_name(26) == "9 Bamboo"
    assert (tile_words("zh-TW", 26), tile_words("zh-CN", 26)) == ("九條", "九条")
    assert (tile_words("zh-TW", 33), tile_words("zh-CN", 32)) == ("紅中", "发财")
    assert wind_words("zh-TW", 0) == "東" and wind_words("en-US", 3) == "North"


def test_the_engines_sentences_in_each_language() -> None:
    from bot.i18n.moves import move_words

    assert move_words("zh-TW", "South discards 7 Bamboo") == "南家 打出七條"
    assert move_words("zh-CN", "bob: pungs Red Dragon") == "bob: 碰红中"
    assert move_words("zh-TW", "East wins on own draw: Mah-Jongg") == "東家 自摸：胡牌"
    assert move_words("zh-TW", "王: x: wins on a discard: Mah-Jongg") == "王: x: 胡了打出的牌：胡牌"
    assert move_words("en-US", "South discards 7 Bamboo") == "South discards 7 Bamboo"
    assert move_words("zh-TW", "something new") == "something new"  # shown as written
