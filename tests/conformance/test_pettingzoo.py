"""PettingZoo's own tests on every game and variant: ``api_test`` and ``seed_test`` on ``env()``,
and for the parallel games ``parallel_api_test`` and a masked ``parallel_seed_test``."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from tests.conformance.conftest import variants


def quietly(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@variants()
def test_api_test(game, options):
    quietly(api_test, game.env(**options), num_cycles=200)
    if game.parallel:
        quietly(parallel_api_test, game.load().parallel_env(**options), num_cycles=200)


@variants(default_only=True)
def test_seed_test(game, options):
    quietly(seed_test, lambda: game.env(**options), num_cycles=200)


@variants(default_only=True)
def test_registered_in_pettingzoo(game, options):
    env = pettingzoo.make("aec", game.env_id)
    assert type(env.unwrapped) is type(game.raw_env().unwrapped)
    if game.parallel:
        assert type(pettingzoo.make("parallel", game.env_id)) is type(game.native_env())


def _masked_parallel_episode(env, seed: int, action_seed: int) -> list:
    """Everything a parallel episode returns, with seeded random legal actions."""
    rng = np.random.default_rng(action_seed)
    obs, infos = env.reset(seed=seed)
    trace = [(obs, infos)]
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        out = env.step(actions)
        obs = out[0]
        trace.append(out)
    return trace


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


@variants()
def test_parallel_seed_test_with_masks(game, options):
    """PettingZoo's ``parallel_seed_test`` samples unmasked actions; this is it with masks."""
    if not game.parallel:
        pytest.skip("an AEC game")
    make = game.load().parallel_env
    for seed in (0, 1):
        assert _same(
            _masked_parallel_episode(make(**options), seed, 42),
            _masked_parallel_episode(make(**options), seed, 42),
        )
    assert not _same(
        _masked_parallel_episode(make(**options), 0, 42),
        _masked_parallel_episode(make(**options), 1, 42),
    )
