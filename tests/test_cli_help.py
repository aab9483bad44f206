"""``kiaule <command> --help`` for every subcommand: every option (and positional) has a help
line, and no help text shows reStructuredText markup (backticks) meant for the API reference."""

from __future__ import annotations

import argparse
import importlib

import pytest

from experiments.cli import SUBCOMMANDS
from experiments.cli import main as cli_main
from experiments.cli_args import describe


class _Built(Exception):
    """Raised instead of parsing: carries the subcommand's finished parser."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__(parser.prog)
        self.parser = parser


def _parser_of(command: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The argparse parser a subcommand's ``main`` builds, caught when it starts parsing."""

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Built(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    module = importlib.import_module(SUBCOMMANDS[command][0])
    with pytest.raises(_Built) as built:
        module.main([])
    return built.value.parser


@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_every_option_has_a_help_line(command, monkeypatch):
    parser = _parser_of(command, monkeypatch)
    bare = [
        "/".join(action.option_strings) or action.dest
        for action in parser._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert not bare, f"kiaule {command}: no help for {bare}"


@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_help_shows_no_backticks(command, capsys):
    with pytest.raises(SystemExit) as done:
        cli_main([command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: kiaule {command}")
    marked = [line for line in text.splitlines() if "`" in line]
    assert not marked, f"kiaule {command} --help shows markup: {marked}"


def test_describe_drops_rst_markup_and_keeps_the_first_paragraph():
    doc = """Plays ``kiaule demo`` with :func:`~kiaule_env.core.play.play_episode` and `x`,
    over two lines.

    Not this paragraph.
    """
    assert (
        describe(doc)
        == "Plays kiaule demo with kiaule_env.core.play.play_episode and x, over two lines."
    )
    assert describe(doc, paragraphs=2).endswith("over two lines. Not this paragraph.")
    assert describe(None) == ""


def test_train_set_help_lists_exactly_the_config_keys(monkeypatch):
    pytest.importorskip("pydantic")
    from experiments.train import config

    (action,) = [
        a for a in _parser_of("train", monkeypatch)._actions if "--set" in a.option_strings
    ]
    listed = set(action.help.split(": ", 1)[1].replace(",", " ").split())
    assert set(config.TrainConfig.model_fields) <= listed
    sections = {
        "opponents": config.OpponentsConfig,
        "policy": config.PolicyConfig,
        "ppo": config.PPOConfig,
        "eval": config.EvalConfig,
        "checkpoint": config.CheckpointConfig,
        "warm_start": config.WarmStartConfig,
    }
    for name, section in sections.items():  # each section with every key it takes
        assert f"{name} ({', '.join(section.model_fields)})" in action.help
