"""A single-agent Gymnasium view of any environment of the suite, for sb3-contrib's MaskablePPO.

The learner plays one seat (in Kozel, with ``team_play``, one team: both partners' decisions are
the learner's and share its policy, K1). Every other seat is played inside the wrapper by an
opponent drawn each episode from an :class:`~agents.training.pool.OpponentPool`. One Gymnasium
step is one decision of the learner; the opponents' moves in between happen inside ``step``.

Reward accounting (why not PettingZoo's interleaved all-seats wrapper: agents/training/README.md):
after every env step the wrapper adds the learner's *own* reward (its seat's, what ``env.rewards``
gives it — for a team, the seats' common reward) to a pending sum, and pays the sum out at the
learner's next decision or at the end of the episode. So the learner's return over an episode
equals exactly its seat's total env reward, and no opponent outcome is ever credited to it. A
reward that arrives before the learner's first decision is paid with its first step.

With ``team_with_copies`` (a lineup option, games without teams) the learner's reward is instead
the mean of its own seat's and its copies' rewards, the seats the lineup gives to ``self``: the
score a tournament gives an agent that holds several seats (the mean over its seats). On its own
reward alone, a learner opposite its copy is also paid for taking rounds from the copy, which
that score does not count (``agents/zoo/README.md``, Pig).

With ``seat_pairs`` (games without teams, an even number of seats) the learner itself plays
every other seat, as a two-agent tournament seats an agent (A B A B): all those seats' decisions
are its, its reward is the mean of their rewards (the tournament's score of an agent on several
seats), and the seats between are one opposing side, one pool member playing them all.

Pig (a ParallelEnv, P2) goes through the same idea: each step the learner chooses its seat's
action, the opponents theirs, and the parallel step is taken; when the learner's seat leaves the
game (end of the round, or eliminated in a full game, P5/P9) its episode ends.

The episode is played by the one play loop (:class:`kiaule_env.core.play.GameLoop`) on the env's
engine, after the env's own ``reset`` (so seeding and options are the env's): the loop stops
whenever a learner seat must decide, the next ``step`` gives it that seat's action, and its
``rewarded`` hook hands the wrapper every step's reward deltas. Opponents get the loop's lazy
decisions, so an agent that reads only the observation costs no view or move texts. ``env``'s
``game_state`` is the episode being played; its PettingZoo bookkeeping (``agent_selection``,
``rewards``, ``infos``) stays as ``reset`` left it.

``reset(options=...)`` accepts ``{"seat": s, "env_options": {...}}``: fix the learner's seat for
this episode and pass options (stacked decks, RULES §0) to the env's own ``reset``.
"""

from __future__ import annotations

import copy
import hashlib
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from agents.base import Agent, Decision
from agents.training.policy import NumpyPolicy
from agents.training.pool import (
    SELF,
    OpponentPool,
    learner_seating,
    learner_seats_at,
    sides_from,
)
from kiaule_env import get_game, layout_of_env
from kiaule_env.core.layout import ObservationLayout
from kiaule_env.core.options import NotResetError
from kiaule_env.core.play import GameLoop, suite_env

#: the format of :meth:`LearnerEnv.get_state`'s data (1: JSON and arrays, replayed episode)
ENV_STATE_FORMAT = 1

#: episodes in a row that may end before the learner's first decision before reset gives up
_MAX_EMPTY_EPISODES = 100


