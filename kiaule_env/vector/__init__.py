"""Batched, compiled environments: many games of one kind stepped at once, with observations.

    from kiaule_env import vector
    venv = vector.make("kozel", num_envs=1024, seed=0)   # and the env's own options
    obs, info = venv.reset()
    obs, rewards, terminated, truncated, info = venv.step(actions)

``obs["observation"]`` (float32 ``(num_envs, D)``) and ``obs["action_mask"]`` (int8
``(num_envs, A)``) are exactly what ``<game>_v0.env(**options)`` gives the seat to act;
``info["agent"]`` is that seat, ``info["seed"]`` each slot's episode seed. A finished slot starts
its next episode in the same call. See :mod:`kiaule_env.vector.base` and ``docs/vector.md``;
the adapters for training code are :class:`SingleLearner` (Gymnasium) and
:class:`kiaule_env.vector.sb3.SB3VecEnv` (Stable-Baselines3, ``MaskablePPO``).
"""

from __future__ import annotations

import importlib
from typing import Any

from kiaule_env.core.options import is_integer
from kiaule_env.extras import require
from kiaule_env.vector.base import VectorEnv, VectorGame
from kiaule_env.vector.learner import SingleLearner, random_legal, random_opponent
from kiaule_env.vector.opponents import BatchedPolicy, heuristic_opponent

__all__ = [
    "BatchedPolicy",
    "SingleLearner",
    "VectorEnv",
    "VectorGame",
    "games",
    "heuristic_opponent",
    "make",
    "random_legal",
    "random_opponent",
]


def games() -> list[str]:
    """The games that have a batched env, in the suite's order."""
    from kiaule_env import GAMES

    return [name for name, game in GAMES.items() if game.vector]


def make(game: str, /, num_envs: int, seed: int | None = None, **options: Any) -> VectorEnv:
    """``num_envs`` games of ``game`` with the env's keywords ``options``, seeded by ``seed``.

    ``max_cycles`` truncates as in the Python env; ``render_mode`` is refused (no rendering in
    batches); every other keyword is a rule option of the game, validated as the env does, and
    one the batched env does not support yet raises ``ValueError`` naming it.
    """
    from kiaule_env import get_game

    descriptor = get_game(game)
    if not descriptor.vector:
        raise ValueError(
            f"game {game!r} has no batched env yet; games with one: {', '.join(games()) or 'none'}"
        )
    if not is_integer(num_envs) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    if options.get("render_mode") is not None:
        raise ValueError(
            f"render_mode={options['render_mode']!r}: batched envs do not render; "
            "use the game's env() to watch a game"
        )
    max_cycles = options.pop("max_cycles", None)
    options.pop("render_mode", None)
    require("numba", "kiaule_env.vector")
    module, _, cls = descriptor.vector.partition(":")
    impl = getattr(importlib.import_module(module), cls)(int(num_envs), dict(options))
    return VectorEnv(descriptor, impl, int(num_envs), seed, max_cycles, options)
