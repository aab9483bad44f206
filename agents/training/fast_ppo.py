"""MaskablePPO with less overhead per network call, computing the same floats.

sb3-contrib's ``MaskablePPO`` spends part of every PPO minibatch and rollout forward pass on
work that does not change a single float it computes:

- **argument validation of the action distributions.** ``torch.distributions`` validates by
  default: every ``MaskableCategorical`` (three ``Categorical`` initialisations per forward
  pass) checks that its logits are real, and every ``log_prob`` that the actions lie in the
  support. :class:`FastMaskablePPO` switches the default off while it collects rollouts and
  updates the network (:func:`distribution_checks_off`) and restores it afterwards; the checks
  only ever raise, so what is computed is unchanged.
- **one Adam step per parameter tensor.** On the CPU torch's ``Adam`` defaults to its loop over
  the tensors; :class:`FastMaskablePPO` sets its parameter groups to the ``foreach`` kernels
  (the same operations on each tensor, in the same order, grouped in fewer calls; the weights
  they give are byte-identical, which ``tests/training/test_fast_ppo.py`` checks against plain
  ``MaskablePPO``). It is set on the optimizer before every update, so an optimizer state
  loaded from an older checkpoint gets it too. ``fused=True`` would be faster still but rounds
  differently, so it is not used.

Everything else (the network, the masks, the sampling, the losses, the random streams) is
sb3-contrib's own. A model saved from it is an ordinary ``MaskablePPO`` zip.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from torch.distributions import Distribution


@contextmanager
def distribution_checks_off() -> Iterator[None]:
    """``torch.distributions``' default argument validation off inside the block, restored
    after it (it only raises on invalid arguments; the floats are the same either way)."""
    previous = Distribution._validate_args
    Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        Distribution.set_default_validate_args(previous)


def use_foreach_adam(optimizer: torch.optim.Optimizer) -> None:
    """Set an ``Adam`` optimizer's parameter groups to the ``foreach`` kernels (same floats as
    the per-tensor loop; not ``fused``, which rounds differently). Other optimizers are left
    as they are."""
    if isinstance(optimizer, torch.optim.Adam):
        for group in optimizer.param_groups:
            if not group.get("fused"):
                group["foreach"] = True


class FastMaskablePPO(MaskablePPO):
    """``MaskablePPO`` with the overheads of the module docstring removed; the same weights,
    byte for byte, as ``MaskablePPO`` with the same settings and seed."""

    def collect_rollouts(self, *args: Any, **kwargs: Any) -> bool:
        """sb3-contrib's rollout collection without distribution argument checks."""
        with distribution_checks_off():
            return super().collect_rollouts(*args, **kwargs)

    def train(self) -> None:
        """sb3-contrib's PPO update with ``foreach`` Adam and no distribution argument
        checks."""
        use_foreach_adam(self.policy.optimizer)
        with distribution_checks_off():
            super().train()
