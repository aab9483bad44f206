"""Batched rule-based opponents: each game's compiled rollout policy on a batched env's rows.

Training on :mod:`kiaule_env.vector` steps thousands of slots at once; an opponent that decides
one slot at a time in Python would cost more than the env. :func:`heuristic_opponent` gives the
compiled counterpart of a game's rule-based agent (``<game>/heuristic``) that decides for many
slots in one numba call, reading the slots' rows of the batched env directly:

    venv = vector.make("pig", num_envs=1024, seed=0)
    opponent = heuristic_opponent(venv)          # None where the game has no such policy
    obs, info = venv.reset()
    actions = opponent.act(slots, seed=123)      # slots: int64 indices of the slots to decide

``act(slots, seed)`` returns one int64 action per slot of ``slots``, for the seat to act there
now (``info["agent"]``), always one of that slot's legal actions (its ``action_mask``); the
policy's tie-breaks come from numba's generator seeded with ``seed`` once per call, so the same
seed and the same rows give the same actions. The policies are the twins' rollout policies
(``_policy_action`` of ``kiaule_env/<game>/compiled.py``, Kozel's in
``kiaule_env/kozel/compiled_policy.py``); a game names its class in the descriptor's
``vector_policy`` field (``"module:Class"``), and games without one (Elgeta, which has no
decisions; a game without a batched env) give ``None``. What each reads:

* **Pig** (``pig/heuristic``'s counterpart): the seat's own hand and the public race state
  (P3): nothing hidden. In a passing step the batched env presents the seats one at a time and
  buffers their choices; the hands change only when the last has chosen, so every seat decides
  on the hand of the step's start, as in the simultaneous game;
* **Kozel** (``kozel/heuristic``'s counterpart): the seat's own hand, the trump and the face-up
  cards of the trick: nothing hidden;
* **Kiauliaganys** (``kiauliaganys/heuristic``'s counterpart): the rollout policy written for
  determinized worlds, which **reads hidden cards**: every seat's hand and the face-down order
  (whether the next player can match a suit, how many cards his search would pick up). As a
  training opponent it knows what no player may know; its ``name`` says so. Measured, it plays
  about as well as the Python heuristic, no better (``docs/compiled-twins.md``).

Bad input raises ``ValueError``: ``slots`` must be a 1-D integer array of slot indices in
``[0, num_envs)``, each with a seat to act (a legal action in its mask: the env has been
reset), and ``seed`` an integer in ``[0, 2**32)``.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any, Protocol

import numpy as np

from kiaule_env.core.options import is_integer
from kiaule_env.vector.base import VectorEnv

__all__ = ["BatchedPolicy", "CompiledPolicy", "heuristic_opponent"]

#: numba's generator takes a 32-bit seed
SEED_LIMIT = 2**32


class BatchedPolicy(Protocol):
    """An opponent deciding for many slots of a batched env at once (module docstring)."""

    #: e.g. ``"kozel/heuristic (compiled counterpart)"``
    name: str

    def act(self, slots: np.ndarray, seed: int) -> np.ndarray:
        """One legal int64 action per slot of ``slots`` for its seat to act now."""
        ...


def heuristic_opponent(venv: VectorEnv) -> BatchedPolicy | None:
    """The compiled counterpart of ``venv``'s game's rule-based agent, deciding on ``venv``'s
    rows, or ``None`` for a game without one (its descriptor has no ``vector_policy``)."""
    game = getattr(venv, "game", None)
    if game is None or not hasattr(venv, "impl"):
        raise ValueError(
            "heuristic_opponent needs a batched env made by kiaule_env.vector.make, "
            f"got {type(venv).__name__}"
        )
    spec = getattr(game, "vector_policy", None)
    if not spec:
        return None
    module, _, cls = spec.partition(":")
    policy: BatchedPolicy = getattr(importlib.import_module(module), cls)(venv)
    return policy


class CompiledPolicy(ABC):
    """What the games' batched policies share: the checks of ``act``'s arguments.

    A subclass sets ``name`` and ``impl_type`` (the game's batched implementation class) and
    implements :meth:`_decide`, a call of its numba kernel writing ``out``.
    """

    name: str = ""
    impl_type: type = object

    def __init__(self, venv: VectorEnv) -> None:
        impl = getattr(venv, "impl", None)
        if not isinstance(impl, self.impl_type):
            raise ValueError(
                f"{self.name} needs a batched env of {self.impl_type.__name__}, "
                f"got {type(impl).__name__}"
            )
        self.venv = venv
        self.impl = impl

    def act(self, slots: np.ndarray, seed: int) -> np.ndarray:
        """One legal int64 action per slot of ``slots``, for the seat to act there now
        (module docstring); ``ValueError`` for bad ``slots`` or ``seed``."""
        slots = self._check_slots(slots)
        if not is_integer(seed) or not 0 <= seed < SEED_LIMIT:
            raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
        return self.act_unchecked(slots, int(seed))

    def act_unchecked(self, slots: np.ndarray, seed: int) -> np.ndarray:
        """:meth:`act` without its argument checks, for a caller whose arguments cannot fail
        them (a batch's own int64 slots, each with a seat to act; a seed in ``[0, 2**32)``):
        the checks cost as much as the kernel on a training batch."""
        out = np.empty(slots.size, dtype=np.int64)
        if slots.size:
            self._decide(slots, seed, out)
        return out

    @abstractmethod
    def _decide(self, slots: np.ndarray, seed: int, out: np.ndarray) -> None:
        """Write the actions of ``slots`` (checked) into ``out``: the game's kernel."""

    def _check_slots(self, slots: Any) -> np.ndarray:
        array = np.asarray(slots)
        num_envs = self.impl.mask.shape[0]
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise ValueError(
                f"slots must be a 1-D integer array of slot indices, got {array.dtype} "
                f"{array.shape}"
            )
        array = np.ascontiguousarray(array, dtype=np.int64)
        if array.size and (array.min() < 0 or array.max() >= num_envs):
            bad = int(array[(array < 0) | (array >= num_envs)][0])
            raise ValueError(f"slots: {bad} is not a slot index in [0, {num_envs})")
        idle = ~self.impl.mask[array].any(axis=1)
        if idle.any():
            raise ValueError(
                f"slots: slot {int(array[idle][0])} has no seat to act (no legal action; "
                "reset the env first)"
            )
        return array
