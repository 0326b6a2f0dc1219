"""The texts ``/rules [topic]`` answers with: short summaries of the rule texts, citing pages.

Page numbers are those of L. L. Harr, *Pung Chow* (1922) as its table of contents and ERRATA
give them; the other two texts have no pages and are cited by section. Where the texts are
unclear, the summaries follow the choices written down in ``docs/rules.md`` (and played by the
engine). Each text stays well under Discord's 4096-character embed description, and none
names a file of the repository: players read them in Discord (a test checks).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.i18n import FALLBACK, N_, _, catalogue_of


@dataclass(frozen=True, slots=True)
class Topic:
    key: str
    title: str
    summary: str  # one line, for the topic list and the autocomplete
    text: str
    #: ``(label, text)`` parts shown as pages of their own, each after ``intro`` (the options
    #: topic: one per rule set); ``text`` is the intro and the parts together.
    sections: tuple[tuple[str, str], ...] = ()
    intro: str = ""


_TOPICS = (
    Topic(
        "pung-chow",
        N_("Pung Chow (1922), Part I: without a limit"),
        N_("the unlimited game: every hand scores, losers settle their differences"),
        N_("""\
**Rule set `pung-chow`**: L. L. Harr, *Pung Chow* (1922), Part I.
- 136 tiles: three suits 1-9, four winds, three dragons (p.11). Mandarins (flowers and \
seasons) are left out unless the `flowers` option is on (p.29).
- East throws for first East; East stays East while he wins or the hand is a draw (p.13). \
Each player holds 13 tiles, East 14 to make the first discard (p.16).
- Win ("Mah-Jongg") with four sets and a pair; a set is three or four of a kind or a run of \
three (p.9, p.24). A kong counts as three tiles; a wrong count makes the hand **dead**: it \
scores nothing and pays everyone (p.24).
- Chow only the discard of the player on your left; pung anyone's (p.18-19). See \
`/rules claims`.
- **Every hand scores** (p.29-31): the winner collects his full score from each player, then \
the losers pay each other the differences (p.25). East pays and collects double (p.13, p.25). \
No limit (p.56), though the bot offers one as an option.
- Scores: `/rules scoring`. Settling: `/rules settling`."""),
    ),
    Topic(
        "pung-chow-limit",
        N_("Pung Chow (1922), Part II: playing with a limit"),
        N_("the wind box, the limit, washing, limit hands, penalties"),
        N_("""\
**Rule set `pung-chow-limit`**: *Pung Chow* Part II (p.56-76).
- Seats are drawn with the wind indicators; the **wind box** marks East and the round. \
Four hands with each player East make a round, four rounds a set (p.57-59).
- The last **14 tiles** of the wall are never drawn: the hand is a draw when only they remain \
(p.57-59).
- **The limit**: usually 300 with a Mah-Jongg bonus of 10, 400 with 20 (p.60). No one pays \
more than the limit, East double the limit; losers settle differences up to the limit (p.60).
- Mah-Jongg is worth 10 (p.62). Lower set values, pairs and filling a sequence score \
differently from Part I: `/rules limit-scoring`.
- **Washing the tiles**: 9 or more different heads in the dealt hand (p.61): `/rules washing`.
- Bonus doubles (p.62): the last tile of the wall drawn by the winner, a loose tile, the \
fourth tile of an exposed set; half the limit for winning on the first discard.
- **Limit hands** collect the limit from each: `/rules limit-hands`.
- **Penalties** (p.67-69): a false Mah-Jongg, a discard that gives away a dangerous hand: \
`/rules penalties`."""),
    ),
    Topic(
        "filipino-16",
        N_("Filipino/Taiwanese 16-tile mahjong"),
        N_("16-tile hands, five sets and a pair, a 300 limit, seasons"),
        N_("""\
