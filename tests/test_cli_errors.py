"""Every ``kiaule`` subcommand refuses bad arguments before any work: one line on stderr, exit
status 2, no traceback; and options that make sense are accepted the same way everywhere."""

from __future__ import annotations

import os

import pytest

from experiments import cli


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse's exit
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_clear_error(capsys, *argv: str, mentions: str = "") -> str:
    code, _, err = run_cli(capsys, *argv)
    assert code == 2, (code, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert mentions in err
    return err


@pytest.mark.parametrize(
    ("argv", "mentions"),
    [
        (("demo", "kozel", "--seed", "-1"), "--seed"),
        (("soak", "kozel", "--seed", "-1", "--games", "1", "--no-progress"), "--seed"),
        (("soak", "kozel", "--games", "-5"), "--games"),
        (("soak", "kozel", "--games", "0"), "--games"),
        (("bench", "--seconds", "0", "elgeta"), "--seconds"),
        (("bench", "chess"), "chess"),
        (("benchmark", "--scale", "0"), "--scale"),
        (("benchmark", "--scale", "-1"), "--scale"),
        (("tournament", "elgeta", "--games", "0"), "--games"),
        (("tournament", "elgeta", "--workers", "0"), "--workers"),
        (("tournament", "elgeta", "--env", "bad=thing", "--no-progress"), "bad"),
        (("tournament", "elgeta", "--env", "=x"), "--env"),
        (("play", "kozel", "--set", "bad=thing"), "bad"),
        (("play", "kozel", "--seat", "-1"), "--seat"),
        (("train", "--evaluate", "kozel/heuristic", "--deals", "0"), "--deals"),
        (("train", "--evaluate", "missing.zip"), "missing.zip"),
        (("train", "--evaluate", "runs/missing.zip"), "missing.zip"),
        (("train", "--evaluate", "kozel/nobody"), "kozel/nobody"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(capsys, argv, mentions):
    assert_clear_error(capsys, *argv, mentions=mentions)


def test_tournament_out_must_be_a_writable_folder(capsys, tmp_path):
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    base = ("tournament", "elgeta", "--games", "2", "--no-progress", "--workers", "1")
    assert_clear_error(capsys, *base, "--out", str(afile), mentions="is a file")
    assert_clear_error(capsys, *base, "--out", str(afile / "sub"), mentions="is a file")
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            assert_clear_error(capsys, *base, "--out", str(locked / "t"), mentions="not writable")
        finally:
            locked.chmod(0o700)


def test_garbage_tournament_json_names_the_file(capsys, tmp_path):
    out = tmp_path / "t"
    argv = ["tournament", "elgeta", "--games", "2", "--no-progress", "--no-plots"]
    argv += ["--workers", "1", "--out", str(out)]
    assert cli.main(argv) == 0
    capsys.readouterr()
    (out / "tournament.json").write_text("{garbage")
    err = assert_clear_error(capsys, *argv, mentions="tournament.json")
    assert "not a tournament file" in err and "delete" not in err


def test_env_options_parse_the_same_in_tournament_and_play(capsys, tmp_path):
    from experiments.cli_args import parse_key_values

    parsed = parse_key_values(
        ["series=true", "trump_card=bottom", "num_players=3", "molodka=None", "x=[1, 2]"], "--env"
    )
    assert parsed == {
        "series": True,
        "trump_card": "bottom",
        "num_players": 3,
        "molodka": None,
        "x": [1, 2],
    }
    code, out, err = run_cli(
        capsys,
        "tournament",
        "kozel",
        "--agents",
        "random",
        "heuristic",
        "--games",
        "2",
        "--env",
        "series=true",
        "--workers",
        "1",
        "--no-progress",
        "--no-plots",
    )
    assert code == 0, err
    assert "kozel/heuristic" in out


def test_ctrl_c_in_play_abandons_the_game_cleanly():
    from experiments.play import play

    said: list[str] = []

    def ask(prompt: str) -> str:
        raise KeyboardInterrupt

    assert play("kozel", 0, ["kozel/random"], seed=1, ask=ask, say=said.append) is None
    assert said[-1] == "Game abandoned."


def test_ctrl_c_anywhere_is_one_line_and_status_130(capsys, monkeypatch):
    import experiments.demo as demo

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo, "run", interrupted)
    code, _, err = run_cli(capsys, "demo", "kozel")
    assert code == 130 and err.strip() == "kiaule demo: interrupted"
