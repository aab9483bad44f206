"""Pig metrics (RULES §3): rounds won, first noses, and how many passes until the first nose.

Pig is simultaneous (P2), so the collector watches parallel steps and reads each finished round's
outcome (``infos[agent]["round_result"]``, P10). Per seat, over the rounds the player was in:

* ``rounds_won``: decided rounds (someone was the pig) in which he was not the pig;
* ``first_nose``: rounds in which he touched first (he completed four of a kind first, P3/P8);
* ``passes_until_first_nose``: the passing steps of the round before its first nose (P4 counts
  them; capped rounds, with no nose, are left out), over the rounds he played, and over the
  rounds he was the first to touch (how fast he collected his four).
"""

from __future__ import annotations

from typing import Any

from experiments.metrics import MetricDef

METRICS = (
    MetricDef(
        "rounds_per_game", "rounds played per game (P5 full games: until he leaves)", "rounds"
    ),
    MetricDef("round_win_rate", "share of decided rounds he was not the pig", "won", "decided"),
    MetricDef("pig_rate", "share of decided rounds he was the pig", "pig", "decided"),
    MetricDef("first_nose_rate", "share of his rounds he touched first (P3)", "first", "rounds"),
    MetricDef(
        "passes_until_first_nose",
        "passing steps before the round's first nose, over his rounds with a nose",
        "passes",
        "nosed",
    ),
    MetricDef(
        "passes_when_first",
        "passing steps before his nose, over the rounds he touched first",
        "passes_first",
        "first",
    ),
    MetricDef("capped_rounds", "rounds ended by the P4 cap, per game", "capped"),
)

_FIELDS = ("rounds", "decided", "won", "pig", "first", "nosed", "passes", "passes_first", "capped")


class Collector:
    """Step observer of one Pig episode (simultaneous steps); see the module docstring."""

    def start(self, env: Any) -> None:
        self._names = list(env.possible_agents)
        self.counts = [dict.fromkeys(_FIELDS, 0) for _ in self._names]
        self._live: tuple[int, ...] = ()

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        self._live = seats

    def after(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...], info: Any) -> None:
        outcome = info.get("round_result") if info else None
        if outcome is None:
            return
        pig, first, passes = outcome["pig"], outcome["first_nose"], outcome["passes"]
        for seat in self._live:
            c = self.counts[seat]
            name = self._names[seat]
            c["rounds"] += 1
            c["capped"] += bool(outcome["capped"])
            if pig is not None:
                c["decided"] += 1
                c["pig"] += pig == name
                c["won"] += pig != name
            if first is not None:
                c["nosed"] += 1
                c["passes"] += passes
                if first == name:
                    c["first"] += 1
                    c["passes_first"] += passes

    def per_seat(self) -> list[dict[str, float]]:
        return [dict(c) for c in self.counts]
