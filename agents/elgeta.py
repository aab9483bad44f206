"""``elgeta/heuristic``: the Elgeta player. Elgeta has no decisions after the deal (RULES §4, E3).

It reads only the :class:`~agents.base.Decision`. Its one rule: ``play`` (action 0), the only
legal move whenever it is asked; it never needs the view. No agent can do better or worse than
another in Elgeta (the deal decides the game), so this agent exists to give every game of the
suite a ``<game>/heuristic`` and to exercise tools (tournaments, training wrappers) on the
simplest environment. It checks the mask and refuses to act when ``play`` is not legal.
"""

from __future__ import annotations

from agents.base import Decision, check_view
from agents.registry import register
from kiaule_env.elgeta.encoding import PLAY_ACTION
from kiaule_env.elgeta.rules import View


class ElgetaHeuristic:
    """Plays the top card: ``play``, the only move (E3)."""

    def __init__(self, seed: int | None = 0):
        self.name = "elgeta/heuristic"
        self.seed = seed  # unused: the agent is deterministic

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        if decision.view is not None:  # it needs no view, but refuses another game's
            check_view(decision, View, self.name)
        if not decision.action_mask[PLAY_ACTION]:
            raise ValueError(f"{decision.agent} is asked to act but 'play' is not legal")
        return PLAY_ACTION


register("elgeta/heuristic", lambda seed=0: ElgetaHeuristic(seed))
