"""A batched env as a Stable-Baselines3 ``VecEnv`` for sb3-contrib's ``MaskablePPO``.

:class:`SB3VecEnv` wraps a :class:`~kiaule_env.vector.SingleLearner`: the policy sees the
learner seat's observation vector (``Box``), ``MaskablePPO`` gets the legal actions through
``action_masks()`` / ``env_method("action_masks")`` (what ``sb3_contrib``'s
``get_action_masks`` and ``is_masking_supported`` call on a vector env). ``dones`` are the
learner's episode ends (terminated or truncated); ``infos[i]`` holds ``"TimeLimit.truncated"``
and, where an episode ended, ``"final_result"``. There is no ``"terminal_observation"``: the
batch restarts a finished slot at once and the seat to act at an episode's end has nothing to
observe, so SB3 does not bootstrap a truncated episode's value. Wrap it in SB3's ``VecMonitor``
for episode statistics. Needs the ``train`` extra.

Example::

    from sb3_contrib import MaskablePPO
    from kiaule_env import vector
    from kiaule_env.vector.sb3 import SB3VecEnv

    venv = vector.make("kozel", num_envs=64, seed=0)
    env = SB3VecEnv(vector.SingleLearner(venv, [0, 2], vector.random_opponent(0)))
    MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=256, seed=0).learn(20_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kiaule_env.extras import require

require("stable_baselines3", "kiaule_env.vector.sb3")

from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from kiaule_env.vector.learner import SingleLearner  # noqa: E402

#: the method ``MaskablePPO`` looks for (``sb3_contrib.common.maskable.utils``)
ACTION_MASKS = "action_masks"


class SB3VecEnv(VecEnv):
    """A :class:`SingleLearner` as an SB3 vector env; see the module docstring."""

    def __init__(self, learner: SingleLearner):
        if not isinstance(learner, SingleLearner):
            raise ValueError(f"SB3VecEnv wraps a vector.SingleLearner, got {type(learner)}")
        self.learner = learner
        box = learner.single_observation_space["observation"]
        super().__init__(learner.num_envs, box, learner.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        """New episodes everywhere; the batch is seeded by ``seed()``'s seed when one was set."""
        seed = self._seeds[0]
        obs, _ = self.learner.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs["observation"]

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        obs, reward, terminated, truncated, info = self.learner.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            cut = (truncated & ~terminated)[ended].tolist()
            results = info["final_result"][ended].tolist()
            for i, limit, result in zip(ended.tolist(), cut, results, strict=True):
                infos[i]["TimeLimit.truncated"] = limit
                infos[i]["final_result"] = result
        return obs["observation"], reward, dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every slot, ``(num_envs, num_actions)`` booleans."""
        return self.learner.action_masks()

    def close(self) -> None:
        self.learner.close()

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == ACTION_MASKS or hasattr(self.learner, attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        slots = list(self._get_indices(indices))
        if attr_name == "render_mode":
            return [None] * len(slots)
        value = getattr(self.learner, attr_name)
        return [value] * len(slots)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise ValueError(f"set_attr({attr_name!r}): the slots of a batched env share one object")

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks`` per slot (what ``MaskablePPO`` calls); other methods are refused."""
        if method_name != ACTION_MASKS:
            raise ValueError(f"env_method({method_name!r}): only {ACTION_MASKS!r} is offered")
        masks = self.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs


__all__ = ["SB3VecEnv"]
