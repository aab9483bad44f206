"""Multi-agent training with RLlib: a short CI smoke run per policy layout, no illegal moves,
checkpoints that load as agents and play tournaments. Local Ray with two CPUs only."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray")


def _short(game: str, tmp_path, **kw):
    from agents.training.rllib_train import resolve_rllib_config

    settings = {
        "total_timesteps": 600,
        "train_batch_size": 300,
        "minibatch_size": 150,
        "num_epochs": 1,
        "num_env_runners": 1,
        "net_arch": [32],
        "output": str(tmp_path / game),
        **kw,
    }
    return resolve_rllib_config(game, settings)


def test_kozel_per_team_policies_train_without_illegal_moves_and_play_as_agents(
    local_ray, tmp_path
):
    """K1 teams: one policy per team (team_0 = seats 0+2); the checkpoint plays a tournament."""
    import agents
    from agents.registry import register
    from agents.training.rllib_train import train_rllib
    from experiments.tournament import TournamentConfig, run_tournament

    result = train_rllib(_short("kozel", tmp_path, policies="per_team"))
    assert result.timesteps >= 600
    assert result.illegal_moves == 0
    assert all(row["illegal_moves"] == 0 for row in result.curve)
    assert {"return_team_0", "return_team_1"} <= set(result.curve[-1])
    for row in result.curve:  # zero-sum teams (K15 card points are ±, team against team)
        assert row["return_team_0"] == pytest.approx(-row["return_team_1"], abs=1e-6)
    assert (result.output / "learning_curve.png").stat().st_size > 0
    meta = json.loads((result.checkpoint / "kiaule_rllib.json").read_text())
    assert meta["seat_policy"] == ["team_0", "team_1", "team_0", "team_1"]
    from agents.training.model_io import layout_metadata
    from kiaule_env import GAMES

    assert meta["observation_layout"] == layout_metadata(GAMES["kozel"].observation_layout())
    agent = agents.make("kozel/rllib", path=result.checkpoint)
    assert agent.meta["game"] == "kozel"
    register(
        "kozel/rllib-test",
        lambda seed=0, **kw: agents.make("kozel/rllib", seed=seed, path=result.checkpoint),
    )
    cfg = TournamentConfig(game="kozel", agents=["kozel/rllib-test", "kozel/heuristic"], games=8)
    local = run_tournament(cfg, workers=1)
    remote = run_tournament(cfg, workers=2, backend="ray")  # the checkpoint is shipped
    assert remote.games == local.games and len(local.games) == 8


def test_pig_shared_policy_on_the_parallel_api_trains_without_illegal_moves(local_ray, tmp_path):
    from agents.training.rllib_train import train_rllib

    result = train_rllib(_short("pig", tmp_path, policies="shared"))
    assert result.illegal_moves == 0 and result.timesteps >= 600
    meta = json.loads((result.checkpoint / "kiaule_rllib.json").read_text())
    assert set(meta["seat_policy"]) == {"shared"}


def test_bad_rllib_configs_are_refused_naming_the_key(tmp_path):
    from agents.training.rllib_train import resolve_rllib_config

    with pytest.raises(ValueError, match=r"per_team.*no teams"):
        resolve_rllib_config("pig", {"policies": "per_team"})
    with pytest.raises(ValueError, match="'policies' must be one of"):
        resolve_rllib_config("kozel", {"policies": "league"})
    with pytest.raises(ValueError, match="unknown RLlib config key"):
        resolve_rllib_config("kozel", {"n_steps": 5})
    with pytest.raises(ValueError, match="'total_timesteps' must be an integer >= 1"):
        resolve_rllib_config("kozel", {"total_timesteps": 0})


def test_rllib_agent_needs_a_checkpoint_path(tmp_path):
    import agents

    with pytest.raises(ValueError, match="needs path="):
        agents.make("kozel/rllib")
    with pytest.raises(ValueError, match="not an RLlib checkpoint"):
        agents.make("kozel/rllib", path=tmp_path)
