"""Pig's parallel env as a Stable-Baselines3 vector env for sb3-contrib's ``MaskablePPO``.

SuperSuit (extra ``interop``) turns a ParallelEnv into a vector env with one sub-env per agent
(``pettingzoo_env_to_vec_env_v1``; all agents share one policy, which is what the suite's
relative-seat observations are made for) and stacks copies (``concat_vec_envs_v1``). It needs a
single ``Box`` observation, so the env is first wrapped in
:class:`~kiaule_env.wrappers.FlatMaskParallelWrapper` (observation then mask);
:class:`MaskedVecEnv`, the small adapter here, then splits the mask off again: the policy sees
the observation vector, and ``MaskablePPO`` gets the masks through ``env_method("action_masks")``,
the method it calls on a vector env.

SuperSuit's vector env needs every agent in every step, so :class:`KeepSeatsParallelWrapper`
keeps the players of a full game (``game="full"``, P5) who have left until the game ends: every
reward reaches the vector env (a player's −1/(n−1) in the step he leaves, the winner's +1 at the
end; a game's rewards sum to 0, as in the native env). The limitation: from the step he leaves to
the end of the game, such a player's sub-env takes idle steps (his last observation, reward 0,
not done; his mask allows action 0 only, and the action is not played), so his episode ends with
the game's rather than when he leaves. A single allowed action has log-probability 0, so these
steps add nothing to ``MaskablePPO``'s policy loss; the value function learns that they are
worth 0. In a round game (the default) nobody leaves before the end and the wrapper changes
nothing.

Example (what ``tests/test_wrappers_sb3.py`` runs)::

    from sb3_contrib import MaskablePPO
    from kiaule_env import pig_v0
    from kiaule_env.wrappers.sb3 import masked_vec_env

    venv = masked_vec_env(pig_v0.parallel_env(), num_vec_envs=2, seed=0)
    MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64).learn(256)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils import BaseParallelWrapper
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from kiaule_env.core.options import is_integer
from kiaule_env.wrappers import FlatMaskParallelWrapper, split_flat

#: the method ``MaskablePPO`` looks for (``sb3_contrib.common.maskable.utils``)
ACTION_MASKS = "action_masks"


class KeepSeatsParallelWrapper(BaseParallelWrapper):
    """Every seat in every step until the episode ends (see the module docstring).

    A player who leaves gets his last observation and his reward in the step he leaves, as the
    env gives them, and is not done; later steps repeat that observation (its mask is all
    zero) with reward 0, and his action is not passed on. When the episode ends every seat is
    terminated, or truncated if the env truncated it (``max_cycles``).
    """

    def __init__(self, env: ParallelEnv):
        super().__init__(env)
        self.agents: list[str] = []
        self._last: dict[str, Any] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        observations, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.possible_agents)
        self._last = dict(observations)
        return observations, {a: infos.get(a, {}) for a in self.agents}

    def step(self, actions: dict[str, Any]):
        playing = {a: actions[a] for a in self.env.agents}
        observations, rewards, _, truncations, infos = self.env.step(playing)
        self._last.update(observations)
        seats = self.agents
        over = not self.env.agents
        truncated = over and any(truncations.values())
        done = dict.fromkeys(seats, over and not truncated)
        cut = dict.fromkeys(seats, truncated)
        if over:
            self.agents = []
        return (
            {a: self._last[a] for a in seats},
            {a: float(rewards.get(a, 0.0)) for a in seats},
            done,
            cut,
            {a: infos.get(a, {}) for a in seats},
        )


class MaskedVecEnv(VecEnvWrapper):
    """An SB3 vector env of flat observation-then-mask vectors, split into observation (what
    the policy sees) and masks (``env_method("action_masks")``, ``action_masks()``)."""

    def __init__(self, venv: VecEnv, num_actions: int):
        flat = venv.observation_space
        if not isinstance(flat, spaces.Box) or flat.shape[0] <= num_actions:
            raise ValueError(
                f"expected a flat Box observation of more than {num_actions} entries "
                f"(FlatMaskParallelWrapper), got {flat}"
            )
        self.num_actions = num_actions
        size = flat.shape[0] - num_actions
        observation_space = spaces.Box(flat.low[:size], flat.high[:size], dtype=np.float32)
        super().__init__(venv, observation_space=observation_space)
        self._masks = np.ones((venv.num_envs, num_actions), dtype=bool)
        self._next_seed: int | None = None

    def _split(self, flat: np.ndarray) -> np.ndarray:
        obs, masks = split_flat(flat, self.num_actions)
        masks = masks.astype(bool)
        # a seat that has left (KeepSeatsParallelWrapper) has no move: action 0, not played
        masks[~masks.any(axis=1), 0] = True
        self._masks = masks
        return obs

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the next ``reset`` (copy ``i`` of the env gets ``seed + i``); the envs keep
        their generators, so every later episode is fixed too. (SuperSuit's SB3 wrapper has no
        ``seed``, which ``MaskablePPO(seed=…)`` calls.)"""
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
        ):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
        self._next_seed = None if seed is None else int(seed)
        return [None if seed is None else int(seed) + i for i in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        seed, self._next_seed = self._next_seed, None
        if seed is None:
            return self._split(self.venv.reset())
        # SuperSuit's SB3 wrapper drops seeds: seed its ConcatVecEnv directly
        flat, infos = self.venv.venv.reset(seed=seed)
        self.venv.reset_infos = infos
        return self._split(flat)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        flat, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            terminal = info.get("terminal_observation")
            if terminal is not None:
                info["terminal_observation"] = split_flat(terminal, self.num_actions)[0]
        return self._split(flat), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The current masks, ``(num_envs, num_actions)`` booleans."""
        return self._masks.copy()

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == ACTION_MASKS or self.venv.has_attr(attr_name)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == ACTION_MASKS:
            rows = range(self.num_envs) if indices is None else self._get_indices(indices)
            return [self._masks[i].copy() for i in rows]
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)


def masked_vec_env(
    env: ParallelEnv, num_vec_envs: int = 1, seed: int | None = None
) -> MaskedVecEnv:
    """``env`` (Pig's ``parallel_env()``, a round or a full game) as an SB3 vector env for
    ``MaskablePPO``: ``num_vec_envs`` copies × one sub-env per seat; ``seed`` seeds the first
    reset. Players who leave a full game idle until it ends (module docstring)."""
    import supersuit as ss  # extra "interop"

    if not isinstance(env, ParallelEnv):
        raise ValueError(f"expected a PettingZoo ParallelEnv, got {type(env).__name__}")
    if not is_integer(num_vec_envs) or num_vec_envs < 1:
        raise ValueError(f"num_vec_envs must be a positive integer, got {num_vec_envs!r}")
    num_actions = int(env.action_space(env.possible_agents[0]).n)
    vec = ss.pettingzoo_env_to_vec_env_v1(FlatMaskParallelWrapper(KeepSeatsParallelWrapper(env)))
    venv = ss.concat_vec_envs_v1(vec, num_vec_envs, num_cpus=0, base_class="stable_baselines3")
    masked = MaskedVecEnv(venv, num_actions)
    masked.seed(seed)
    return masked
