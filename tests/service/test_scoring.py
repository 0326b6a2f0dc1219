"""ScoringService: /score through the engine with clear errors, /rules topics, and the /settle
flow from scores or hands to a pending settlement, confirmed by every player but the proposer."""

from __future__ import annotations

import re

import pytest

from bot.service.guild_settings import GuildSettingsService
from bot.service.ledger import PENDING_SECONDS, LedgerService
from bot.service.rules_topics import TOPICS, find_topic, matching_topics
from bot.service.scoring import ScoringError, ScoringService, SettlePlayer
from tests.store.helpers import FakeClock

G = 1
ALICE, BOB, CAROL, DAVE = 101, 102, 103, 104


async def test_score_example_1_and_3(scoring: ScoringService) -> None:
    one = await scoring.score("123m 456m 789s 55s 22p win 2p from W", seat="S")
    assert one.score.total == 22 and one.winner
    assert one.ruleset == "pung-chow" and one.seat == 1
    # South wins 22 on West's discard: East pays double, the others single.
    assert {(p.payer, p.amount) for p in one.payments} == {(0, 44), (2, 22), (3, 22)}
    three = await scoring.score("111s 333p RR [555m] [444s]", win="win R self-draw", seat=3)
    assert three.score.total == 52  # the errata's pair of dragons (p.34)
    assert three.score.lines[0].name == "Mah-Jongg" and "p." in three.score.lines[0].source
    assert "[555m] [444s] win 7z self-draw" in three.text


async def test_score_uses_the_servers_rule_set_and_options(
    scoring: ScoringService, settings: GuildSettingsService
) -> None:
    await settings.update(G, ruleset="pung-chow-limit", options={"limit": 1000})
    result = await scoring.score("19m19p19s1234567z win 1m", guild_id=G)
    assert result.ruleset == "pung-chow-limit" and result.limit == 1000
    assert result.score.limit_hand is not None and result.score.total == 1000
    other = await scoring.score("19m19p19s1234567z win 1m", guild_id=G, rules="pung-chow-limit")
    assert other.limit == 1000
    singapore = await scoring.score("19m19p19s1234567z win 1m", guild_id=G, rules="singapore")
    assert singapore.ruleset == "singapore" and singapore.options["maximum"] == 2000


async def test_a_hand_without_a_win_is_scored_as_a_losing_hand(scoring: ScoringService) -> None:
    result = await scoring.score("111s 333p RR 555m 44s")
    assert not result.winner and result.payments == ()
    assert result.score.total == 8 + 4 + 4 + 2  # three sets concealed, the pair of dragons


async def test_flowers_listed_are_played_with(scoring: ScoringService) -> None:
    result = await scoring.score("123m 456m 789s 55s 22p F1 win 2p self-draw", seat="E")
    assert result.options["flowers"] is True
    assert any("flower" in line.name.lower() or line.doubles for line in result.score.lines)
    with pytest.raises(ScoringError, match="without flowers"):
        await scoring.score(
            "123m 456m 789s 55s 22p F1 win 2p", seat="E", options={"flowers": False}
        )


@pytest.mark.parametrize(
    ("hand", "kwargs", "message"),
    [
        ("123m 456x 789s 55s 22p win 2p", {}, "'456x' is not a tile"),
        ("123 456m 789s 55s 22p win 2p", {}, "'123' has no suit"),
        ("123m 456m 789s 55s 22p win 2p", {"rules": "riichi"}, "unknown rule set 'riichi'"),
        ("123m 456m 789s 55s 22p win 2p", {"seat": "X"}, "seat must be one of"),
        ("123m 456m 789s 55s 22p win 2p from E", {"seat": "E"}, "your own discard"),
        ("5555s 456m 789s 55s 22p win 2p", {}, "copies"),
        ("123m 456m 789s 22p win 2p", {}, "tiles"),
        ("123m 456m 789s 55s 22p win 2p", {"options": {"colour": 1}}, "unknown option"),
        ("1m " * 200, {}, "too long"),
    ],
)
async def test_bad_input_is_named(
    scoring: ScoringService, hand: str, kwargs: dict, message: str
) -> None:
    with pytest.raises(ScoringError, match=message):
        await scoring.score(hand, **kwargs)


