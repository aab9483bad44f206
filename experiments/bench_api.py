"""Random play through a PettingZoo env's public API for a fixed time: the loop that
``kiaule bench`` (:mod:`experiments.bench_envs`) and ``kiaule bench --vector``
(:mod:`experiments.bench_vector`) both time, so their PettingZoo figures come from one loop; and
the median round the benchmarks that measure in rounds report (:func:`lower_median`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from agents.random_agent import RandomAgent
from kiaule_env.core.play import play_episode

T = TypeVar("T")


def lower_median(items: Sequence[T], key: Callable[[T], Any] | None = None) -> T:
    """The median item of ``items`` ranked by ``key``: the lower middle one of an even count,
    so the median is always a measured round, never an average of two."""
    ranked = sorted(items, key=key)
    return ranked[(len(ranked) - 1) // 2]


@dataclass
class BenchResult:
    name: str
    steps: int
    games: int
    seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds


def bench(name: str, make_env, seconds: float, seed: int = 0) -> BenchResult:
    """Random games on ``make_env()`` through the public API for ``seconds``."""
    env = make_env()
    players = [RandomAgent(name, seed)] * len(env.possible_agents)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play_episode(env, players, seed=seed + games, api=True).steps
        games += 1
    return BenchResult(name, steps, games, time.perf_counter() - start)
