"""Wrappers for the libraries that want observations and masks another way.

Every env of the suite observes ``{"observation": float32 vector, "action_mask": int8 vector}``.
These PettingZoo wrappers (AEC and parallel alike) reshape that for other libraries:

* :func:`flat_mask` / :class:`FlatMaskWrapper` / :class:`FlatMaskParallelWrapper`: one flat
  ``float32`` ``Box``, the observation vector **then** the mask (``num_actions`` entries of 0/1)
  — for libraries that take a single array (SuperSuit's vector envs, SB3); :func:`split_flat`
  splits it back.
* :func:`mask_in_info` / :class:`MaskInInfoWrapper` / :class:`MaskInInfoParallelWrapper`: the
  observation vector alone, with the mask moved into ``info["action_mask"]``, as Shimmy and
  AgileRL expect.
* :class:`TerminateIllegalParallelWrapper` (:func:`terminate_illegal`): PettingZoo's classic
  illegal-action convention for Pig's ``parallel_env()``, the same as ``pig_v0.env()``: the
  first offender in agent order gets ``illegal_reward`` (−1), every other agent 0, and the
  episode ends for everyone (terminated and truncated, as ``TerminateIllegalWrapper`` does).

``kiaule_env.wrappers.sb3`` (extra ``interop``: SuperSuit; extra ``train``: sb3-contrib) turns
Pig's parallel env into an SB3 vector env for ``MaskablePPO``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import BaseParallelWrapper, BaseWrapper
from pettingzoo.utils.env_logger import EnvLogger

__all__ = [
    "FlatMaskParallelWrapper",
    "FlatMaskWrapper",
    "MaskInInfoParallelWrapper",
    "MaskInInfoWrapper",
    "TerminateIllegalParallelWrapper",
    "flat_mask",
    "flat_space",
    "mask_in_info",
    "split_flat",
    "terminate_illegal",
]


def _parts(space: spaces.Space) -> tuple[spaces.Box, spaces.Box]:
    """The ``observation`` and ``action_mask`` boxes of one of the suite's observation spaces."""
    if not (
        isinstance(space, spaces.Dict)
        and isinstance(space.spaces.get("observation"), spaces.Box)
        and isinstance(space.spaces.get("action_mask"), spaces.Box)
    ):
        raise ValueError(
            "expected a Dict observation space with 'observation' and 'action_mask' boxes "
            f"(the suite's envs), got {space}"
        )
    return space["observation"], space["action_mask"]


def flat_space(space: spaces.Space) -> spaces.Box:
    """The flat ``Box`` of :func:`flat_mask`: the observation's bounds, then ``[0, 1]`` per
    action."""
    obs, mask = _parts(space)
    low = np.concatenate([obs.low.astype(np.float32), np.zeros(mask.shape, np.float32)])
    high = np.concatenate([obs.high.astype(np.float32), np.ones(mask.shape, np.float32)])
    return spaces.Box(low, high, dtype=np.float32)


def flatten(observation: dict[str, np.ndarray]) -> np.ndarray:
    """``observation`` then ``action_mask`` as one ``float32`` vector."""
    return np.concatenate(
        [observation["observation"], observation["action_mask"].astype(np.float32)]
    ).astype(np.float32, copy=False)


