"""KEY=VALUE options (``--env``, ``--set``): a key given twice is refused, never the last kept."""

from __future__ import annotations

import pytest

from experiments import cli
from experiments.cli_args import parse_key_values
from experiments.train import parse_set


def test_parse_key_values_refuses_a_key_given_twice():
    assert parse_key_values(["reward=a", "seed=1"], "--env") == {"reward": "a", "seed": 1}
    with pytest.raises(ValueError, match="--env: reward is given twice"):
        parse_key_values(["reward=a", "reward=b"], "--env")
    with pytest.raises(ValueError, match="--set: x is given twice"):
        parse_key_values(["x=1", " x =1"], "--set")  # the same value, still twice


def test_train_set_refuses_a_key_given_twice():
    assert parse_set(["ppo.gamma=0.9", "ppo.n_steps=64"]) == {"ppo": {"gamma": 0.9, "n_steps": 64}}
    with pytest.raises(ValueError, match=r"ppo\.gamma is given twice"):
        parse_set(["ppo.gamma=0.9", "ppo.gamma=0.95"])


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "kozel", "--games", "2", "--env", "series=true", "series=false"],
        ["play", "kozel", "--set", "trump_card=bottom", "trump_card=top"],
    ],
)
def test_commands_refuse_a_key_given_twice_in_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert len(err.strip().splitlines()) == 1 and "given twice" in err, err
