"""Playing tournament games fast, identically to play through the public env.

The tournament drives the *raw* env (no PettingZoo wrappers: agents never play illegal moves, and
an illegal move still raises ``ValueError`` naming it) and hands agents a :class:`LazyDecision`:
the observation, mask, view and move texts are computed only when the agent reads them, so a
rule-based agent that reads only the view costs no observation encoding. The moves, rewards and
results are the same as :func:`agents.arena.play_aec` through ``<game>_v0.env()``
(``tests/experiments`` checks it).

Agents are created once per worker and seat and re-seeded for every game (:class:`AgentPool`),
so a game's outcome depends only on its seeds, never on which worker played it before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from agents.base import Agent, Decision
from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.records import normalise

_UNSET: Any = object()


class LazyDecision(Decision):
    """A :class:`~agents.base.Decision` of an AEC env whose parts are computed on first use.

    Reads the env's public API (``observe``, ``view``, ``legal_moves``); used for AEC envs that
    are not built on the shared base.
    """

    def __init__(self, env: Any, agent: str):  # no super().__init__: the fields are properties
        self.agent = agent
        self._env = env
        self._obs: Any = _UNSET
        self._view: Any = _UNSET
        self._moves: Any = _UNSET

    def _observe(self) -> dict[str, np.ndarray]:
        if self._obs is _UNSET:
            self._obs = self._env.observe(self.agent)
        return self._obs

    @property
    def observation(self) -> np.ndarray:  # type: ignore[override]
        return self._observe()["observation"]

    @property
    def action_mask(self) -> np.ndarray:  # type: ignore[override]
        return self._observe()["action_mask"]

    @property
    def view(self) -> Any:  # type: ignore[override]
        if self._view is _UNSET:
            self._view = self._env.view(self.agent)
        return self._view

    @property
    def legal_moves(self) -> dict[int, str]:  # type: ignore[override]
        if self._moves is _UNSET:
            self._moves = self._env.legal_moves(self.agent)
        return self._moves


class LazyMoves(Mapping[int, str]):
    """The legal moves ``{action: move text}`` with each text made only when it is read.

    Rule-based agents often need only the actions (the keys); the texts cost a formatting call
    per legal move. Iteration order is the env's legal order, as in ``env.legal_moves``.
    """

    __slots__ = ("_legal", "_members", "_text", "_texts")

    def __init__(self, legal: Sequence[int], text: Callable[[int], str]):
        self._legal = legal
        self._members: set[int] | None = None
        self._text = text
        self._texts: dict[int, str] = {}

    def __getitem__(self, action: int) -> str:
        text = self._texts.get(action)
        if text is None:
            if self._members is None:
                self._members = set(self._legal)
            if action not in self._members:
                raise KeyError(action)
            text = self._texts[action] = self._text(action)
        return text

    def __iter__(self) -> Iterator[int]:
        return iter(self._legal)

    def __len__(self) -> int:
        return len(self._legal)

    def __contains__(self, action: object) -> bool:
        if self._members is None:
            self._members = set(self._legal)
        return action in self._members

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class HookDecision(LazyDecision):
    """The decision of the seat to act on the shared AEC base, built from the game's hooks.

    ``observation`` is the game's ``_encode(seat)`` (what ``observe`` returns), ``action_mask``
    is made from the legal actions, ``view`` is ``env.view(agent)`` (as in :class:`LazyDecision`),
    ``legal_moves`` a :class:`LazyMoves` over ``_move_text``; each only when first read.
    """

    def __init__(self, env: Any, agent: str, seat: int, legal: Sequence[int]):
        super().__init__(env, agent)
        self._seat = seat
        self._legal = legal
        self._mask: Any = _UNSET

    @property
    def observation(self) -> np.ndarray:  # type: ignore[override]
        if self._obs is _UNSET:
            self._obs = self._env._encode(self._seat)
        return self._obs

    @property
    def action_mask(self) -> np.ndarray:  # type: ignore[override]
        if self._mask is _UNSET:
            mask = np.zeros(self._env.num_actions, dtype=np.int8)
            mask[list(self._legal)] = 1
            self._mask = mask
        return self._mask

    @property
    def legal_moves(self) -> dict[int, str]:  # type: ignore[override]
        if self._moves is _UNSET:
            self._moves = LazyMoves(self._legal, self._env._move_text)
        return self._moves


class LazyParallelDecision(LazyDecision):
    """The same for a ParallelEnv, whose step already returned every observation."""

    def __init__(self, env: Any, agent: str, observation: dict[str, np.ndarray]):
        super().__init__(env, agent)
        self._obs = observation

    @property
    def view(self) -> Any:  # type: ignore[override]
        if self._view is _UNSET:
            self._view = self._env.unwrapped.view(self.agent)
        return self._view

    @property
    def legal_moves(self) -> dict[int, str]:  # type: ignore[override]
        if self._moves is _UNSET:
            self._moves = self._env.unwrapped.legal_moves(self.agent)
        return self._moves


class StepObserver(Protocol):
    """Sees every decision of a game (research metrics): before and after it is applied."""

    def start(self, env: Any) -> None: ...

    def before(self, env: Any, seat: int, action: int) -> None: ...

    def after(self, env: Any, seat: int, action: int) -> None: ...


@dataclass
class PlayedGame:
    """Reward per seat, the outcome, the number of decisions, and the moves if recorded."""

    rewards: list[float]
    result: dict[str, Any] | None
    steps: int
    moves: list[list[Any]] = field(default_factory=list)


def play_aec_game(
    env: Any,
    seats: Sequence[Agent],
    seed: int | None,
    options: Mapping[str, Any] | None,
    observer: StepObserver | None = None,
    record_moves: bool = False,
) -> PlayedGame:
    """Play one episode of a raw AEC env; ``seats[i]`` plays ``player_i``.

    On the shared base (:class:`~kiaule_env.core.aec.TurnBasedCardEnv`) the episode starts with
    ``reset`` and then runs on the game's own hooks, the ones ``step`` calls: ``_seat_to_act``,
    ``_legal_actions``, ``_apply`` (whose reward deltas are what ``step`` pays), ``_result``;
    decisions read ``_encode``, ``view`` and ``_move_text`` only when an agent asks. What is left
    out is PettingZoo's per-step bookkeeping (reward, info and mask arrays nobody reads here), so
    the env's PettingZoo fields are stale afterwards until the next ``reset``. ``max_cycles``
    truncates as in ``step``. The moves, rewards and result are those of ``step`` (tested).
    """
    env.reset(seed=seed, options=dict(options) if options else None)
    for agent in seats:
        agent.reset()
    if not isinstance(env, TurnBasedCardEnv):
        return _play_generic_aec(env, seats, observer, record_moves)
    names = env.possible_agents
    totals = [0.0] * len(names)
    moves: list[list[Any]] = []
    steps = 0
    limit = env.max_cycles * env.num_players if env.max_cycles is not None else None
    seat_to_act, legal_actions, apply = env._seat_to_act, env._legal_actions, env._apply
    if observer is not None:
        observer.start(env)
    seat = seat_to_act()
    while seat >= 0:
        agent = names[seat]
        legal = legal_actions()
        action = int(seats[seat].act(HookDecision(env, agent, seat, legal)))
        if action not in legal:
            _illegal(env, agent, action, legal)
        if record_moves:
            moves.append([agent, action, env._move_text(action)])
        if observer is not None:
            observer.before(env, seat, action)
        deltas = apply(action)
        steps += 1
        if deltas is not None:
            for i, delta in enumerate(deltas):
                totals[i] += delta
        if observer is not None:
            observer.after(env, seat, action)
        seat = seat_to_act()
        if limit is not None and steps >= limit and seat >= 0:
            return PlayedGame(totals, None, steps, moves)  # truncated: no result
    return PlayedGame(totals, _plain(env._result()), steps, moves)


def _illegal(env: Any, agent: str, action: int, legal: Sequence[int]) -> None:
    """The ``ValueError`` of the raw env's ``step`` for an illegal action (RULES §0)."""
    if 0 <= action < env.num_actions:
        what = f"action {action} is illegal now"
    else:
        what = f"action {action} is outside Discrete({env.num_actions})"
    texts = ", ".join(f"{a} ({env._move_text(a)})" for a in legal)
    raise ValueError(f"{agent}: {what}; legal moves: {texts}")