def split_flat(flat: np.ndarray, num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """``(observation, mask)`` of a flat vector (or a batch, on its last axis); the mask as
    ``int8``."""
    flat = np.asarray(flat)
    if (
        isinstance(num_actions, (bool, np.bool_))
        or not isinstance(num_actions, (int, np.integer))
        or num_actions < 1
    ):
        raise ValueError(f"num_actions must be a positive integer, got {num_actions!r}")
    num_actions = int(num_actions)
    if flat.ndim == 0 or flat.shape[-1] <= num_actions:
        raise ValueError(
            f"a flat observation of shape {flat.shape} cannot hold an observation and a mask of "
            f"{num_actions} actions"
        )
    return flat[..., :-num_actions], (flat[..., -num_actions:] > 0.5).astype(np.int8)


class FlatMaskWrapper(BaseWrapper):
    """AEC: ``observe(agent)`` is one flat ``float32`` vector, the observation then the mask."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._spaces = {a: flat_space(env.observation_space(a)) for a in env.possible_agents}

    def observation_space(self, agent: str) -> spaces.Box:
        return self._spaces[agent]

    def observe(self, agent: str) -> np.ndarray:
        return flatten(self.env.observe(agent))


class FlatMaskParallelWrapper(BaseParallelWrapper):
    """Parallel: every observation is one flat ``float32`` vector, the observation then the mask."""

    def __init__(self, env: ParallelEnv):
        super().__init__(env)
        self._spaces = {a: flat_space(env.observation_space(a)) for a in env.possible_agents}

    def observation_space(self, agent: str) -> spaces.Box:
        return self._spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        observations, infos = self.env.reset(seed=seed, options=options)
        return {a: flatten(o) for a, o in observations.items()}, infos

    def step(self, actions: dict[str, Any]):
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        flat = {a: flatten(o) for a, o in observations.items()}
        return flat, rewards, terminations, truncations, infos


def flat_mask(env: AECEnv | ParallelEnv) -> FlatMaskWrapper | FlatMaskParallelWrapper:
    """:class:`FlatMaskWrapper` or :class:`FlatMaskParallelWrapper`, whichever ``env`` needs."""
    if isinstance(env, ParallelEnv):
        return FlatMaskParallelWrapper(env)
    if isinstance(env, AECEnv):
        return FlatMaskWrapper(env)
    raise ValueError(f"expected a PettingZoo AECEnv or ParallelEnv, got {type(env).__name__}")


class MaskInInfoWrapper(BaseWrapper):
    """AEC: ``observe(agent)`` is the observation vector alone; ``infos[agent]["action_mask"]``
    (so ``last()``'s info) holds that agent's current mask."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._spaces = {a: _parts(env.observation_space(a))[0] for a in env.possible_agents}
        self._infos: dict[str, dict[str, Any]] | None = None

    def observation_space(self, agent: str) -> spaces.Box:
        return self._spaces[agent]

    def observe(self, agent: str) -> np.ndarray:
        return self.env.observe(agent)["observation"]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._infos = None
        self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self._infos = None
        self.env.step(action)

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """The env's infos with every agent's current mask added (built once per step, so that
        ``last()``'s info is ``infos[agent]``, as PettingZoo's ``api_test`` checks)."""
        if self._infos is None:
            self._infos = {
                a: {**info, "action_mask": self.env.observe(a)["action_mask"]}
                for a, info in self.env.infos.items()
            }
        return self._infos


class MaskInInfoParallelWrapper(BaseParallelWrapper):
    """Parallel: observations are the observation vectors alone; ``infos[agent]["action_mask"]``
    holds each agent's mask, in ``reset`` and in every ``step``."""

    def __init__(self, env: ParallelEnv):
        super().__init__(env)
        self._spaces = {a: _parts(env.observation_space(a))[0] for a in env.possible_agents}

    def observation_space(self, agent: str) -> spaces.Box:
        return self._spaces[agent]

    @staticmethod
    def _move(observations: dict, infos: dict) -> tuple[dict, dict]:
        obs = {a: o["observation"] for a, o in observations.items()}
        moved = {
            a: {**infos.get(a, {}), "action_mask": o["action_mask"]}
            for a, o in observations.items()
        }
        return obs, moved

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        return self._move(*self.env.reset(seed=seed, options=options))

    def step(self, actions: dict[str, Any]):
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        obs, infos = self._move(observations, infos)
        return obs, rewards, terminations, truncations, infos


def mask_in_info(env: AECEnv | ParallelEnv) -> MaskInInfoWrapper | MaskInInfoParallelWrapper:
    """:class:`MaskInInfoWrapper` or :class:`MaskInInfoParallelWrapper`, whichever ``env``
    needs."""
    if isinstance(env, ParallelEnv):
        return MaskInInfoParallelWrapper(env)
    if isinstance(env, AECEnv):
        return MaskInInfoWrapper(env)
    raise ValueError(f"expected a PettingZoo AECEnv or ParallelEnv, got {type(env).__name__}")


class TerminateIllegalParallelWrapper(BaseParallelWrapper):
    """Pig's ``parallel_env()`` with ``env()``'s classic illegal-action convention.

    ``env()`` (the AEC version) takes the agents' actions one by one in agent order and ends the
    episode at the first illegal one; so here, a joint action in which some agent's action is
    illegal (mask 0) is not played: the first such agent in ``env.agents`` order gets
    ``illegal_reward``, every other agent 0, all are terminated and truncated, ``agents``
    becomes empty, and PettingZoo's illegal-move warning is logged. ``infos[agent]
    ["illegal_action"]`` names the offender. An action outside the space, or a bool, is still a
    ``ValueError``, as in ``env()``; a missing or foreign agent too (the env's own check).
    """

    def __init__(self, env: ParallelEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)):
            raise ValueError(f"illegal_reward must be a number, got {illegal_reward!r}")
        self.illegal_reward = float(illegal_reward)
        self._last_obs: dict[str, dict[str, np.ndarray]] = {}
        self._over = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        observations, infos = self.env.reset(seed=seed, options=options)
        self._last_obs = observations
        self._over = False
        return observations, infos

    @property
    def agents(self) -> list[str]:
        return [] if self._over else self.env.agents

    def step(self, actions: dict[str, Any]):
        if self._over:
            raise ValueError("step() called on a finished episode; call reset() first")
        if not isinstance(actions, dict):
            raise ValueError(
                f"actions must be a dict agent -> action, got {type(actions).__name__}"
            )
        live = list(self.env.agents)
        for agent in live:
            if agent not in actions:
                break  # the env's own check names it
            action = actions[agent]
            space = self.env.action_space(agent)
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise ValueError(
                    f"{agent}: action must be an integer index into Discrete({space.n}), "
                    f"got {action!r}"
                )
            if not space.contains(action):
                raise ValueError(
                    f"{agent}: action must be an integer index into Discrete({space.n}), "
                    f"got {action!r}"
                )
            if not self._last_obs[agent]["action_mask"][int(action)]:
                return self._terminate(live, agent)
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self._last_obs = observations
        return observations, rewards, terminations, truncations, infos

    def _terminate(self, live: list[str], offender: str):
        EnvLogger.warn_on_illegal_move()
        self._over = True
        rewards = dict.fromkeys(live, 0.0)
        rewards[offender] = self.illegal_reward
        observations = {a: self._last_obs[a] for a in live}
        infos = {a: {"illegal_action": offender} for a in live}
        return (
            observations,
            rewards,
            dict.fromkeys(live, True),
            dict.fromkeys(live, True),
            infos,
        )


def terminate_illegal(env: ParallelEnv, illegal_reward: float = -1.0) -> ParallelEnv:
    """:class:`TerminateIllegalParallelWrapper` around a parallel env."""
    if not isinstance(env, ParallelEnv):
        raise ValueError(f"expected a PettingZoo ParallelEnv, got {type(env).__name__}")
    return TerminateIllegalParallelWrapper(env, illegal_reward)
