"""Pig's batched rule-based opponent: the twin's rollout policy on :class:`PigVector` rows.

:class:`HeuristicPolicy` (the descriptor's ``vector_policy``, :mod:`kiaule_env.vector.opponents`)
decides for many slots in one numba loop, calling ``_policy_action`` of
:mod:`kiaule_env.pig.compiled` (its "Rollout policy": nose with four of a kind and in the race,
else keep the rank held most and pass one held least, ties at random) on the twin's part of each
row, the first ``compiled.SIZE`` words, for the seat the batched env presents now. It reads the
seat's own hand and public state only. The batched env presents a passing step one seat at a time
and buffers the choices; the twin's hands change only when the last seat has chosen, so each seat
decides on the hand of the step's start (P2), as in the simultaneous game.
"""

from __future__ import annotations

import numpy as np

from kiaule_env.pig import compiled as C
from kiaule_env.pig import vector as V
from kiaule_env.vector.kernels import kernel_decorator
from kiaule_env.vector.opponents import CompiledPolicy

#: the kernel's cache goes stale with the twin and the batched env's layout
_kernel = kernel_decorator(C, V)

#: the twin's words at the start of a row (read at import, so a layout change carries through)
_TWIN = C.SIZE


@_kernel
def _act_kernel(state, agent, slots, seed, out) -> None:
    """``out[j]``: the rollout policy's action for slot ``slots[j]``'s seat to act."""
    np.random.seed(seed)
    buf = np.empty(16, np.int64)
    for j in range(slots.shape[0]):
        i = slots[j]
        out[j] = C._policy_action(state[i, :_TWIN], agent[i], buf)


class HeuristicPolicy(CompiledPolicy):
    """``pig/heuristic``'s compiled counterpart on a Pig batched env (module docstring)."""

    name = "pig/heuristic (compiled counterpart)"
    impl_type = V.PigVector

    def _decide(self, slots: np.ndarray, seed: int, out: np.ndarray) -> None:
        _act_kernel(self.impl.state, self.impl.agent, slots, seed, out)
