"""Pig through SuperSuit's vector env and our adapter into sb3-contrib's ``MaskablePPO``: a tiny
run on the raw ``parallel_env()``, which raises on any illegal action, so finishing proves the
masks reached the policy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("supersuit")
sb3_contrib = pytest.importorskip("sb3_contrib")

from kiaule_env import pig_v0  # noqa: E402
from kiaule_env.wrappers.sb3 import MaskedVecEnv, masked_vec_env  # noqa: E402


def _quiet_env(num_vec_envs: int = 1, seed: int | None = None, **env_kwargs) -> MaskedVecEnv:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return masked_vec_env(pig_v0.parallel_env(**env_kwargs), num_vec_envs, seed)


def test_masks_are_the_agents_masks_and_the_policy_sees_the_observation():
    venv = _quiet_env(num_vec_envs=2, seed=3)
    layout = pig_v0.parallel_env().layout
    n = pig_v0.parallel_env().action_space("player_0").n
    assert venv.num_envs == 8  # 2 copies x 4 agents
    assert venv.observation_space.shape == (layout.size,)
    obs = venv.reset()
    assert obs.shape == (8, layout.size)
    ref = pig_v0.parallel_env()
    ref_obs, _ = ref.reset(seed=3)  # copy 0 was reset with seed 3
    for i, agent in enumerate(ref.possible_agents):
        np.testing.assert_array_equal(obs[i], ref_obs[agent]["observation"])
        np.testing.assert_array_equal(
            venv.env_method("action_masks")[i], ref_obs[agent]["action_mask"].astype(bool)
        )
    assert venv.has_attr("action_masks")
    assert np.stack(venv.env_method("action_masks", indices=[1, 2])).shape == (2, n)
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        venv.step_async(actions)
        obs, _, _, infos = venv.step_wait()
        assert obs.shape == (8, layout.size)
        for info in infos:
            if "terminal_observation" in info:
                assert info["terminal_observation"].shape == (layout.size,)


def test_maskable_ppo_tiny_run_on_pig():
    from sb3_contrib import MaskablePPO

    venv = _quiet_env(num_vec_envs=1, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0)
        model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
    assert all(venv.action_masks()[i, a] for i, a in enumerate(actions))


def full_game_returns(venv: MaskedVecEnv, steps: int, seed: int) -> list[np.ndarray]:
    """Random legal play for ``steps`` steps; every finished game's returns per sub-env."""
    rng = np.random.default_rng(seed)
    venv.reset()
    running, finished = np.zeros(venv.num_envs), []
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()  # MaskablePPO needs a legal action in every row
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        _, rewards, dones, _ = venv.step_wait()
        running += rewards
        if dones.any():
            assert dones.all()  # one game, one copy: every seat ends with it
            finished.append(running.copy())
            running[:] = 0
    return finished


def test_a_full_game_carries_every_reward_to_the_vector_env():
    """P5/P9: players who leave idle until the game ends; each game's returns are the native
    env's: −1/(n−1) for each player who left, +1 for the winner (they sum to 0)."""
    venv = _quiet_env(num_vec_envs=1, seed=0, game="full", num_players=5)
    games = full_game_returns(venv, 1500, seed=0)
    assert len(games) >= 3
    for returns in games:
        assert sorted(returns.tolist()) == pytest.approx([-0.25] * 4 + [1.0])


def test_a_seat_that_left_idles_with_one_allowed_action_that_is_not_played():
    venv = _quiet_env(num_vec_envs=1, seed=2, game="full")
    raw = venv.venv.venv.vec_envs[0].par_env.unwrapped
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(2000):
        masks = venv.action_masks()
        out = [s for s in range(4) if s not in raw.game_state.seats_in]
        if out:
            break
        venv.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        venv.step_wait()
    assert out, "nobody left"
    seat = out[0]
    assert masks[seat].tolist() == [True] + [False] * (masks.shape[1] - 1)
    before = repr(raw.game_state)
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
    actions[seat] = 0  # the env refuses any action of a player who left: it is not passed on
    venv.step_async(actions)
    _, rewards, _, _ = venv.step_wait()
    assert rewards[seat] == 0 and repr(raw.game_state) != before


def test_maskable_ppo_tiny_run_on_a_full_pig_game():
    from sb3_contrib import MaskablePPO

    venv = _quiet_env(num_vec_envs=1, seed=0, game="full")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=1, seed=0)
        model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512


def test_masked_vec_env_refuses_what_it_cannot_run():
    with pytest.raises(ValueError, match="ParallelEnv"):
        masked_vec_env(pig_v0.env())
    with pytest.raises(ValueError, match="num_vec_envs"):
        masked_vec_env(pig_v0.parallel_env(), num_vec_envs=0)
    with pytest.raises(ValueError, match="seed"):
        _quiet_env(seed=-1)
