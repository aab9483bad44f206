"""``kiaule_env.wrappers``: flat observation-then-mask, mask in info, and Pig's parallel
illegal-action policy, checked with PettingZoo's own API tests and against ``env()``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, parallel_api_test

from kiaule_env import GAMES, pig_v0
from kiaule_env.wrappers import (
    FlatMaskParallelWrapper,
    FlatMaskWrapper,
    MaskInInfoParallelWrapper,
    MaskInInfoWrapper,
    flat_mask,
    flat_space,
    mask_in_info,
    split_flat,
    terminate_illegal,
)

GAME_IDS = list(GAMES)


def quietly(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _aec_masked_walk(env, inner, seed: int, check, steps: int = 400) -> None:
    """Play ``env`` with random legal actions read from ``inner`` (the unwrapped suite env),
    calling ``check(agent, observation, info)`` at every ``last()``."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter(steps):
        obs, _, term, trunc, info = env.last()
        check(agent, obs, info)
        if term or trunc:
            env.step(None)
            continue
        mask = inner.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("name", GAME_IDS)
def test_flat_mask_aec_is_observation_then_mask(name):
    game = GAMES[name]
    env = flat_mask(game.env())
    assert isinstance(env, FlatMaskWrapper)
    inner = env.unwrapped
    size, n = inner.layout.size, inner.action_space("player_0").n
    space = env.observation_space("player_0")
    assert isinstance(space, spaces.Box) and space.shape == (size + n,)
    assert space.dtype == np.float32

    def check(agent, obs, info):
        assert space.contains(obs)
        raw = inner.observe(agent)
        np.testing.assert_array_equal(obs[:size], raw["observation"])
        np.testing.assert_array_equal(obs[size:], raw["action_mask"].astype(np.float32))
        _, mask = split_flat(obs, n)
        np.testing.assert_array_equal(mask, raw["action_mask"])

    _aec_masked_walk(env, inner, 1, check)
    quietly(api_test, flat_mask(game.env()), num_cycles=30)


@pytest.mark.parametrize("name", GAME_IDS)
def test_mask_in_info_aec(name):
    game = GAMES[name]
    env = mask_in_info(game.env())
    assert isinstance(env, MaskInInfoWrapper)
    inner = env.unwrapped
    space = env.observation_space("player_0")
    assert space == inner.observation_space("player_0")["observation"]
    seen_legal = []

    def check(agent, obs, info):
        raw = inner.observe(agent)
        np.testing.assert_array_equal(obs, raw["observation"])
        np.testing.assert_array_equal(info["action_mask"], raw["action_mask"])
        seen_legal.append(int(info["action_mask"].sum()))
        for other in env.agents:  # every agent's info carries its own current mask
            np.testing.assert_array_equal(
                env.infos[other]["action_mask"], inner.observe(other)["action_mask"]
            )

    _aec_masked_walk(env, inner, 2, check)
    assert any(seen_legal), "the masks in info were all empty"
    quietly(api_test, mask_in_info(game.env()), num_cycles=30)


def test_parallel_wrappers_on_pig():
    # parallel_api_test samples unmasked actions from a flat Box: the illegal-action policy
    # ends those episodes instead of the raw env's ValueError
    env = flat_mask(terminate_illegal(pig_v0.parallel_env()))
    assert isinstance(env, FlatMaskParallelWrapper)
    quietly(parallel_api_test, env, num_cycles=50)
    env = mask_in_info(terminate_illegal(pig_v0.parallel_env()))  # masks in info: unmasked too
    assert isinstance(env, MaskInInfoParallelWrapper)
    quietly(parallel_api_test, env, num_cycles=50)

    plain, flat, info_env = (
        pig_v0.parallel_env(),
        flat_mask(pig_v0.parallel_env()),
        mask_in_info(pig_v0.parallel_env()),
    )
    obs, _ = plain.reset(seed=5)
    fobs, _ = flat.reset(seed=5)
    iobs, iinfos = info_env.reset(seed=5)
    rng = np.random.default_rng(0)
    while plain.agents:
        n = plain.action_space("player_0").n
        for a in plain.agents:
            np.testing.assert_array_equal(split_flat(fobs[a], n)[0], obs[a]["observation"])
            np.testing.assert_array_equal(split_flat(fobs[a], n)[1], obs[a]["action_mask"])
            np.testing.assert_array_equal(iobs[a], obs[a]["observation"])
            np.testing.assert_array_equal(iinfos[a]["action_mask"], obs[a]["action_mask"])
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in plain.agents}
        obs = plain.step(actions)[0]
        fobs = flat.step(actions)[0]
        iobs, _, _, _, iinfos = info_env.step(actions)


