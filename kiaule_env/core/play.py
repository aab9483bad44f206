"""The one play loop: an episode between players, on the engine contract, seen by observers.

:class:`GameLoop` plays an episode on an engine (:mod:`kiaule_env.core.engine`) and its state:
who acts, their legal actions, ``apply`` and its reward deltas, the result. A player sees a
:class:`Decision` whose parts (observation, mask, view, move texts) are computed only when read,
so a rule-based agent that reads only the view costs no observation encoding. What else happens
in an episode plugs into that one loop:

* recording: the moves as ``[agent, action, move text]`` and the players' probabilities;
* observers (:class:`StepObserver`): ``start``, then ``before`` and ``after`` every step (research
  metrics, soak's invariant checks, the demo's commentary, the replay viewer's frames);
* ``rewarded``: every step's reward deltas, as they come (the training wrapper pays its learner
  its share of each step);
* stopping: :meth:`GameLoop.run` returns when a seat of ``stop`` must decide, and its next call
  takes that seat's action as ``given`` (the training wrapper's learner, whose moves come from
  outside the loop, between Gymnasium steps); without ``stop`` it plays to the end.

:func:`play_episode` resets a raw env of the suite (so seeding and options are exactly the
env's) and runs the loop on its engine. The moves, rewards and result are those of stepping the
env through the public API (the conformance suite checks it for every game). With ``api=True``,
and for envs that are not of this suite (PettingZoo's own, for the benchmark's reference), the
same loop steps the env itself through PettingZoo's public API instead: a driver
(:class:`PublicAEC`, :class:`PublicParallel`) presents the env with the engine's methods.

Everything that plays episodes uses this loop: the agents' arena, tournaments, record and
replay, the replay viewer, research metrics, soak, bench, demo and the training wrapper.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
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


#: how the loop makes a seat's decision: ``(engine, state, seat, legal) -> Decision``
MakeDecision = Callable[[Any, Any, int, Sequence[int]], Decision]
#: how the loop checks an action that is not a legal int: ``(engine, state, seat, action,
#: legal) -> int`` or an error (:func:`~kiaule_env.core.engine.check_action`)
CheckAction = Callable[[Any, Any, int, Any, Sequence[int]], int]


class GameLoop:
    """The one play loop: an episode being played, with what it has counted so far.

    ``engine`` is a game's engine and ``state`` its episode state, or a public-API driver
    (:class:`PublicAEC`, :class:`PublicParallel`) and its env. ``players[seat]`` decides for
    ``seat`` (None for a seat whose actions are always ``given``). ``env`` is what observers are
    shown (the raw env being played); ``limit`` the joint steps after which the episode is
    truncated (``max_cycles``; None: never). ``record`` keeps the moves and the players'
    probabilities; ``observer`` sees every step; ``rewarded(deltas)`` gets every step's reward
    deltas that are not all zero, in order. ``decide`` and ``check`` make a decision and check
    an action that is not a legal int (the public-API drivers give them as the env does).
    Building the loop starts the observer; :meth:`run` plays.
    """

    def __init__(
        self,
        engine: Any,
        state: Any,
        players: Sequence[Player | None],
        *,
        env: Any = None,
        limit: int | None = None,
        record: bool = False,
        observer: StepObserver | None = None,
        rewarded: Callable[[Sequence[float]], None] | None = None,
        decide: MakeDecision = LazyDecision,
        check: CheckAction = check_action,
        names: Sequence[str] | None = None,
    ):
        self.engine, self.state, self.players, self.env = engine, state, players, env
        self.limit, self.record, self.observer, self.rewarded = limit, record, observer, rewarded
        self.decide, self.check = decide, check
        n = engine.num_players
        #: agent name per seat, as recorded moves name them
        self.names = list(names) if names is not None else [f"player_{s}" for s in range(n)]
        #: the total reward per seat so far
        self.totals = [0.0] * n
        self.moves: list[list[Any]] = []
        #: decisions made (one per acting seat per step) and joint steps taken
        self.steps = self.joint_steps = 0
        #: whether ``limit`` cut the episode short
        self.truncated = False
        self.policies = _Policies(players, record)
        if observer is not None:
            observer.start(env)
        #: the seats to act now; ``()`` once the episode is over or truncated
        self.seats: tuple[int, ...] = engine.to_act(state)

    @classmethod
    def on_env(cls, raw: Any, players: Sequence[Player | None], **kwargs: Any) -> GameLoop:
        """The loop on the engine of ``raw``, a raw env of the suite just reset
        (:func:`suite_env`), truncating where the env's ``max_cycles`` would."""
        return cls(raw.engine, raw.game_state, players, env=raw, limit=raw.step_limit, **kwargs)

    def run(
        self, stop: Collection[int] = (), given: Mapping[int, int] | None = None
    ) -> tuple[int, ...]:
        """Play until the episode ends or a seat of ``stop`` must decide; return :attr:`seats`.

        ``given`` holds the actions of the seats of ``stop`` that are to act now (the loop
        checks them as any other); it is used for the first step only. In a simultaneous game
        (every seat still in acts at each step) the loop also returns after a step that leaves
        no seat of ``stop`` in the game.
        """
        engine, state, players, env = self.engine, self.state, self.players, self.env
        to_act, legal_actions, apply = engine.to_act, engine.legal_actions, engine.apply
        decide, check, names, moves, totals = (
            self.decide,
            self.check,
            self.names,
            self.moves,
            self.totals,
        )
        observer, rewarded, limit, record = self.observer, self.rewarded, self.limit, self.record
        policies = self.policies
        recording = record and any(policies.given)
        left_early = bool(stop) and engine.simultaneous
        seats, steps, joint_steps = self.seats, self.steps, self.joint_steps
        while seats:
            if given is None and stop and any(s in stop for s in seats):
                break
            actions = []
            for seat in seats:
                legal = legal_actions(state, seat)
                if given is not None and seat in given:
                    action = given[seat]
                    if recording:
                        policies.found.append(None)
                elif recording:
                    action = policies.act(players[seat], seat, decide(engine, state, seat, legal))
                else:
                    action = players[seat].act(decide(engine, state, seat, legal))
                if type(action) is not int or action not in legal:
                    action = check(engine, state, seat, action, legal)
                actions.append(action)
                if record:
                    moves.append([names[seat], action, engine.action_text(state, seat, action)])
            given = None
            actions_t = tuple(actions)
            if observer is not None:
                observer.before(env, seats, actions_t)
            deltas = apply(state, actions_t)
            steps += len(seats)
            joint_steps += 1
            if any(deltas):
                for i, delta in enumerate(deltas):
                    totals[i] += delta
                if rewarded is not None:
                    rewarded(deltas)
            if observer is not None:
                observer.after(env, seats, actions_t, engine.step_info(state))
            seats = to_act(state)
            if seats and limit is not None and joint_steps >= limit:
                self.truncated, seats = True, ()
            elif left_early and all(s not in stop for s in seats):
                break
        self.seats, self.steps, self.joint_steps = seats, steps, joint_steps
        return seats

    def episode(self) -> Episode:
        """The :class:`Episode` played, once :meth:`run` has returned with nobody to act."""
        result = None if self.truncated else self.engine.result(self.state)
        return Episode(
            self.totals,
            None if result is None else normalise(result),
            self.steps,
            result is None,
            self.moves,
            self.policies.result(),
        )


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
    loop = start_episode(env, players, seed, options, record=record, observer=observer, api=api)
    loop.run()
    return loop.episode()


