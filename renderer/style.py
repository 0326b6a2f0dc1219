"""Colours shared by the tile art and the images around it.

Traditional tile colours: dots and bamboo in blue, green and red; characters with a dark
numeral over a red 萬; red and green dragons; an ivory face on a jade-green back.
"""

from __future__ import annotations

Color = tuple[int, int, int]

IVORY: Color = (250, 245, 230)
IVORY_SHADE: Color = (232, 222, 196)
IVORY_EDGE: Color = (196, 184, 154)
IVORY_SIDE: Color = (222, 210, 178)
BACK: Color = (22, 122, 92)
BACK_DARK: Color = (13, 84, 62)
BACK_LIGHT: Color = (52, 156, 120)

INK: Color = (28, 30, 58)
BLUE: Color = (26, 72, 158)
GREEN: Color = (22, 118, 60)
RED: Color = (196, 34, 28)
NUMERAL: Color = (24, 36, 96)

STICK_GREEN = ((34, 128, 66), (16, 78, 40), (120, 190, 130))
STICK_BLUE = ((30, 80, 160), (16, 46, 104), (120, 156, 220))
STICK_RED = ((196, 40, 32), (128, 22, 18), (236, 130, 118))

FLOWER_COLORS: tuple[Color, ...] = ((190, 30, 86), (112, 60, 160), (196, 120, 8), (30, 120, 50))
SEASON_COLORS: tuple[Color, ...] = ((40, 132, 52), (204, 62, 26), (170, 92, 24), (34, 92, 168))

FELT: Color = (22, 84, 62)
FELT_DARK: Color = (16, 66, 48)
FELT_LINE: Color = (40, 108, 82)
PANEL: Color = (14, 56, 41)
SEAT_BLOCK: Color = (19, 74, 55)
SEAT_TURN: Color = (30, 92, 66)
TEXT: Color = (240, 240, 232)
TEXT_DIM: Color = (170, 196, 182)
GOLD: Color = (246, 196, 64)
HIGHLIGHT: Color = (255, 150, 30)
MARK: Color = (40, 200, 120)
WIN: Color = (236, 52, 60)
PAPER: Color = (30, 36, 44)
