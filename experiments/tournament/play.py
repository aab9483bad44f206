"""Agents of a tournament worker: created once per seat, re-seeded for every game.

Games are played by the one play loop, :func:`kiaule_env.core.play.play_episode`, on the raw
env (no PettingZoo wrappers: agents never play illegal moves, and an illegal move still raises
``ValueError`` naming it). Agents are created once per worker and seat and re-seeded for every
game (:class:`AgentPool`), so a game's outcome depends only on its seeds, never on which worker
played it before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.base import Agent


class AgentPool:
    """Agents of one worker, one instance per (name, seat), re-seeded for every game.

    An agent is re-seeded in place when it offers ``reseed(seed)`` or keeps its randomness in an
    ``rng`` attribute (a numpy ``Generator``, like ``<game>/random``); otherwise it is created
    anew with the game's seed, which is always correct but slower for costly agents.
    """

    def __init__(self, make: Callable[..., Agent] | None = None):
        if make is None:
            from agents.registry import make as registry_make

            make = registry_make
        self._make = make
        self._cache: dict[tuple[str, int], Agent] = {}

    def get(self, name: str, seat: int, seed: int) -> Agent:
        agent = self._cache.get((name, seat))
        if agent is not None and _reseed(agent, seed):
            return agent
        agent = self._make(name, seed=seed)
        if _can_reseed(agent):
            self._cache[name, seat] = agent
        return agent

    def seat(self, names: Sequence[str], seeds: Sequence[int]) -> list[Agent]:
        return [self.get(n, i, s) for i, (n, s) in enumerate(zip(names, seeds, strict=True))]


def _can_reseed(agent: Agent) -> bool:
    return callable(getattr(agent, "reseed", None)) or isinstance(
        getattr(agent, "rng", None), np.random.Generator
    )


def _reseed(agent: Agent, seed: int) -> bool:
    reseed = getattr(agent, "reseed", None)
    if callable(reseed):
        reseed(seed)
        return True
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)  # type: ignore[attr-defined]
        if hasattr(agent, "seed") and not callable(agent.seed):  # type: ignore[attr-defined]
            agent.seed = seed  # type: ignore[attr-defined]
        return True
    return False