def start_episode(
    env: Any,
    players: Sequence[Player],
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    *,
    record: bool = False,
    observer: StepObserver | None = None,
    api: bool = False,
) -> GameLoop:
    """Reset ``env`` and the players; the :class:`GameLoop` of the new episode, not yet run
    (:func:`play_episode`'s arguments)."""
    raw = suite_env(env)
    options = dict(options) if options else None
    if api or raw is None:
        driver = PublicAEC(env) if hasattr(env, "agent_iter") else PublicParallel(env)
        driver.reset(seed, options)
        for player in players:
            player.reset()
        return GameLoop(
            driver,
            env,
            players,
            env=driver.raw,
            record=record,
            observer=observer,
            decide=_public_decision,
            check=_as_given,
            names=driver.names,
        )
    raw.reset(seed=seed, options=options)
    for player in players:
        player.reset()
    return GameLoop.on_env(raw, players, record=record, observer=observer)


# ------------------------------------------------------------------ the public-API drivers
class _PublicDriver:
    """What the two public-API drivers share: an env presented with the engine's methods that
    the loop calls (the state they are given is the env itself, stepped in place)."""

    def __init__(self, env: Any):
        self.env = env
        self.raw = env.unwrapped
        self.names = list(env.possible_agents)
        self.index = {a: i for i, a in enumerate(self.names)}
        self.num_players = len(self.names)
        self._result: dict[str, Any] | None = None
        self._legal: dict[int, Mapping[int, str]] = {}

    def observation(self, agent: str) -> Mapping[str, np.ndarray]:
        """``agent``'s observation dict as the env last gave it."""
        raise NotImplementedError

    def legal_actions(self, _env: Any, seat: int) -> Mapping[int, str]:
        """The legal moves ``{action: text}`` (the env's ``legal_moves``, else the mask's
        actions with their numbers as texts): the loop tests membership on its keys."""
        agent = self.names[seat]
        if hasattr(self.raw, "legal_moves"):
            legal = self.raw.legal_moves(agent)
        else:
            mask = self.observation(agent)["action_mask"]
            legal = {int(a): str(int(a)) for a in np.flatnonzero(mask)}
        self._legal[seat] = legal
        return legal

    def decision(self, seat: int, legal: Mapping[int, str]) -> Decision:
        """A player's decision read from the env's public API (view where it has one)."""
        agent, raw = self.names[seat], self.raw
        obs = self.observation(agent)
        view = raw.view(agent) if hasattr(raw, "view") else None
        engine = getattr(raw, "engine", None)
        return Decision(agent, obs["observation"], obs["action_mask"], view, legal, engine)

    def action_text(self, _env: Any, seat: int, action: int) -> str | None:
        return self._legal[seat].get(action)

    def result(self, _env: Any) -> dict[str, Any] | None:
        """The env's ``infos[agent]["result"]``; None if the episode was truncated."""
        return self._result