**Rule set `filipino-16`** (*Filipino/Taiwanese 16 Tile Mahjong*).
- Each player holds **16 tiles**, East 17; a winning hand is **five sets and a pair**, 17 \
tiles (The Play). A kong counts as three: with one kong a player holds 17 (Suggestions).
- Only the player to the right of the discarder may chow; a pung beats a chow unless the chow \
completes a hand; among winning claims the one nearest the discarder wins (To "Chow", To \
"Pung").
- The last **16 tiles** are never drawn: the hand is a draw and no scores count (Draw).
- **Paying**: the three losers pay the winner his whole score, then settle the differences \
among themselves; East pays and collects double (Paying the Winner).
- **The limit**: usually 300 a hand, East paying or collecting 600 (The Limit).
- The score sheet is Part I's with sets concealed in hand worth double; a 4 of a kind kept in \
hand counts only as 3 (Suggestions). Mah-Jongg 20, no runs 10, only Mah-Jongg 10, winning \
piece drawn 2, only place 2, loose tile 10 (Score Sheet).
- **Seasons** (optional): 4 points each in every hand; one own season doubles, both double \
twice, all four of a colour double three times (Mahjong With the Seasons)."""),
    ),
    Topic(
        "singapore",
        N_("Simplified Singapore-style scoring"),
        N_("fundamental points, multiplying bonuses, maximum hands"),
        N_("""\
