"""Search agents for every game with decisions: PIMC and IS-MCTS on the engine contract.

Both agents see only the :class:`~kiaule_env.core.play.Decision` (the player's view, the legal
moves and the game's rules ``engine``, no hidden state) and search the current *deal* (a Kozel
game, a Kiauliaganys deal, a Pig round) in *determinizations*: full states drawn uniformly from
those consistent with the view by ``engine.sample_state(view, rng)``. Play runs on
:mod:`kiaule_env.core.simulate`: a game's compiled numba twin where installed (extra ``search``),
else the Python engine. There is one implementation of each search for all games; nothing here
knows a game's rules.

``<game>/pimc`` — Perfect Information Monte Carlo (as in Skat, Bridge and Hearts programs).
  Each of ``worlds`` determinizations scores every legal move by playing it, then ``rollouts``
  uniformly random playouts to the end of the deal; the move with the best summed reward of the
  acting seat is played (ties: the lowest action index). Worlds share their playout seeds across
  moves (common random numbers), which makes the comparison of moves sharper at equal cost. In
  Pig's simultaneous steps the other seats' first actions are the playouts' choices too (the
  rollout policy's, or random), with the same seeds across moves.

``<game>/ismcts`` — single-observer Information-Set MCTS (Cowling, Powley and Whitehouse, 2012),
  turn-based games only (Kozel, Kiauliaganys). One tree over move sequences from the decision;
  each of ``iterations`` iterations takes a determinization, descends choosing among the
  moves legal in it by UCB1 with availability counts (``c`` times half the game's reward range
  as the exploration constant), adds one node, plays a random playout to the end of the deal and
  backs up each node's reward for the seat that moved into it. The most visited root move is
  played. Determinizations are the costly part (an exact uniform draw, ``sample_state``), so
  ``worlds`` of them are drawn per move and the iterations cycle through them (with a ``seconds``
  budget, each iteration draws a new one).

Playouts: ``rollout="random"`` (uniformly random moves) or ``"policy"`` (the game's compiled
rollout policy, ``policy_playout`` in ``kiaule_env/<game>/compiled.py``, on every seat); by
default the policy where the game has one, else random.

Budgets: ``worlds``/``iterations`` (deterministic for a seed), or ``seconds`` per move (the
count then depends on the machine: not reproducible), each at most its :data:`MAX_BUDGETS` cap
(a time budget also stops at the iteration cap). In Kozel each seat samples from its own
view: a partner is not clairvoyant. Rewards are the engine's per-seat reward deltas, which in
Kozel are the team's: partners maximise the same sum.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Decision
from agents.registry import register
from kiaule_env import GAMES
from kiaule_env.core.simulate import ROLLOUTS, Simulator, has_policy, simulator

__all__ = ["BENCHMARK_BUDGETS", "MAX_BUDGETS", "ISMCTSAgent", "PIMCAgent"]

#: the search agents' options in ``kiaule benchmark`` (their own tournament per game): a budget
#: that keeps the whole benchmark within a few minutes on 2 cores
BENCHMARK_BUDGETS = {"pimc": "worlds=8", "ismcts": "iterations=64,worlds=8"}

#: the largest budgets an agent accepts: far above what the project plays (``kiaule strength``
#: goes to 32 worlds and 256 iterations), low enough that one move's search stays within memory
#: (IS-MCTS keeps ``min(worlds, iterations)`` sampled states and one tree node per iteration,
#: about 300 bytes: a million iterations is a few hundred MB) and a time budget within minutes
MAX_BUDGETS: dict[str, int | float] = {
    "worlds": 10_000,
    "iterations": 1_000_000,
    "rollouts": 1_000,
    "seconds": 600.0,
}


def _seat(decision: Decision) -> int:
    return int(decision.agent.rsplit("_", 1)[1])


def _positive(name: str, value: Any, kind: type, agent: str) -> Any:
    """``value`` as ``kind`` if it is > 0 and, for a budget, at most its :data:`MAX_BUDGETS`
    cap; ``ValueError`` naming the agent, the option and what is allowed otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
        raise ValueError(
            f"{agent}: {name} must be {'a number' if kind is float else 'an integer'}"
            f" > 0, got {value!r}"
        )
    if not value > 0 or value == math.inf:
        raise ValueError(f"{agent}: {name} must be > 0, got {value!r}")
    cap = MAX_BUDGETS.get(name)
    if cap is not None and value > cap:
        allowed = f"{cap:,}" if isinstance(cap, int) else f"{cap:g}"
        raise ValueError(
            f"{agent}: {name} must be at most {allowed} (the cap that keeps one move's search "
            f"within memory and minutes), got {value!r}"
        )
    return kind(value)


