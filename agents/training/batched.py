"""The batched rollout collector of ``kiaule train`` (``collector: vector``).

An SB3 ``VecEnv`` over one compiled batch of games (:mod:`kiaule_env.vector`): ``n_envs`` slots,
each a learner against pool opponents with the same semantics as
:class:`~agents.training.wrapper.LearnerEnv` (the ``envs`` collector), but every move of the
batch is decided at once:

* per slot and per episode the learner's seat is drawn uniformly (with ``team_play``, in a game
  with teams, it plays its whole team, K1), and one opponent per opposing side from the pool's
  mix, or a whole lineup, its members clockwise from the learner's left (``self`` members are
  snapshots, ``self:<serial>``) — drawn when the slot's episode starts (``SingleLearner``'s
  ``on_episodes`` hook), for all the slots starting together at once (seats, then members,
  then snapshots), from the collector's own generator;
* the learner's reward is its seat's (its team's shared reward, K1), or with
  ``team_with_copies`` the mean over its seat and its copies' seats (the seats a lineup gives
  to ``self``), or with ``seat_pairs`` (the learner plays every other seat, as a two-agent
  tournament seats an agent; the seats between are one side) the mean over its seats; an
  episode that ends before the learner's first decision teaches nothing;
* opponents are batched: ``random`` draws uniform legal moves from the rows' masks
  (``vector.random_legal``), a snapshot is one forward pass of its actor (numpy) over all the
  rows it plays now (torch, :class:`BatchActor`), its most probable move or a sample
  (``snapshot_deterministic``), and
  ``heuristic`` is the game's compiled rule-based agent
  (``kiaule_env.vector.opponents.heuristic_opponent``); a learned model (a member whose agent is
  a policy network: the zoo's ``<game>/ppo``, a file's ``<game>/ppo:path=...``, a model
  registered by ``KIAULE_MODELS``) is batched as a snapshot is, one forward pass of its actor
  over its rows, playing as its agent would (its most probable move, or a draw from the
  opponents' generator where it samples), so a league of published models trains at the
  batch's speed;
* any other pool member (a search agent, a heuristic with options) has no batched form and is
  played by the Python agent itself (``agents.registry.make``), one instance per slot and seat,
  on its own slots only: such a slot's game is dealt by the game's engine and loaded into the
  batch, and the engine game follows every move of the slot
  (:mod:`agents.training.engine_slots`), so the agent decides from the engine's decision for
  its seat while the slot's other seats stay batched. A game whose batched env cannot load
  engine states refuses such a member with a ``ValueError`` that names it and says to use
  ``collector: envs``.

Differences from ``LearnerEnv`` a user may notice: the draws come from one generator per batch
(same seed, same run, but not the same games as the ``envs`` collector), and in a game where a
seat leaves before the end (Pig's full game, P5) the learner's episode ends with the game, not
when its seat leaves (it gets no reward after leaving, P9, so its return is the same; with
``team_with_copies`` the copies' later rewards still count in the mean, where ``LearnerEnv``
stops counting when the learner leaves).

Checkpoints: :meth:`BatchedCollector.get_state` is data (JSON and numpy arrays: the batch's
compiled state, the generators, each slot's seats and opponents, the snapshots in use, and
the Python members' games as their deals' seeds and the moves since,
:mod:`agents.training.engine_slots`), so a resumed run continues exactly.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np

from agents.training.engine_slots import EngineSlots, LockstepEnv
from agents.training.policy import NumpyPolicy, PolicyAgent
from agents.training.pool import (
    SELF,
    OpponentPool,
    learner_seating,
    learner_seats_at,
    sides_from,
)
from kiaule_env import get_game
from kiaule_env.core.layout import ObservationLayout
from kiaule_env.vector import SingleLearner, random_legal, random_opponent
from kiaule_env.vector import make as make_vector
from kiaule_env.vector.base import attribute_state, set_attribute_state
from kiaule_env.vector.kernels import kernel_decorator
from kiaule_env.vector.opponents import CompiledPolicy
from kiaule_env.vector.sb3 import SB3VecEnv

#: the format of :meth:`BatchedCollector.get_state`'s data
COLLECTOR_STATE_FORMAT = 1

#: who plays a seat: the learner, or an opponent member's code (an index into ``members``)
LEARNER = -1

#: who decides for a member that is not a snapshot (a snapshot's entry is its serial, >= 0):
#: uniform legal moves, the compiled heuristic, the member's Python agent, or a learned model's
#: network (batched)
RANDOM, HEURISTIC, PYTHON, MODEL = -1, -2, -3, -4

#: the methods a training run calls through ``VecEnv.env_method`` (one collector answers)
METHODS = ("add_snapshot", "pool_snapshots", "timing_stats", "get_state", "set_state")


class BatchActor:
    """A snapshot's actor as torch tensors, evaluated on many rows at once.

    Measured on the 2-core development machine: numpy's OpenBLAS spreads one ``(256, 441) @
    (441, 256)`` product over threads and took about 10 ms, torch on the run's
    ``torch_threads`` (one) 0.6 ms; for a few rows both cost tens of microseconds.
    """

    def __init__(self, policy: NumpyPolicy):
        import torch

        self.layers = [
            (torch.from_numpy(w.T.copy()), torch.from_numpy(b)) for w, b in policy.layers
        ]
        self.head = (torch.from_numpy(policy.head[0].T.copy()), torch.from_numpy(policy.head[1]))
        self.relu = policy.activation == "relu"

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of every row of ``obs`` (a new float32 ``(rows, actions)``
        array)."""
        import torch

        with torch.no_grad():
            h = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
            for weight, bias in self.layers:
                h = torch.addmm(bias, h, weight)
                h = torch.relu(h) if self.relu else torch.tanh(h)
            return torch.addmm(self.head[1], h, self.head[0]).numpy()


