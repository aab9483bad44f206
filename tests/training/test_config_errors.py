"""The training config is checked as a whole before any work: every bad key in one clear
``ValueError``, and the command line prints it as one line with status 2."""

from __future__ import annotations

import pytest

from experiments import train as train_mod


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"n_envs": 0}, "n_envs"),
        ({"n_envs": -2}, "n_envs"),
        ({"n_envs": "abc"}, "n_envs"),
        ({"policy": {"activation": "sigmoid"}}, "policy.activation"),
        ({"ppo": {"batch_size": 0}}, "ppo.batch_size"),
        ({"ppo": {"n_steps": 0}}, "ppo.n_steps"),
        ({"ppo": {"n_epochs": 0}}, "ppo.n_epochs"),
        ({"ppo": {"gamma": 5}}, "ppo.gamma"),
        ({"ppo": {"learning_rate_final": -1e-4}}, "ppo.learning_rate_final"),
        ({"ppo": {"nonsense": 1}}, "ppo.nonsense: unknown key"),
        ({"time_budget_s": "abc"}, "time_budget_s"),
        ({"eval": 5}, "eval"),
        ({"team_play": "maybe"}, "team_play"),
        ({"deterministic_play": "maybe"}, "deterministic_play"),
        ({"total_timesteps": 0}, "total_timesteps"),
        ({"total_timesteps": -5}, "total_timesteps"),
        ({"checkpoint": {"every": 0}}, "checkpoint.every"),
        ({"checkpoint": {"every": -5}}, "checkpoint.every"),
        ({"opponents": {"mix": {"random": 0}}}, "opponents.mix"),
        ({"seed": -1}, "seed"),
        ({"opponents": {"team_with_copies": True}}, "team_with_copies: needs opponents.lineups"),
        (
            {
                "opponents": {
                    "team_with_copies": True,
                    "lineups": {"heuristic heuristic heuristic": 1},
                }
            },
            "with a 'self' member",
        ),
    ],
)
def test_bad_values_are_refused_naming_the_key(overrides, message):
    with pytest.raises(ValueError, match=message):
        train_mod.resolve_config({"game": "pig", **overrides})


def test_every_problem_is_reported_at_once():
    with pytest.raises(ValueError) as info:
        train_mod.resolve_config({"game": "pig", "n_envs": 0, "ppo": {"n_epochs": 0}})
    assert "n_envs" in str(info.value) and "ppo.n_epochs" in str(info.value)


def test_cuda_on_a_cpu_only_torch_is_refused():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this torch has CUDA")
    with pytest.raises(ValueError, match="device 'cuda' is not available"):
        train_mod.resolve_config({"game": "pig", "device": "cuda"})


def test_values_are_converted_and_defaults_kept():
    config = train_mod.resolve_config("pig", {"ppo": {"learning_rate": "1e-4"}, "n_envs": 3})
    assert config.ppo.learning_rate == pytest.approx(1e-4)
    assert config.n_envs == 3 and config.ppo.n_steps == 256  # the file's, not the default
    assert config.ppo.target_kl is None and config.ppo.normalize_advantage is True
    assert config.ppo.vf_coef == 0.5 and config.eval.env_kwargs is None  # defaults