class LearnerEnv(gym.Env):
    """One learner (seat or team) against pool opponents; exposes ``action_masks()``."""

    metadata = {"render_modes": []}  # noqa: RUF012 - Gymnasium's convention

    def __init__(
        self,
        game: str,
        env_kwargs: dict[str, Any] | None = None,
        pool: OpponentPool | None = None,
        seat: int | None = None,
        team_play: bool = True,
        team_with_copies: bool = False,
        seat_pairs: bool = False,
    ):
        self.game = game
        self.game_spec = get_game(game)
        self.env_kwargs = dict(env_kwargs or {})
        self.env = self.game_spec.native_env(**self.env_kwargs)
        self.parallel = self.game_spec.parallel
        self.possible_agents: list[str] = list(self.env.possible_agents)
        self.num_players = len(self.possible_agents)
        self.seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        first = self.possible_agents[0]
        box = self.env.observation_space(first)["observation"]
        self.observation_space = gym.spaces.Box(
            low=box.low, high=box.high, shape=box.shape, dtype=np.float32
        )
        self.action_space = gym.spaces.Discrete(int(self.env.action_space(first).n))
        self.pool = pool if pool is not None else OpponentPool(game)
        if seat is not None and not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be 0..{self.num_players - 1}, got {seat}")
        self.fixed_seat = seat
        self.team_play, self.team_with_copies, self.seat_pairs = learner_seating(
            game, self.num_players, team_play, team_with_copies, seat_pairs
        )
        if self.pool.lineups:
            self.pool.check_sides(len(self._sides_from(0, self._seats_at(0))))
        self.learner_seats: tuple[int, ...] = ()
        self.learner_agents: tuple[str, ...] = ()
        #: the seats whose rewards make the learner's: its own, and with team_with_copies its copies
        self.reward_agents: tuple[str, ...] = ()
        self.opponents: dict[int, Agent] = {}
        self.opponent_names: dict[int, str] = {}
        self._reward_seats: tuple[int, ...] = ()
        self._pending = 0.0
        self._current: str | None = None
        self._seat = -1
        self._obs: np.ndarray = np.zeros(self.observation_space.shape, np.float32)
        self._mask: np.ndarray = np.zeros(self.action_space.n, bool)
        #: the episode being played (the one play loop on the env's engine)
        self._loop: GameLoop | None = None
        #: the episode in progress as a checkpoint replays it (:meth:`get_state`)
        self._replay: dict[str, Any] | None = None
        self._replay_policies: dict[int, NumpyPolicy] = {}
        #: seconds spent in the env, in opponents' ``act``, and in reset/step in all
        self.timing = {"env": 0.0, "opponents": 0.0, "total": 0.0, "steps": 0, "episodes": 0}

    # ------------------------------------------------------------------ pool access
    def add_snapshot(self, arrays: dict[str, np.ndarray]) -> int:
        """Add a frozen copy of the learner to this env's pool (``VecEnv.env_method``)."""
        return self.pool.add_snapshot(arrays)

    def pool_snapshots(self) -> list[dict[str, np.ndarray]]:
        return self.pool.snapshot_arrays()

    def timing_stats(self) -> dict[str, float]:
        return dict(self.timing)

    def get_state(self) -> dict[str, Any]:
        """Everything this env is, as data (checkpoints store it; nothing is pickled).

        ``{"data": ..., "arrays": ...}``: ``data`` is JSON-able (the generators' states, the
        timing totals, the pool's snapshot serials and agents' generators, and the episode in
        progress as a replay: the generator and pool as the episode's ``reset`` found them and
        the learner's actions since), ``arrays`` the snapshot networks it needs, by serial.
        :meth:`set_state` rebuilds the game in progress by replaying it, so the engine and the
        opponents' memories come back as they were.
        """
        replay = self._replay
        needed = dict(self._replay_policies) if replay is not None else {}
        needed.update(self.pool.snapshots)
        arrays = {
            f"snapshot_{serial}/{key}": value
            for serial, policy in needed.items()
            for key, value in policy.to_arrays().items()
        }
        data = {
            "format": ENV_STATE_FORMAT,
            "rng": self.np_random.bit_generator.state,
            "np_random_seed": getattr(self, "_np_random_seed", None),
            "timing": dict(self.timing),
            "pool": {
                "serials": [s for s, _ in self.pool.snapshots],
                "next_serial": self.pool._next_serial,
                "agents": self.pool.agent_states(),
            },
            "episode": copy.deepcopy(replay),
            "check": self._fingerprint(),
        }
        return {"data": data, "arrays": arrays}

    def set_state(self, state: dict[str, Any]) -> None:
        """Become the env :meth:`get_state` described; ``ValueError`` if it is not such a state
        or its episode does not replay to the same position (another version of the rules or
        of an opponent)."""
        try:
            data, arrays = state["data"], state["arrays"]
            if data.get("format") != ENV_STATE_FORMAT:
                raise ValueError(f"env state format {data.get('format')!r}, not {ENV_STATE_FORMAT}")
            policies = _policies_from(arrays)
            pool = data["pool"]
            episode = data["episode"]
            if episode is not None:
                start = episode["serials"], policies, pool["next_serial"], episode["agents"]
                self.pool.restore(*start)
                self._replay_episode(episode)
            self.pool.restore(pool["serials"], policies, pool["next_serial"], pool["agents"])
            self.np_random.bit_generator.state = data["rng"]
            self._np_random_seed = data["np_random_seed"]
            self.timing = {k: data["timing"][k] for k in self.timing}
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"not a training env state ({type(exc).__name__}: {exc})") from None
        if self._fingerprint() != data["check"]:
            raise ValueError(
                "the episode in progress did not replay to the position it was saved at: the "
                "rules or an opponent changed since the checkpoint was written"
            )

    def _replay_episode(self, episode: dict[str, Any]) -> None:
        """Play the saved episode again from its ``reset``: same draws, opponents and actions."""
        self.np_random.bit_generator.state = episode["rng"]
        self._new_episode(dict(episode["options"]))
        for action in episode["actions"]:
            self.step(int(action))

    def _fingerprint(self) -> str:
        """A digest of where the learner stands (observation, mask, pending reward, seats)."""
        digest = hashlib.sha256()
        digest.update(np.ascontiguousarray(self._obs, dtype=np.float32).tobytes())
        digest.update(np.ascontiguousarray(self._mask, dtype=bool).tobytes())
        digest.update(repr((float(self._pending), self.learner_seats)).encode())
        return digest.hexdigest()

    @property
    def layout(self) -> ObservationLayout:
        """The observation layout of the wrapped env (model files record it, ``model_io``)."""
        layout = layout_of_env(self.env)
        if layout is None:  # every native env of the suite is built on the engine contract
            raise TypeError(f"{type(self.env).__name__} has no observation layout")
        return layout

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner's current decision (sb3-contrib's MaskablePPO hook)."""
        return self._mask

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        start = time.perf_counter()
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"seat", "env_options"}
        if unknown:
            raise ValueError(
                f"unknown reset option(s) {sorted(unknown)}; use 'seat', 'env_options'"
            )
        self._new_episode(options)
        self.timing["total"] += time.perf_counter() - start
        return self._obs, {"learner_seats": self.learner_seats}

    def _new_episode(self, options: dict[str, Any]) -> None:
        """Start the next episode that gives the learner a decision, first noting (as data)
        what a checkpoint needs to replay it: the generator, the pool's snapshots and agents."""
        self._replay = {
            "rng": self.np_random.bit_generator.state,
            "options": options,
            "serials": [s for s, _ in self.pool.snapshots],
            "agents": self.pool.agent_states(),
            "actions": [],
        }
        self._replay_policies = dict(self.pool.snapshots)
        self._pending = 0.0
        for _ in range(_MAX_EMPTY_EPISODES):
            self._start_episode(options)
            if not self._advance():
                break
            self._pending = 0.0  # an episode with no learner decision teaches nothing
        else:
            raise RuntimeError(f"{_MAX_EMPTY_EPISODES} episodes in a row gave the learner no move")
        self.timing["episodes"] += 1

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        start = time.perf_counter()
        action = int(action)
        if self._replay is not None:
            self._replay["actions"].append(action)
        done = self._advance({self._seat: action})
        reward, self._pending = self._pending, 0.0
        info: dict[str, Any] = {"learner_seats": self.learner_seats}
        terminated = truncated = False
        if done:
            truncated = self._truncated()
            terminated = not truncated
            result = self._result()
            if result is not None:
                info["result"] = result
        self.timing["steps"] += 1
        self.timing["total"] += time.perf_counter() - start
        return self._obs, float(reward), terminated, truncated, info

    def _sides_from(self, seat: int, learner_seats: tuple[int, ...]) -> list[list[int]]:
        """The opposing sides of a learner at ``seat``: :func:`agents.training.pool.sides_from`."""
        return sides_from(
            self.game,
            self.num_players,
            seat,
            learner_seats,
            bool(self.pool.lineups),
            self.seat_pairs,
        )

    def _seats_at(self, seat: int) -> tuple[int, ...]:
        """The seats the learner plays from ``seat`` (``pool.learner_seats_at``)."""
        return learner_seats_at(self.game, self.num_players, seat, self.team_play, self.seat_pairs)

    # ------------------------------------------------------------------ episode set-up
    def _start_episode(self, options: dict[str, Any]) -> None:
        rng = self.np_random
        seat = options.get("seat", self.fixed_seat)
        if seat is None:
            seat = int(rng.integers(self.num_players))
        elif not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be 0..{self.num_players - 1}, got {seat}")
        seats = self._seats_at(seat)
        if self.parallel and len(seats) != 1:
            raise ValueError("a parallel env's learner plays exactly one seat")
        self.learner_seats = tuple(seats)
        self.learner_agents = tuple(self.possible_agents[s] for s in seats)
        self.opponents, self.opponent_names = {}, {}
        lineup = self.pool.draw_lineup(rng)
        for index, side in enumerate(self._sides_from(seat, self.learner_seats)):
            others = [s for s in side if s not in seats]
            member = self.pool.draw(rng) if lineup is None else lineup[index]
            for s in others:
                agent = self.pool.agent(member, s, seed=int(rng.integers(2**31)))
                agent.reset()
                self.opponents[s] = agent
                self.opponent_names[s] = member
        copies = (
            [
                self.possible_agents[s]
                for s, member in sorted(self.opponent_names.items())
                if member.startswith(f"{SELF}:")
            ]
            if self.team_with_copies
            else []
        )
        self.reward_agents = self.learner_agents + tuple(copies)
        self._reward_seats = tuple(self.seat_of[a] for a in self.reward_agents)
        env_seed = int(rng.integers(2**31))
        env_options = options.get("env_options")
        t = time.perf_counter()
        self.env.reset(seed=env_seed, options=env_options)
        self.timing["env"] += time.perf_counter() - t
        players: list[Any] = [None] * self.num_players
        for s, agent in self.opponents.items():
            players[s] = _Timed(agent, self.timing)
        raw = suite_env(self.env)
        self._loop = GameLoop.on_env(raw, players, rewarded=self._rewarded)

    # ------------------------------------------------------------------ play
    def _rewarded(self, deltas: Sequence[float]) -> None:
        """Add the learner's reward of one step to the pending sum: its seat's; a team's shared
        reward counted once (K1); with copies, the mean over its seat and theirs."""
        seats = self._reward_seats
        if len(seats) == 1:
            self._pending += float(deltas[seats[0]])
        else:
            self._pending += sum(float(deltas[s]) for s in seats) / len(seats)

    def _advance(self, given: dict[int, int] | None = None) -> bool:
        """Take the learner's ``given`` action, then play opponents until the learner must
        decide (False) or its episode ends (True); set its observation and mask."""
        loop = self._loop
        if loop is None:
            raise NotResetError("step()")
        timing = self.timing
        start, in_opponents = time.perf_counter(), timing["opponents"]
        seats = loop.run(self.learner_seats, given)
        timing["env"] += time.perf_counter() - start - (timing["opponents"] - in_opponents)
        engine, state = loop.engine, loop.state
        seat = next((s for s in seats if s in self.learner_seats), -1)
        if seat < 0:
            self._obs = engine.observe(state, self.learner_seats[0])
            self._mask = np.zeros(self.action_space.n, bool)
            return True
        self._seat, self._current = seat, self.possible_agents[seat]
        self._obs = engine.observe(state, seat)
        mask = np.zeros(self.action_space.n, bool)
        mask[list(engine.legal_actions(state, seat))] = True
        self._mask = mask
        return False

    def _truncated(self) -> bool:
        return self._loop is not None and self._loop.truncated

    def _result(self) -> dict[str, Any] | None:
        """The outcome once the game is over (not when truncated, nor when only the learner's
        seat has left it)."""
        loop = self._loop
        if loop is None or loop.seats or loop.truncated:
            return None
        return loop.engine.result(loop.state)


class _Timed:
    """An opponent whose time in ``act`` is added to the wrapper's ``timing["opponents"]``."""

    __slots__ = ("agent", "timing")

    def __init__(self, agent: Agent, timing: dict[str, float]):
        self.agent, self.timing = agent, timing

    def act(self, decision: Decision) -> int:
        start = time.perf_counter()
        action = self.agent.act(decision)
        self.timing["opponents"] += time.perf_counter() - start
        return action


def _policies_from(arrays: dict[str, np.ndarray]) -> dict[int, NumpyPolicy]:
    """The snapshot networks of an env state's ``snapshot_<serial>/<name>`` arrays."""
    grouped: dict[int, dict[str, np.ndarray]] = defaultdict(dict)
    for key, value in arrays.items():
        head, _, name = key.partition("/")
        grouped[int(head.removeprefix("snapshot_"))][name] = value
    return {serial: NumpyPolicy.from_arrays(parts) for serial, parts in grouped.items()}
