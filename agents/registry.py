"""Agents by name ``<game>/<kind>``; every game has at least ``random`` and ``heuristic``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from agents.base import Agent

_FACTORIES: dict[str, Callable[..., Agent]] = {}
_loaded = False


def _providers() -> list[str]:
    """Modules that register agents on import: random agents, each game's own module by
    convention (``agents/<game>.py``, the rule-based agent), and the learned agents."""
    from kiaule_env import GAMES

    return ["agents.random_agent", *(f"agents.{name}" for name in GAMES), "agents.learned"]


def register(name: str, factory: Callable[..., Agent]) -> None:
    """Register ``factory(seed=..., **kwargs) -> Agent`` under ``<game>/<kind>``."""
    if name.count("/") != 1:
        raise ValueError(f"agent names are '<game>/<kind>', got {name!r}")
    _FACTORIES[name] = factory


def _load_providers() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in _providers():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # a real import error inside the provider
                raise


def list_agents(game: str | None = None) -> list[str]:
    """Registered agent names, optionally only those of ``game``."""
    _load_providers()
    return sorted(n for n in _FACTORIES if game is None or n.split("/")[0] == game)


def make(name: str, seed: int | None = 0, **kwargs: Any) -> Agent:
    """Create the agent registered as ``name``; a clear ``ValueError`` for unknown names."""
    _load_providers()
    factory = _FACTORIES.get(name)
    if factory is None:
        game = name.split("/")[0]
        known = list_agents(game) or list_agents()
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(known)}")
    return factory(seed=seed, **kwargs)
