"""Research metrics per game, computed from the moves of a game (live, or from its record).

Each game module (``experiments.metrics.kozel`` …) provides

* ``METRICS``: the :class:`MetricDef` s it reports, and
* ``Collector``: a step observer of the play loop (:class:`kiaule_env.core.play.StepObserver`:
  ``start(env)``, ``before(env, seats, actions)``, ``after(env, seats, actions, info)``) whose
  ``per_seat()`` returns one dict of counts per seat at the end of the game.

The tournament runs the collector alongside play; :func:`metrics_from_record` replays a stored
game record through the raw env with the same collector, so metrics can be recomputed from the
records folder at any time (and the two are tested to agree). Collectors may read the full
engine state: metrics are the analyst's view, not a player's.

Aggregation over a tournament (:func:`aggregate`) sums counts over an agent's seat-games: a
metric is either a mean per seat-game (``denominator=None``) or a ratio of two summed counts.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class MetricDef:
    """One reported metric: ``sum(numerator) / sum(denominator or seat-games)`` per agent."""

    name: str
    description: str
    numerator: str
    denominator: str | None = None


def load(module: str | None) -> ModuleType | None:
    """The metrics module of a game, or None if it has none (yet)."""
    if module is None:
        return None
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:  # a real import error inside the module
            raise
        return None


def aggregate(
    defs: Sequence[MetricDef],
    seat_counts: Iterable[tuple[str, Mapping[str, float]]],
) -> dict[str, dict[str, float | None]]:
    """Per agent, every metric from ``(agent, counts of one seat in one game)`` pairs.

    A ratio with a zero denominator (the event never happened) is None.
    """
    sums: dict[str, dict[str, float]] = {}
    seat_games: dict[str, int] = {}
    for agent, counts in seat_counts:
        acc = sums.setdefault(agent, {})
        seat_games[agent] = seat_games.get(agent, 0) + 1
        for key, value in counts.items():
            acc[key] = acc.get(key, 0.0) + float(value)
    out: dict[str, dict[str, float | None]] = {}
    for agent, acc in sums.items():
        values: dict[str, float | None] = {}
        for d in defs:
            num = acc.get(d.numerator, 0.0)
            den = seat_games[agent] if d.denominator is None else acc.get(d.denominator, 0.0)
            values[d.name] = num / den if den else None
            if values[d.name] is not None and math.isnan(values[d.name]):
                values[d.name] = None
        out[agent] = values
    return out


def metrics_from_record(spec: Any, record: Any) -> list[dict[str, float]]:
    """Replay ``record`` (a :class:`~kiaule_env.core.records.GameRecord`) through the game's
    env with its metric collector; return the per-seat counts.

    Checks every recorded move text on the way, so a record that does not replay raises
    :class:`~kiaule_env.core.records.ReplayMismatch`.
    """
    from kiaule_env.core.records import replay

    module = load(spec.metrics)
    if module is None:
        raise ValueError(f"{spec.name} has no research metrics")
    collector = module.Collector()
    replay(lambda **kwargs: spec.build_env(kwargs), record, observer=collector)
    return collector.per_seat()
