"""The shared harness of the batched envs' tests (``tests/<game>/test_vector.py``).

* :func:`differential`: the batched env and the Python env, driven by the same random legal
  actions from the same seeds, agree at every step on the observation (exact floats), the mask,
  the seat to act, every seat's reward, the end (terminated / truncated) and the result;
* :func:`permutation`: the information-set permutation test for the batched env: states the
  seat to act cannot tell apart (the engine's ``resample_hidden``), loaded into slots, give the
  same observation and mask.

The Python side is ``GAMES[game].raw_env(**options)``, the AEC env (Pig's presents one seat at
a time, in the order ``pig_v0.env()`` uses), reset with the slot's ``info["seed"]``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from kiaule_env import GAMES, vector

#: ``KIAULE_VECTOR_EPISODES`` overrides the CI-sized episode counts of the differential tests
EPISODES_VARIABLE = "KIAULE_VECTOR_EPISODES"


def episode_count(ci: int) -> int:
    """The episodes a differential test plays: ``ci``, or ``KIAULE_VECTOR_EPISODES`` if set."""
    value = os.environ.get(EPISODES_VARIABLE)
    return int(value) if value else ci


#: one uniformly random legal action per row of a mask (int64), vectorised
random_actions = vector.random_legal


class _Slot:
    """One slot's Python env and where its episode is."""

    def __init__(self, game: str, options: Mapping[str, Any]) -> None:
        self.env = GAMES[game].raw_env(**options)
        self.seed = -1
        self.step = 0

    def reset(self, seed: int) -> None:
        self.env.reset(seed=int(seed))
        self.seed, self.step = int(seed), 0

    def ended(self) -> tuple[bool, bool]:
        """(terminated, truncated) of the episode: over when every agent in it is done."""
        env = self.env
        over = all(env.terminations[a] or env.truncations[a] for a in env.agents)
        truncated = over and any(env.truncations[a] for a in env.agents)
        return over and not truncated, truncated

    def result(self) -> Any:
        env = self.env
        return next((env.infos[a]["result"] for a in env.agents if "result" in env.infos[a]), None)


def _compare_slot(
    where: str, slot: _Slot, obs: Mapping[str, np.ndarray], info: Mapping[str, Any], i: int
) -> None:
    """The slot's seat to act, observation, mask and seed equal the Python env's."""
    env = slot.env
    assert info["seed"][i] == slot.seed, f"{where}: seed {info['seed'][i]} != {slot.seed}"
    agent = env.agent_selection
    seat = env.agent_name_mapping[agent]
    assert info["agent"][i] == seat, f"{where}: seat to act {info['agent'][i]} != {seat}"
    seen = env.observe(agent)
    got, want = obs["observation"][i], seen["observation"]
    if not np.array_equal(got, want):
        diff = np.flatnonzero(got != want)[:8].tolist()
        raise AssertionError(
            f"{where}: observation differs at {diff}: {got[diff].tolist()} != {want[diff].tolist()}"
        )
    got_mask, want_mask = obs["action_mask"][i], seen["action_mask"]
    legal, want_legal = np.flatnonzero(got_mask).tolist(), np.flatnonzero(want_mask).tolist()
    assert np.array_equal(got_mask, want_mask), f"{where}: mask {legal} != {want_legal}"


