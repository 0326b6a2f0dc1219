"""Score lines and the answers around them in the reader's language (issue 13.4): a private
answer in the member's Discord locale, a public one in the server's (in a DM, where there is
no server, the member's); the reveal's score lines in the channel's language. Cheap: the
cogs' own functions, no Discord."""

from __future__ import annotations

from types import SimpleNamespace

from bot.i18n import answer_locale
from bot.service.scoring import ScoringService
from cogs.scoring import score_card_request, score_embed

EXAMPLE_1 = "123m 456m 789s 55s 22p win 2p from W"


def interaction(guild: str | None, member: str) -> SimpleNamespace:
    return SimpleNamespace(guild_id=None if guild is None else 1, guild_locale=guild, locale=member)


def test_private_answers_follow_the_member_and_public_ones_the_server() -> None:
    on_server = interaction("zh-CN", "zh-TW")
    assert answer_locale(on_server, private=True) == "zh-TW"  # ephemeral: the member's
    assert answer_locale(on_server) == "zh-CN"  # in the channel: the server's
    assert answer_locale(interaction(None, "zh-TW")) == "zh-TW"  # a DM: no server
    assert answer_locale(interaction("en-US", "zh-TW")) == "en-US"
    assert answer_locale(interaction("fr", "de"), private=True) == "en-US"  # the fallback


async def test_score_answer_and_card_in_each_language() -> None:
    result = await ScoringService(None).score(EXAMPLE_1, guild_id=None, rules="pung-chow")
    tw = score_embed(result, "zh-TW")
    assert tw.title == "胡牌：22 分"
    assert "二筒明刻" in (tw.description or "") and "東家，東圈" in (tw.description or "")
    assert "Pung Chow p.3" in (tw.description or "")  # the book's page stays cited
    assert "南付給東 **44**" in tw.fields[0].value
    cn = score_embed(result, "zh-CN")
    assert "二筒明刻" in (cn.description or "") and "南付给东 **44**" in cn.fields[0].value
    english = score_embed(result)
    assert english.title == "Mah-Jongg: 22 points"
    assert "3 twos (dots) (exposed)" in (english.description or "")
    args, kwargs = score_card_request(result, "王小明", "zh-TW")
    assert kwargs["locale"] == "zh-TW" and args[1][1] == "南"  # the other seats: their winds


def test_the_reveals_score_lines_are_in_the_channels_language() -> None:
    from bot.rules.game import Discard, MahJongg
    from bot.service.privacy import names_of
    from bot.service.tables.model import LiveTable, Player
    from cogs.notify.words import reveal_embed, win_words
    from tests.game.helpers import play, table, tiles, time_out

    state = table(
        "singapore",
        ["19m19p19s1234567z8m", "234m456m567p345s9p", "147m258p369s1234z", "369m147p258s5567z"],
        draws=["9p"],
    )
    state = play(state, Discard(0, tiles("8m")[0]))
    state = time_out(state, lambda st: st.turn == 1 and st.seats[1].drawn is not None)
    state = play(state, MahJongg(1))
    (result,) = state.results
    live = LiveTable(1, 1, 1, 1, "singapore", {}, 60, 15, 1, state=state, status="playing")
    live.players = [Player(10 + i, name) for i, name in enumerate(("ann", "bo", "cy", "di"))]

    winner = names_of(live)[result.winner]
    english = {f.name: f.value for f in reveal_embed(live, result).fields}
    assert "Win by drawing from the wall: 2" in english[winner]
    chinese = {f.name: f.value for f in reveal_embed(live, result, "zh-TW").fields}
    assert "自摸胡牌: 2" in chinese[winner] and "門前清自摸: x2" in chinese[winner]
    assert "進位到十（20）: -4" in chinese[winner]
    assert not [
        line
        for line in chinese[winner].splitlines()
        if any(c.isascii() and c.isalpha() for c in line.partition(": ")[0])
    ]
    said = win_words(result, ("ann", "bo", "cy", "di"), "zh-TW")
    assert "九筒" in said and "門前清自摸" in said


