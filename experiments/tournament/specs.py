"""What the tournament needs to know about a game, derived from its descriptor.

A :class:`TournamentGame` is a :class:`~kiaule_env.core.game.GameDescriptor` (env, teams,
parallel API, env id) plus the module of its research metrics, found by convention
(``experiments.metrics.<game>``). Each deal is a stacked deck drawn by the game's engine
(``Engine.random_deal``) from the deal's own generator, so the duplicate structure is explicit
and every game record holds its deal; the reset seed of a deal is the same for all its games
too, so any randomness the env draws itself (Pig's reaction order, deals beyond the stacked
ones) repeats as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kiaule_env import GAMES
from kiaule_env.core.game import GameDescriptor


@dataclass(frozen=True)
class TournamentGame:
    """A game as the tournament plays it."""

    game: GameDescriptor
    #: module of the research metrics (``experiments.metrics.<game>``), or None
    metrics: str | None

    @property
    def name(self) -> str:
        return self.game.name

    @property
    def env_id(self) -> str:
        return self.game.env_id

    @property
    def parallel(self) -> bool:
        return self.game.parallel

    @property
    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        return self.game.teams

    def build_env(self, env_kwargs: dict[str, Any]) -> Any:
        """The env the tournament plays on: the game's native raw env (Pig: ParallelEnv)."""
        return self.game.native_env(**env_kwargs)

    def deal_options(self, env: Any, rng: np.random.Generator) -> dict[str, Any]:
        """The ``reset`` options of one deal: a stacked deck drawn from ``rng``."""
        return env.unwrapped.engine.random_deal(rng)

    def ending_of(self, result: dict[str, Any] | None) -> str:
        """How a game ended: :data:`MAX_CYCLES` when it was truncated (no result), else the
        engine's ``ending`` of its result (``"play"`` for an engine without one)."""
        if result is None:
            return MAX_CYCLES
        ending = getattr(self.game.engine_class(), "ending", None)
        return PLAY if ending is None else str(ending(result))


#: the ending of a game decided by play
PLAY = "play"
#: the ending of a game truncated by PettingZoo's ``max_cycles`` (no result, all rewards 0 so far)
MAX_CYCLES = "max_cycles"


#: games registered besides the suite's (tests register toy games)
_EXTRA: dict[str, TournamentGame] = {}


def register_game(game: GameDescriptor, metrics: str | None = None) -> None:
    """Add or replace a game that is not in :data:`kiaule_env.GAMES` (tests: toy games)."""
    _EXTRA[game.name] = TournamentGame(game, metrics)


def get_spec(name: str) -> TournamentGame:
    """The :class:`TournamentGame` of ``name``; a ``ValueError`` naming the known games."""
    if name in _EXTRA:
        return _EXTRA[name]
    if name in GAMES:
        return TournamentGame(GAMES[name], GAMES[name].metrics_provider)
    raise ValueError(f"unknown game {name!r}; tournaments know {', '.join(known_games())}")


def known_games() -> list[str]:
    return [*GAMES, *(n for n in _EXTRA if n not in GAMES)]
