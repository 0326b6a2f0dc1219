"""Every /score and /settle option, as any string at all, through the parse layer the cogs
use (``_as_win``, ``parse_option_text``, then the ScoringService): a result or a clear
error of the user's (ScoringError, OptionError), never anything else (issue 16 item 8)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules.options import OptionError, parse_option_text
from bot.service.scoring import ScoringError, ScoringService, SettlePlayer
from cogs.scoring import _as_win

ALICE, BOB, CAROL = 101, 102, 103
USER_ERRORS = (ScoringError, OptionError)
HANDISH = st.text(
    alphabet="0123456789mpszcdbf EWSNRGhw[]{}:=,+-winfromdiscardselfdrawloosetileriichi５",
    max_size=60,
)
STRINGS = st.one_of(st.text(max_size=300), HANDISH)
WINDS = st.sampled_from(["E", "S", "W", "N"])
RULES = st.sampled_from([None, "pung-chow", "pung-chow-limit", "filipino-16", "singapore"])


class _NoSettings:
    """A server that set nothing: the service's defaults."""

    async def get(self, guild_id: int) -> Any:
        return None


class _Ledger:
    guild_settings = _NoSettings()


def service() -> ScoringService:
    """The scoring service without a database: /score and the checking half of /settle
    read only the server's settings (here: none)."""
    scoring = ScoringService.__new__(ScoringService)
    scoring.ledger = _Ledger()  # type: ignore[assignment]
    return scoring


def clear(error: BaseException) -> None:
    text = str(error)
    assert text and "Traceback" not in text and "object at 0x" not in text, text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hand=STRINGS,
    win=st.none() | STRINGS,
    options=st.none() | STRINGS,
    rules=RULES,
    seat=WINDS,
    round_wind=WINDS,
    renchon=st.integers(0, 9),
)
def test_score_takes_any_strings(
    hand: str, win: str | None, options: str | None, rules: str | None, **kwargs: Any
) -> None:
    async def run() -> None:
        try:
            result = await service().score(
                hand,
                guild_id=1,
                rules=rules,
                win=_as_win(win),
                options=parse_option_text(options) or None,
                **kwargs,
            )
        except USER_ERRORS as exc:
            clear(exc)
            return
        assert result.score.total >= 0
        assert sum(result.net.values()) == 0

    asyncio.run(run())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scores=st.lists(st.none() | STRINGS, min_size=3, max_size=3),
    rules=RULES,
    round_wind=WINDS,
    winner=st.sampled_from([ALICE, BOB, CAROL]),
)
def test_settle_takes_any_strings(
    scores: list[str | None], rules: str | None, round_wind: str, winner: int
) -> None:
    players = [
        SettlePlayer(user, wind, result, name)
        for (user, wind, name), result in zip(
            ((ALICE, "E", "alice"), (BOB, "S", "bob"), (CAROL, "W", "carol")), scores, strict=True
        )
    ]

    async def run() -> None:
        try:
            proposal = await service().prepare_settlement(
                1, None, ALICE, rules, players, winner, round_wind=round_wind
            )
        except USER_ERRORS as exc:
            clear(exc)
            return
        net: dict[int, int] = {}
        for payer, payee, amount in proposal.payments:
            assert amount >= 0
            net[payer] = net.get(payer, 0) - amount
            net[payee] = net.get(payee, 0) + amount
        assert sum(net.values()) == 0
        assert {p.user_id for p in proposal.parties if p.must_confirm} == {BOB, CAROL}

    asyncio.run(run())


@pytest.mark.parametrize(
    ("hand", "win", "message"),
    [
        ("123m 456m 789s 55s 22p 2p", None, "say which tile completed it, e.g. win:2d"),
        ("123m 456m 789s 55s 22p 9p", None, "does not make 4 sets and a pair"),
        ("123m 456m 789s 55s 22p", "2p discard", "must say who discarded it"),
        ("123m 456m 789s 55s 22p", "2p dealt", "only East wins"),
        ("１２３m 456m 789s 55s 22p", "2p", "is not a tile"),
    ],
)
def test_score_refusals_say_what_to_do(hand: str, win: str | None, message: str) -> None:
    with pytest.raises(ScoringError, match=message):
        asyncio.run(service().score(hand, rules="pung-chow", seat="S", win=_as_win(win)))


def test_settle_refuses_a_table_without_east() -> None:
    players = [SettlePlayer(ALICE, "S", 10), SettlePlayer(BOB, "W", 0)]
    with pytest.raises(ScoringError, match="every game has an East"):
        asyncio.run(service().prepare_settlement(1, None, ALICE, None, players, ALICE))


@pytest.mark.parametrize(
    ("rules", "option"),
    [("singapore", "ante"), ("singapore", "maximum"), ("pung-chow", "limit")],
)
def test_a_huge_number_option_is_refused(rules: str, option: str) -> None:
    """``/score options:ante=99999999999999999999 renchon:3`` showed payments of 21 digits:
    a number no ledger column holds."""
    hand, win = "123s 456s 789s 234m 99p", _as_win("9p self-draw")
    with pytest.raises(USER_ERRORS, match=f"'{option}' must be at most 10,000,000"):
        asyncio.run(
            service().score(
                hand, rules=rules, win=win, renchon=3, options={option: "99999999999999999999"}
            )
        )
    result = asyncio.run(
        service().score(hand, rules=rules, win=win, renchon=3, options={option: "10000000"})
    )
    assert result.score.total > 0