def test_rules_topics(scoring: ScoringService) -> None:
    listing = scoring.rules_text(None)
    assert all(f"`{key}`" in listing.text for key in TOPICS)
    for key, topic in TOPICS.items():
        assert scoring.rules_text(key) is topic
        assert len(topic.text) < 4000 and len(topic.title) <= 256
    assert scoring.rules_text("Washing").key == "washing"
    assert scoring.rules_text("claims precedence").key == "claims"
    assert find_topic("limit").key == "limit-hands"
    assert find_topic("sing").key == "singapore"
    assert find_topic("pung") is None  # ambiguous: pung-chow or pung-chow-limit
    assert "washing" in [t.key for t in matching_topics("wash")]
    assert [t.key for t in matching_topics("notation")] == ["notation"]
    with pytest.raises(ScoringError, match="no rules topic"):
        scoring.rules_text("poker")
    for ruleset in ("pung-chow", "pung-chow-limit", "filipino-16", "singapore"):
        assert ruleset in TOPICS
    # /rules options lists every rule set's options with the defaults the engine uses.
    options = scoring.rules_text("options").text
    assert "**pung-chow-limit**\n- `limit`: the limit (p.60)" in options
    assert "- `washing`=on: washing the tiles with 9+ different heads (p.61)" in options
    assert "- `maximum`=2000: the maximum hand" in options


def test_rules_topics_never_name_a_file_of_the_repository() -> None:
    """Players read them in Discord: a path like docs/rules.md means nothing there."""
    path = re.compile(r"\b[\w./-]+\.(md|py|sql|toml)\b|\b(docs|bot|cogs|renderer|tests)/")
    for topic in TOPICS.values():
        for text in (topic.title, topic.summary, topic.text):
            assert not path.search(text), (topic.key, path.search(text))


# -- /settle ---------------------------------------------------------------------------------


def layout_1() -> list[SettlePlayer]:
    """Pung Chow p.46-47 with the errata: East 480 (wins), South 64, West 272, North 16."""
    return [
        SettlePlayer(ALICE, "E", 480, "alice"),
        SettlePlayer(BOB, "S", "64", "bob"),
        SettlePlayer(CAROL, "W", 272, "carol"),
        SettlePlayer(DAVE, "N", 16, "dave"),
    ]


async def test_settle_from_scores_needs_every_other_player(
    scoring: ScoringService, ledger: LedgerService
) -> None:
    pending = await scoring.propose_settlement(G, 50, ALICE, "pung-chow", layout_1(), ALICE)
    assert pending.status == "pending" and pending.kind == "manual"
    pays = {(p["payer"], p["payee"]): p["amount"] for p in pending.details["payments"]}
    assert pays[(BOB, ALICE)] == pays[(CAROL, ALICE)] == pays[(DAVE, ALICE)] == 960
    assert pays[(BOB, CAROL)] == 208 and pays[(DAVE, CAROL)] == 256 and pays[(DAVE, BOB)] == 48
    assert {p.user_id for p in pending.waiting_for} == {BOB, CAROL, DAVE}
    assert await ledger.balance(G, ALICE) == 1000
    for user in (BOB, CAROL):
        _, posted = await scoring.confirm(pending.id, user, guild_id=G)
        assert not posted
    with pytest.raises(ScoringError, match="already confirmed"):
        await scoring.confirm(pending.id, BOB, guild_id=G)
    with pytest.raises(ScoringError, match="You proposed this settlement"):
        await scoring.confirm(pending.id, ALICE, guild_id=G)
    assert (await ledger.stats(G, ALICE)).hands == 0
    done, posted = await scoring.confirm(pending.id, DAVE, guild_id=G)
    assert posted and done.status == "posted"
    assert await ledger.balance(G, ALICE) == 1000 + 2880
    assert await ledger.balance(G, DAVE) == 1000 - 1264
    stats = await ledger.stats(G, ALICE)
    assert (stats.hands, stats.wins, stats.biggest_hand) == (1, 1, 480)


async def test_settle_with_no_scores_waits_for_the_others_and_expires(
    scoring: ScoringService, ledger: LedgerService, clock: FakeClock
) -> None:
    """Issue 11: "/settle winner:me east:me south:victim" with no scores was posted at once."""
    players = [SettlePlayer(ALICE, "E", None, "alice"), SettlePlayer(BOB, "S", None, "bob")]
    pending = await scoring.propose_settlement(G, None, ALICE, None, players, ALICE)
    assert pending.details["payments"] == []
    assert scoring.settlement_status(pending) == "pending"
    assert [p.user_id for p in pending.waiting_for] == [BOB]
    assert (await ledger.stats(G, ALICE)).hands == 0 and not await ledger.history(G, BOB)
    clock.advance(PENDING_SECONDS)
    assert scoring.settlement_status(pending) == "expired"
    with pytest.raises(ScoringError, match="expired"):
        await scoring.confirm(pending.id, BOB, guild_id=G)
    assert (await ledger.stats(G, ALICE)).hands == 0 and not await ledger.history(G, BOB)


