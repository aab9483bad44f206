"""The one play loop: an episode between players, fast, on the engine contract.

:func:`play_episode` resets a raw env of the suite (so seeding and options are exactly the
env's), then drives its engine directly (:mod:`kiaule_env.core.engine`): who acts, their legal
actions, ``apply`` and its reward deltas, the result. A player sees a :class:`Decision` whose
parts (observation, mask, view, move texts) are computed only when read, so a rule-based agent
that reads only the view costs no observation encoding. The moves, rewards and result are those
of stepping the env through the public API (the conformance suite checks it for every game).

Everything that plays episodes uses it: the agents' arena, tournaments, record and replay,
research metrics, soak, bench and demo. Envs that are not of this suite (PettingZoo's own, for
the benchmark's reference) are played through their public ``agent_iter`` loop instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from kiaule_env.core.engine import check_action
from kiaule_env.core.jsonable import normalise

_UNSET: Any = object()


@dataclass
class Decision:
    """Everything a player may use to choose a move: nothing but what that player may know.

    ``engine`` is the game's rules engine (:mod:`kiaule_env.core.engine`): the rules and the
    configuration, which every player knows, and no episode state (search agents sample full
    states from ``view`` with ``engine.sample_state`` and simulate them). ``None`` where the
    decision does not come from an env of this suite.
    """

    agent: str
    observation: np.ndarray
    action_mask: np.ndarray
    view: Any
    legal_moves: Mapping[int, str]
    engine: Any = None


class Player(Protocol):
    """What the loop needs of an agent: ``reset`` at the start of an episode, then ``act``."""

    def act(self, decision: Decision) -> int: ...

    def reset(self) -> None: ...


class LazyMoves(Mapping[int, str]):
    """The legal moves ``{action: move text}`` with each text made only when it is read.

    Iteration order is the engine's legal order, as in ``env.legal_moves``.
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
            if action not in self:
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


class LazyDecision(Decision):
    """The :class:`Decision` of ``seat`` in ``state``, each part computed on first read."""

    def __init__(self, engine: Any, state: Any, seat: int, legal: Sequence[int]):  # no super()
        self.agent = f"player_{seat}"
        self.engine = engine
        self._engine = engine
        self._state = state
        self._seat = seat
        self._legal = legal
        self._obs: Any = _UNSET
        self._mask: Any = _UNSET
        self._view: Any = _UNSET
        self._moves: Any = _UNSET

    @property
    def observation(self) -> np.ndarray:  # type: ignore[override]
        if self._obs is _UNSET:
            self._obs = self._engine.observe(self._state, self._seat)
        return self._obs

    @property
    def action_mask(self) -> np.ndarray:  # type: ignore[override]
        if self._mask is _UNSET:
            mask = np.zeros(self._engine.num_actions, dtype=np.int8)
            mask[list(self._legal)] = 1
            self._mask = mask
        return self._mask

    @property
    def view(self) -> Any:  # type: ignore[override]
        if self._view is _UNSET:
            self._view = self._engine.view(self._state, self._seat)
        return self._view

    @property
    def legal_moves(self) -> Mapping[int, str]:  # type: ignore[override]
        if self._moves is _UNSET:
            engine, state, seat = self._engine, self._state, self._seat
            self._moves = LazyMoves(self._legal, lambda a: engine.action_text(state, seat, a))
        return self._moves


class StepObserver(Protocol):
    """Sees every step of an episode (research metrics), before and after it is applied.

    ``seats`` are the seats acting in the step (one in the turn-based games, every seat still
    in for Pig) and ``actions`` their actions in that order; ``info`` is the engine's
    ``step_info`` after the step. ``env`` is the raw env whose ``game_state`` is being played.
    """

    def start(self, env: Any) -> None: ...

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None: ...

    def after(
        self,
        env: Any,
        seats: tuple[int, ...],
        actions: tuple[int, ...],
        info: dict[str, Any] | None,
    ) -> None: ...


