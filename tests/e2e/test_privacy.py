"""Privacy: across a whole game no member is ever shown another member's concealed tiles
before the reveal, in any version of any message they can see (content, embeds, alt texts,
button labels and custom ids, images). The game's own check is in every end-to-end game
(``checks.check_privacy``); here it is also shown to catch each kind of leak, by feeding it
doctored copies of what a member really saw."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.rules.tiles import short_name, tile_name
from tests.e2e.checks import Privacy, check_privacy, recording_images, replay, seen_by
from tests.e2e.harness import open_table, recording_states, standings_posted, start_bot
from tests.e2e.players import SimPlayer, play_all


async def test_no_member_sees_another_members_tiles_and_the_check_would_tell(
    fake_discord, discord_world, run_bot, tmp_path
) -> None:
    w = discord_world
    members = [w.alice, w.bob]
    with recording_states() as states, recording_images() as images:
        bot = await start_bot(run_bot, tmp_path)
        opened = await open_table(w, w.alice, [w.bob], computer_players=2, hands=1)
        place = opened.place
        players = [SimPlayer(u, place) for u in members]
        await play_all(players, lambda: standings_posted(w.alice, place), timeout=180)
        await bot.services.tables.notifier.drain()
    table = replay(tmp_path / "db.sqlite3", opened.table_id)
    (snapshots,) = states.games.values()
    seats = {u.id: table.seat_of(u.id) for u in members}
    checked = check_privacy(
        fake_discord, members, [w.channel, place], opened.table_id, snapshots, seats, images
    )
    assert checked["images"] > 20 and checked["controls"] > 5 and checked["tile words"] > 20

    # Now what alice saw, doctored one way at a time: each must be caught.
    privacy = Privacy(opened.table_id, [s.state for s in snapshots], seats, images)
    seen = seen_by(fake_discord, w.alice, [w.channel, place])
    bob_saw = seen_by(fake_discord, w.bob, [w.channel, place])
    tables = [v for v in seen if any(a.filename == "table.png" for a in v.attachments)]
    early = tables[2]
    bob_hand = next(a for v in bob_saw for a in v.attachments if a.filename == "seat.png")
    # The state the early table was drawn from, and a tile bob held then that nobody could
    # know: neither shown on the table nor in alice's own hand.
    state = max((s for s in snapshots if s.at <= early.made_at), key=lambda s: s.at).state
    public = privacy._public_until(snapshots, early.made_at, seats[w.alice.id])
    secret = next(t for t in state.seats[seats[w.bob.id]].concealed if t not in public)
    mine = [v for v in seen if v.message.guild_id is None and v.components]
    with_controls = next(v for v in mine if any("discard" in str(c) for c in v.components))

    def caught(version, why: str) -> None:
        with pytest.raises(AssertionError) as error:
            privacy.check_user(w.alice, [version], snapshots)
        assert why in str(error.value), str(error.value)

    # Bob's hand image where alice looks.
    caught(replace(early, attachments=[bob_hand]), "got the hand of seat")
    # One of bob's tiles named in the channel before anyone could know it.
    caught(replace(early, content=f"bob draws {tile_name(secret)}"), "before anyone could know")
    # ... or in the table's alt text.
    alt = replace(early.attachments[0], description=f"Table: bob holds {tile_name(secret)}")
    caught(replace(early, attachments=[alt]), "alt text names tiles")
    # A button to discard a tile alice does not hold.
    doctored = _retile(with_controls.components)
    caught(replace(with_controls, components=doctored), "was offered")
    # Saying who passed on a discard.
    caught(replace(early, content="bob: pass"), "who passed")
    # A hint that does not come from alice's own view (it names bob's tile as a wait).
    hint = f"-# Hint: Waiting on {tile_name(secret)} (4 unseen)."
    caught(replace(with_controls, content=with_controls.content + "\n" + hint), "hint not from")
    # An edit that changes nothing.
    with pytest.raises(AssertionError, match="edited to the same thing"):
        privacy.check_user(w.alice, [early, replace(early)], snapshots)


def _retile(components: list[dict]) -> list[dict]:
    """The components with their first discard button turned into one for a tile the
    message did not offer."""
    import copy

    out = copy.deepcopy(components)
    buttons, stack = [], list(out)
    while stack:
        c = stack.pop()
        stack.extend(c.get("components") or [])
        if ":discard:" in (c.get("custom_id") or "") and not c["custom_id"].endswith(":d"):
            buttons.append(c)
    offered = {int(b["custom_id"].rsplit(":", 1)[1]) for b in buttons}
    tile = next(t for t in range(34) if t not in offered)
    buttons[0]["custom_id"] = buttons[0]["custom_id"].rsplit(":", 1)[0] + f":{tile}"
    buttons[0]["label"] = short_name(tile)
    return out