def policy_actions(
    actor: BatchActor,
    obs: np.ndarray,
    mask: np.ndarray,
    rng: np.random.Generator,
    deterministic: bool,
) -> np.ndarray:
    """Each row's legal move of ``actor``: the most probable, or a draw from the masked
    softmax (the Gumbel-max trick: the same distribution as ``NumpyPolicy.act``'s). Works in
    place on the logits, a new array."""
    z = actor.logits(obs)
    z[mask == 0] = -np.inf
    if not deterministic:
        z += rng.gumbel(size=z.shape).astype(np.float32)
    return z.argmax(axis=1).astype(np.int64, copy=False)


def _warm_up(game: str, env_kwargs: dict[str, Any] | None, heuristic: bool) -> None:
    """Load (or compile) the kernels of a run on a batch of one: the batch's, the compiled
    heuristic's when it plays, the single-learner view's (a few moves of seat 0 against random
    ones) and the seating's, so that this one-off cost is not counted in the training's time
    breakdown."""
    venv = make_vector(game, num_envs=1, seed=0, **dict(env_kwargs or {}))
    view = SingleLearner(venv, [0], random_opponent(0))
    obs, _ = view.reset(seed=0)
    if heuristic:
        _heuristic_for(venv).act(np.zeros(1, np.int64), 0)
    rng = np.random.default_rng(0)
    for _ in range(4):
        obs, *_ = view.step(random_legal(obs["action_mask"], rng))
    one, cell = np.zeros(1, np.int64), np.zeros((1, 1), np.int64)
    weights = np.zeros((1, 1), np.float32)
    _seat_kernel(one, one, cell, cell - 1, np.zeros(1, np.bool_), cell, cell == 0, weights)


def _side_of_seats(teams: list[tuple[int, ...]], sides: list[list[list[int]]]) -> np.ndarray:
    """``[seat, s]``: which opposing side (an index into ``sides[seat]``) plays seat ``s`` when
    the learner sits at ``seat``, or -1 where the learner plays it (its team, K1)."""
    n = len(teams)
    side_of = np.full((n, n), -1, np.int64)
    for seat in range(n):
        for index, side in enumerate(sides[seat]):
            for s in side:
                if s not in teams[seat]:
                    side_of[seat, s] = index
    return side_of