async def test_settle_with_the_winners_hand(scoring: ScoringService) -> None:
    players = [
        SettlePlayer(ALICE, "S", "123m 456m 789s 55s 22p win 2p from W", "alice"),
        SettlePlayer(BOB, "E", None, "bob"),
        SettlePlayer(CAROL, "W", 0, "carol"),
    ]
    pending = await scoring.propose_settlement(G, None, BOB, None, players, None)
    assert pending.details["winner"] == ALICE  # the hand says how it won
    pays = {p["payer"]: p["amount"] for p in pending.details["payments"]}
    assert pays == {BOB: 44, CAROL: 22}
    assert {p.user_id for p in pending.waiting_for} == {ALICE, CAROL}  # bob proposed it


async def test_settle_with_every_hand(scoring: ScoringService) -> None:
    players = [
        SettlePlayer(ALICE, "E", "111s 333p RR [555m] [444s] win R self-draw", "alice"),
        SettlePlayer(BOB, "S", "123m 456m 789s 55s 22p", "bob"),
    ]
    pending = await scoring.propose_settlement(G, None, ALICE, "pung-chow", players, ALICE)
    assert [p["score"] for p in pending.details["players"]] == [52, 0]
    assert pending.details["payments"] == [
        {"payer": BOB, "payee": ALICE, "amount": 104, "reason": "Mah-Jongg"}
    ]


@pytest.mark.parametrize(
    ("players", "winner", "message"),
    [
        ([SettlePlayer(ALICE, "E", 10)], ALICE, "two to four players"),
        ([SettlePlayer(ALICE, "E", 10), SettlePlayer(BOB, "E", 0)], ALICE, "two players sit"),
        ([SettlePlayer(ALICE, "E", 10), SettlePlayer(ALICE, "S", 0)], ALICE, "listed twice"),
        ([SettlePlayer(ALICE, "E", 10), SettlePlayer(BOB, "S", 0)], CAROL, "must be one of"),
        ([SettlePlayer(ALICE, "E", 10), SettlePlayer(BOB, "S", -4)], ALICE, "between 0 and"),
        (
            [SettlePlayer(ALICE, "E", "123m 456m 789s 55s 22p"), SettlePlayer(BOB, "S", 0)],
            ALICE,
            "must say how it won",
        ),
        (
            [SettlePlayer(ALICE, "E", "123m 456m 789s 55s 22p win 2p"), SettlePlayer(BOB, "S")],
            BOB,
            "the winner sits South",
        ),
        (
            [SettlePlayer(ALICE, "E", "123m 45x"), SettlePlayer(BOB, "S")],
            ALICE,
            "East's hand: '45x' is not a tile",
        ),
    ],
)
async def test_settle_refuses_bad_input(
    scoring: ScoringService, players: list, winner: int, message: str
) -> None:
    with pytest.raises(ScoringError, match=message):
        await scoring.propose_settlement(G, None, ALICE, "pung-chow", players, winner)


async def test_cancel_and_a_drawn_game(scoring: ScoringService, ledger: LedgerService) -> None:
    pending = await scoring.propose_settlement(G, None, CAROL, "pung-chow", layout_1(), ALICE)
    with pytest.raises(ScoringError, match="Only the players of this settlement"):
        await scoring.cancel(pending.id, 999, guild_id=G)
    assert (await scoring.cancel(pending.id, CAROL, guild_id=G)).status == "cancelled"
    drawn = await scoring.propose_settlement(
        G, None, CAROL, "singapore", [SettlePlayer(ALICE, "E"), SettlePlayer(BOB, "S")], None
    )
    assert drawn.status == "pending" and drawn.entries == ()
    assert {p.user_id for p in drawn.waiting_for} == {ALICE, BOB}  # carol is not playing
    await scoring.confirm(drawn.id, ALICE, guild_id=G)
    done, posted = await scoring.confirm(drawn.id, BOB, guild_id=G)
    assert posted and done.status == "posted"
    assert await ledger.balance(G, ALICE) == 1000 and (await ledger.stats(G, BOB)).hands == 1


def test_the_options_topic_never_shows_a_default_its_option_refuses() -> None:
    """The limit game's limit read "`limit`=none" (its default is set by the Mah-Jongg
    bonus), though `limit=none` is refused there: the limit game always has one."""
    from bot.rules.rulesets import RULESETS

    text = TOPICS["options"].text
    section = text.split("**pung-chow-limit**")[1].split("**filipino-16**")[0]
    assert "`limit`=none" not in section and "- `limit`: the limit (p.60)" in section
    assert "**pung-chow**\n- `limit`=none: " in text  # Part I: none means no limit
    for rules in RULESETS.values():
        for spec in rules.option_specs:
            assert f"`{spec.name}`" in text