def _play_generic_aec(
    env: Any, seats: Sequence[Agent], observer: StepObserver | None, record_moves: bool
) -> PlayedGame:
    """The public ``agent_iter`` loop, for AEC envs not built on the shared base."""
    raw = env.unwrapped
    index = {a: i for i, a in enumerate(env.possible_agents)}
    totals = [0.0] * len(index)
    moves: list[list[Any]] = []
    result = None
    steps = 0
    if observer is not None:
        observer.start(env)
    for agent in env.agent_iter():
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            if result is None and "result" in info:
                result = info["result"]
            env.step(None)
            continue
        seat = index[agent]
        action = int(seats[seat].act(LazyDecision(raw, agent)))
        if record_moves:
            moves.append([agent, action, raw.legal_moves(agent).get(action)])
        if observer is not None:
            observer.before(env, seat, action)
        env.step(action)
        steps += 1
        if observer is not None:
            observer.after(env, seat, action)
        for a, r in env.rewards.items():
            totals[index[a]] += r
    return PlayedGame(totals, _plain(result), steps, moves)


class ParallelStepObserver(Protocol):
    """Sees every simultaneous step of a ParallelEnv game (research metrics)."""

    def start(self, env: Any) -> None: ...

    def before_parallel(self, env: Any, actions: dict[str, int]) -> None: ...

    def after_parallel(self, env: Any, actions: dict[str, int], infos: dict[str, Any]) -> None: ...