@kernel_decorator()
def _seat_kernel(slots, seats, codes, side_of, copies, who, mine, weights) -> None:
    """Rows ``slots[j]`` of ``who``, ``mine`` (the learner's seats) and ``weights`` (each
    seat's share of its reward) for a learner at ``seats[j]`` and the member codes
    ``codes[j]``, one per opposing side (``side_of``). The learner's seats are paid, and with
    ``copies[code]`` (``team_with_copies``) a snapshot's seats too, each ``1 / paid``: the
    float64 quotient stored as float32, as numpy's ``paid / paid.sum()`` is."""
    n = side_of.shape[1]
    for j in range(slots.shape[0]):
        i, seat, paid = slots[j], seats[j], 0
        for s in range(n):
            side = side_of[seat, s]
            code = LEARNER if side < 0 else codes[j, side]
            who[i, s] = code
            mine[i, s] = code == LEARNER
            paid += code == LEARNER or copies[code]
        for s in range(n):
            code = who[i, s]
            weights[i, s] = 1.0 / paid if code == LEARNER or copies[code] else 0.0


class _Members(NamedTuple):
    """The pool's members as ``BatchedCollector._draw_members`` draws them."""

    #: the member names (``self`` for a snapshot still to draw)
    names: list[str]
    #: indices into ``names``: a row per lineup (opposing sides clockwise from the learner's
    #: left), or one per mix member
    table: np.ndarray
    #: the rows' weights as normalised cumulative sums (None: uniform)
    cdf: np.ndarray | None
    #: the index of ``self`` in ``names``, -1 if absent
    self_index: int


def _cdf(weights: np.ndarray | None) -> np.ndarray | None:
    """The normalised cumulative sums of ``weights`` as ``rng.choice`` computes them from its
    ``p`` (float64 ``cumsum``, divided by the last), or None for None (uniform)."""
    if weights is None:
        return None
    cdf = np.asarray(weights, dtype=np.float64).cumsum()
    cdf /= cdf[-1]
    return cdf


def _weighted_draw(
    rng: np.random.Generator, cdf: np.ndarray | None, n: int, size: int | tuple[int, int]
) -> np.ndarray:
    """Indices in ``[0, n)``, drawn with the weights whose normalised cumulative sums are
    ``cdf`` (uniformly where it is None): numpy's ``rng.choice(n, size, p=weights)``, the same
    generator calls and values (inverse-CDF sampling: ``searchsorted`` of ``rng.random`` in
    the cumulative weights over their total), without its checks of the weights on every call."""
    if cdf is None:
        return rng.integers(n, size=size)
    return cdf.searchsorted(rng.random(size), side="right")


def _heuristic_for(venv: Any) -> Any:
    """The game's compiled heuristic (``BatchedPolicy``), or None where it has none."""
    try:
        from kiaule_env.vector.opponents import heuristic_opponent
    except ImportError:
        return None
    return heuristic_opponent(venv)


