"""What the training machinery needs to know about each game of the suite.

Kept here rather than imported from ``experiments`` because dependencies point down only
(DESIGN.md): ``agents`` may use ``kiaule_env`` but never ``experiments``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GameSpec:
    """A game as the learner sees it: its module, whether it is a ParallelEnv, its teams."""

    name: str
    module: str
    parallel: bool = False
    #: fixed partnerships (seats sharing one reward and, in team play, one policy); ``None``:
    #: every seat plays for itself.
    teams: tuple[tuple[int, ...], ...] | None = None

    def load(self):
        return importlib.import_module(self.module)

    def make_env(self, env_kwargs: dict[str, Any] | None = None):
        """The raw AEC env (or Pig's ParallelEnv): the learner wrapper needs no safety wrappers."""
        module = self.load()
        kwargs = dict(env_kwargs or {})
        return module.parallel_env(**kwargs) if self.parallel else module.raw_env(**kwargs)

    def team_of(self, seat: int) -> tuple[int, ...]:
        """Seats playing together with ``seat`` (itself alone in games without teams)."""
        if self.teams is not None:
            for team in self.teams:
                if seat in team:
                    return team
        return (seat,)

    def sides(self, num_players: int) -> list[tuple[int, ...]]:
        """The sides of a table: the teams (Kozel K1), else one side per seat."""
        if self.teams is not None:
            return [tuple(t) for t in self.teams]
        return [(s,) for s in range(num_players)]


GAME_SPECS: dict[str, GameSpec] = {
    # K1: partners sit opposite and share the team's reward
    "kozel": GameSpec("kozel", "kiaule_env.kozel_v0", teams=((0, 2), (1, 3))),
    "kiauliaganys": GameSpec("kiauliaganys", "kiaule_env.kiauliaganys_v0"),
    "pig": GameSpec("pig", "kiaule_env.pig_v0", parallel=True),
    "elgeta": GameSpec("elgeta", "kiaule_env.elgeta_v0"),
}


def get_spec(game: str) -> GameSpec:
    """The :class:`GameSpec` of ``game``; a clear ``ValueError`` for unknown names."""
    spec = GAME_SPECS.get(game)
    if spec is None:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAME_SPECS)}")
    return spec
