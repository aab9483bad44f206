"""Short training runs per game: save, reload by path through the registry, play; refusals;
resume from a checkpoint; the config files and the ``train`` subcommand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.arena import play_aec, play_parallel
from agents.training.model_io import LAYOUT_KEY, layout_metadata, read_metadata, write_metadata
from experiments import train as train_mod
from experiments.train.config import CONFIG_DIR, game_defaults
from kiaule_env import GAMES as GAMES_OF_THE_SUITE
from kiaule_env import get_game as get_spec
from tests.training.conftest import require_env

TINY = {
    "total_timesteps": 2048,
    "n_envs": 2,
    "opponents": {"mix": {"random": 1.0, "self": 1.0}, "snapshot_every": 512},
    "ppo": {"n_steps": 256, "batch_size": 128, "n_epochs": 2},
    "policy": {"net_arch": [32, 32]},
    "eval": {"every": 1024, "deals": 3, "opponent": "random"},
    "checkpoint": {"every": 1024},
    "tensorboard": True,
}

#: every game of the suite, with the env keywords it trains with when it has no config file
GAMES = {game: game_defaults(game)["env_kwargs"] for game in GAMES_OF_THE_SUITE}


def tiny_config(game: str, out: Path, **extra) -> dict:
    return train_mod.resolve_config(
        {"game": game, "env_kwargs": GAMES[game], "output": str(out), **TINY, **extra}
    )


def play_one(game: str, agent, env_kwargs: dict, seed: int = 0):
    spec = get_spec(game)
    env = spec.native_env(**env_kwargs)
    n = len(env.possible_agents)
    seats = [agent] + [agents.make(f"{game}/random", seed=s) for s in range(1, n)]
    return (play_parallel if spec.parallel else play_aec)(env, seats, seed=seed)


@pytest.mark.parametrize("game", list(GAMES))
def test_short_training_saves_reloads_and_plays(game, tmp_path):
    require_env(game)
    result = train_mod.train(tiny_config(game, tmp_path / game), progress=False)
    assert result.timesteps >= 2048
    out = tmp_path / game
    for name in ("final.zip", "best.zip", "eval.jsonl", "train_stats.json", "config.json"):
        assert (out / name).is_file(), name
    assert list((out / "tb").rglob("events.out.tfevents*"))
    assert sorted(p.name for p in (out / "checkpoints").glob("*.zip")) == [
        "step_1024.zip",
        "step_2048.zip",
    ]
    meta = read_metadata(result.final_model)
    assert (meta["game"], meta["timesteps"]) == (game, result.timesteps)
    assert meta[LAYOUT_KEY] == layout_metadata(get_spec(game).observation_layout(**GAMES[game]))
    stats = result.stats
    assert stats["steps_per_second"] > 0
    assert 0 < stats["share"]["env_and_wrapper"] < 1
    agent = agents.make(f"{game}/ppo", path=result.final_model, seed=1)
    outcome = play_one(game, agent, GAMES[game])
    assert outcome.result is not None
    assert sum(outcome.rewards.values()) == pytest.approx(0.0, abs=1e-9)


def test_the_first_reset_counts_in_the_learn_time_it_is_a_share_of(tmp_path, monkeypatch):
    """SB3 resets the envs before ``on_training_start``; the wrapper times that reset, so a slow
    first reset (a cold start) must fall inside the learn time, not push env + wrapper past it."""
    import time

    from agents.training.wrapper import LearnerEnv

    require_env("pig")
    new_episode, slowed = LearnerEnv._new_episode, []

    def slow_first(self, options):
        if not slowed:
            slowed.append(True)
            time.sleep(3.0)
        new_episode(self, options)

    monkeypatch.setattr(LearnerEnv, "_new_episode", slow_first)
    stats = train_mod.train(tiny_config("pig", tmp_path / "pig"), progress=False).stats
    assert slowed
    assert stats["learn_seconds"] > 3.0
    assert 0 < stats["share"]["env_and_wrapper"] < 1


def test_model_for_another_game_or_player_count_is_refused(tmp_path):
    require_env("pig")
    result = train_mod.train(
        tiny_config("pig", tmp_path / "pig", total_timesteps=256, checkpoint={"every": 10**9}),
        progress=False,
    )
    meta = read_metadata(result.final_model)  # format 2 records the layout it trained on
    assert meta["format"] == 2
    assert meta[LAYOUT_KEY] == layout_metadata(get_spec("pig").observation_layout(num_players=4))
    with pytest.raises(
        ValueError, match="trained for pig with num_players=4; it cannot play kozel"
    ):
        agents.make("kozel/ppo", path=result.final_model)
    with pytest.raises(ValueError, match="cannot play pig with num_players=5"):
        agents.make("pig/ppo", path=result.final_model, num_players=5)
    agent = agents.make("pig/ppo", path=result.final_model)
    from kiaule_env import pig_v0

    with pytest.raises(ValueError, match="num_players=5"):
        agent.check_env(pig_v0.parallel_env(num_players=5))
    agent.check_env(pig_v0.parallel_env(num_players=4))
    with pytest.raises(ValueError, match="trained for another game or player count"):
        play_one("pig", agent, {"num_players": 5})
    not_a_model = tmp_path / "x.zip"
    not_a_model.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a model zip"):
        agents.make("pig/ppo", path=not_a_model)


def test_model_plays_as_its_file_says_unless_told_otherwise(tmp_path):
    require_env("pig")
    config = tiny_config(
        "pig", tmp_path / "pig", total_timesteps=256, checkpoint={"every": 10**9},
        deterministic_play=False,
    )  # fmt: skip
    path = train_mod.train(config, progress=False).final_model
    assert read_metadata(path)["deterministic"] is False
    sampled = agents.make("pig/ppo", path=path, seed=0)
    assert sampled.deterministic is False
    assert agents.make("pig/ppo", path=path, deterministic=True).deterministic is True
    assert agents.make(f"pig/ppo:path={path},deterministic=true").deterministic is True
    # a barely trained network is near uniform: sampled moves differ between seeds, argmax not
    from kiaule_env import pig_v0
    from tests.pig.test_agents import decision

    env = pig_v0.parallel_env(num_players=4)
    env.reset(seed=3)
    moves = {
        agents.make("pig/ppo", path=path, seed=s).act(decision(env, "player_0")) for s in range(30)
    }
    assert len(moves) > 1
    fixed = agents.make("pig/ppo", path=path, deterministic=True, seed=0)
    assert {fixed.act(decision(env, "player_0")) for _ in range(10)} == {
        fixed.act(decision(env, "player_0"))
    }
    # files written before the key existed play deterministically
    meta = read_metadata(path)
    write_metadata(path, {k: v for k, v in meta.items() if k not in ("deterministic", "format")})
    assert agents.make("pig/ppo", path=path).deterministic is True


def test_resume_from_checkpoint_continues_steps_and_pool(tmp_path):
    require_env("pig")
    config = tiny_config("pig", tmp_path / "run", total_timesteps=1024, checkpoint={"every": 512})
    train_mod.train(config, progress=False)
    checkpoint = tmp_path / "run" / "checkpoints" / "step_512.zip"
    pool_file = checkpoint.with_name("step_512_pool.npz")
    with np.load(pool_file) as saved:
        saved_snapshots = {k.split("__")[0] for k in saved.files}
    assert len(saved_snapshots) >= 2  # the initial snapshot and the one at 512 steps
    resumed = train_mod.resolve_config(
        read_metadata(checkpoint)["config"], {"total_timesteps": 2048}
    )
    resumed.output = str(tmp_path / "resumed")
    result = train_mod.train(resumed, resume=checkpoint, progress=False)
    assert result.timesteps >= 2048
    assert result.stats["steps_this_run"] == result.timesteps - 512
    final_pool = np.load(tmp_path / "resumed" / "final_pool.npz")
    assert len({k.split("__")[0] for k in final_pool.files}) > len(saved_snapshots)


def test_resume_refuses_a_checkpoint_of_another_layout(tmp_path):
    """A checkpoint trained on another observation layout (or without one) is not continued."""
    require_env("pig")
    import shutil

    from agents.learned import ZOO_DIR

    checkpoint = tmp_path / "step_1.zip"
    shutil.copy(ZOO_DIR / "pig_4p.zip", checkpoint)
    meta = read_metadata(checkpoint)
    (name, size), *rest = meta[LAYOUT_KEY]["slices"]
    older = {"fingerprint": "old", "slices": [[name, size + 1], *rest]}
    write_metadata(checkpoint, {**meta, LAYOUT_KEY: older})
    config = tiny_config("pig", tmp_path / "run", total_timesteps=10**9)
    with pytest.raises(ValueError, match=rf"step_1\.zip was trained .* resized '{name}'"):
        train_mod.check_resume(config, checkpoint)
    write_metadata(checkpoint, {k: v for k, v in meta.items() if k != LAYOUT_KEY})
    with pytest.raises(ValueError, match="records no observation layout"):
        train_mod.check_resume(config, checkpoint)


def test_configs_resolve_and_cli_lists_train():
    from experiments.cli import SUBCOMMANDS

    assert SUBCOMMANDS["train"][0] == "experiments.train"
    for game in GAMES_OF_THE_SUITE:  # from its config file, or its defaults without one
        config = train_mod.resolve_config(game)
        assert config.game == game
        assert config.output == f"runs/{game}" or (CONFIG_DIR / f"{game}.yaml").is_file()
    with pytest.raises(ValueError, match="learning_rate: unknown key"):
        train_mod.resolve_config({"game": "pig", "learning_rate": 1})
    with pytest.raises(ValueError, match="unknown game"):
        train_mod.resolve_config({"game": "chess"})
    assert train_mod.parse_set(["ppo.learning_rate=1e-4", "opponents.mix.self=0.7"]) == {
        "ppo": {"learning_rate": 1e-4},
        "opponents": {"mix": {"self": 0.7}},
    }


def test_main_evaluate_writes_json(tmp_path):
    require_env("pig")
    result = train_mod.train(
        tiny_config("pig", tmp_path / "p", total_timesteps=256, checkpoint={"every": 10**9}),
        progress=False,
    )
    out = tmp_path / "eval.json"
    code = train_mod.main(
        [
            "--evaluate",
            str(result.final_model),
            "--deals",
            "3",
            "--opponents",
            "random",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    (entry,) = json.loads(out.read_text())["final.zip"]
    assert (entry["games"], entry["opponent"]) == (12, "pig/random")
    train_mod.main(
        ["--evaluate", "pig/random", "--deals", "2", "--opponents", "random", "--json", str(out)]
    )
    data = json.loads(out.read_text())
    assert set(data) == {"final.zip", "pig/random"}
    assert data["pig/random"][0]["games"] == 8


def test_export_for_play_loads_everywhere_and_registers_by_name(tmp_path):
    require_env("pig")
    from sb3_contrib import MaskablePPO

    from agents import learned, registry

    exported = tmp_path / "zoo" / "pig_small.zip"
    result = train_mod.train(
        tiny_config("pig", tmp_path / "p", total_timesteps=256, checkpoint={"every": 10**9}),
        progress=False,
        export=exported,
    )
    assert exported.stat().st_size < result.final_model.stat().st_size / 2
    assert MaskablePPO.load(exported, device="cpu").num_timesteps == result.timesteps
    assert read_metadata(exported)["exported_for_play"] is True
    names = learned.register_from_environment(f"pig/ppo-test={exported}")
    assert names == ["pig/ppo-test"]
    assert "pig/ppo-test" in registry.list_agents("pig")
    agent = agents.make("pig/ppo-test", seed=3)
    full = agents.make("pig/ppo", path=result.final_model, seed=3)
    obs = np.linspace(0, 1, agent.policy.obs_size, dtype=np.float32)
    mask = np.ones(agent.policy.num_actions, bool)
    assert agent.policy.act(obs, mask) == full.policy.act(obs, mask)
    with pytest.raises(ValueError, match="its name must start with pig/"):
        learned.register_model(exported, "kozel/ppo-x")


def test_overrides_replace_weighted_sets_and_snapshots_follow_the_lineups():
    """``--set opponents.lineups={...}`` gives exactly those lineups (like ``mix``, not merged
    into the file's), and snapshots are taken when a lineup seats ``self`` though the mix has
    none."""
    base = train_mod.resolve_config("pig")
    assert len(base.opponents.lineups) == 2
    one = {"heuristic self heuristic": 1.0}
    merged = train_mod.resolve_config("pig", {"opponents": {"lineups": one}})
    assert merged.opponents.lineups == one
    assert merged.opponents.snapshot_every == base.opponents.snapshot_every
    parsed = train_mod.parse_set(
        ['opponents.lineups={"random random random": 1}', "opponents.team_with_copies=false"]
    )
    assert train_mod.resolve_config("pig", parsed).opponents.lineups == {"random random random": 1}

    def with_opponents(**changes) -> train_mod.TrainConfig:
        return base.model_copy(update={"opponents": base.opponents.model_copy(update=changes)})

    no_self_mix = {"heuristic": 1.0}
    assert train_mod.plays_self(with_opponents(mix=no_self_mix))
    assert not train_mod.plays_self(
        with_opponents(mix=no_self_mix, lineups={"random random random": 1.0})
    )
    assert train_mod.plays_self(train_mod.resolve_config("kiauliaganys"))  # mix with self
