"""Deal-level simulators for search: the engine contract, or a compiled twin of it, behind one API.

Search agents (``agents/search.py``) evaluate moves by playing the current *deal* to its end many
times: a game of a Kozel series, a deal of a Kiauliaganys match, a round of Pig, a game of
Elgeta. A :class:`Simulator` offers exactly what they need on an opaque handle ``h``:

* ``load(state) -> h``: the handle of a full engine state (e.g. a determinized one);
* ``copy(h)``, ``to_act(h)``, ``legal(h, seat)``, ``apply(h, actions) -> rewards``;
* ``over(h)``: the deal has ended (the engine is over, or it reported the deal's end in
  ``step_info``, after which the match goes on with a new deal that search does not look into);
* ``playout(h, seed) -> rewards``: play the deal to its end with uniformly random legal actions,
  returning every seat's summed reward deltas.

:class:`PythonSimulator` runs on any :class:`~kiaule_env.core.engine.Engine`. A game may add a
compiled twin, ``kiaule_env/<game>/compiled.py`` (numba, extra ``search``), whose functions work
on a flat ``int64`` array holding the whole deal; :class:`CompiledSimulator` wraps it, and
:func:`simulator` picks it where it exists and supports the configuration. The compiled module's
functions (``docs/ARCHITECTURE.md``, "Compiled playouts"):

* ``supports(config) -> bool`` (plain Python): whether the twin covers this configuration;
* ``encode(state) -> np.ndarray`` (plain Python): the array of the engine state's current deal;
* ``to_act(s, out) -> int``: writes the acting seats into ``out[:n]``, returns ``n`` (``0`` once
  the deal is over);
* ``legal(s, seat, out) -> int``: writes the seat's legal codec indices ascending into ``out[:n]``;
* ``apply(s, actions, rewards) -> bool``: one action per acting seat (in ``to_act`` order); adds
  the engine's reward deltas into ``rewards`` (one per seat); ``True`` once the deal is over;
* ``random_playout(s, rewards, seed) -> int``: to the deal's end with uniformly random legal
  actions drawn from numba's generator seeded with ``seed``; adds rewards; returns the number of
  ``apply`` steps;
* optionally ``policy_playout(s, rewards, seed) -> int``: the same with the game's cheap
  *rollout policy* on every seat (a compiled counterpart of the rule-based agent, which may read
  the whole simulated state: in a determinization every card is where the world put it), for
  games where random continuations say little about a move (``rollout="policy"``), and
  optionally ``policy_action(s, seat, seed) -> int``: that policy's action for one seat now.
  A policy kept in a sibling module ``<game>/compiled_policy.py`` (Kozel's) is used only with
  ``rollout="policy"`` asked for; the search agents' default stays random playouts there.

All but the first two are ``numba.njit(cache=True)``. Its differential test
(``tests/<game>/test_compiled.py``) plays seeded random deals through both and asserts the same
encoded state, acting seats, legal actions and rewards after every step.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from kiaule_env.core.engine import Engine


class Simulator:
    """The deal-level simulation API (see the module docstring)."""

    engine: Engine
    compiled: bool = False
    #: ``apply`` steps taken inside :meth:`playout` so far (benchmarks, search statistics)
    steps: int = 0

    def load(self, state: Any) -> Any:
        raise NotImplementedError

    def copy(self, h: Any) -> Any:
        raise NotImplementedError

    def to_act(self, h: Any) -> tuple[int, ...]:
        raise NotImplementedError

    def legal(self, h: Any, seat: int) -> Sequence[int]:
        raise NotImplementedError

    def apply(self, h: Any, actions: Sequence[int]) -> np.ndarray:
        raise NotImplementedError

    def over(self, h: Any) -> bool:
        raise NotImplementedError

    def playout(self, h: Any, seed: int) -> np.ndarray:
        raise NotImplementedError

    def rollout_action(self, h: Any, seat: int, seed: int) -> int:
        """The playouts' choice for ``seat`` now: the rollout policy's where the simulator plays
        one and the game offers it per seat, else a uniformly random legal action."""
        legal = self.legal(h, seat)
        return int(legal[int(np.random.default_rng(seed).integers(len(legal)))])


class _PyHandle:
    """A Python engine state and whether its deal has ended."""

    __slots__ = ("over", "state")

    def __init__(self, state: Any, over: bool):
        self.state = state
        self.over = over


class PythonSimulator(Simulator):
    """Any engine, through the contract's ``clone``/``to_act``/``legal_actions``/``apply``."""

    def __init__(self, engine: Engine):
        self.engine = engine

    def load(self, state: Any) -> _PyHandle:
        return _PyHandle(self.engine.clone(state), self.engine.is_over(state))

    def copy(self, h: _PyHandle) -> _PyHandle:
        return _PyHandle(self.engine.clone(h.state), h.over)

    def to_act(self, h: _PyHandle) -> tuple[int, ...]:
        return () if h.over else tuple(self.engine.to_act(h.state))

    def legal(self, h: _PyHandle, seat: int) -> Sequence[int]:
        return () if h.over else self.engine.legal_actions(h.state, seat)

    def apply(self, h: _PyHandle, actions: Sequence[int]) -> np.ndarray:
        rewards = np.asarray(self.engine.apply(h.state, actions), dtype=np.float64)
        h.over = self.engine.is_over(h.state) or self.engine.step_info(h.state) is not None
        return rewards

    def over(self, h: _PyHandle) -> bool:
        return h.over

    def playout(self, h: _PyHandle, seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        total = np.zeros(self.engine.num_players)
        engine = self.engine
        while not h.over:
            actions = []
            for seat in engine.to_act(h.state):
                legal = engine.legal_actions(h.state, seat)
                actions.append(legal[int(rng.integers(len(legal)))])
            total += self.apply(h, actions)
            self.steps += 1
        return total


class CompiledSimulator(Simulator):
    """A game's compiled twin (``kiaule_env/<game>/compiled.py``) on ``int64`` arrays."""

    compiled = True

    def __init__(
        self, engine: Engine, module: Any, rollout: str = "random", policy: Any | None = None
    ):
        self.engine = engine
        self.module = module
        self.rollout = rollout
        #: the module with the rollout policy: the twin, or its ``compiled_policy`` sibling
        self.policy = module if policy is None else policy
        self._playout = module.random_playout if rollout == "random" else self.policy.policy_playout
        self._out = np.empty(max(engine.num_actions, engine.num_players), dtype=np.int64)

    def load(self, state: Any) -> np.ndarray:
        return self.module.encode(state)

    def copy(self, h: np.ndarray) -> np.ndarray:
        return h.copy()

    def to_act(self, h: np.ndarray) -> tuple[int, ...]:
        n = self.module.to_act(h, self._out)
        return tuple(int(x) for x in self._out[:n])

    def legal(self, h: np.ndarray, seat: int) -> Sequence[int]:
        n = self.module.legal(h, seat, self._out)
        return [int(x) for x in self._out[:n]]

    def apply(self, h: np.ndarray, actions: Sequence[int]) -> np.ndarray:
        rewards = np.zeros(self.engine.num_players)
        self.module.apply(h, np.asarray(actions, dtype=np.int64), rewards)
        return rewards

    def over(self, h: np.ndarray) -> bool:
        return self.module.to_act(h, self._out) == 0

    def playout(self, h: np.ndarray, seed: int) -> np.ndarray:
        rewards = np.zeros(self.engine.num_players)
        self.steps += int(self._playout(h, rewards, seed))
        return rewards

    def rollout_action(self, h: np.ndarray, seat: int, seed: int) -> int:
        if self.rollout == "policy" and hasattr(self.policy, "policy_action"):
            return int(self.policy.policy_action(h, seat, seed))
        return super().rollout_action(h, seat, seed)


def compiled_module(engine: Engine) -> Any | None:
    """The game's compiled twin if numba is installed, it exists and supports the configuration."""
    package = type(engine).__module__.rsplit(".", 1)[0]
    try:
        module = importlib.import_module(f"{package}.compiled")
    except ModuleNotFoundError as exc:
        if exc.name not in ("numba", f"{package}.compiled"):
            raise
        return None
    return module if module.supports(engine.config) else None


ROLLOUTS = ("random", "policy")


def has_policy(engine: Engine) -> bool:
    """Whether the game's compiled twin has a rollout policy usable here: the search agents'
    default rollout. A policy in a ``compiled_policy`` sibling (Kozel's) is used only when asked
    for (:func:`policy_module`)."""
    module = compiled_module(engine)
    return module is not None and hasattr(module, "policy_playout")


def policy_module(module: Any) -> Any | None:
    """The module with the rollout policy of the twin ``module``: the twin itself, or its
    ``compiled_policy`` sibling (``policy_playout``, ``policy_action``); None if neither."""
    if hasattr(module, "policy_playout"):
        return module
    name = module.__name__.rsplit(".", 1)[0] + ".compiled_policy"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def simulator(engine: Engine, compiled: bool | None = None, rollout: str = "random") -> Simulator:
    """The fastest simulator for ``engine``: compiled where available (``compiled=None``),
    or as asked; playouts with uniformly random moves or the game's compiled rollout policy.

    ``ValueError`` when ``compiled=True`` or ``rollout="policy"`` cannot be had here, or for an
    unknown ``rollout``.
    """
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
    module = compiled_module(engine) if compiled is not False else None
    where = f"{type(engine).__module__} with this configuration"
    policy = policy_module(module) if rollout == "policy" and module is not None else None
    if rollout == "policy" and policy is None:
        raise ValueError(f"no compiled rollout policy for {where} (needs the 'search' extra)")
    if module is not None:
        return CompiledSimulator(engine, module, rollout, policy)
    if compiled:
        raise ValueError(
            f"no compiled playout engine for {where} "
            "(install the 'search' extra: pip install -e '.[search]')"
        )
    return PythonSimulator(engine)
