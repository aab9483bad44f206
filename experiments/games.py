"""The table of games the command line, benchmark and soak know, and a seeded random-play loop."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pettingzoo import AECEnv


@dataclass(frozen=True)
class GameEntry:
    """A game as the tools see it: its module and the settings benchmarks and soaks use."""

    name: str
    module: str
    parallel: bool = False
    #: constructor keywords of the configurations the soak command cycles through
    soak_configs: tuple[dict[str, Any], ...] = ({},)
    #: constructor keywords of the benchmark configuration
    bench_kwargs: dict[str, Any] = field(default_factory=dict)

    def load(self):
        return importlib.import_module(self.module)


GAMES: dict[str, GameEntry] = {
    "kozel": GameEntry(
        "kozel",
        "kiaule_env.kozel_v0",
        soak_configs=(
            {},
            {"trump_card": "bottom"},
            {"molodka": "trumps"},
            {"molodka": None, "beat_partner": False},
            {"series": True},
            {"series": True, "eggs": "double", "reward": "win_loss"},
            {"reward": "card_points"},
        ),
    ),
    "kiauliaganys": GameEntry(
        "kiauliaganys",
        "kiaule_env.kiauliaganys_v0",
        soak_configs=(
            *({"num_players": n} for n in (2, 3, 4, 5, 6)),
            {"num_players": 4, "deck": "54"},
            {"num_players": 3, "deck": "36"},
            {"num_players": 4, "must_play_from_hand": True},
            {"num_players": 4, "match_years": 20},
            {"num_players": 6, "deck": "54", "blind_drag_only_when_empty_hand": True},
            {"num_players": 2, "deck": "36", "max_turns": 40, "pips": "face"},
        ),
        bench_kwargs={"num_players": 4, "deck": "52"},
    ),
    "pig": GameEntry(
        "pig",
        "kiaule_env.pig_v0",
        parallel=True,
        soak_configs=(
            {"num_players": 4},
            {"num_players": 3},
            {"num_players": 8, "game": "full"},
            {"num_players": 4, "stock": True},
            {"num_players": 5, "game": "full", "letters": True},
            {"num_players": 4, "tokens": True},
            {"num_players": 13},
            {"num_players": 12, "stock": True},
            {"num_players": 4, "false_nose": "pig", "max_race_steps": 3},
            {"num_players": 6, "game": "full", "tokens": True, "false_nose": "pig"},
            {"num_players": 3, "game": "full", "stock": True, "max_passes": 20},
        ),
        bench_kwargs={"num_players": 4},
    ),
    "elgeta": GameEntry(
        "elgeta",
        "kiaule_env.elgeta_v0",
        soak_configs=(
            {"num_players": 2, "deck": "32"},
            {"num_players": 3, "deck": "36"},
            {"num_players": 4, "deck": "52"},
            {"num_players": 2, "deck": "52", "stop_on_all_aces": True},
            {"num_players": 3, "deck": "32", "max_tricks": 60},
            {"num_players": 4, "deck": "32"},
        ),
        bench_kwargs={"num_players": 4, "deck": "52"},
    ),
}


def get_game(name: str) -> GameEntry:
    if name not in GAMES:
        raise SystemExit(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    return GAMES[name]


def random_aec_game(
    env: AECEnv,
    rng: np.random.Generator,
    seed: int | None = None,
    after_step: Callable[[AECEnv], None] | None = None,
    options: dict[str, Any] | None = None,
    totals: dict[str, float] | None = None,
) -> int:
    """Play one episode with uniformly random legal actions; return the number of decisions.

    Goes through the public AEC loop (agent_iter / last / step), so observation and mask are
    computed every step, as a learner would see them. ``totals`` (agent -> float), if given,
    accumulates every agent's rewards over the episode.
    """
    env.reset(seed=seed, options=options)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if totals is not None:
            for a, r in env.rewards.items():
                totals[a] += r
        if after_step is not None:
            after_step(env)
    return steps
