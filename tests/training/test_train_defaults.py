"""``kiaule train <game>`` for a game without a config file: the run comes from the defaults of
``TrainConfig`` and the game's descriptor, so every game of the suite trains with no file."""

from __future__ import annotations

import json

import pytest

from experiments.train import config as config_module
from experiments.train import main
from experiments.train.config import TrainConfig, resolve_config
from kiaule_env import GAMES


@pytest.fixture
def no_config_files(tmp_path, monkeypatch):
    """The config folder as an empty one: every game trains from its defaults."""
    empty = tmp_path / "configs"
    empty.mkdir()
    monkeypatch.setattr(config_module, "CONFIG_DIR", empty)


def expected_env_kwargs(game: str) -> dict:
    descriptor = GAMES[game]
    if len(descriptor.player_counts) == 1:
        return {}
    return {"num_players": descriptor.default_players}


@pytest.mark.parametrize("game", list(GAMES))
def test_a_game_without_a_file_resolves_to_the_defaults(game, no_config_files):
    config = resolve_config(game)
    defaults = TrainConfig(game=game).as_dict()
    expected = {**defaults, "env_kwargs": expected_env_kwargs(game), "output": f"runs/{game}"}
    assert config.as_dict() == expected
    assert config.opponents.mix == {"random": 1.0} and config.total_timesteps == 100_000


def test_a_file_still_wins_over_the_defaults():
    config = resolve_config("pig")  # experiments/configs/pig.yaml
    assert config.opponents.lineups and config.deterministic_play is False


@pytest.mark.parametrize("game", list(GAMES))
def test_kiaule_train_runs_a_game_from_its_defaults(game, no_config_files, tmp_path, capsys):
    out = tmp_path / "run"
    argv = [game, "--timesteps", "256", "--n-envs", "2", "--output", str(out), "--no-progress"]
    for setting in ("ppo.n_steps=64", "ppo.batch_size=64", "policy.net_arch=[8]"):
        argv += ["--set", setting]
    argv += ["--set", "eval.every=128", "--set", "eval.deals=2", "--set", "tensorboard=false"]
    assert main(argv) == 0
    assert f"trained {game} to 256 steps" in capsys.readouterr().out
    recorded = json.loads((out / "config.json").read_text())
    assert recorded["game"] == game and recorded["env_kwargs"] == expected_env_kwargs(game)
    assert recorded["opponents"]["mix"] == {"random": 1.0}
    evals = [json.loads(line) for line in (out / "eval.jsonl").read_text().splitlines()]
    assert evals and evals[-1]["opponent"].startswith(f"{game}/")
    assert (out / "final.zip").is_file()


def test_an_unknown_name_lists_the_games(no_config_files):
    with pytest.raises(ValueError, match="neither a config file nor a game; games: kozel"):
        resolve_config("chess")


@pytest.mark.parametrize(
    "path",
    sorted(
        p.name for p in config_module.CONFIG_DIR.glob("*.yaml") if not p.name.startswith("rllib_")
    ),
)
def test_every_shipped_training_config_is_valid(path):
    config = resolve_config(str(config_module.CONFIG_DIR / path))
    assert config.game in GAMES


def test_the_endgame_config_has_the_teacher_label_the_kiauliaganys_endgame_only():
    config = resolve_config(str(config_module.CONFIG_DIR / "kiauliaganys_endgame.yaml"))
    assert config.warm_start.teacher_where == {"face_down": 0}  # G5: no face-down cards left
    assert config.total_timesteps == 0  # imitation only unless --timesteps says more
