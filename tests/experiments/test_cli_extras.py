"""Every ``kiaule`` command on a bare install: one line naming the extra, exit status 2."""

from __future__ import annotations

import sys

import pytest

from experiments import cli

TRAIN_HINT = "install the 'train' extra: pip install torch==2.13.0 -e '.[train]'"


def one_line_error(capsys, argv: list[str]) -> str:
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "missing", "distribution"),
    [
        (["tournament", "kozel", "--games", "8"], "tqdm", "tqdm"),
        (["tournament", "kozel", "--games", "8"], "openskill", "openskill"),
        (["tournament", "kozel", "--games", "8"], "filelock", "filelock"),
        (["train", "kozel"], "yaml", "PyYAML"),
        (["train", "kozel"], "torch", "torch"),
        (["benchmark", "--no-speed"], "tqdm", "tqdm"),
        (["strength"], "scipy", "scipy"),
    ],
)
def test_a_command_without_its_extra_says_which_in_one_line(
    argv, missing, distribution, capsys, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, missing, None)  # as if it were not installed
    line = one_line_error(capsys, argv)
    assert line.startswith(f"kiaule {argv[0]}: this command needs {distribution}, which is not")
    assert TRAIN_HINT in line
    assert list(tmp_path.iterdir()) == []  # refused before any work


def test_a_module_missing_deep_in_a_command_is_one_line_too(capsys, monkeypatch):
    # `kiaule play` needs no extra, but a learned opponent needs torch
    monkeypatch.setitem(sys.modules, "torch", None)
    line = one_line_error(capsys, ["play", "kozel", "--opponents", "kozel/ppo"])
    assert "kozel/ppo needs torch" in line and TRAIN_HINT in line


def test_help_works_without_the_extra(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(SystemExit) as exc:
        cli.main(["tournament", "--help"])
    assert exc.value.code == 0
    assert "usage: kiaule tournament" in capsys.readouterr().out


def test_a_module_of_no_extra_missing_is_not_hidden(monkeypatch):
    def broken(argv):
        import no_such_module_anywhere  # noqa: F401

    monkeypatch.setitem(cli.SUBCOMMANDS, "broken", ("tests.experiments.test_cli_extras", ""))
    monkeypatch.setattr(sys.modules[__name__], "main", broken, raising=False)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["broken"])