**Rule set `singapore`** (*Mah-Jongg for Dummies, Part 4*).
- **Only the winner scores**; losers do not settle among themselves ("I say, scotch it").
- **Fundamental points**: Mah-Jongg 20; honour eyes 2; pungs 2/4 (middle numbers, \
exposed/hidden) and 4/8 (honours, 1s, 9s); kongs 8/16 and 16/32; each flower or season 4; \
winning on an eye or a chow 2; winning from the wall 2; a hidden hand won on a discard with \
no other bonus 10; seven eyes 100.
- The points, **rounded to the nearest 10**, are then **multiplied** by each bonus (x2, \
x4, x8, x16): own flower or season, pung of own wind or of dragons, concealed hand won from \
the wall, no middle numbers... up to x16 for all middle numbers of one suit.
- **Maximum hands** (three dragon pungs, four wind pungs, all honours, four kongs, thirteen \
orphans, nine gates, East's first 14 tiles...) pay the maximum: 2000, **East 3000**.
- **East pays and is paid double**. The player whose discard gives the win **pays the other \
players' shares** too.
- Penalties, Furi Tem and Renchon: `/rules penalties`."""),
    ),
    Topic(
        "scoring",
        N_("Scoring without a limit (Pung Chow p.3, p.29-31)"),
        N_("the score card: bonus scores, sets, pairs, doubling honours"),
        N_("""\
**Score card, hands without a limit** (*Pung Chow* p.3, explained p.29-31).
**Winning hand only**: Mah-Jongg 20 · no sequences 10 · no other score than Mah-Jongg 10 · \
winning on a loose tile 10 · drawing the winning piece 2 · filling the only place to win 2 \
(matching the pair or the middle of a run, p.31).
**Sets** (exposed / concealed in hand), for every hand:
- three of a kind of 2-8: 2 / 4 · of 1s, 9s, winds or dragons: 4 / 8
- four of a kind of 2-8: 8 / 16 · of 1s, 9s, winds or dragons: 16 / 32
- a pair of dragons or of one's own wind: 2. Runs score nothing.
A set completed with a punged discard is exposed and worth half (p.22). A kong drawn and laid \
with its ends face down counts as concealed (p.22-23).
**Doubling honours** (every hand): three or four of each dragon, three or four of own wind, \
all one suit with honours: double once. All one suit, all honours, winning on the original \
hand: double three times (p.3, p.31).
Add the points, then double once per honour: 50 with five honours is 1,600 (p.31).
`filipino-16` uses the same sheet; `pung-chow-limit`: `/rules limit-scoring`."""),
    ),
    Topic(
        "limit-scoring",
        N_("Scoring with a limit (Pung Chow p.62-67)"),
        N_("Part II values: sets, pairs, filling a sequence, doubling honours"),
        N_("""\
**Scoring values with a limit** (*Pung Chow* p.65-67).
**Winning hand** (on table / in hand): Mah-Jongg 10 · no other score 10 · three of a kind \
2-8: 2 / 6 · of heads: 4 / 10 · four of a kind 2-8: 8 / 16 · of heads: 16 / 32.
Completing the pair: 2-8 punged 2, drawn 4 · heads punged 4, drawn 6 · own wind in own wind \
round punged 6, drawn 8. Filling a sequence in the middle or the only open end by chow 2; \
by draw 4 (p.65-66).
**Other hands**: three of a kind 2-8: 2 / 4 · heads 4 / 8 · four 2-8: 8 / 16 · heads 16 / 32; \
a pair of dragons, own wind or the round's wind 2, own wind in own wind round 4.
(A "head" is a 1, 9, wind or dragon, p.61.)
**Doubling honours** (p.67): a set of own wind once, in own wind round twice; a set of each \
dragon once; all one suit with honours once; and, for the winner only, no sequences once, \
entirely one suit three times.
**Bonus doubles** (p.62): winning on the last drawable tile, on a loose tile, or with the \
fourth tile of an exposed set: once each.
No payment exceeds the limit (East double): `/rules settling`."""),
    ),
    Topic(
        "limit-hands",
        N_("Limit hands (Pung Chow p.62-64, singapore maximum hands)"),
        N_("hands worth the limit outright"),
        N_("""\
**Limit hands** (*Pung Chow* p.62-64): the winner collects the full limit from each player, \
East double (limit Examples 5-7).
1. Single heads: one of each head with a pair of one of them (thirteen orphans).
2. Sets of heads only, with a pair of heads.
3. Four different sets of winds and any pair ("the four happinesses").
4. Three sets of winds and a pair of the fourth wind.
5. Every set four of a kind, with any pair.
6. East winning on his original draw (it takes precedence over washing).
7. The three sets of dragons ("the 3 Doctors of Literature").
**`singapore` maximum hands** pay the maximum (2000, East 3000): all 4 flowers or all 4 \
seasons; East winning with his first 14 tiles; winning on East's first discard; 3 dragon \
pungs; 4 wind pungs; 3 wind pungs and wind eyes; pungs and eyes of 1s and 9s only; all \
honours; 4 hidden pungs; 4 kongs; nine gates; thirteen orphans; East's 9th Renchon win."""),
    ),
    Topic(
        "washing",
        N_("Washing the tiles (Pung Chow p.61)"),
        N_("nine or more different heads in the dealt hand"),
        N_("""\
**Washing the tiles** (*Pung Chow* p.61, `pung-chow-limit`).
A **head** is a 1, a 9, a wind or a dragon. A player whose *original* hand (13 tiles, East's \
14, before any draw) holds **9 or more different heads** may call "no play", show the hand \
and collect from each player:
- 9 heads: 50 · 10 heads: 70 · 11 heads: 100 · 12 heads: 150 · 13 heads: 200.
The tiles are reshuffled and the wall built again; East keeps the wind box. East collects no \
double when he washes, and pays no double when another player washes.
Washing has preference over winning on the first discard (p.62); East winning on his original \
draw has preference over washing (p.64). The `washing` option turns it off."""),
    ),
    Topic(
        "claims",
        N_("Claiming discards: chow, pung, kong and precedence (Pung Chow p.18-23)"),
        N_("who may take a discard, and who wins when two want it"),
        N_("""\
**Claiming a discard** (*Pung Chow* p.18-23).
- **Chow**: only the next player (the discarder's right), only in his turn, with the two \
other tiles of the run in hand; he exposes the run and discards (p.18).
- **Pung**: anyone holding a pair (or three) of the discard, out of turn; players in between \
lose their turn (p.19). Three in hand and a discarded fourth make an exposed kong.
- A discard must be claimed at once: once the next discard falls it is dead (rule 1).
- Any discard that completes a hand may be claimed, even to finish a run or the pair (rule 2).
**Precedence** (p.19-21): a pung beats a chow (rule 4); a claim that completes a hand beats one \
that completes a set (rule 5); of two players winning on the same tile, the one nearer the \
discarder counter-clockwise takes it (rule 6). `filipino-16` adds: a chow completing a hand \
is not overtaken by a pung.
- **Kong**: a drawn fourth, or a set of three on the table completed by the drawn fourth; \
draw a loose tile after each kong (p.22-23). An exposed set may not take a discarded fourth: \
no set may hold two claimed tiles (p.23)."""),
    ),
    Topic(
        "settling",
        N_("Settling the scores (Pung Chow p.25, p.60)"),
        N_("who pays whom after a hand; East double; the limit"),
        N_("""\
**Settling** (*Pung Chow* p.25).
1. The winner collects his full score from each other player.
2. The other three then settle the **differences** of their scores: the highest collects from \
the other two, then the remaining two settle (p.25).
3. **East pays and collects double**, winning or losing (p.25). Example: East wins with 480 \
and collects 960 from each.
**With a limit** (p.60): no one pays more than the limit, East up to double the limit, and the \
losers' differences are capped the same way. A dead hand scores nothing and pays everyone \
(p.24).
`filipino-16` settles the same way (Paying the Winner; limit 300). `singapore` has no \
differences: only the winner is paid, and a discarder who gave the win pays for everyone.
In this bot, `/settle` records a game played with real tiles: nothing counts (chips, \
history, statistics, leaderboards) until every other player has pressed **Confirm**, \
whatever the scores; unconfirmed, it expires after a day."""),
    ),
    Topic(
        "penalties",
        N_("Penalties (Pung Chow p.24, p.67-69, singapore)"),
        N_("false Mah-Jongg, dead hands, liable discards, Furi Tem, Renchon"),
        N_("""\
**Pung Chow**
- A wrong number of tiles makes a hand **dead**: it scores nothing, pays everyone, collects \
nothing (p.24).
- **False Mah-Jongg** with a limit: pay each player half the limit, East the full limit (p.67).
- **A dangerous discard** (p.67-69): if the winner had exposed 9+ tiles of one suit, 9+ heads, \
two dragon sets, or three wind sets, whoever discards the tile that completes that hand pays \
everyone's losses, and other scores are cancelled, unless he was himself waiting with two \
doubling honours, or had no other choice of discard (note a).
**singapore**
- A false Mah-Jongg pays 250 to each player, 500 to or from East.
- Riichi declared without winning: 100 to the winner. A pung declared but not exposed: 100.
- **Furi Tem**: a player waiting on a tile he discarded must declare it; winning on that \
discard undeclared costs half the maximum.
- **Renchon**: East's consecutive wins; losers add an ante of 100 x the counters, a discarder \
East wins on pays double the ante; East's ninth Renchon win is a maximum hand."""),
    ),
    Topic(
        "flowers",
        N_("Flowers and seasons (Pung Chow p.29, filipino-16, singapore)"),
        N_("the mandarins: optional bonus tiles and what they score"),
        N_("""\
**Mandarins: flowers and seasons**, numbered 1-4 for East, South, West, North (`1f`-`4f` \
flowers, `5f`-`8f` seasons; or `F1`-`F4`, `S1`-`S4`).
- **Pung Chow** (p.29): usually left out. Drawn, they are laid out and replaced with a loose \
tile; each of the player's own wind doubles his score once. Option `flowers`.
- **filipino-16** (Mahjong With the Seasons): each scores 4 points; one own season doubles, \
both double twice, all four of one colour double three times, in every hand.
- **singapore**: on by default; 4 points each, a doubling bonus for one's own, and all four \
flowers or all four seasons is a maximum hand.
In `/score`, listing flowers in a hand plays with them."""),
    ),
    Topic(
        "notation",
        N_("Writing a hand for /score and /settle"),
        N_("tiles, melds, the winning tile and how it was won"),
        N_("""\
**Writing a hand**: tokens separated by spaces.
- Suits: `123m` or `123c` characters, `456p` or `456d` dots, `789s` or `789b` bamboo.
- Honours: `E S W N` winds, `R G Wh` dragons (`EEE`, `RR`, `east`, `red`), or `1234567z`.
- Flowers and seasons: `1f`-`8f`, or `F1`-`F4` and `S1`-`S4`.
- `[555p]`: a set exposed on the table · `{RRRR}`: a kong declared concealed.
- `win 5p`: the winning tile (added if the hand is one short) · `discard` `self-draw` \
`loose-tile` `dealt` · `from W`: who discarded it.
- Flags: `last-tile` `first-discard` `original-hand` `robbing-kong` `riichi`.
Examples: `123m 456m 789s 55s 22p win 2p from W` (Example 1: 22) · \
`111s 333p RR [555m] [444s] win R self-draw` (Example 3 with the errata: 52).
Options of `/score`: `rules`, `seat` (your wind), `round` (the round's wind), `win` (the \
winning tile and how, if not in the hand), `options` (see `/rules options`), `renchon` \
(singapore: East's wins in a row)."""),
    ),
)


def options_topic(rulesets: Mapping[str, Any] | None = None, locale: str = FALLBACK) -> Topic:
    """Every rule set's options, defaults and what each means (with the rule text's page),
    from the rule sets themselves (``rulesets``: name -> rule set, the bot's by default); a
    section per rule set, so each is a page of ``/rules options`` (bot/service/rules_pages.py)
    however many options there are. In ``locale``, but for the values the options take
    (``on``, ``none``: what is typed) and the quoted lines of the texts."""
    from bot.i18n.option_words import option_help

    if rulesets is None:
        from bot.rules.rulesets import RULESETS

        rulesets = RULESETS

    def shown(value: object) -> str:
        if isinstance(value, bool):
            return "on" if value else "off"
        return "none" if value is None else str(value)

    intro = _(
        locale,
        "`/mahjong new`, `/mahjong config` and `/score` take `options` as name=value pairs, "
        "e.g. `options: mahjong_bonus=20 washing=off` (`none` turns a limit off). Each with its "
        "default and what it means; 🏠 marks a house rule, another reading of the text (the "
        "default is the bot's, the line read is quoted), named in the reveal when it changes "
        "a hand:",
    )
    sections = []
    for name, rules in rulesets.items():
        lines = [f"**{name}**"]
        for spec in rules.option_specs:
            # A default of None that 'none' may not name (the limit game's limit, set by the
            # Mah-Jongg bonus) is said by its help alone: "=none" read as "no limit".
            default = "" if spec.default is None and not spec.allow_none else shown(spec.default)
            named = f"`{spec.name}`={default}" if default else f"`{spec.name}`"
            said = option_help(locale, spec.help)
            if spec.house:
                lines.append(f"- 🏠 {named}: {said} · _{spec.source}_")
            else:
                lines.append(f"- {named}: {said}")
        sections.append((name, "\n".join(lines)))
    return Topic(
        "options",
        _(locale, "Table options"),
        _(locale, "the options each rule set takes, and defaults"),
        "\n".join([intro, *(text for _, text in sections)]),
        tuple(sections),
        intro,
    )


_TOPICS = (*_TOPICS, options_topic())
TOPICS: dict[str, Topic] = {t.key: t for t in _TOPICS}

_ALIASES = {
    "claim": "claims",
    "precedence": "claims",
    "claims-precedence": "claims",
    "limit": "limit-hands",
    "limits": "limit-hands",
    "limit-hand": "limit-hands",
    "maximum": "limit-hands",
    "maximum-hands": "limit-hands",
    "wash": "washing",
    "washing-the-tiles": "washing",
    "settle": "settling",
    "settlement": "settling",
    "paying": "settling",
    "penalty": "penalties",
    "mandarins": "flowers",
    "seasons": "flowers",
    "score": "scoring",
    "score-card": "scoring",
    "doubling": "scoring",
    "limit-score": "limit-scoring",
    "part-i": "pung-chow",
    "part-ii": "pung-chow-limit",
    "filipino": "filipino-16",
    "hand": "notation",
    "notation": "notation",
    "option": "options",
}


def in_language(topic: Topic, locale: str = FALLBACK) -> Topic:
    """``topic`` in ``locale``: its words are catalogue messages (the options topic is built
    again in the language, from the rule sets); English is the topic itself."""
    if catalogue_of(locale) == FALLBACK:
        return topic
    if topic.key == "options":
        return options_topic(locale=locale)
    if topic.key not in TOPICS:
        return topic  # built on the spot (the list of topics): already in its language
    return Topic(
        topic.key,
        _(locale, topic.title),
        _(locale, topic.summary),
        _(locale, topic.text),
        tuple((label, _(locale, text)) for label, text in topic.sections),
        _(locale, topic.intro) if topic.intro else "",
    )


def find_topic(text: str) -> Topic | None:
    """The topic named by ``text`` (its key, an alias, or a unique start of a key)."""
    key = "-".join(text.strip().lower().replace("_", " ").split())
    key = _ALIASES.get(key, key)
    if key in TOPICS:
        return TOPICS[key]
    starts = [t for k, t in TOPICS.items() if k.startswith(key)] if key else []
    return starts[0] if len(starts) == 1 else None


def matching_topics(text: str, limit: int = 25) -> list[Topic]:
    """Topics whose key, title or summary contains ``text`` (for autocomplete)."""
    needle = text.strip().lower()
    found = [
        t
        for t in _TOPICS
        if not needle or needle in t.key or needle in t.title.lower() or needle in t.summary.lower()
    ]
    return found[:limit]
