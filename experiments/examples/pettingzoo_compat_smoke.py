"""A PettingZoo-version smoke: import the suite, make every env, play a random game, and run
PettingZoo's ``api_test`` (and a random parallel Pig round). Needs only numpy, gymnasium and
PettingZoo, so it runs in a bare venv with an older PettingZoo
(``experiments/examples/check_pettingzoo_compat.sh``).

    python -m experiments.examples.pettingzoo_compat_smoke
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

import numpy as np
import pettingzoo
from pettingzoo.test import api_test

import kiaule_env
from kiaule_env import pig_v0


def random_game(module: object, seed: int) -> int:
    """Steps of one AEC game of uniformly random legal moves."""
    env = module.env()
    env.reset(seed=seed)
    rng, steps = np.random.default_rng(seed), 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        mask = obs["action_mask"]
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return steps


def random_parallel_round(seed: int) -> int:
    """Steps of one random parallel Pig round."""
    env = pig_v0.parallel_env()
    obs, _ = env.reset(seed=seed)
    rng, steps = np.random.default_rng(seed), 0
    while env.agents:
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(acts)
        steps += 1
    return steps


def main(argv: Sequence[str] | None = None) -> dict[str, int]:
    del argv
    print(
        f"pettingzoo {pettingzoo.__version__}; registered with pettingzoo.register: "
        f"{kiaule_env.REGISTERED_WITH_PETTINGZOO}"
    )
    steps = {}
    for name, game in kiaule_env.GAMES.items():
        module = importlib.import_module(game.module)
        api_test(module.env(), num_cycles=200)
        steps[name] = random_game(module, 1)
    steps["pig-parallel"] = random_parallel_round(2)
    print("random games, steps:", steps)
    return steps


if __name__ == "__main__":
    main()