class PublicAEC(_PublicDriver):
    """An AEC env stepped as a learner steps it: ``agent_iter``, ``last``, ``step``; agents
    who are done are stepped with ``None`` on the way."""

    simultaneous = False

    def __init__(self, env: Any):
        super().__init__(env)
        self._agents: Iterator[str] = iter(())
        self._agent = ""
        self._obs: Mapping[str, np.ndarray] = {}

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> None:
        self.env.reset(seed=seed, options=options)
        self._agents = iter(self.env.agent_iter())

    def observation(self, agent: str) -> Mapping[str, np.ndarray]:
        return self._obs

    def to_act(self, _env: Any) -> tuple[int, ...]:
        env = self.env
        for agent in self._agents:
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                if self._result is None and "result" in info:
                    self._result = info["result"]
                env.step(None)
                continue
            self._agent, self._obs = agent, obs
            return (self.index[agent],)
        return ()

    def apply(self, _env: Any, actions: Sequence[int]) -> list[float]:
        env = self.env
        env.step(actions[0])
        rewards = env.rewards
        return [rewards.get(a, 0.0) for a in self.names]

    def step_info(self, _env: Any) -> dict[str, Any] | None:
        return getattr(self.raw, "infos", {}).get(self._agent) or None


class PublicParallel(_PublicDriver):
    """A ParallelEnv stepped as a learner steps it: every agent in ``env.agents`` acts in
    ``step(actions)``."""

    simultaneous = True

    def __init__(self, env: Any):
        super().__init__(env)
        self._obs: Mapping[str, Mapping[str, np.ndarray]] = {}
        self._acting: list[str] = []
        self._infos: Mapping[str, Mapping[str, Any]] = {}

    def reset(self, seed: int | None, options: dict[str, Any] | None) -> None:
        self._obs, _ = self.env.reset(seed=seed, options=options)

    def observation(self, agent: str) -> Mapping[str, np.ndarray]:
        return self._obs[agent]

    def to_act(self, _env: Any) -> tuple[int, ...]:
        self._acting = list(self.env.agents)
        return tuple(self.index[a] for a in self._acting)

    def apply(self, _env: Any, actions: Sequence[int]) -> list[float]:
        joint = dict(zip(self._acting, actions, strict=True))
        self._obs, rewards, _, _, self._infos = self.env.step(joint)
        for info in self._infos.values():
            if "result" in info:
                self._result = info["result"]
        return [rewards.get(a, 0.0) for a in self.names]

    def step_info(self, _env: Any) -> dict[str, Any]:
        infos = self._infos
        info = next(iter(infos.values()), {}) if infos else {}
        return {k: v for k, v in info.items() if k != "result"}


def _public_decision(driver: Any, _env: Any, seat: int, legal: Sequence[int]) -> Decision:
    return driver.decision(seat, legal)


def _as_given(_driver: Any, _env: Any, _seat: int, action: Any, _legal: Sequence[int]) -> int:
    """Through the public API an action goes to the env as the player gave it (as an int): the
    env's own convention judges it."""
    return int(action)
