"""The one agent protocol used by everything that plays: tournaments, training wrappers, humans.

An agent answers one question: given a :class:`Decision` (agent id, encoded observation and mask,
the player's view, legal moves with their texts), which action? Agents never read hidden state:
a decision carries only what the acting player may know (``docs/ARCHITECTURE.md``). The
:class:`Decision` type belongs to the play loop (:mod:`kiaule_env.core.play`), which makes them.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from kiaule_env.core.play import Decision

__all__ = ["Agent", "Decision", "decision_from_env"]


@runtime_checkable
class Agent(Protocol):
    """A policy. ``reset`` is called at the start of every episode."""

    name: str

    def act(self, decision: Decision) -> int: ...

    def reset(self) -> None: ...


def decision_from_env(env: Any, agent: str, observation: dict[str, np.ndarray] | None = None):
    """Build the :class:`Decision` of ``agent`` from an AEC env (wrapped or raw).

    ``observation`` is the dict from ``env.last()``/``observe`` if already at hand.
    """
    raw = env.unwrapped
    obs = observation if observation is not None else env.observe(agent)
    return Decision(
        agent=agent,
        observation=obs["observation"],
        action_mask=obs["action_mask"],
        view=raw.view(agent),
        legal_moves=raw.legal_moves(agent),
        engine=getattr(raw, "engine", None),
    )


def check_view(decision: Decision, expected: type, agent_name: str) -> None:
    """Refuse (``ValueError``) a decision whose view is not of the agent's game.

    A rule-based agent reads its game's view; handed another game's (a Kozel agent on a Pig env),
    it would fail on a missing attribute deep inside its rules.
    """
    view = decision.view
    if isinstance(view, expected):
        return
    got = type(view).__name__
    module = type(view).__module__.split(".")
    where = f" (from {module[1]})" if len(module) > 1 and module[0] == "kiaule_env" else ""
    game = agent_name.split("/")[0]
    raise ValueError(
        f"{agent_name} plays {game} only: the decision of {decision.agent} carries a {got}{where}, "
        f"not a {game} view; use an agent of that env's game"
    )