def _spent(done: int, count: int, deadline: float | None) -> bool:
    """Whether the budget is used up: ``count`` done, or past the deadline of a time budget."""
    return done >= count if deadline is None else time.perf_counter() >= deadline


class _SearchAgent:
    """What both searches share: budget, seeding, the simulator of the decision's engine."""

    kind = "search"

    def __init__(
        self,
        game: str,
        seed: int | None = 0,
        seconds: float | None = None,
        compiled: bool | None = None,
        rollout: str | None = None,
    ):
        self.name = f"{game}/{self.kind}"
        self.game = game
        self.seconds = None if seconds is None else _positive("seconds", seconds, float, self.name)
        if compiled is not None and not isinstance(compiled, bool):
            raise ValueError(f"{self.name}: compiled must be true, false or none, got {compiled!r}")
        if rollout is not None and rollout not in ROLLOUTS:
            raise ValueError(
                f"{self.name}: rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}"
            )
        self.compiled = compiled
        self.rollout = rollout
        self.reseed(seed)
        self._engine: Any = None
        self._sim: Simulator | None = None
        lo, hi = GAMES[game].reward_range
        self._scale = (hi - lo) / 2

    def reseed(self, seed: int | None) -> None:
        """Restart the agent's generator (tournaments re-seed agents for every game)."""
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def _simulator(self, decision: Decision) -> Simulator:
        engine = decision.engine
        if engine is None:
            raise ValueError(
                f"{self.name} needs the game's engine in the decision (decisions from this suite's "
                "envs and play loop carry it)"
            )
        if engine is not self._engine:
            rollout = self.rollout
            if rollout is None:  # the game's rollout policy where it has one
                policy = self.compiled is not False and has_policy(engine)
                rollout = "policy" if policy else "random"
            self._engine, self._sim = engine, simulator(engine, self.compiled, rollout)
        assert self._sim is not None
        return self._sim

    def _deadline(self) -> float | None:
        return None if self.seconds is None else time.perf_counter() + self.seconds

    def _worlds(self, decision: Decision, pool: int | None = None):
        """Determinizations of the decision's view, as simulator handles: a new one each time,
        or with ``pool``, that many drawn once and then cycled (fresh copies)."""
        engine = decision.engine
        sim = self._sim
        assert sim is not None
        if pool is None:
            while True:
                yield sim.load(engine.sample_state(decision.view, self.rng))
        worlds = [sim.load(engine.sample_state(decision.view, self.rng)) for _ in range(pool)]
        while True:
            for h in worlds:
                yield sim.copy(h)

    def _joint(self, sim: Simulator, h: Any, seat: int, action: int, seed: int) -> list[int]:
        """``action`` for ``seat`` and, for every other seat acting now (Pig's simultaneous
        steps), the playouts' choice: the rollout policy's, or a random legal action."""
        return [
            action if s == seat else sim.rollout_action(h, s, seed + 7919 * s)
            for s in sim.to_act(h)
        ]


class PIMCAgent(_SearchAgent):
    """Perfect Information Monte Carlo (module docstring)."""

    kind = "pimc"

    def __init__(
        self,
        game: str,
        seed: int | None = 0,
        worlds: int = 16,
        rollouts: int = 1,
        seconds: float | None = None,
        compiled: bool | None = None,
        rollout: str | None = None,
    ):
        super().__init__(game, seed, seconds, compiled, rollout)
        self.worlds = _positive("worlds", worlds, int, self.name)
        self.rollouts = _positive("rollouts", rollouts, int, self.name)

    def act(self, decision: Decision) -> int:
        legal = list(decision.legal_moves)
        if len(legal) == 1:
            return legal[0]
        sim = self._simulator(decision)
        seat = _seat(decision)
        totals = self.scores(decision, sim, seat, legal)
        return legal[int(np.argmax(totals))]

    def scores(self, decision: Decision, sim: Simulator, seat: int, legal: Sequence[int]):
        """Summed rewards of ``seat`` per legal move over the budget's worlds and rollouts."""
        totals = np.zeros(len(legal))
        deadline = self._deadline()
        for done, root in enumerate(self._worlds(decision), 1):
            seeds = self.rng.integers(2**31, size=self.rollouts)
            for i, action in enumerate(legal):
                for seed in seeds:
                    h = sim.copy(root)
                    reward = sim.apply(h, self._joint(sim, h, seat, action, int(seed)))
                    if not sim.over(h):
                        reward = reward + sim.playout(h, int(seed))
                    totals[i] += reward[seat]
            if _spent(done, self.worlds, deadline):
                return totals
        raise AssertionError("unreachable: worlds are endless")