@dataclass
class Episode:
    """One played episode.

    ``rewards``: the total reward per seat; ``result``: the outcome (JSON-normalised), None if
    the episode was truncated by ``max_cycles`` (``truncated``); ``steps``: decisions made (one
    per acting seat per step); ``moves``: ``[agent, action, move text]`` in order, if recorded;
    ``policies``: per recorded move the probabilities ``{action: p}`` of a player with
    ``act_with_policy`` (None for the others), or None when no player gave any.
    """

    rewards: list[float]
    result: dict[str, Any] | None
    steps: int
    truncated: bool = False
    moves: list[list[Any]] = field(default_factory=list)
    policies: list[dict[int, float] | None] | None = None


class _Policies:
    """Collects each recorded move's probabilities: players with ``act_with_policy`` choose
    through it (the same move as ``act``), the others get None."""

    def __init__(self, players: Sequence[Player], record: bool):
        self.given = [record and hasattr(p, "act_with_policy") for p in players]
        self.found: list[dict[int, float] | None] = []

    def act(self, player: Player, seat: int, decision: Any) -> Any:
        """``player``'s action for ``decision``, noting its probabilities when it gives them."""
        if not self.given[seat]:
            self.found.append(None)
            return player.act(decision)
        action, policy = player.act_with_policy(decision)  # type: ignore[attr-defined]
        self.found.append({int(a): float(p) for a, p in policy.items()})
        return action

    def result(self) -> list[dict[int, float] | None] | None:
        return self.found if any(p is not None for p in self.found) else None


def suite_env(env: Any) -> Any | None:
    """The raw env of the suite behind ``env`` (wrapped or not; Pig's AEC version gives its
    ParallelEnv), or None for an env that is not built on the engine contract."""
    raw = getattr(env, "unwrapped", env)
    raw = getattr(raw, "parallel", raw)  # Pig's AEC env plays on its ParallelEnv
    return raw if hasattr(raw, "engine") and hasattr(raw, "step_limit") else None


def play_episode(
    env: Any,
    players: Sequence[Player],
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    record: bool = False,
    observer: StepObserver | None = None,
    api: bool = False,
) -> Episode:
    """Play one episode of ``env``; ``players[i]`` plays ``player_i``. See the module docstring.

    ``env`` is any env of the suite, wrapped or raw, AEC or parallel (it is reset and then
    played on its raw env's engine), or any other PettingZoo env. ``api=True`` steps the env
    itself through PettingZoo's public API instead (``agent_iter``/``last``/``step``, or the
    parallel ``step``), as a learner would: what ``kiaule bench`` measures, and the reference
    the fast path is tested against; other envs are always played that way. On the fast path
    an illegal action raises the raw env's ``ValueError`` naming it and the legal moves; through
    the API the env's own convention applies (``env()``: the classic −1).
    """
    raw = suite_env(env)
    if api or raw is None:
        if hasattr(env, "agent_iter"):
            return _play_public_aec(env, players, seed, options, record, observer)
        return _play_public_parallel(env, players, seed, options, record, observer)
    raw.reset(seed=seed, options=dict(options) if options else None)
    for player in players:
        player.reset()
    engine, state = raw.engine, raw.game_state
    totals = [0.0] * engine.num_players
    moves: list[list[Any]] = []
    steps = joint_steps = 0
    limit = raw.step_limit
    to_act, legal_actions, apply = engine.to_act, engine.legal_actions, engine.apply
    if observer is not None:
        observer.start(raw)
    policies = _Policies(players, record)
    recording = record and any(policies.given)
    seats = to_act(state)
    while seats:
        actions = []
        for seat in seats:
            legal = legal_actions(state, seat)
            decision = LazyDecision(engine, state, seat, legal)
            if recording:
                action = policies.act(players[seat], seat, decision)
            else:
                action = players[seat].act(decision)
            if type(action) is not int or action not in legal:
                action = check_action(engine, state, seat, action, legal)
            actions.append(action)
            if record:
                moves.append([f"player_{seat}", action, engine.action_text(state, seat, action)])
        actions_t = tuple(actions)
        if observer is not None:
            observer.before(raw, seats, actions_t)
        deltas = apply(state, actions_t)
        steps += len(seats)
        joint_steps += 1
        if any(deltas):
            for i, delta in enumerate(deltas):
                totals[i] += delta
        if observer is not None:
            observer.after(raw, seats, actions_t, engine.step_info(state))
        seats = to_act(state)
        if seats and limit is not None and joint_steps >= limit:
            return Episode(totals, None, steps, True, moves, policies.result())
    return Episode(totals, normalise(engine.result(state)), steps, False, moves, policies.result())