def test_malformed_yaml_names_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: pig\nppo: {n_steps: [\n")
    with pytest.raises(ValueError, match=r"bad\.yaml: not valid YAML"):
        train_mod.resolve_config(str(bad))
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{")
    with pytest.raises(ValueError, match=r"bad\.json: not valid JSON"):
        train_mod.resolve_config(str(bad_json))


@pytest.mark.parametrize(
    ("argv", "mentions"),
    [
        (["pig", "--n-envs", "0"], "--n-envs"),
        (["pig", "--n-envs", "-2"], "--n-envs"),
        (["pig", "--timesteps", "0"], "--timesteps"),
        (["pig", "--timesteps", "-5"], "--timesteps"),
        (["pig", "--set", "n_envs=abc"], "n_envs"),
        (["pig", "--set", "policy.activation=sigmoid"], "policy.activation"),
        (["pig", "--set", "ppo.batch_size=0"], "ppo.batch_size"),
        (["pig", "--set", "eval=5"], "eval"),
        (["pig", "--set", "time_budget_s=abc"], "time_budget_s"),
        (["pig", "--set", "ppo.n_steps=["], "--set"),
    ],
)
def test_cli_prints_one_line_and_exits_2(capsys, argv, mentions):
    from experiments import cli

    code = None
    try:
        code = cli.main(["train", *argv])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert mentions in err


def test_resume_with_timesteps_below_the_checkpoints_is_refused(capsys):
    from agents.learned import ZOO_DIR

    zoo = ZOO_DIR / "pig_4p.zip"
    if not zoo.is_file():
        pytest.skip("no Pig zoo model")
    with pytest.raises(SystemExit) as info:
        train_mod.main(["pig", "--resume", str(zoo), "--timesteps", "3300", "--no-progress"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "is the total to reach" in err and "3300" in err


def test_team_with_copies_is_refused_for_a_game_with_teams():
    with pytest.raises(ValueError, match="team_with_copies: only for games without teams"):
        train_mod.resolve_config({"game": "kozel", "opponents": {"team_with_copies": True}})


@pytest.mark.parametrize(
    ("game", "env_kwargs", "message"),
    [
        ("kozel", {}, "opponents.seat_pairs is for games without teams; kozel"),
        ("pig", {}, "opponents.seat_pairs: pig is a simultaneous-move game"),
        ("kiauliaganys", {"num_players": 5}, "even number of players.*num_players=5"),
    ],
)
def test_seat_pairs_is_refused_where_it_cannot_seat_the_learner(game, env_kwargs, message):
    data = {"game": game, "env_kwargs": env_kwargs, "opponents": {"seat_pairs": True}}
    with pytest.raises(ValueError, match=message):
        train_mod.resolve_config(data)
    accepted = {"game": "kiauliaganys", "opponents": {"seat_pairs": True}}
    assert train_mod.resolve_config(accepted).opponents.seat_pairs


def test_teacher_where_without_a_model_file_is_refused_before_the_output_folder(capsys, tmp_path):
    # the endgame config's teacher labels only G5 decisions; the starting network labels the
    # rest, so a run without --resume of a model file has nothing to label them with
    out = tmp_path / "run"
    argv = ["experiments/configs/kiauliaganys_endgame.yaml", "--output", str(out), "--no-progress"]
    with pytest.raises(SystemExit) as info:
        train_mod.main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "teacher_where" in err and "start the run from a model file (--resume)" in err
    assert not out.exists()  # refused before the folder was claimed, the env or model built


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"game": "kiauliaganys", "env_kwargs": {"num_players": 5}},
            "eval.seating 'alternate' needs an even number of players.*num_players=5",
        ),
        (
            {
                "game": "pig",
                "env_kwargs": {"num_players": 4},
                "eval": {"env_kwargs": {"num_players": 3}},
            },
            "eval.seating 'alternate' needs an even number of players.*num_players=3",
        ),
    ],
)
def test_alternate_eval_seating_is_refused_for_an_odd_table(data, message):
    """``eval.seating: alternate`` seats the learner on every other seat of the evaluation
    games (their own ``eval.env_kwargs`` when given), so their player count must be even."""
    data = {**data, "eval": {**data.get("eval", {}), "seating": "alternate"}}
    with pytest.raises(ValueError, match=message):
        train_mod.resolve_config(data)
    accepted = {"game": "pig", "eval": {"seating": "alternate"}}
    assert train_mod.resolve_config(accepted).eval.seating == "alternate"
    with pytest.raises(ValueError, match=r"eval\.seating"):
        train_mod.resolve_config({"game": "pig", "eval": {"seating": "pairs"}})
