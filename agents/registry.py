"""Agents by name ``<game>/<kind>``; every game has at least ``random`` and ``heuristic``.

Wherever an agent is named (``make``, tournaments, ``kiaule play``, ``train --evaluate``, the
benchmark), options may follow the name: ``kozel/pimc:worlds=64,rollouts=2``. An agent declares
the options it takes when it is registered (``register(name, factory, options={"worlds": int})``);
an unknown option or a value of the wrong type is a ``ValueError`` naming the agent, the option and
what is allowed, and the agent's constructor checks the values' ranges.
"""

from __future__ import annotations

import importlib
import numbers
from collections.abc import Callable
from typing import Any

from agents.base import Agent

_FACTORIES: dict[str, Callable[..., Agent]] = {}
#: the options each agent takes, name -> type (int, float, bool or str)
_OPTIONS: dict[str, dict[str, type]] = {}
_loaded = False


def _providers() -> list[str]:
    """Modules that register agents on import: random agents, each game's own module (the
    rule-based agent: ``agents/<game>.py`` by convention, or the module its descriptor names),
    and the learned agents."""
    from kiaule_env import GAMES

    return [
        "agents.random_agent",
        *(game.agents_provider for game in GAMES.values()),
        "agents.learned",
        "agents.search",
        "agents.rllib_agent",
    ]


def register(
    name: str, factory: Callable[..., Agent], options: dict[str, type] | None = None
) -> None:
    """Register ``factory(seed=..., **options) -> Agent`` under ``<game>/<kind>``.

    ``options``: the keywords the agent takes from a name such as ``kozel/pimc:worlds=64``, with
    their types (``int``, ``float``, ``bool`` or ``str``; every option may also be ``none``).
    """
    if name.count("/") != 1 or ":" in name:
        raise ValueError(f"agent names are '<game>/<kind>' (no ':'), got {name!r}")
    _FACTORIES[name] = factory
    _OPTIONS[name] = dict(options or {})


def register_exact(spec: str, factory: Callable[..., Agent]) -> None:
    """Register ``factory`` under a full name with options (``kozel/ppo:path=...``), which then
    resolves to it as is: Ray workers replace an agent whose model file was shipped to them."""
    _FACTORIES[spec] = factory
    _OPTIONS[spec] = {}


def agent_options(name: str) -> dict[str, type]:
    """The options agent ``name`` (without options) takes, with their types."""
    _load_providers()
    return dict(_OPTIONS.get(name, {}))


def _typed(spec: str, key: str, text: str, kind: type) -> Any:
    """The value of option ``key`` as ``kind``; ``ValueError`` saying what was expected."""
    from kiaule_env.core.options import parse_value

    value = parse_value(text)
    if value is None:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if kind is str:
        value = text
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(
            f"agent {spec!r}: option {key}={text!r} must be {_WORDS.get(kind, kind.__name__)}"
        )
    return value


_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a word"}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"kozel/pimc:worlds=64,rollouts=2"`` -> ``("kozel/pimc", {"worlds": 64, "rollouts": 2})``.

    ``ValueError`` for a malformed option, an unknown agent or option, or a value of the wrong
    type (the names of the agent's options and their types are in the message).
    """
    if not isinstance(spec, str):
        raise TypeError(f"an agent name is a string '<game>/<kind>', got {spec!r}")
    _load_providers()
    if spec in _FACTORIES:  # a name registered as is (a shipped model: see register_exact)
        return spec, {}
    name, sep, rest = spec.partition(":")
    if name not in _FACTORIES:
        game = name.split("/")[0]
        known = list_agents(game) or list_agents()
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(known)}")
    if not sep:
        return name, {}
    allowed = _OPTIONS.get(name, {})
    listed = ", ".join(f"{k} ({_WORDS[t]})" for k, t in allowed.items()) or "none"
    options: dict[str, Any] = {}
    for item in rest.split(","):
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key.isidentifier():
            raise ValueError(
                f"agent {spec!r}: options are KEY=VALUE separated by commas, got {item!r}"
            )
        if key not in allowed:
            raise ValueError(f"agent {spec!r}: unknown option {key!r}; {name} takes: {listed}")
        if key in options:
            raise ValueError(f"agent {spec!r}: option {key!r} given twice")
        options[key] = _typed(spec, key, text.strip(), allowed[key])
    return name, options


def _load_providers() -> None:
    global _loaded
    if _loaded:
        return
    for module in _providers():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:  # a real import error inside the provider
                raise
    _loaded = True  # only once every provider is in: a failed load is retried, not half-kept


def qualified(game: str, name: str) -> str:
    """``name`` as a full registry name: a bare kind (``"heuristic"``, ``"pimc:worlds=8"``) is
    ``game``'s (``"<game>/heuristic"``); a name with its game is left as it is. Only the part
    before the options decides: ``"ppo:path=runs/a.zip"`` is a bare kind whose option holds a
    ``/``."""
    return name if "/" in name.partition(":")[0] else f"{game}/{name}"


def list_agents(game: str | None = None) -> list[str]:
    """Registered agent names, optionally only those of ``game``."""
    _load_providers()
    return sorted(n for n in _FACTORIES if game is None or n.split("/")[0] == game)


def make(name: str, seed: int | None = 0, **kwargs: Any) -> Agent:
    """Create the agent registered as ``name``, which may carry options
    (``"kozel/pimc:worlds=64"``, :func:`parse_spec`); ``kwargs`` are further options.

    ``TypeError`` if ``name`` is not a string or ``seed`` not an integer (or ``None``);
    ``ValueError`` for unknown names, options or bad values, and negative seeds.
    """
    if not isinstance(name, str):
        raise TypeError(f"an agent name is a string '<game>/<kind>', got {name!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"seed of {name!r} must be an integer or None, got {seed!r}")
    if seed is not None and seed < 0:
        raise ValueError(f"seed of {name!r} must be >= 0, got {seed}")
    base, options = parse_spec(name)
    agent = _FACTORIES[base](seed=seed, **options, **kwargs)
    if options:
        agent.name = name  # reports show the options the agent played with
    return agent
