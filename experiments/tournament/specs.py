"""What the tournament needs to know about each game: env, teams, stacked deals, metrics, and
how a game ended.

A :class:`GameSpec` names the raw env (or Pig's ``parallel_env``), the fixed teams if any (Kozel
K1), how to draw the stacked deck(s) of one deal for ``reset(options=…)`` (RULES §0), and the
module of its research metrics (:mod:`experiments.metrics`). Stacked decks make the duplicate
structure explicit and put the deal into every game record; the reset seed of a deal is the same
for all its games too, so any randomness the env draws itself (Pig's reaction order, deals
beyond the stacked ones) repeats as well.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kiaule_env.cards import CARD_TEXTS, Deck

#: a deal's ``reset`` options from the constructed env, its keywords and a generator seeded by
#: the deal
DealOptions = Callable[[Any, dict[str, Any], np.random.Generator], dict[str, Any] | None]


def _resolve(path: str) -> Any:
    module, _, attr = path.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


@dataclass(frozen=True)
class GameSpec:
    """A game as the tournament plays it."""

    name: str
    #: PettingZoo registry id (stored in game records)
    env_id: str
    #: ``"module:callable"`` building the raw AEC env (or the ParallelEnv) from keywords
    make_env: str
    parallel: bool = False
    #: ``"module:callable"`` building the AEC env that replays records (default: ``make_env``)
    replay_env: str | None = None
    #: seats of each team for team games, or None for free-for-all
    teams: tuple[tuple[int, ...], ...] | None = None
    deal_options: DealOptions | None = None
    #: module of the research metrics (``experiments.metrics.<game>``), or None
    metrics: str | None = None
    #: ``"module:callable"`` mapping a game's result to how it ended (``"play"`` or a rule cap
    #: such as ``"cap"``, ``"repetition"``, ``"max_passes"``, ``"cycle"``): the game's
    #: ``rules.ending``; None: every finished game counts as decided by play
    ending: str | None = None

    def build_env(self, env_kwargs: dict[str, Any]) -> Any:
        return _resolve(self.make_env)(**env_kwargs)

    def replay_factory(self) -> Callable[..., Any]:
        return _resolve(self.replay_env or self.make_env)

    def ending_of(self, result: dict[str, Any] | None) -> str:
        """How a game ended: :data:`MAX_CYCLES` when it was truncated (no result), else the
        game's ``ending`` function of its result (``"play"`` without one)."""
        if result is None:
            return MAX_CYCLES
        if self.ending is None:
            return PLAY
        return str(_resolve(self.ending)(result))


#: the ending of a game decided by play
PLAY = "play"
#: the ending of a game truncated by PettingZoo's ``max_cycles`` (no result, all rewards 0 so far)
MAX_CYCLES = "max_cycles"


_SPECS: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> None:
    """Add or replace a game (tests register toy games)."""
    _SPECS[spec.name] = spec


def get_spec(name: str) -> GameSpec:
    if name not in _SPECS:
        raise ValueError(f"unknown game {name!r}; tournaments know {', '.join(sorted(_SPECS))}")
    return _SPECS[name]


def known_games() -> list[str]:
    return list(_SPECS)


# ---------------------------------------------------------------------------- stacked deals


def shuffled_texts(deck: Deck, rng: np.random.Generator) -> list[str]:
    """One uniformly shuffled deck as card texts, top first (RULES §0 stacked deck)."""
    return [CARD_TEXTS[c] for c in deck.shuffled(rng)]


def decks_option(deck: Deck, rng: np.random.Generator, deals: int) -> dict[str, Any]:
    """``{"deck": …}`` for one deal, ``{"decks": […]}`` for an episode of several deals."""
    if deals <= 1:
        return {"deck": shuffled_texts(deck, rng)}
    return {"decks": [shuffled_texts(deck, rng) for _ in range(deals)]}