def test_wrappers_refuse_what_they_cannot_wrap():
    with pytest.raises(ValueError, match="AECEnv or ParallelEnv"):
        flat_mask(object())
    with pytest.raises(ValueError, match="AECEnv or ParallelEnv"):
        mask_in_info("env")
    with pytest.raises(ValueError, match="ParallelEnv"):
        terminate_illegal(pig_v0.env())
    with pytest.raises(ValueError, match="'observation' and 'action_mask'"):
        flat_space(spaces.Box(0, 1, (3,)))
    with pytest.raises(ValueError, match="cannot hold"):
        split_flat(np.zeros(3), 3)
    with pytest.raises(ValueError, match="positive integer"):
        split_flat(np.zeros(3), 0)
    with pytest.raises(ValueError, match="illegal_reward must be a number"):
        terminate_illegal(pig_v0.parallel_env(), illegal_reward="-1")


def _legal(obs, agent) -> list[int]:
    return [int(a) for a in np.flatnonzero(obs[agent]["action_mask"])]


def _illegal(obs, agent) -> int:
    return int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])


@pytest.mark.parametrize("offenders", [("player_1",), ("player_1", "player_3"), ("player_0",)])
def test_terminate_illegal_matches_env_classic_convention(offenders):
    """The same joint action through ``parallel_env()`` + the wrapper and through ``env()``
    (the agents in order): the same rewards, everyone done, nothing more to step."""
    for steps_before in (0, 3):
        par = terminate_illegal(pig_v0.parallel_env())
        obs, _ = par.reset(seed=11)
        aec = pig_v0.env()
        aec.reset(seed=11)
        rng = np.random.default_rng(4)
        for _ in range(steps_before):  # a few legal steps, the same in both
            actions = {a: int(rng.choice(_legal(obs, a))) for a in par.agents}
            obs = par.step(actions)[0]
            for a in list(aec.agents):
                aec.step(actions[a])
        assert par.agents == aec.agents == pig_v0.parallel_env().possible_agents
        actions = {a: _illegal(obs, a) if a in offenders else _legal(obs, a)[0] for a in par.agents}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, rewards, terms, truncs, infos = par.step(actions)
            final = {}  # what env() hands each agent at its last ``last()``
            for agent in aec.agent_iter():
                _, reward, term, trunc, _ = aec.last()
                if term or trunc:
                    final[agent] = (float(reward), term, trunc)
                aec.step(None if term or trunc else actions[agent])
        first = offenders[0]
        assert rewards == {a: (-1.0 if a == first else 0.0) for a in actions}
        assert all(terms.values()) and all(truncs.values())
        assert {a: infos[a]["illegal_action"] for a in infos} == dict.fromkeys(actions, first)
        assert par.agents == [] and aec.agents == []
        assert final == {a: (rewards[a], True, True) for a in actions}
        with pytest.raises(ValueError, match="finished episode"):
            par.step(actions)


def test_terminate_illegal_passes_legal_steps_and_refuses_bad_indices():
    par = terminate_illegal(pig_v0.parallel_env())
    plain = pig_v0.parallel_env()
    obs, _ = par.reset(seed=2)
    plain.reset(seed=2)
    actions = {a: _legal(obs, a)[0] for a in par.agents}
    out, ref = par.step(actions), plain.step(actions)
    assert out[1:4] == ref[1:4]
    for a in out[0]:
        np.testing.assert_array_equal(out[0][a]["observation"], ref[0][a]["observation"])
    actions = {a: _legal(out[0], a)[0] for a in par.agents}  # legal now
    bad = dict(actions, player_2=99)
    with pytest.raises(ValueError, match=r"player_2: action must be an integer index"):
        par.step(bad)
    with pytest.raises(ValueError, match="integer index"):
        par.step(dict(actions, player_0=True))
    quietly(parallel_api_test, terminate_illegal(pig_v0.parallel_env()), num_cycles=50)
