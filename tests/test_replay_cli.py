"""``mahjong-bot replay``: a stored hand's frames written to a folder, or as one GIF / APNG,
from the seat asked for; a bad code or seat is one line and status 1."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bot.__main__ import main
from bot.service.replays import TABLE, HandReplay, ReplayService, replay_code
from bot.store.database import open_database
from bot.store.replays_repo import ReplaysRepository
from bot.store.tables_repo import TablesRepository
from tests.store.test_replays_repo import stored_game


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "db.sqlite3"

    async def make() -> None:
        db = await open_database(path)
        try:
            await stored_game(TablesRepository(db), guild=1, channel=10, seed="cli-seed")
        finally:
            await db.close()

    asyncio.run(make())
    return path


def opened(database: Path) -> HandReplay:
    """The hand as the service rebuilds it (for the counts the tool must match)."""

    async def find() -> HandReplay:
        db = await open_database(database)
        try:
            return await ReplayService(ReplaysRepository(db)).open(None, 1, 1)
        finally:
            await db.close()

    return asyncio.run(find())


def test_frames_of_a_seat_go_to_the_folder(database: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "frames"
    assert (
        main(["replay", "1", "1", "--db", str(database), "--out", str(out), "--seat", "alice"]) == 0
    )
    written = sorted(out.iterdir())
    code = replay_code("cli-seed", 1)
    assert written[0].name == f"{code}-alice-001.png"
    replay = opened(database)
    alice = next(s for s, name, _ in replay.seats() if name == "alice")
    assert len(written) == len(replay.stops(alice))
    sizes = {Image.open(p).size for p in written[:-1]}
    assert len(sizes) == 1  # a seat's table keeps its size all hand long
    assert f"wrote {len(written)} frames" in capsys.readouterr().out


def test_an_animation_from_the_code(database: Path, tmp_path: Path) -> None:
    code = replay_code("cli-seed", 1)
    assert main(["replay", code, "--db", str(database), "--out", str(tmp_path), "--gif"]) == 0
    gif = Image.open(tmp_path / f"{code}-table.gif")
    assert gif.n_frames == len(opened(database).stops(TABLE)) and gif.info["loop"] == 0
    # Every frame the very picture, though the GIF stores only what changed: well under the
    # frames' own PNGs together (whole frames made it larger than they are).
    assert main(["replay", code, "--db", str(database), "--out", str(tmp_path / "png")]) == 0
    pngs = sorted((tmp_path / "png").iterdir())
    for number, png in enumerate(pngs):
        gif.seek(number)
        drawn = Image.open(png).convert("RGB")
        assert ImageChops.difference(gif.convert("RGB"), drawn).getbbox() is None, number
    size = (tmp_path / f"{code}-table.gif").stat().st_size
    assert size < 0.5 * sum(p.stat().st_size for p in pngs)
    assert main(["replay", code, "--db", str(database), "--out", str(tmp_path), "--apng"]) == 0
    apng = Image.open(io.BytesIO((tmp_path / f"{code}-table.png").read_bytes()))
    assert getattr(apng, "n_frames", 1) == gif.n_frames


def test_mistakes_are_one_line(database: Path, tmp_path: Path, capsys) -> None:
    base = ["--db", str(database), "--out", str(tmp_path)]
    assert main(["replay", "nonsense", *base]) == 1
    assert "is not a replay code" in capsys.readouterr().err
    assert main(["replay", "1", "9", *base]) == 1
    assert "has no hand 9" in capsys.readouterr().err
    assert main(["replay", "1", "1", "--seat", "zed", *base]) == 1
    assert "No seat 'zed'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["replay", "1", "x", *base])
    assert not any(tmp_path.iterdir())


def test_a_mistyped_database_is_not_created(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "typo.sqlite3"
    out = tmp_path / "out"
    assert main(["replay", "1", "1", "--db", str(missing), "--out", str(out)]) == 1
    assert f"There is no database at {missing}" in capsys.readouterr().err
    assert not missing.exists() and not out.exists()
