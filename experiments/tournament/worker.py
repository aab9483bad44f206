"""The worker side of a tournament: the env, the agents and the schedule of one process, and the
function that plays a chunk of games there.

The local process pool (:mod:`experiments.tournament.runner`) and the Ray actors
(:mod:`experiments.tournament.ray_backend`) both run these, so a game's result depends on its key
and the tournament seed only, whichever backend plays it.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from experiments import metrics as metrics_pkg
from experiments.tournament.config import TournamentConfig
from experiments.tournament.play import AgentPool
from experiments.tournament.schedule import GameKey, Schedule, agent_seed, deal_seed
from experiments.tournament.specs import TournamentGame
from kiaule_env.core.play import play_episode


class Worker:
    """Per-process state: the env, the agents and the schedule, built once."""

    def __init__(
        self, config: TournamentConfig, spec: TournamentGame, schedule: Schedule, to_disk: bool
    ):
        self.config = config
        self.spec = spec
        self.schedule = schedule
        #: results go to disk as JSON lines (with an output folder), else as dicts
        self.serialize = to_disk
        self.record = to_disk and config.records
        self.env = spec.build_env(dict(config.env_kwargs))
        self.pool = AgentPool()
        self.metrics = metrics_pkg.load(spec.metrics)
        self._deal_cache: tuple[int, int, dict[str, Any] | None] | None = None
        _single_thread_torch()

    def deal(self, d: int) -> tuple[int, dict[str, Any] | None]:
        if self._deal_cache is None or self._deal_cache[0] != d:
            seed = deal_seed(self.config.seed, d)
            options = self.spec.deal_options(self.env, np.random.default_rng(seed))
            self._deal_cache = (d, seed, options)
        return self._deal_cache[1], self._deal_cache[2]

    def play(self, key: GameKey) -> dict[str, Any]:
        seating = self.schedule.seating(key)
        seeds = [agent_seed(self.config.seed, key, s) for s in range(len(seating))]
        seats = self.pool.seat(seating, seeds)
        seed, options = self.deal(key.deal)
        collector = self.metrics.Collector() if self.metrics is not None else None
        game = play_episode(self.env, seats, seed, options, record=self.record, observer=collector)
        line: dict[str, Any] = {
            "key": key.as_list(),
            "seats": list(seating),
            "rewards": game.rewards,
            "result": game.result,
            "steps": game.steps,
            "metrics": collector.per_seat() if collector is not None else None,
        }
        if self.record:
            line["record"] = {
                "env_id": self.spec.env_id,
                "env_kwargs": dict(self.config.env_kwargs),
                "seed": seed,
                "options": options or {},
                "moves": game.moves,
                "result": game.result,
            }
            if game.policies is not None:  # agents with act_with_policy: the viewer shows them
                line["record"]["policies"] = game.policies
        return line


_WORKER: Worker | None = None


def init_worker(
    config: TournamentConfig, spec: TournamentGame, schedule: Schedule, to_disk: bool
) -> None:
    """Build this process's :class:`Worker` (a pool initializer, or a Ray actor's start)."""
    global _WORKER
    _WORKER = Worker(config, spec, schedule, to_disk)


def play_chunk(keys: Sequence[GameKey]) -> list[Encoded] | list[dict[str, Any]]:
    """Play ``keys``; dicts, or when results go to disk :data:`Encoded` pairs (JSON line and
    the line without its record), so that the main process never parses a record."""
    worker = _WORKER
    if worker is None:
        raise RuntimeError("play_chunk before init_worker: this process has no tournament worker")
    if worker.serialize:
        return [_encoded(worker.play(k)) for k in keys]
    return [worker.play(k) for k in keys]


#: a finished game for disk: its JSON line (record included) and its line without the record
Encoded = tuple[str, dict[str, Any]]


def _encoded(line: dict[str, Any]) -> Encoded:
    """The game's JSON line, then the line itself with its record dropped (the record is only
    written, never read back: the statistics need the rest)."""
    text = json.dumps(line, separators=(",", ":"))
    line.pop("record", None)
    return text, line


def _single_thread_torch() -> None:
    """Learned agents run one torch thread per worker (the workers already fill the cores)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def chunks(keys: Iterator[GameKey], size: int) -> Iterator[list[GameKey]]:
    """``keys`` in lists of ``size`` (the last one shorter), as the workers are sent them."""
    keys = iter(keys)
    while chunk := list(itertools.islice(keys, size)):
        yield chunk
