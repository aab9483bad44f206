"""``<game>/random`` for every game: uniform over the legal moves, seeded."""

from __future__ import annotations

import numpy as np

from agents.base import Decision
from agents.registry import register
from kiaule_env import GAMES


class RandomAgent:
    """Chooses uniformly among the legal actions of the mask with its own seeded generator."""

    def __init__(self, game: str, seed: int | None = 0):
        self.name = f"{game}/random"
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        legal = np.flatnonzero(decision.action_mask)
        if len(legal) == 0:
            raise ValueError(f"{decision.agent} has no legal move to choose from")
        return int(legal[self.rng.integers(len(legal))])


for _game in GAMES:
    register(f"{_game}/random", lambda seed=0, _g=_game: RandomAgent(_g, seed))