def _public_decision(env: Any, agent: str, obs: Mapping[str, np.ndarray]) -> Decision:
    """A player's decision read from an env's public API (view and texts where it has them)."""
    raw = env.unwrapped
    view = raw.view(agent) if hasattr(raw, "view") else None
    if hasattr(raw, "legal_moves"):
        legal = raw.legal_moves(agent)
    else:
        legal = {int(a): str(int(a)) for a in np.flatnonzero(obs["action_mask"])}
    engine = getattr(raw, "engine", None)
    return Decision(agent, obs["observation"], obs["action_mask"], view, legal, engine)


def _play_public_aec(
    env: Any,
    players: Sequence[Player],
    seed: int | None,
    options: Mapping[str, Any] | None,
    record: bool,
    observer: StepObserver | None,
) -> Episode:
    """The public ``agent_iter`` loop of an AEC env."""
    env.reset(seed=seed, options=dict(options) if options else None)
    for player in players:
        player.reset()
    index = {a: i for i, a in enumerate(env.possible_agents)}
    totals = [0.0] * len(index)
    moves: list[list[Any]] = []
    policies = _Policies(players, record)
    result = None
    steps = 0
    truncated = False
    raw = env.unwrapped
    if observer is not None:
        observer.start(raw)
    for agent in env.agent_iter():
        obs, _, terminated, trunc, info = env.last()
        if terminated or trunc:
            truncated = truncated or (bool(trunc) and not terminated)
            if result is None and "result" in info:
                result = info["result"]
            env.step(None)
            continue
        decision = _public_decision(env, agent, obs)
        if record:
            action = int(policies.act(players[index[agent]], index[agent], decision))
        else:
            action = int(players[index[agent]].act(decision))
        if record:
            moves.append([agent, action, decision.legal_moves.get(action)])
        seats, actions = (index[agent],), (action,)
        if observer is not None:
            observer.before(raw, seats, actions)
        env.step(action)
        steps += 1
        if observer is not None:
            infos = getattr(raw, "infos", {})
            observer.after(raw, seats, actions, infos.get(agent) or None)
        for a, r in env.rewards.items():
            totals[index[a]] += r
    if result is None:
        truncated = True
    return Episode(
        totals,
        None if result is None else normalise(result),
        steps,
        truncated,
        moves,
        policies.result(),
    )


def _play_public_parallel(
    env: Any,
    players: Sequence[Player],
    seed: int | None,
    options: Mapping[str, Any] | None,
    record: bool,
    observer: StepObserver | None,
) -> Episode:
    """The public ``step(actions)`` loop of a ParallelEnv."""
    observations, _ = env.reset(seed=seed, options=dict(options) if options else None)
    for player in players:
        player.reset()
    index = {a: i for i, a in enumerate(env.possible_agents)}
    totals = [0.0] * len(index)
    moves: list[list[Any]] = []
    policies = _Policies(players, record)
    result = None
    steps = 0
    raw = env.unwrapped
    if observer is not None:
        observer.start(raw)
    while env.agents:
        actions = {}
        for agent in env.agents:
            decision = _public_decision(env, agent, observations[agent])
            if record:
                actions[agent] = int(policies.act(players[index[agent]], index[agent], decision))
            else:
                actions[agent] = int(players[index[agent]].act(decision))
            if record:
                moves.append([agent, actions[agent], decision.legal_moves.get(actions[agent])])
        seats = tuple(index[a] for a in actions)
        joint = tuple(actions.values())
        if observer is not None:
            observer.before(raw, seats, joint)
        observations, rewards, _, _, infos = env.step(actions)
        steps += len(actions)
        if observer is not None:
            info = next(iter(infos.values()), {}) if infos else {}
            observer.after(raw, seats, joint, {k: v for k, v in info.items() if k != "result"})
        for a, r in rewards.items():
            totals[index[a]] += r
        for info in infos.values():
            if "result" in info:
                result = info["result"]
    return Episode(
        totals,
        None if result is None else normalise(result),
        steps,
        result is None,
        moves,
        policies.result(),
    )
