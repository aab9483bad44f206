"""``kiaule frames``: a recorded game as an animated GIF, the frame timings, and its refusals
(one line on stderr, exit status 2)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageSequence

from experiments import frames as frames_cli
from experiments.cli import main as kiaule


def _status(argv: list[str]) -> int:
    """The exit status of ``kiaule argv`` (a refusal either raises ``SystemExit`` or returns)."""
    try:
        return kiaule(argv)
    except SystemExit as stop:
        return stop.code


def test_gif_holds_every_frame_of_the_game(tmp_path, capsys):
    out = tmp_path / "pig.gif"
    assert frames_cli.main(["pig", "--seed", "4", "--out", str(out)]) == 0
    expected, _, result = frames_cli.record("pig", seed=4)
    assert f"{len(expected)} frames" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert gif.n_frames == len(expected) and gif.info["loop"] == 0
        assert gif.size == (expected[0].shape[1], expected[0].shape[0])
        shown = [np.asarray(f.convert("RGB"), dtype=np.int16) for f in ImageSequence.Iterator(gif)]
    # a 64-colour palette: close to the frames it was made from, in the same order
    for frame, original in zip(shown, expected, strict=True):
        assert np.abs(frame - original).mean() < 4
    assert "pig" in result  # the game was played to its end


def test_scale_and_max_frames(tmp_path):
    out = tmp_path / "kozel.gif"
    frames_cli.main(["kozel", "--out", str(out), "--scale", "0.5", "--max-frames", "5"])
    with Image.open(out) as gif:
        assert gif.n_frames == 5
        height, width, _ = frames_cli.record("kozel", limit=1)[0][0].shape
        assert gif.size == (round(width * 0.5), round(height * 0.5))


def test_an_existing_file_is_replaced_only_with_force(tmp_path, capsys):
    out = tmp_path / "mine.gif"
    out.write_bytes(b"not ours")
    assert _status(["frames", "pig", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "exists" in err and "--force" in err and len(err.splitlines()) == 1
    assert out.read_bytes() == b"not ours"
    kiaule(["frames", "pig", "--out", str(out), "--force"])
    assert out.read_bytes().startswith(b"GIF8")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["frames", "pig", "--out", "x.png"], "--out must name a .gif file"),
        (["frames", "pig"], "give a GAME and --out FILE.gif, or --bench"),
        (["frames", "--bench", "--out", "x.gif"], "takes no --out"),
        (["frames", "pig", "--out", "x.gif", "--scale", "9"], "--scale must be at most 4"),
        (["frames", "pig", "--out", "x.gif", "--agent", "nobody"], "nobody"),
    ],
)
def test_bad_arguments_say_what_is_wrong(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _status(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x.gif").exists()


def test_bench_prints_a_table_per_game(capsys):
    assert frames_cli.main(["pig", "--bench"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("| game | frame (H × W)")
    assert len(lines) == 3 and lines[2].startswith("| pig | ")
    median_ms = float(lines[2].split("|")[4])
    assert 0 < median_ms < 1000
