"""Write a sample of every image from seeded random deals: ``python -m renderer.demo --out DIR``.

The bot's ``mahjong-bot render-demo --out DIR`` calls :func:`write_demo`. The tables are
built here (see ``renderer.samples``), not by the game engine.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from renderer import (
    ALL_EMOJI_TILES,
    emoji_name,
    render_hand,
    render_score_card,
    render_table,
    render_tile_emoji,
)
from renderer.samples import NAMES, sample_scores, sample_table


def write_demo(out_dir: str | Path, seed: int = 7) -> list[Path]:
    """Write the sample images into ``out_dir`` (created if needed); returns their paths."""
    out = Path(out_dir)
    (out / "emoji").mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(name: str, data: bytes) -> None:
        path = out / name
        path.write_bytes(data)
        written.append(path)

    save("table_4p.png", render_table(sample_table(seed, players=4), NAMES))
    save("table_3p.png", render_table(sample_table(seed + 1, players=3, turns=45), NAMES))
    save("table_2p.png", render_table(sample_table(seed + 2, players=2, turns=70), NAMES))
    f16 = sample_table(seed + 3, players=4, hand_size=16, turns=36)
    save("table_filipino16.png", render_table(f16, NAMES))
    mine = sample_table(seed, players=4, viewer=0)
    save("table_4p_seat0.png", render_table(mine, NAMES))

    hand_view = sample_table(seed, players=4, viewer=sample_table(seed).turn)
    own = next(s for s in hand_view.seats if s.seat == hand_view.viewer)
    marks = frozenset((own.concealed or ())[::5])
    save("hand.png", render_hand(hand_view, marks=marks))
    f16_hand = sample_table(seed + 3, players=4, hand_size=16, turns=36, viewer=f16.turn)
    save("hand_filipino16.png", render_hand(f16_hand))

    revealed = sample_table(seed + 4, players=4, turns=30, revealed=True)
    winner = revealed.turn
    seat = next(s for s in revealed.seats if s.seat == winner)
    winning_tile = seat.drawn if seat.drawn is not None else (seat.concealed or (None,))[-1]
    scores, payments = sample_scores(revealed, winner)
    save(
        "score_card.png",
        render_score_card(
            revealed, NAMES, scores, payments, winner=winner, winning_tile=winning_tile
        ),
    )
    for tile in ALL_EMOJI_TILES:
        save(f"emoji/{emoji_name(tile)}.png", render_tile_emoji(tile))
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write the images into")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    paths = write_demo(args.out, args.seed)
    print(f"wrote {len(paths)} images to {args.out}")


if __name__ == "__main__":
    main()
