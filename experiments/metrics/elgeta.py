"""Elgeta metrics (RULES §4): tricks taken and tie-breaks ("wars") won, per game.

Elgeta has no decisions (E3), so these describe the deal rather than the agent: in a
duplicate-deal tournament every agent must get exactly the same values, which makes them a check
of the harness's fairness.
"""

from __future__ import annotations

from typing import Any

from experiments.metrics import MetricDef

METRICS = (
    MetricDef("tricks_taken", "tricks the player took, per game (E4, E6)", "tricks"),
    MetricDef("wars_won", "tie-broken tricks he took, per game (E4)", "wars"),
    MetricDef("beggar_rate", "share of games he became a beggar (E5, E7)", "beggar"),
)


class Collector:
    """Step observer of one Elgeta game."""

    def start(self, env: Any) -> None:
        self._env = env
        self.counts = [{"tricks": 0, "wars": 0, "beggar": 0} for _ in self._env.possible_agents]
        self._tricks = 0
        self._rounds = 1

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        state = self._env.game_state
        self._tricks = state.tricks
        self._rounds = state.rounds

    def after(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...], info: Any) -> None:
        state = self._env.game_state
        if state.tricks > self._tricks and not state.trick_cards:  # taken (E6), not an E5 draw
            c = self.counts[state.last_taker]
            c["tricks"] += 1
            c["wars"] += self._rounds > 1
        if state.over:
            for s in state.beggars:
                self.counts[s]["beggar"] = 1

    def per_seat(self) -> list[dict[str, float]]:
        return [dict(c) for c in self.counts]
