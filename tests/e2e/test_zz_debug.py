import asyncio
from tests.e2e.checks import replay
from tests.e2e.harness import open_table, standings_posted, start_bot
from tests.e2e.players import SimPlayer, play_all, move_buttons
from bot.rules.game import pending_seats


async def test_debug(fake_discord, discord_world, run_bot, tmp_path) -> None:
    w = discord_world
    members = [w.alice, w.bob]
    bot = await start_bot(run_bot, tmp_path)
    opened = await open_table(w, w.alice, [w.bob], computer_players=2, hands=1)
    players = [SimPlayer(u, w.channel) for u in members]
    try:
        await play_all(players, lambda: standings_posted(w.alice, w.channel), timeout=20)
    except AssertionError:
        table = bot.services.tables.get(opened.table_id)
        st = table.state
        print("phase", st.phase, "move", st.move, "controls_move", table.controls_move, "pending", pending_seats(st))
        for u in members:
            seat = table.seat_of_user(u.id)
            print(u, "seat", seat, "legal", bot.services.tables.legal_for(table, seat))
            for m in u.dm_messages():
                print("   ", m.id, m.deleted, m.interaction_id, repr(m.content[:150]), move_buttons(m)[:3], len(m.history))
            p = next(p for p in players if p.user is u)
            print("   done", p._done)
        print(bot.services.tables.notifier.dms.live)
        for t in asyncio.all_tasks():
            n = t.get_name()
            if n.startswith(("notify", "pacer", "dm-")):
                print("TASK", n)
                t.print_stack(limit=8)
        raise
