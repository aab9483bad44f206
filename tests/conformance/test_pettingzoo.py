"""PettingZoo's own tests on every game and variant: ``api_test`` and ``seed_test`` on ``env()``,
for the parallel games ``parallel_api_test`` and a masked ``parallel_seed_test``, and a masked
``max_cycles_test`` for every game (``state_test`` is in ``test_state.py``)."""

from __future__ import annotations

import warnings
from collections import Counter

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


MAX_CYCLES = 4


def _masked_aec_run(env, seed: int, action_seed: int) -> tuple[Counter, Counter, bool]:
    """A masked random AEC episode: live steps per agent, dead (``None``) steps per agent, and
    whether it ended truncated."""
    rng = np.random.default_rng(action_seed)
    env.reset(seed=seed)
    live: Counter = Counter()
    dead: Counter = Counter()
    truncated = False
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            dead[agent] += 1
            truncated = truncated or (trunc and not term)
            env.step(None)
        else:
            live[agent] += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return live, dead, truncated


def _masked_parallel_steps(env, seed: int, action_seed: int) -> int:
    """Parallel steps of a masked random episode."""
    return len(_masked_parallel_episode(env, seed, action_seed)) - 1


def _check_max_cycles(game, options, max_cycles: int, seed: int) -> bool:
    """One seed of the masked ``max_cycles_test``; whether the episode was cut."""
    n = game.make_engine(**options).num_players
    live, dead, truncated = _masked_aec_run(
        game.env(max_cycles=max_cycles, **options), seed, 9 + seed
    )
    full, _, _ = _masked_aec_run(game.env(**options), seed, 9 + seed)
    assert set(dead) == set(game.env(**options).possible_agents)
    assert all(k == 1 for k in dead.values()), f"not exactly one final None step each: {dead}"
    if game.parallel:  # the limit counts parallel steps: one live step per agent in each
        natural = max(full.values())
        assert max(live.values()) == min(max_cycles, natural)
        make = game.load().parallel_env
        pnatural = _masked_parallel_steps(make(**options), seed, 5)
        pstep = _masked_parallel_steps(make(max_cycles=max_cycles, **options), seed, 5)
        assert pstep == min(max_cycles, pnatural)
        limit = max_cycles
    else:
        natural = sum(full.values())
        limit = max_cycles * n
        assert sum(live.values()) == min(limit, natural)
    assert truncated == (natural > limit)
    return truncated


@variants()
def test_max_cycles_test_with_masks(game, options):
    """PettingZoo's ``max_cycles_test`` with legal actions (it samples unmasked ones, which
    ``env()`` ends at once as illegal, and needs a ``parallel_env``, which only Pig has).

    With ``max_cycles = 4`` an episode stops after exactly ``min(4, its natural length)``
    cycles (parallel steps for Pig, ``4 × num_players`` agent steps for the turn-based games),
    ends truncated exactly when it was cut, and every agent gets exactly one final ``None``
    step; for Pig's parallel env ``pstep == min(max_cycles, natural)`` as in PettingZoo's test.
    Some seed must be cut; where random play ends every episode within 4 cycles (Pig with
    ``false_nose``, ``max_race_steps=3``), ``max_cycles = 1`` must cut one instead.
    """
    seeds = (0, 1, 2)
    cut = sum(_check_max_cycles(game, options, MAX_CYCLES, s) for s in seeds)
    if not cut:
        cut = sum(_check_max_cycles(game, options, 1, s) for s in seeds)
    assert cut, "no seed's episode was long enough to be truncated"