def test_hints_in_the_members_language() -> None:
    from dataclasses import replace

    from bot.rules.game import view
    from bot.rules.melds import Kind, Meld
    from bot.rules.tiles import parse_tiles
    from bot.service.hints import seat_hints
    from tests.game.helpers import table
    from tests.service.test_hints import OTHERS, _with

    state = table("pung-chow", ["123m 456m 789p 22s 35s 9p", *OTHERS])
    assert seat_hints(view(state, 0), locale="zh-TW").lines == ("打出9筒即可聽牌。",)
    state = table("pung-chow-limit", ["123m 456m 789p 22s 35s 7z", *OTHERS])
    seen = view(state, 0)
    dragons = tuple(Meld(Kind.PUNG, parse_tiles(t)[0]) for t in ("5z", "6z"))
    risky = replace(seen, seats=_with(seen, 1, melds=dragons))
    (warning,) = seat_hints(risky, locale="zh-CN").warnings
    assert warning.startswith("小心：南家亮出了两副三元刻子。如果你打出红中")


def test_rules_and_notation_in_the_members_language() -> None:
    from bot.service.hand_reading import hand_hint, read_hand
    from cogs.scoring import rules_message

    service = ScoringService(None)
    washing = service.rules_text("washing", "zh-TW")
    assert washing.title == "洗牌（Pung Chow p.61）" and "9 種以上不同的么九字牌" in washing.text
    assert service.rules_text("washing").title == "Washing the tiles (Pung Chow p.61)"
    topics = service.rules_text(None, "zh-CN")
    assert topics.title == "规则：主题" and "`washing`: 起手牌有九种以上" in topics.text
    embed, view = rules_message(service.rules_text("options", "zh-TW"), 1, "zh-TW")
    assert "胡牌的分數" in (embed.description or "") and "（2／" in (embed.title or "")
    assert view.children[-1].item.label == "分享到頻道"  # type: ignore[attr-defined]

    reading = read_hand("123m 456m 789s 55s 22p win 2p from W", "pung-chow", "zh-TW")
    assert reading.lines[0] == "手中：1 2 3 4 5 6 萬 · 2 2 2 筒 · 5 5 7 8 9 條"
    assert reading.lines[-1] == "胡 **二筒**，胡別家打出的牌，由西家打出"
    assert reading.verdict == "14 張：完整的胡牌。"
    assert hand_hint("123m 456m 789s 55s 22p", "pung-chow", "zh-TW").startswith("13 張，聽 ")


def test_the_help_in_the_members_language() -> None:
    from cogs.help import TOPICS, help_embed

    embed = help_embed("zh-TW")
    assert embed.title == "怎麼玩"
    assert embed.fields[0].name == "加入牌桌"
    assert all(f.value != text for f, (_name, text) in zip(embed.fields, TOPICS, strict=True))
    assert help_embed().fields[0].name == "Joining a table"


def test_refusals_with_values_in_the_members_language() -> None:
    from bot.i18n.refusals import refusal_words
    from bot.rules.notation import parse_hand
    from bot.rules.tiles import NotationError
    from bot.service.tables.lobby import cap_refusal

    try:
        parse_hand("123m 456x")
    except NotationError as exc:
        said = str(exc)
    assert refusal_words("zh-TW", said).startswith("「456x」不是牌：expected tiles")
    assert refusal_words("en-US", said) == said
    assert refusal_words("zh-CN", cap_refusal("member", 3, 3)).startswith("你已经在 3 张开放的牌桌")
    assert refusal_words("zh-TW", "5 copies of 5 Bamboo: a set has only four") == (
        "五條有 5 張：一副牌每種只有四張"
    )
    assert (
        refusal_words("zh-TW", "South's score is given, not the player")
        == "給了南的分數，卻沒有給玩家"
    )
    assert refusal_words("zh-TW", "You left the table.") == "你已離開牌桌。"
    assert refusal_words("zh-TW", "something else entirely") == "something else entirely"


def test_the_line_that_opens_a_game_in_the_tables_language() -> None:
    from bot.i18n.moves import move_words

    line = (
        "The game begins: alice threw 3+4; indicators laid out: East, South; bob is the first East"
    )
    assert move_words("zh-TW", line) == (
        "牌局開始：alice 擲出 3+4；擺出的風牌：東、南；bob 是第一位東家"
    )
    assert move_words("en-US", line) == line
    odd = "The game begins: something new"
    assert move_words("zh-TW", odd) == odd
