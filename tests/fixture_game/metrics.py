"""The fixture game's research metrics, named by its descriptor (``metrics_module``): tricks
taken per game (H5), and how often a player had to throw a card off suit (H4, H7)."""

from __future__ import annotations

from typing import Any

from experiments.metrics import MetricDef

METRICS = (
    MetricDef("tricks_taken", "tricks the player took, per game (H5)", "tricks"),
    MetricDef("voids_shown", "suits he showed void, per game (H7)", "voids"),
)


class Collector:
    """Step observer of one High card game."""

    def start(self, env: Any) -> None:
        self._env = env
        self.counts = [{"tricks": 0, "voids": 0} for _ in env.possible_agents]

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        pass

    def after(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...], info: Any) -> None:
        state = self._env.game_state
        for seat, count in enumerate(self.counts):
            count["tricks"] = state.tricks[seat]
            count["voids"] = len(state.voids[seat])

    def per_seat(self) -> list[dict[str, float]]:
        return [dict(c) for c in self.counts]