def play_parallel_game(
    env: Any,
    seats: Sequence[Agent],
    seed: int | None,
    options: Mapping[str, Any] | None,
    observer: ParallelStepObserver | None = None,
    record_moves: bool = False,
) -> PlayedGame:
    """Play one episode of a ParallelEnv; ``seats[i]`` plays ``player_i``.

    Moves are recorded in the order of ``env.agents`` within each step, the order in which
    PettingZoo's ``parallel_to_aec`` conversion (the game's AEC ``env()``) asks for them.
    """
    observations, _ = env.reset(seed=seed, options=dict(options) if options else None)
    for agent in seats:
        agent.reset()
    raw = env.unwrapped
    index = {a: i for i, a in enumerate(env.possible_agents)}
    totals = [0.0] * len(index)
    moves: list[list[Any]] = []
    result = None
    steps = 0
    if observer is not None:
        observer.start(env)
    while env.agents:
        actions = {}
        for agent in env.agents:
            decision = LazyParallelDecision(env, agent, observations[agent])
            action = int(seats[index[agent]].act(decision))
            actions[agent] = action
            if record_moves:
                moves.append([agent, action, raw.legal_moves(agent).get(action)])
        if observer is not None:
            observer.before_parallel(env, actions)
        observations, rewards, _, _, infos = env.step(actions)
        steps += len(actions)
        if observer is not None:
            observer.after_parallel(env, actions, infos)
        for a, r in rewards.items():
            totals[index[a]] += r
        for info in infos.values():
            if "result" in info:
                result = info["result"]
    return PlayedGame(totals, _plain(result), steps, moves)


def _plain(result: Any) -> Any:
    return None if result is None else normalise(result)


class AgentPool:
    """Agents of one worker, one instance per (name, seat), re-seeded for every game.

    An agent is re-seeded in place when it offers ``reseed(seed)`` or keeps its randomness in an
    ``rng`` attribute (a numpy ``Generator``, like ``<game>/random``); otherwise it is created
    anew with the game's seed, which is always correct but slower for costly agents.
    """

    def __init__(self, make: Callable[..., Agent] | None = None):
        if make is None:
            from agents.registry import make as registry_make

            make = registry_make
        self._make = make
        self._cache: dict[tuple[str, int], Agent] = {}

    def get(self, name: str, seat: int, seed: int) -> Agent:
        agent = self._cache.get((name, seat))
        if agent is not None and _reseed(agent, seed):
            return agent
        agent = self._make(name, seed=seed)
        if _can_reseed(agent):
            self._cache[name, seat] = agent
        return agent

    def seat(self, names: Sequence[str], seeds: Sequence[int]) -> list[Agent]:
        return [self.get(n, i, s) for i, (n, s) in enumerate(zip(names, seeds, strict=True))]


def _can_reseed(agent: Agent) -> bool:
    return callable(getattr(agent, "reseed", None)) or isinstance(
        getattr(agent, "rng", None), np.random.Generator
    )


def _reseed(agent: Agent, seed: int) -> bool:
    reseed = getattr(agent, "reseed", None)
    if callable(reseed):
        reseed(seed)
        return True
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)  # type: ignore[attr-defined]
        if hasattr(agent, "seed") and not callable(agent.seed):  # type: ignore[attr-defined]
            agent.seed = seed  # type: ignore[attr-defined]
        return True
    return False
