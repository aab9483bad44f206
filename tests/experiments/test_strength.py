"""``kiaule strength``'s seconds per move: the first decision (which loads the compiled twin) is
not timed, so the figure does not depend on whether tournaments ran in this process."""

from __future__ import annotations

import time

import agents.registry as registry
from experiments import strength


class SlowFirstMove:
    """Random legal moves; the first decision with a choice takes 1 s (a one-off load)."""

    def __init__(self, seed: int | None = 0):
        self.inner = registry.make("pig/random", seed=seed)
        self.first = True

    def reset(self) -> None:
        self.inner.reset()

    def act(self, decision) -> int:
        if self.first and len(decision.legal_moves) > 1:
            self.first = False
            time.sleep(1.0)
        return self.inner.act(decision)


def test_the_first_decision_is_not_timed(monkeypatch):
    real = registry.make

    def make(name, seed=0, **kwargs):
        return SlowFirstMove(seed) if name == "pig/slow-first" else real(name, seed=seed, **kwargs)

    monkeypatch.setattr(registry, "make", make)
    assert strength.seconds_per_move("pig", "pig/slow-first") < 0.01
