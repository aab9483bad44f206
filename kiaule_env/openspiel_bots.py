"""Bots for the OpenSpiel bridge (extra ``openspiel``): what OpenSpiel's Python search bots need
to play the suite's games (:mod:`kiaule_env.openspiel`, which re-exports both names).

* :func:`resampler`: worlds for ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` from one
  seeded generator, through the bridged state's ``resample``;
* :class:`StatelessBot`: a bot that searches afresh every step, fit for ``evaluate_bots``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel


def resampler(seed: int | None = None) -> Callable[[pyspiel.State, int], pyspiel.State]:
    """A resampler for ``open_spiel.python.algorithms.ismcts.ISMCTSBot.set_resampler``: each
    call draws a world from one generator seeded with ``seed`` (pyspiel's default sampler
    restarts its own generator for every call)."""
    rng = np.random.default_rng(seed)

    def resample(state: pyspiel.State, player: int) -> pyspiel.State:
        return state.resample(player, rng)

    return resample


class StatelessBot(pyspiel.Bot):
    """A Python bot that searches afresh at every step, made fit for ``evaluate_bots``.

    ``open_spiel.python.algorithms.evaluate_bots`` calls ``restart_at`` and ``inform_action``
    on every bot, and pyspiel's ``Bot`` base raises "RestartAt(state) not implemented" for a
    Python bot that lacks them, as the Python ``ISMCTSBot`` does. That bot builds a new tree
    from the state it is given at every step, so it keeps nothing between steps: restarting and
    being told others' moves are rightly no-ops, and ``step`` / ``step_with_policy`` pass on.
    """

    def __init__(self, bot: Any):
        super().__init__()
        if not callable(getattr(bot, "step", None)):
            raise ValueError(f"bot must have a step(state) method, got {type(bot).__name__}")
        self.bot = bot

    def step(self, state: pyspiel.State) -> int:
        """The wrapped bot's action at ``state``."""
        return int(self.bot.step(state))

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        """The wrapped bot's policy and action at ``state``."""
        policy, action = self.bot.step_with_policy(state)
        return policy, int(action)

    def provides_policy(self) -> bool:
        return callable(getattr(self.bot, "step_with_policy", None))

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to forget: the wrapped bot searches from scratch every step."""

    def restart(self) -> None:
        """Nothing to forget: the wrapped bot searches from scratch every step."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to track: the next step reads everything from its state."""

    def inform_actions(self, state: pyspiel.State, actions: list[int]) -> None:
        """Nothing to track: the next step reads everything from its state."""