class _Node:
    """A tree node: reached by a move of ``seat``; statistics for that seat."""

    __slots__ = ("available", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[tuple[int, int], _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


class ISMCTSAgent(_SearchAgent):
    """Single-observer IS-MCTS (module docstring)."""

    kind = "ismcts"

    def __init__(
        self,
        game: str,
        seed: int | None = 0,
        iterations: int = 128,
        worlds: int = 16,
        c: float = 0.7,
        seconds: float | None = None,
        compiled: bool | None = None,
        rollout: str | None = None,
    ):
        super().__init__(game, seed, seconds, compiled, rollout)
        self.iterations = _positive("iterations", iterations, int, self.name)
        self.worlds = _positive("worlds", worlds, int, self.name)
        self.c = _positive("c", c, float, self.name)

    def act(self, decision: Decision) -> int:
        return self.act_with_policy(decision)[0]

    def act_with_policy(self, decision: Decision) -> tuple[int, dict[int, float]]:
        """The move :meth:`act` plays (the most visited) and the root's visit shares over the
        legal moves: the search's policy, the soft target of imitation learning
        (:mod:`agents.training.distill`)."""
        legal = list(decision.legal_moves)
        if len(legal) == 1:
            return legal[0], {legal[0]: 1.0}
        sim = self._simulator(decision)
        if decision.engine.simultaneous:
            raise ValueError(f"{self.name}: IS-MCTS here is for turn-based games; use pimc")
        seat = _seat(decision)
        root = self.search(decision, sim)
        visits = [root.children.get((seat, a)) for a in legal]
        counts = [n.visits if n is not None else -1 for n in visits]
        total = sum(max(0, n) for n in counts)
        shares = {a: max(0, n) / total for a, n in zip(legal, counts, strict=True)}
        return legal[int(np.argmax(counts))], shares

    def search(self, decision: Decision, sim: Simulator) -> _Node:
        """The tree after the budget's iterations."""
        root = _Node()
        deadline = self._deadline()
        pool = None if self.seconds is not None else min(self.worlds, self.iterations)
        for done, h in enumerate(self._worlds(decision, pool), 1):
            self._iterate(root, sim, h)
            # a time budget stops at the iteration cap too: the tree grows by a node each time
            if _spent(done, self.iterations, deadline) or done >= MAX_BUDGETS["iterations"]:
                return root
        raise AssertionError("unreachable: worlds are endless")

    def _iterate(self, root: _Node, sim: Simulator, h: Any) -> None:
        """One iteration in determinization ``h``: select, expand, playout, back up."""
        rng = self.rng
        c = self.c * self._scale
        node = root
        path: list[tuple[_Node, int]] = []
        reward = np.zeros(sim.engine.num_players)
        while not sim.over(h):
            (seat,) = sim.to_act(h)
            legal = sim.legal(h, seat)
            children = node.children
            untried = []
            best, best_value = None, -math.inf
            for a in legal:
                child = children.get((seat, a))
                if child is None:
                    untried.append(a)
                    continue
                child.available += 1
                if not untried:
                    value = child.total / child.visits + c * math.sqrt(
                        math.log(child.available) / child.visits
                    )
                    if value > best_value:
                        best, best_value = a, value
            if untried:
                action = untried[int(rng.integers(len(untried)))]
                child = children[seat, action] = _Node()
                child.available = 1
            else:
                action = best
                child = children[seat, action]
            reward += sim.apply(h, [action])
            path.append((child, seat))
            node = child
            if untried:
                break
        if not sim.over(h):
            reward += sim.playout(h, int(rng.integers(2**31)))
        for child, seat in path:
            child.visits += 1
            child.total += reward[seat]


def _register() -> None:
    for game, descriptor in GAMES.items():
        if not descriptor.has_decisions:
            continue  # Elgeta: nothing to search
        register(
            f"{game}/pimc",
            lambda seed=0, _g=game, **options: PIMCAgent(_g, seed, **options),
            options={
                "worlds": int,
                "rollouts": int,
                "seconds": float,
                "compiled": bool,
                "rollout": str,
            },
        )
        if not descriptor.engine_class().simultaneous:
            register(
                f"{game}/ismcts",
                lambda seed=0, _g=game, **options: ISMCTSAgent(_g, seed, **options),
                options={
                    "iterations": int,
                    "worlds": int,
                    "c": float,
                    "seconds": float,
                    "compiled": bool,
                    "rollout": str,
                },
            )


_register()
