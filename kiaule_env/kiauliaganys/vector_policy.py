"""Kiauliaganys' batched rule-based opponent: the twin's rollout policy on the batched env's rows.

:class:`HeuristicPolicy` (the descriptor's ``vector_policy``, :mod:`kiaule_env.vector.opponents`)
decides for many slots in one numba loop, calling ``policy_action`` of
:mod:`kiaule_env.kiauliaganys.compiled` (its "Rollout policy", rules 1–4, ties at random) on the
twin's part of each row (after the batched env's ``EXTRA_WORDS`` of bookkeeping, read at import
so a layout change carries through), for the seat to act, with :data:`EPSILON` random moves.

**It reads hidden cards.** The policy was written for determinized worlds, where every card is
where the world put it: it reads the next player's hand (whether he can match a suit, how many
of it he holds) and the face-down order (how many cards his search would pick up). On the real
game's rows it therefore knows what no player may know; the name says so. Measured against the
Python ``kiauliaganys/heuristic`` (``docs/compiled-twins.md``), it plays about as well, no
better: one policy seat among three heuristics averages +0.003 ± 0.006 a deal.
"""

from __future__ import annotations

import numpy as np

from kiaule_env.kiauliaganys import compiled as C
from kiaule_env.kiauliaganys import vector as V
from kiaule_env.kiauliaganys import vector_layout
from kiaule_env.vector.kernels import kernel_decorator
from kiaule_env.vector.opponents import CompiledPolicy

#: the kernel's cache goes stale with the twin and the batched env and its row layout
_kernel = kernel_decorator(C, V, vector_layout)

#: the bookkeeping words before the twin's part of a row
_EXTRA = V.EXTRA_WORDS
#: chance of a uniformly random legal move per decision: none, the policy's best (rule 4's
#: random move out of a losing repetition stays)
EPSILON = 0.0


@_kernel
def _act_kernel(state, agent, slots, seed, out) -> None:
    """``out[j]``: the rollout policy's action for slot ``slots[j]``'s seat to act."""
    np.random.seed(seed)
    buf = np.empty(2 * C.MAX_CARDS + 16, np.int64)
    for j in range(slots.shape[0]):
        i = slots[j]
        out[j] = C.policy_action(state[i, _EXTRA:], agent[i], buf, EPSILON)


class HeuristicPolicy(CompiledPolicy):
    """The Kiauliaganys rollout policy on a batched env; it reads hidden cards (module
    docstring)."""

    name = "kiauliaganys/heuristic (compiled counterpart, reads hidden cards)"
    impl_type = V.KiauliaganysVector

    def _decide(self, slots: np.ndarray, seed: int, out: np.ndarray) -> None:
        _act_kernel(self.impl.state, self.impl.agent, slots, seed, out)
