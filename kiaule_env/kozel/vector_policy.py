"""Kozel's batched rule-based opponent: the compiled rollout policy on :class:`KozelVector` rows.

:class:`HeuristicPolicy` (the descriptor's ``vector_policy``, :mod:`kiaule_env.vector.opponents`)
decides for many slots in one numba loop, calling ``_policy_action`` of
:mod:`kiaule_env.kozel.compiled_policy` (``kozel/heuristic``'s rules, ties at random) on the
twin's part of each row, its first ``compiled.SIZE`` words, for the seat to act. It reads that
seat's own hand, the trump and the face-up cards of the trick: nothing hidden.
"""

from __future__ import annotations

import numpy as np

from kiaule_env.kozel import compiled as C
from kiaule_env.kozel import compiled_policy as P
from kiaule_env.kozel import vector as V
from kiaule_env.kozel.rules import NUM_MOVES
from kiaule_env.vector.kernels import kernel_decorator
from kiaule_env.vector.opponents import CompiledPolicy

#: the kernel's cache goes stale with the twin, the policy and the batched env's layout
_kernel = kernel_decorator(C, P, V)

#: the twin's words at the start of a row (read at import, so a layout change carries through)
_TWIN = C.SIZE


@_kernel
def _act_kernel(state, agent, slots, seed, out) -> None:
    """``out[j]``: the rollout policy's action for slot ``slots[j]``'s seat to act."""
    np.random.seed(seed)
    buf = np.empty(NUM_MOVES, np.int64)
    for j in range(slots.shape[0]):
        i = slots[j]
        out[j] = P._policy_action(state[i, :_TWIN], agent[i], buf)


class HeuristicPolicy(CompiledPolicy):
    """``kozel/heuristic``'s compiled counterpart on a Kozel batched env (module docstring)."""

    name = "kozel/heuristic (compiled counterpart)"
    impl_type = V.KozelVector

    def _decide(self, slots: np.ndarray, seed: int, out: np.ndarray) -> None:
        _act_kernel(self.impl.state, self.impl.agent, slots, seed, out)
