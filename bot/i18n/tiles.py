"""Tile names in each language. Data, not catalogue messages: a Chinese tile name is a numeral
before the suit (七條), which no English "7 Bamboo" template can be translated into, and the
names players use (紅中, 發財, 白板; the flowers 梅蘭菊竹 and seasons 春夏秋冬) are not word
for word. English stays :func:`bot.rules.tiles.tile_name`."""

from __future__ import annotations

from typing import Any

from bot.i18n.locales import catalogue_of
from bot.rules.tiles import (
    BONUS,
    DRAGONS,
    HONOURS,
    WINDS,
    rank,
    short_name,
    suit,
    tile_name,
)

NUMERALS = "一二三四五六七八九"
#: suits (characters, dots, bamboo), winds E S W N, dragons White Green Red, flowers, seasons
CHINESE: dict[str, dict[str, Any]] = {
    "zh-TW": {
        "suits": ("萬", "筒", "條"),
        "winds": ("東風", "南風", "西風", "北風"),
        "dragons": ("白板", "發財", "紅中"),
        "short_honours": ("東", "南", "西", "北", "白", "發", "中"),
        "bonus": ("梅", "蘭", "菊", "竹", "春", "夏", "秋", "冬"),
    },
    "zh-CN": {
        "suits": ("万", "筒", "条"),
        "winds": ("东风", "南风", "西风", "北风"),
        "dragons": ("白板", "发财", "红中"),
        "short_honours": ("东", "南", "西", "北", "白", "发", "中"),
        "bonus": ("梅", "兰", "菊", "竹", "春", "夏", "秋", "冬"),
    },
}


def tile_words(locale: Any, tile: int) -> str:
    """A tile's name: ``七條`` / ``七条`` / ``7 Bamboo``, ``東風``, ``紅中``, ``梅``."""
    names = CHINESE.get(catalogue_of(locale))
    if names is None:
        return tile_name(tile)
    s = suit(tile)
    if s < HONOURS:
        return NUMERALS[rank(tile) - 1] + names["suits"][s]
    if s == BONUS:
        return names["bonus"][rank(tile) - 1]
    if tile in WINDS:
        return names["winds"][WINDS.index(tile)]
    return names["dragons"][DRAGONS.index(tile)]


def tile_short(locale: Any, tile: int) -> str:
    """A button's label: ``5筒``, ``東``, ``中``; English ``5d``, ``E``, ``R``."""
    names = CHINESE.get(catalogue_of(locale))
    if names is None:
        return short_name(tile)
    s = suit(tile)
    if s < HONOURS:
        return f"{rank(tile)}{names['suits'][s]}"
    if s == BONUS:
        return names["bonus"][rank(tile) - 1]
    return names["short_honours"][rank(tile) - 1]


def wind_words(locale: Any, wind: int) -> str:
    """A seat or round wind (0..3) on its own: ``東`` / ``East``."""
    names = CHINESE.get(catalogue_of(locale))
    if names is None:
        return ("East", "South", "West", "North")[wind % 4]
    return names["short_honours"][wind % 4]
