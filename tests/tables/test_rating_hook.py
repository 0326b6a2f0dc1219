"""A finished game asks the ratings once and keeps their changes for its final standings
(bot/service/tables/service.py ``_rate``; the words: cogs/notify/words.py ``rating_lines``)."""

from __future__ import annotations

from bot.players import decide
from bot.rules.game import GAME_OVER, legal_actions, view
from bot.rules.rulesets import get_ruleset
from bot.service.ratings import RatingChange
from bot.service.tables import control_of
from bot.service.tables.events import rebuild
from cogs.notify.words import standings_embed
from tests.tables.test_table_service import ALICE, BOB, make_service, open_table, settle


async def play_members(service, table, *users: int) -> None:
    """Play the members' seats with the computer player's policy until the game ends."""
    for _ in range(20000):
        await settle(service, table)
        state = table.state
        if state is None or state.phase == GAME_OVER or table.status != "playing":
            return
        for user in users:
            seat = table.seat_of_user(user)
            legal = legal_actions(state, seat)
            if legal:
                rules = get_ruleset(table.ruleset)
                verb, arg = control_of(
                    decide(view(state, seat), legal, rules, state.config.options)
                )
                await service.act(
                    table.id, user, verb, None if arg is None else str(arg), state.move
                )
                break
    raise AssertionError("the game did not end")


class RecordingRatings:
    def __init__(self) -> None:
        self.asked: list[int] = []

    async def rate_game(self, table_id: int) -> dict[int, RatingChange]:
        self.asked.append(table_id)
        return {
            ALICE: RatingChange(table_id, ALICE, 1, 40, 1000, 1112, 1),
            BOB: RatingChange(table_id, BOB, 2, -40, 1000, 888, 1),
        }


async def test_the_final_standings_show_each_members_rating_change() -> None:
    service = make_service()
    service.ratings = RecordingRatings()
    table = await open_table(service, computers=2, hands=1)
    await service.join(table.id, BOB, "bob")
    await service.start_game(table.id, ALICE, can_manage=False)
    await play_members(service, table, ALICE, BOB)
    assert table.status == "finished"
    assert service.ratings.asked == [table.id]
    assert set(table.rating_changes) == {ALICE, BOB}

    embed = standings_embed(table)
    (field,) = embed.fields
    assert field.name == "Ratings"
    assert field.value.splitlines() == [
        "alice: 1,112 (+112) (provisional)",
        "bob: 888 (-112) (provisional)",
    ]


async def test_ended_by_the_host_is_rated_and_a_lobby_is_not() -> None:
    service = make_service()
    service.ratings = RecordingRatings()
    lobby = await open_table(service, computers=1, hands=1)
    await service.cancel(lobby.id, ALICE, can_manage=False)
    assert service.ratings.asked == []
    table = await open_table(service, computers=2, hands=4, channel_id=11)
    await service.join(table.id, BOB, "bob")
    await service.start_game(table.id, ALICE, can_manage=False)
    await service.end(table.id, ALICE, can_manage=False)
    assert service.ratings.asked == [table.id]


async def test_equal_chips_share_a_place_in_the_standings_as_in_the_ratings() -> None:
    """The standings numbered a tie 1, 2 (and the DM said '2nd of 4') while the ratings
    under them read it as a shared place; a table ended before any hand finished listed
    everyone at +0 in an arbitrary order, ranked 1 to 4."""
    import dataclasses

    from cogs.notify.words import standings_line

    service = make_service()
    table = await open_table(service, computers=2, hands=4)
    await service.join(table.id, BOB, "bob")
    await service.start_game(table.id, ALICE, can_manage=False)
    await service.end(table.id, ALICE, can_manage=False)
    closed = standings_embed(table).description
    assert closed == "The table closed before any hand was played."
    assert standings_line(table) == "no hand played"

    played = await open_table(service, computers=2, hands=1, channel_id=11)
    await service.join(played.id, BOB, "bob")
    await service.start_game(played.id, ALICE, can_manage=False)
    await play_members(service, played, ALICE, BOB)
    names = {p.user_id: p.name for p in played.players}
    alice, bob = played.seat_of_user(ALICE), played.seat_of_user(BOB)
    net = [-10] * 4
    net[alice], net[bob] = 15, 15
    played.state = dataclasses.replace(played.state, net=tuple(net))
    lines = standings_embed(played).description.splitlines()
    assert sorted(lines[:2]) == [f"1. {names[ALICE]}: +15", f"1. {names[BOB]}: +15"]
    assert [line.split(".")[0] for line in lines[2:]] == ["3", "3"]


async def test_a_member_who_left_is_named_as_they_played_beside_their_rating() -> None:
    """bob hands his seat to a computer player mid-game: the ratings still name him (the
    seat's name is "Computer (for bob)" by then), also after a restart rebuilt the table."""
    service = make_service()
    service.ratings = RecordingRatings()
    table = await open_table(service, computers=2, hands=1)
    await service.join(table.id, BOB, "bob")
    await service.start_game(table.id, ALICE, can_manage=False)
    await service.leave(table.id, BOB)
    ((row, events),) = await service.store.open_tables()
    assert rebuild(row, events).left == {BOB: "bob"}, "a restart keeps who left"
    await play_members(service, table, ALICE)
    assert table.status == "finished"
    lines = standings_embed(table).fields[0].value.splitlines()
    assert lines == [
        "alice: 1,112 (+112) (provisional)",
        "bob (left): 888 (-112) (provisional)",
    ]
    assert "bob（已離開）: 888" in standings_embed(table, "zh-TW").fields[0].value
