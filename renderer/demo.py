"""Write a sample of every image from seeded games: ``python -m renderer.demo --out DIR``.

The bot's ``mahjong-bot render-demo --out DIR`` calls :func:`write_demo`. The tables come from
real games of the engine, played by the computer players from a fixed seed, so the pictures
show what players will see (the same seed gives the same pictures).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from renderer import (
    ALL_EMOJI_TILES,
    emoji_name,
    render_hand,
    render_score_card,
    render_seat_table,
    render_table,
    render_tile_emoji,
)
from renderer.samples import play_game, played_hand

NAMES = ("Alice", "Bartholomew the Magnificent", "Chen", "Dolores")


def _ready_marks(table_view: Any) -> frozenset[int]:
    from bot.rules.analysis import discards_keeping_ready

    own = table_view.seats[table_view.viewer]
    return discards_keeping_ready(
        [*(own.concealed or ()), *([own.drawn] if own.drawn is not None else [])]
    )


def write_demo(out_dir: str | Path, seed: int = 7) -> list[Path]:
    """Write the sample images into ``out_dir`` (created if needed); returns their paths."""
    from bot.rules.game import view

    out = Path(out_dir)
    (out / "emoji").mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(name: str, data: bytes) -> None:
        path = out / name
        path.write_bytes(data)
        written.append(path)

    middle = play_game("pung-chow", seed, moves=34)
    save("table_4p.png", render_table(view(middle, None), NAMES))
    turn = middle.turn
    hand_view = view(middle, turn)
    marks = _ready_marks(hand_view)
    save("seat_table.png", render_seat_table(hand_view, NAMES, marks=marks))
    save("hand.png", render_hand(hand_view, marks=marks))
    save(
        "table_3p.png",
        render_table(view(play_game("pung-chow", seed + 1, players=3, moves=24), None), NAMES),
    )
    save(
        "table_2p.png",
        render_table(view(play_game("pung-chow", seed + 2, players=2, moves=30), None), NAMES),
    )
    sixteen = play_game("filipino-16", seed + 3, moves=40)
    save("table_filipino16.png", render_table(view(sixteen, None), NAMES))
    save("seat_table_filipino16.png", render_seat_table(view(sixteen, sixteen.turn), NAMES))
    save("hand_filipino16.png", render_hand(view(sixteen, sixteen.turn)))

    save("score_card.png", _score_card(seed + 4))
    for tile in ALL_EMOJI_TILES:
        save(f"emoji/{emoji_name(tile)}.png", render_tile_emoji(tile))
    return written


def _score_card(seed: int) -> bytes:
    from bot.rules.game import view

    over = play_game("pung-chow-limit", seed)
    result = over.results[-1]
    return render_score_card(
        view(over, None),
        NAMES,
        list(result.scores),
        list(result.payments),
        winner=result.winner,
        winning_tile=result.win.tile if result.win is not None else None,
    )


def write_readme_images(out_dir: str | Path) -> list[Path]:
    """The README's pictures (``docs/images``): the channel's table and the table in a
    player's DM at the same moment (58 moves into a seeded four-player game: the player to
    move holds a drawn tile and two discards that leave the hand ready), and a score card."""
    from bot.rules.game import view

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    state = played_hand("pung-chow", 27, stop=58)[-1]
    own = view(state, state.turn)
    pictures = {
        "table.png": render_table(view(state, None), NAMES),
        "seat-table.png": render_seat_table(own, NAMES, marks=_ready_marks(own)),
        "score-card.png": _score_card(11),
    }
    paths = []
    for name, data in pictures.items():
        (out / name).write_bytes(data)
        paths.append(out / name)
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write the images into")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--readme", action="store_true", help="write the README's pictures (docs/images) instead"
    )
    args = parser.parse_args(argv)
    if args.readme:
        paths = write_readme_images(args.out)
        print(f"wrote {len(paths)} images to {args.out}")
        return
    paths = write_demo(args.out, args.seed)
    print(f"wrote {len(paths)} images to {args.out}")


if __name__ == "__main__":
    main()