class BatchedCollector(SB3VecEnv):
    """``n_slots`` learner slots on one batched env; see the module docstring."""

    #: a checkpoint saves one state for the whole batch (``LearnerEnv``: one per env)
    state_parts = 1

    def __init__(
        self,
        game: str,
        env_kwargs: dict[str, Any] | None,
        pool: OpponentPool,
        n_slots: int,
        seed: int = 0,
        team_play: bool = True,
        team_with_copies: bool = False,
        seat_pairs: bool = False,
    ):
        self.game = game
        self.spec = get_game(game)
        self.pool = pool
        self.venv = make_vector(game, num_envs=n_slots, seed=seed, **dict(env_kwargs or {}))
        self.num_players = self.venv.num_players
        self.team_play, self.team_with_copies, self.seat_pairs = learner_seating(
            game, self.num_players, team_play, team_with_copies, seat_pairs
        )
        n, pairs = self.num_players, self.seat_pairs
        #: per learner seat: the seats it plays, and the opposing sides in the draws' order
        self._teams = [learner_seats_at(game, n, s, self.team_play, pairs) for s in range(n)]
        lineups = bool(pool.lineups)
        self._sides = [sides_from(game, n, s, self._teams[s], lineups, pairs) for s in range(n)]
        if lineups:
            pool.check_sides(len(self._sides[0]))
        self._heuristic = None
        #: the learned-model members' actors and whether each plays its most probable move
        self._models: dict[str, tuple[BatchActor, bool]] = {}
        python = self._check_members()
        _warm_up(game, env_kwargs, self._heuristic is not None)
        # the third generator deals the Python members' games (spawn(3)'s first two are
        # spawn(2)'s: runs without them draw as before)
        seeds = np.random.SeedSequence(seed).spawn(3)
        self._rng, self._opp_rng = (np.random.default_rng(s) for s in seeds[:2])
        #: the engine twins of the slots Python agents play (None: every member is batched)
        self._engine_slots: EngineSlots | None = None
        stepped: Any = self.venv
        if python:
            engine = self.spec.make_engine(**self.venv.options)
            self._engine_slots = EngineSlots(self.venv, engine, seeds[2])
            stepped = LockstepEnv(self.venv, self._engine_slots)
        #: opponent members by code; ``who[slot, seat]`` is a code or LEARNER
        self.members: list[str] = []
        self._codes: dict[str, int] = {}
        self._is_self: list[bool] = []
        #: per code, who decides: a snapshot's serial, or RANDOM / HEURISTIC
        self._plays: list[int] = []
        self._side_of = _side_of_seats(self._teams, self._sides)
        #: the pool's members as index tables, without and with ``self`` (``_member_table``)
        self._tables: dict[bool, _Members] = {}
        self.who = np.full((n_slots, self.num_players), LEARNER, np.int64)
        #: the snapshots that slots play now or the pool holds, by serial, and their actors
        self._policies: dict[int, NumpyPolicy] = {}
        self._actors: dict[int, BatchActor] = {}
        learner = SingleLearner(stepped, [0], self._opponents, on_episodes=self._draw)
        super().__init__(learner)
        self._ep_return = np.zeros(n_slots, np.float64)
        self._ep_length = np.zeros(n_slots, np.int64)
        self._t0 = time.perf_counter()
        self.timing = {"total": 0.0, "steps": 0, "episodes": 0}

    # ------------------------------------------------------------------ members
    def _check_members(self) -> list[str]:
        """The pool members without a batched form (random, heuristic where the game has a
        compiled one, self and learned models have one), which their Python agents play;
        ``ValueError`` for such a member where the batch cannot load the engine's games they
        play in."""
        pool = self.pool
        names = {m for lineup in pool.lineups for m in lineup} if pool.lineups else set(pool.names)
        python = []
        for name in sorted(names - {SELF, f"{self.game}/random"}):
            if name == f"{self.game}/heuristic":
                self._heuristic = _heuristic_for(self.venv)
                if self._heuristic is not None:
                    continue
            if self._learned_model(name):
                continue
            if not callable(getattr(self.venv.impl, "load_state", None)):
                raise ValueError(
                    f"opponent {name!r} has no batched form for collector 'vector', and "
                    f"{self.game}'s batched env cannot load the engine games its Python agent "
                    "would play (it plays 'random', 'heuristic' where the game has a compiled "
                    "one, and 'self'); use collector: envs to train against it"
                )
            python.append(name)
        return python

    def _learned_model(self, name: str) -> bool:
        """Whether pool member ``name`` is a learned model (its agent a policy network), kept
        in ``_models`` then; ``ValueError`` from the model's own checks if it was trained for
        another game, player count or observation layout than this batch's."""
        from agents import registry

        agent = registry.make(name, seed=0)
        if not isinstance(agent, PolicyAgent):
            return False
        check_env = getattr(agent, "check_env", None)
        if check_env is not None:
            check_env(self.spec.native_env(**self.venv.options))
        self._models[name] = (BatchActor(agent.policy), bool(agent.deterministic))
        return True

    def _use(self, serial: int, policy: NumpyPolicy) -> None:
        """Keep snapshot ``serial`` (and its batched actor) while a slot plays it."""
        if serial not in self._actors:
            self._policies[serial], self._actors[serial] = policy, BatchActor(policy)

    def _code(self, member: str) -> int:
        """The code of ``member`` (a new one the first time it is drawn)."""
        code = self._codes.get(member)
        if code is None:
            code = self._codes[member] = len(self.members)
            self.members.append(member)
            self._is_self.append(member.startswith(f"{SELF}:"))
            self._plays.append(self._decider(member))
        return code

    def _decider(self, member: str) -> int:
        """Who decides for ``member``: its snapshot's serial, RANDOM, HEURISTIC (the compiled
        one), MODEL (a learned model's network) or PYTHON (its agent, on the slot's engine
        game)."""
        if member.startswith(f"{SELF}:"):
            return int(member.split(":")[1])
        if member in self._models:
            return MODEL
        if member == f"{self.game}/random":
            return RANDOM
        if member == f"{self.game}/heuristic" and self._heuristic is not None:
            return HEURISTIC
        return PYTHON

    # ------------------------------------------------------------------ episodes
    def _draw(self, slots: np.ndarray) -> None:
        """New episodes in ``slots``: the learner's seat (its team), one opponent per opposing
        side (or a lineup), and whose rewards make the learner's. The draws are LearnerEnv's,
        made for all the slots at once: the seats, then the lineups or the mix's members, then
        the snapshot of each ``self`` member."""
        k = slots.size
        seats = self._rng.integers(self.num_players, size=k)
        picked, names = self._draw_members(k)
        codes = self._codes_of(picked, names, seats)
        copies = np.array(self._is_self, np.bool_) & self.team_with_copies
        learner = self.learner
        _seat_kernel(
            slots,
            seats,
            codes,
            self._side_of,
            copies,
            self.who,
            learner.learner_mask,
            learner.reward_weights,
        )
        if self._engine_slots is not None:
            self._deal(slots)

    def _deal(self, slots: np.ndarray) -> None:
        """The new episodes of ``slots`` with a Python member: dealt by the engine and loaded
        into the batch (in ascending slot order, from the deals' generator); the others are
        the batch's own."""
        python = np.array([p == PYTHON for p in self._plays] + [False])  # who == -1: False
        for slot in slots.tolist():
            row = self.who[slot]
            seats = np.flatnonzero(python[row]).tolist()
            if seats:
                members = {seat: self.members[row[seat]] for seat in seats}
                self._engine_slots.deal(slot, members)
            else:
                self._engine_slots.drop(slot)

    def _codes_of(self, picked: np.ndarray, names: list[str], seats: np.ndarray) -> np.ndarray:
        """The member codes of ``picked`` (indices into ``names``; the learners in ``seats``).
        A member drawn for the first time gets the next code in the order LearnerEnv's draws
        would meet it: seat by seat (ascending), side by side, slot by slot. The opponents'
        generator serves the members in the order of their codes, so this order is part of
        what a seed reproduces."""
        lookup = np.array([self._codes.get(name, -1) for name in names], np.int64)
        codes = lookup[picked]
        if codes.min() >= 0:
            return codes
        for seat in np.unique(seats).tolist():
            rows = picked[seats == seat]
            for index in range(rows.shape[1]):
                for i in rows[:, index].tolist():
                    if lookup[i] < 0:
                        lookup[i] = self._code(names[i])
        return lookup[picked]

    def _draw_members(self, k: int) -> tuple[np.ndarray, list[str]]:
        """``k`` rows of opponent members, one per opposing side, as indices into the list of
        names returned with them (the ``self`` members resolved to ``self:<serial>``), drawn as
        ``OpponentPool`` does: a whole lineup, or each side from the mix; before the first
        snapshot without ``self``."""
        pool, rng = self.pool, self._rng
        serials = [s for s, _ in pool.snapshots]
        members = self._member_table(bool(serials))
        size = k if pool.lineups else (k, len(self._sides[0]))
        picked = members.table[_weighted_draw(rng, members.cdf, len(members.table), size)]
        if members.self_index < 0:
            return picked, members.names
        cells = picked == members.self_index
        count = int(cells.sum())
        if count:
            drawn = rng.integers(len(serials), size=count)
            picked[cells] = len(members.names) + drawn
            for index in sorted(set(drawn.tolist())):
                self._use(*pool.snapshots[index])
        return picked, members.names + [f"{SELF}:{serial}" for serial in serials]

    def _member_table(self, with_self: bool) -> _Members:
        """What ``_draw_members`` draws from: a row per lineup, or without lineups one per
        mix member. Before the first snapshot (``with_self`` false) as ``OpponentPool``:
        without the lineups or the mix member ``self``, or random where nothing else is left.
        Built once per case: the pool's mix and lineups are fixed."""
        cached = self._tables.get(with_self)
        if cached is not None:
            return cached
        pool, random = self.pool, f"{self.game}/random"
        if pool.lineups:
            rows, weights = list(pool.lineups), pool.lineup_weights
            if not with_self:
                keep = [i for i, lineup in enumerate(rows) if SELF not in lineup]
                if keep:
                    rows, weights = [rows[i] for i in keep], weights[keep] / weights[keep].sum()
                else:
                    rows, weights = [tuple(random if m == SELF else m for m in rows[0])], None
            names = list(dict.fromkeys(m for row in rows for m in row))
            table = np.array([[names.index(m) for m in row] for row in rows], np.int64)
        else:
            names, weights = list(pool.names), pool.weights
            if not with_self and SELF in names:
                keep = [i for i, name in enumerate(names) if name != SELF]
                if keep:
                    names, weights = [names[i] for i in keep], weights[keep] / weights[keep].sum()
                else:
                    names, weights = [random], None
            table = np.arange(len(names), dtype=np.int64)
        self_index = names.index(SELF) if SELF in names else -1
        members = self._tables[with_self] = _Members(names, table, _cdf(weights), self_index)
        return members

    def _opponents(
        self, obs: np.ndarray, mask: np.ndarray, agent: np.ndarray, slots: np.ndarray
    ) -> np.ndarray:
        """The opponents' moves in ``slots`` (for the seats ``agent``), one batch per member,
        the members in the order of their codes (of the opponents' generator's draws)."""
        codes = self.who[slots, agent]
        present = np.flatnonzero(np.bincount(codes))
        if present.size == 1:  # one member moves in every row
            return self._moves(int(present[0]), obs, mask, slots, agent)
        actions = np.zeros(slots.size, np.int64)
        for code in present.tolist():
            rows = np.flatnonzero(codes == code)
            actions[rows] = self._moves(code, obs[rows], mask[rows], slots[rows], agent[rows])
        return actions

    def _moves(
        self, code: int, obs: np.ndarray, mask: np.ndarray, slots: np.ndarray, seats: np.ndarray
    ) -> np.ndarray:
        """Member ``code``'s moves in ``slots`` for ``seats`` (``obs`` and ``mask``: their
        rows). A Python member draws nothing from the opponents' generator."""
        plays, rng = self._plays[code], self._opp_rng
        if plays >= 0:
            deterministic = self.pool.snapshot_deterministic
            return policy_actions(self._actors[plays], obs, mask, rng, deterministic)
        if plays == MODEL:
            actor, deterministic = self._models[self.members[code]]
            return policy_actions(actor, obs, mask, rng, deterministic)
        if plays == RANDOM:
            return random_legal(mask, rng)
        if plays == PYTHON:
            act, pairs = self._engine_slots.act, zip(slots.tolist(), seats.tolist(), strict=True)
            moves = [act(slot, seat) for slot, seat in pairs]
            return np.array(moves, np.int64)
        return self._heuristic_moves(slots, int(rng.integers(2**31)))

    def _heuristic_moves(self, slots: np.ndarray, seed: int) -> np.ndarray:
        """The compiled heuristic's moves in ``slots``, without ``act``'s argument checks
        (``CompiledPolicy.act_unchecked``), which cannot fail here: the batch's own slots,
        each with a seat to act, and a seed below 2**31."""
        if not isinstance(self._heuristic, CompiledPolicy):
            return self._heuristic.act(slots, seed)
        return self._heuristic.act_unchecked(slots, seed)

    # ------------------------------------------------------------------ VecEnv
    def reset(self) -> np.ndarray:
        start = time.perf_counter()
        obs = super().reset()
        self._ep_return[:] = 0.0
        self._ep_length[:] = 0
        self.timing["total"] += time.perf_counter() - start
        return obs

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        start = time.perf_counter()
        obs, reward, dones, infos = super().step_wait()
        self._ep_return += reward
        self._ep_length += 1
        ended = np.flatnonzero(dones)
        if ended.size:  # what SB3's Monitor reports, for the logs
            t = round(time.perf_counter() - self._t0, 6)
            returns, lengths = self._ep_return[ended].tolist(), self._ep_length[ended].tolist()
            for i, r, length in zip(ended.tolist(), returns, lengths, strict=True):
                infos[i]["episode"] = {"r": r, "l": length, "t": t}
            self._ep_return[ended] = 0.0
            self._ep_length[ended] = 0
        timing = self.timing
        timing["steps"] += self.num_envs
        timing["episodes"] += ended.size
        timing["total"] += time.perf_counter() - start
        return obs, reward, dones, infos

    @property
    def layout(self) -> ObservationLayout:
        """The observation layout of the batch's env (model files record it, ``model_io``)."""
        return self.spec.observation_layout(**self.venv.options)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name in ("num_players", "layout", "pool", "team_play"):
            return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))
        return super().get_attr(attr_name, indices)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks`` per slot; the run's methods (:data:`METHODS`) once, for the batch."""
        if method_name in METHODS:
            return [getattr(self, method_name)(*method_args, **method_kwargs)]
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)

    # ------------------------------------------------------------------ the run's methods
    def add_snapshot(self, arrays: dict[str, np.ndarray]) -> int:
        """Add a frozen copy of the learner to the pool; forget snapshots nobody plays now."""
        serial = self.pool.add_snapshot(arrays)
        self._use(serial, self.pool.snapshots[-1][1])
        playing = {self._plays[c] for c in np.unique(self.who).tolist() if c >= 0}
        kept = {p for p in playing if p >= 0} | {s for s, _ in self.pool.snapshots}
        self._policies = {s: p for s, p in self._policies.items() if s in kept}
        self._actors = {s: a for s, a in self._actors.items() if s in kept}
        return serial

    def pool_snapshots(self) -> list[dict[str, np.ndarray]]:
        return self.pool.snapshot_arrays()

    def timing_stats(self) -> dict[str, float]:
        """Seconds in the batch (``env``), the opponents, and reset/step in all (``total``)."""
        return {**self.learner.timing, **self.timing}

    def get_state(self) -> dict[str, Any]:
        """Everything this collector is, as data: ``{"data": JSON, "arrays": {name: array}}``
        (the batch and its view under ``collector/``, a heuristic's arrays, and the snapshots
        the pool holds or a slot plays as ``snapshot_<serial>/<name>``, as ``LearnerEnv``)."""
        inner = self.learner.get_state()
        arrays = {f"collector/{k}": v for k, v in inner["arrays"].items()}
        arrays["collector/who"] = self.who.copy()
        arrays["collector/ep_return"] = self._ep_return.copy()
        arrays["collector/ep_length"] = self._ep_length.copy()
        heuristic = attribute_state(self._heuristic) if self._heuristic is not None else None
        if heuristic is not None:
            arrays.update({f"collector/heuristic/{k}": v for k, v in heuristic["arrays"].items()})
        for serial, policy in self._policies.items():
            arrays.update({f"snapshot_{serial}/{k}": v for k, v in policy.to_arrays().items()})
        data = {
            "format": COLLECTOR_STATE_FORMAT,
            "collector": "vector",
            "learner": inner["data"],
            "rng": self._rng.bit_generator.state,
            "opp_rng": self._opp_rng.bit_generator.state,
            "members": list(self.members),
            "policies": sorted(self._policies),
            "pool": {
                "serials": [s for s, _ in self.pool.snapshots],
                "next_serial": self.pool._next_serial,
            },
            "heuristic": heuristic["data"] if heuristic is not None else None,
            "python": self._engine_slots.get_state() if self._engine_slots is not None else None,
            "timing": dict(self.timing),
        }
        return {"data": data, "arrays": arrays}

    def set_state(self, state: dict[str, Any]) -> None:
        """Become the collector :meth:`get_state` described; ``ValueError`` if it is not such
        a state (another collector's, game's or number of slots)."""
        from agents.training.wrapper import _policies_from

        try:
            data, arrays = state["data"], state["arrays"]
            if data.get("collector") != "vector" or data.get("format") != COLLECTOR_STATE_FORMAT:
                raise ValueError("it is not a state of the batched collector (collector: vector)")
            policies = _policies_from(
                {k: v for k, v in arrays.items() if k.startswith("snapshot_")}
            )
            mine = {
                k.removeprefix("collector/"): v
                for k, v in arrays.items()
                if k.startswith("collector/")
            }
            who = np.asarray(mine["who"])
            if who.shape != self.who.shape:
                raise ValueError(f"it has {who.shape[0]} slots, this run {self.who.shape[0]}")
            inner = {
                k: v
                for k, v in mine.items()
                if k not in ("who", "ep_return", "ep_length") and not k.startswith("heuristic/")
            }
            self.learner.set_state({"data": data["learner"], "arrays": inner})
            if data["heuristic"] is not None:
                if self._heuristic is None:
                    raise ValueError("it played a batched heuristic this run does not have")
                heur = {
                    k.removeprefix("heuristic/"): v
                    for k, v in mine.items()
                    if k.startswith("heuristic/")
                }
                set_attribute_state(
                    self._heuristic,
                    {"data": data["heuristic"], "arrays": heur},
                    "the batched heuristic",
                )
            pool = data["pool"]
            self.pool.restore(pool["serials"], policies, pool["next_serial"], [])
            self._policies, self._actors = {}, {}
            for serial in data["policies"]:
                self._use(int(serial), policies[int(serial)])
            self.members = [str(m) for m in data["members"]]
            self._codes = {m: i for i, m in enumerate(self.members)}
            self._is_self = [m.startswith(f"{SELF}:") for m in self.members]
            self._plays = [self._decider(m) for m in self.members]
            self.who[...] = who
            self._ep_return[...] = mine["ep_return"]
            self._ep_length[...] = mine["ep_length"]
            self._restore_engine_slots(data.get("python"))
            self._rng.bit_generator.state = data["rng"]
            self._opp_rng.bit_generator.state = data["opp_rng"]
            self.timing = {k: data["timing"][k] for k in self.timing}
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise ValueError(
                f"not a batched collector state ({type(exc).__name__}: {exc})"
            ) from None

    def _restore_engine_slots(self, saved: dict[str, Any] | None) -> None:
        """Replay the saved Python members' games (``EngineSlots.set_state``), on the batch
        already restored; ``ValueError`` if the state has them and this run does not."""
        if saved is None:
            if self._engine_slots is not None:
                self._engine_slots.games = {}
            return
        if self._engine_slots is None:
            raise ValueError("it played Python opponents this run's pool does not have")
        self._engine_slots.set_state(saved)