def differential(
    game: str,
    options: Mapping[str, Any],
    episodes: int,
    seed: int,
    num_envs: int = 64,
) -> int:
    """Play ``episodes`` finished episodes through both envs, comparing every step (see the
    module docstring); returns the agent steps compared. Fails naming game, options, batch seed,
    slot, episode seed and step."""
    venv = vector.make(game, num_envs=num_envs, seed=seed, **options)
    obs, info = venv.reset()
    players = venv.num_players
    slots = [_Slot(game, options) for _ in range(num_envs)]
    for i, slot in enumerate(slots):
        slot.reset(info["seed"][i])
        _compare_slot(_where(game, options, seed, i, slot), slot, obs, info, i)
    rng = np.random.default_rng(seed)
    finished = steps = 0
    while finished < episodes:
        actions = random_actions(obs["action_mask"], rng)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert rewards.dtype == np.float32 and rewards.shape == (num_envs, players), rewards.shape
        for i, slot in enumerate(slots):
            where = _where(game, options, seed, i, slot)
            slot.env.step(int(actions[i]))
            slot.step += 1
            want = np.array([slot.env.rewards.get(a, 0.0) for a in slot.env.possible_agents])
            assert np.array_equal(rewards[i], want.astype(np.float32)), (
                f"{where}: rewards {rewards[i].tolist()} != {want.tolist()}"
            )
            ended = slot.ended()
            assert (bool(terminated[i]), bool(truncated[i])) == ended, (
                f"{where}: (terminated, truncated) {(bool(terminated[i]), bool(truncated[i]))}"
                f" != {ended}"
            )
            if ended[0] or ended[1]:
                want_result = slot.result() if ended[0] else None
                got_result = info["final_result"][i]
                assert got_result == want_result, f"{where}: result {got_result} != {want_result}"
                finished += 1
                slot.reset(info["seed"][i])
            else:
                assert info["final_result"][i] is None, f"{where}: a result without an end"
            _compare_slot(_where(game, options, seed, i, slot), slot, obs, info, i)
        steps += num_envs
    return steps


def _where(game: str, options: Mapping[str, Any], seed: int, i: int, slot: _Slot) -> str:
    return (
        f"{game} {dict(options)} batch seed {seed}, slot {i} (episode seed {slot.seed}), "
        f"step {slot.step}"
    )


def permutation(
    game: str,
    options: Mapping[str, Any],
    positions: int,
    seed: int,
    redeals: int = 3,
) -> int:
    """At ``positions`` random positions of seeded random Python episodes, the seat to act's
    state and ``redeals`` redeals of what it cannot see (``engine.resample_hidden``), loaded
    into slots of the batched env, give the Python env's observation and mask in every slot.
    Returns how many redeals changed the state (a caller asserts it is not zero)."""
    descriptor = GAMES[game]
    venv = vector.make(game, num_envs=redeals + 1, seed=seed, **options)
    venv.reset()
    env = descriptor.raw_env(**options)
    rng = np.random.default_rng(seed)
    checked = changed = episode = 0
    while checked < positions:
        env.reset(seed=seed + episode)
        episode += 1
        while not all(env.terminations[a] or env.truncations[a] for a in env.agents):
            if _at_step_start(env) and rng.random() < 0.3 and checked < positions:
                changed += _check_redeals(game, options, venv, env, rng, redeals)
                checked += 1
            agent = env.agent_selection
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(rng.choice(legal)))
    return changed


def _at_step_start(env: Any) -> bool:
    """The engine state alone says who acts (not in the middle of a simultaneous step)."""
    seats = env.engine.to_act(env.game_state)
    return bool(seats) and env.agent_selection == env.possible_agents[seats[0]]


def _check_redeals(
    game: str,
    options: Mapping[str, Any],
    venv: vector.VectorEnv,
    env: Any,
    rng: np.random.Generator,
    redeals: int,
) -> int:
    engine, original = env.engine, env.game_state
    agent = env.agent_selection
    seat = env.agent_name_mapping[agent]
    seen = env.observe(agent)
    states = [engine.clone(original)]
    states += [engine.resample_hidden(original, seat, rng) for _ in range(redeals)]
    for slot, state in enumerate(states):
        venv.impl.load_state(slot, state)
    where = f"{game} {dict(options)}: player_{seat}'s redealt states"
    for slot in range(len(states)):
        assert venv.impl.agent[slot] == seat, f"{where}: slot {slot} seat {venv.impl.agent[slot]}"
        assert np.array_equal(venv.impl.obs[slot], seen["observation"]), (
            f"{where}: slot {slot} observation differs at "
            f"{np.flatnonzero(venv.impl.obs[slot] != seen['observation'])[:8].tolist()}"
        )
        assert np.array_equal(venv.impl.mask[slot], seen["action_mask"]), f"{where}: slot {slot}"
    return sum(repr(s) != repr(original) for s in states[1:])
