"""Shared helpers of the viewer tests: tiny tournaments and an independent replay."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kiaule_env
from experiments.tournament import TournamentConfig, run_tournament
from kiaule_env.core.records import GameRecord

#: every game of the suite (the fixture game too: the viewer's generic display)
GAMES = tuple(kiaule_env.GAMES)


def tiny_tournament(game: str, out: Path) -> Path:
    """A 4-game tournament (random v heuristic) with records; returns its games.jsonl."""
    config = TournamentConfig(
        game=game, agents=[f"{game}/random", f"{game}/heuristic"], games=4, seed=5
    )
    run_tournament(config, workers=1, out=out, plots=False)
    return out / "games.jsonl"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def steps(record: GameRecord) -> Iterator[tuple[int, Any]]:
    """``(k, raw env)`` before every move ``k`` and once after the last (k = len(moves)).

    Written apart from the viewer's replay (only ``raw_env``, ``agent_iter`` and ``step``), so
    the tests compare the page against the env, not against the viewer's own code.
    """
    import importlib

    from kiaule_env import ENV_MODULES

    module = importlib.import_module(ENV_MODULES[record.env_id])
    env = module.raw_env(**record.env_kwargs, render_mode="ansi")
    env.reset(seed=record.seed, options=record.options or None)
    k = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert record.moves[k][0] == agent
        yield k, env
        env.step(record.moves[k][1])
        k += 1
    yield k, env
