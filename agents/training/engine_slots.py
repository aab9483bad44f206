"""Python agents as opponents in the batched collector: the slots they play, in lockstep.

A pool member without a batched form (a search agent, a heuristic with options, a fixed model
``<game>/ppo:path=...``) is played by the Python agent itself (``agents.registry.make``). The
agent decides from the game engine's own state, never from the batch's compiled rows, so a slot
it plays in has an engine twin:

* when such a slot's episode starts, :meth:`EngineSlots.deal` deals the game in the engine
  (seeded from the collector's own generator, so a seed reproduces the run) and loads that
  state into the slot (``VectorGame.load_state``, which rewrites its observation, mask and seat
  to act);
* :class:`LockstepEnv` stands between the single-learner view and the batch: every action the
  batch plays in a tracked slot (the learner's and every opponent's) is applied to the slot's
  engine game too. Pig's simultaneous steps (P2) are played one seat at a time by the batch, as
  ``pig_v0.env()`` does: the engine applies the joint action when the step's last seat has
  chosen. After every step the two are compared (the seat to act, its legal actions and
  observation, each seat's reward, the end of the episode); a difference is a bug and raises
  ``RuntimeError``;
* the agent's move is its ``act`` on the engine's :class:`~kiaule_env.core.play.Decision` for
  its seat: what that seat may know, nothing more.

One agent instance plays a member at a seat of a slot (an episode's memory, such as the
Kiauliaganys heuristic's, is per game) and is kept for the slot's later episodes, as
``OpponentPool.agent`` keeps one per member and seat for ``LearnerEnv``.

Checkpoints (:meth:`EngineSlots.get_state`, data only): the generator, every agent's
generators, and per tracked slot the deal's seed, the agents' generators at the deal and the
actions since. :meth:`EngineSlots.set_state` deals the game again, replays the actions and asks
each agent again at its own decisions, so its generators advance as in the original run; an
agent that would now choose another move (its code or the rules changed) is a ``ValueError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from agents.base import Agent
from agents.training.pool import generator_states, set_generator_states
from kiaule_env.core.play import LazyDecision

#: the format of :meth:`EngineSlots.get_state`'s data
ENGINE_SLOTS_FORMAT = 1


@dataclass
class SlotGame:
    """The engine twin of one slot's episode."""

    #: the seed of the deal (``engine.new_episode(seeding.np_random(seed))``)
    seed: int
    #: the engine state, kept in step with the slot
    state: Any
    #: the Python agents of the slot by seat, with their members' names
    players: dict[int, Agent]
    members: dict[int, str]
    #: each agent's generator states at the deal (what a replay starts from)
    start: dict[int, dict[str, Any]]
    #: every action played in the slot since the deal, in order
    actions: list[int] = field(default_factory=list)
    #: the actions chosen so far in the current joint step (Pig, P2; else empty)
    pending: list[int] = field(default_factory=list)
    #: whether the episode ended (the slot waits for its next deal)
    over: bool = False


class EngineSlots:
    """The engine twins of the slots that Python agents play in; see the module docstring.

    ``venv`` is the batch (a :class:`~kiaule_env.vector.base.VectorEnv`), ``engine`` the game's
    engine for the batch's options, ``seed`` the collector's seed for the deals' generator.
    """

    def __init__(self, venv: Any, engine: Any, seed: np.random.SeedSequence):
        self.venv = venv
        self.engine = engine
        self.rng = np.random.default_rng(seed)
        #: the agents made so far, by (slot, seat, member)
        self.agents: dict[tuple[int, int, str], Agent] = {}
        #: the twins of the slots a Python agent plays now
        self.games: dict[int, SlotGame] = {}

    # ------------------------------------------------------------------ episodes
    def deal(self, slot: int, members: dict[int, str]) -> None:
        """A new episode in ``slot``, dealt by the engine and loaded into the batch, with the
        Python agents ``members`` (``{seat: member name}``)."""
        seed = int(self.rng.integers(2**63))
        players = {seat: self._agent(slot, seat, name) for seat, name in members.items()}
        start = {seat: generator_states(agent) for seat, agent in players.items()}
        for agent in players.values():
            agent.reset()
        state = self._new_state(seed)
        self.venv.impl.load_state(slot, state)
        self.games[slot] = SlotGame(seed, state, players, dict(members), start)
        self._check(slot, self.games[slot])

    def drop(self, slot: int) -> None:
        """``slot``'s new episode has no Python agent: the batch plays it alone."""
        self.games.pop(slot, None)

    def _new_state(self, seed: int) -> Any:
        rng, _ = seeding.np_random(seed)
        return self.engine.new_episode(rng, {})

    def _agent(self, slot: int, seat: int, member: str) -> Agent:
        """The agent playing ``member`` at ``seat`` of ``slot`` (made once, then kept)."""
        key = (slot, seat, member)
        agent = self.agents.get(key)
        if agent is None:
            from agents import registry

            agent = self.agents[key] = registry.make(member, seed=int(self.rng.integers(2**31)))
        return agent

    # ------------------------------------------------------------------ play
    def act(self, slot: int, seat: int) -> int:
        """The move of the Python agent at ``seat`` of ``slot``, on the engine's decision."""
        return self._ask(slot, self.games[slot], seat)

    def _ask(self, slot: int, game: SlotGame, seat: int) -> int:
        engine, state = self.engine, game.state
        legal = engine.legal_actions(state, seat)
        action = game.players[seat].act(LazyDecision(engine, state, seat, legal))
        if action not in legal:
            raise ValueError(
                f"opponent {game.members[seat]!r} chose action {action!r} in slot {slot}, "
                f"not one of the legal actions {list(legal)} of player_{seat}"
            )
        return int(action)

    def _next_seat(self, game: SlotGame) -> int:
        """The seat whose action comes next in ``game`` (-1 once nobody acts)."""
        seats = self.engine.to_act(game.state)
        return seats[len(game.pending)] if len(game.pending) < len(seats) else -1

    def _play(self, game: SlotGame, action: int) -> list[float] | None:
        """Play ``action`` of the seat to act in ``game``; the step's reward deltas when it
        completes a joint step (every step of a turn-based game), else None."""
        game.actions.append(action)
        game.pending.append(action)
        if len(game.pending) < len(self.engine.to_act(game.state)):
            return None
        joint, game.pending = tuple(game.pending), []
        return list(self.engine.apply(game.state, joint))

    def follow(
        self,
        slots: np.ndarray,
        seats: np.ndarray,
        actions: np.ndarray,
        moved: np.ndarray,
        step: tuple[Any, ...],
    ) -> None:
        """Apply one batch step to the twins of ``slots``: ``seats`` acted there with
        ``actions`` where ``moved``; ``step`` is what ``VectorEnv.step`` returned."""
        _, rewards, terminated, truncated, _ = step
        for j, slot in enumerate(slots.tolist()):
            if not moved[j]:
                continue
            game = self.games[slot]
            if game.over or self._next_seat(game) != seats[j]:
                self._diverged(slot, f"player_{int(seats[j])} moved where the engine has not")
            deltas = self._play(game, int(actions[j]))
            paid = rewards[slot].tolist()
            if deltas is None:
                deltas = [0.0] * len(paid)
            if any(abs(a - b) > 1e-6 for a, b in zip(paid, deltas, strict=True)):
                self._diverged(slot, f"rewards {paid} vs the engine's {deltas}")
            over = self.engine.is_over(game.state)
            if terminated[slot] != over:
                self._diverged(slot, f"the batch ended={bool(terminated[slot])}, engine {over}")
            game.over = bool(terminated[slot] or truncated[slot])
            if not game.over:
                self._check(slot, game)

    def _check(self, slot: int, game: SlotGame) -> None:
        """The slot's seat to act, its legal actions and its observation are the engine's
        (else ``RuntimeError``). Every one: a move of hidden cards shows in nothing else of
        the other seats (Kozel's face-down responses), and an engine encoding costs 5-25 us."""
        impl, seat = self.venv.impl, self._next_seat(game)
        if int(impl.agent[slot]) != seat:
            self._diverged(slot, f"the batch's seat to act {int(impl.agent[slot])}, engine {seat}")
        legal = np.flatnonzero(impl.mask[slot]).tolist()
        if legal != sorted(self.engine.legal_actions(game.state, seat)):
            self._diverged(slot, f"player_{seat}'s legal actions differ")
        if not np.array_equal(impl.obs[slot], self.engine.observe(game.state, seat)):
            self._diverged(slot, f"player_{seat}'s observation differs")

    @staticmethod
    def _diverged(slot: int, what: str) -> None:
        raise RuntimeError(
            f"slot {slot}: the batched game and its engine twin diverged ({what}); "
            "this is a bug of the batched env or of the collector"
        )

    # ------------------------------------------------------------------ checkpoints
    def get_state(self) -> dict[str, Any]:
        """The twins as JSON data: the generator, the agents' generators, each tracked slot's
        deal seed, members, agents' generators at the deal, actions since and whether over."""
        return {
            "format": ENGINE_SLOTS_FORMAT,
            "rng": self.rng.bit_generator.state,
            "agents": [
                [slot, seat, member, generator_states(agent)]
                for (slot, seat, member), agent in self.agents.items()
            ],
            "games": [
                {
                    "slot": slot,
                    "seed": game.seed,
                    "members": [[seat, name] for seat, name in game.members.items()],
                    "start": [[seat, states] for seat, states in game.start.items()],
                    "actions": list(game.actions),
                    "over": game.over,
                }
                for slot, game in self.games.items()
            ],
        }

    def set_state(self, data: dict[str, Any]) -> None:
        """Become the twins :meth:`get_state` described, on a batch already restored: replay
        each tracked slot's episode, asking its agents again (``ValueError`` if one would now
        play another move, or if the replay does not reach the slot's position)."""
        if data.get("format") != ENGINE_SLOTS_FORMAT:
            raise ValueError(f"engine slots format {data.get('format')!r}, not 1")
        from agents import registry

        now, previous, self.agents = {}, self.agents, {}
        for slot, seat, member, states in data["agents"]:
            key = (int(slot), int(seat), str(member))
            agent = previous.get(key)  # kept: the same object, as OpponentPool.restore
            self.agents[key] = agent if agent is not None else registry.make(key[2], seed=0)
            now[key] = states
        self.games = {}
        for entry in data["games"]:
            self._replay(entry)
        for key, states in now.items():
            set_generator_states(self.agents[key], states, f"opponent {key[2]}")
        self.rng.bit_generator.state = data["rng"]

    def _replay(self, entry: dict[str, Any]) -> None:
        """Play a saved slot's episode again from its deal, re-asking its agents."""
        slot, seed = int(entry["slot"]), int(entry["seed"])
        members = {int(seat): str(name) for seat, name in entry["members"]}
        players = {seat: self._agent(slot, seat, name) for seat, name in members.items()}
        start = {int(seat): states for seat, states in entry["start"]}
        for seat, agent in players.items():
            set_generator_states(agent, start[seat], f"opponent {members[seat]}")
            agent.reset()
        game = SlotGame(seed, self._new_state(seed), players, members, start)
        for action in entry["actions"]:
            seat = self._next_seat(game)
            if seat < 0:
                raise ValueError(f"slot {slot}: the saved episode has moves after its end")
            if seat in players:
                chosen = self._ask(slot, game, seat)
                if chosen != action:
                    raise ValueError(
                        f"slot {slot}: opponent {members[seat]!r} now plays {chosen} where the "
                        f"saved run played {action}: the agent or the rules changed since "
                        "the checkpoint was written"
                    )
            self._play(game, int(action))
        game.over = bool(entry["over"])
        self.games[slot] = game
        if not game.over:
            try:
                self._check(slot, game)
            except RuntimeError:
                raise ValueError(
                    f"slot {slot}: the saved episode does not replay to the batch's position"
                ) from None


class LockstepEnv:
    """A :class:`~kiaule_env.vector.base.VectorEnv` whose tracked slots' actions also play
    their engine twins (:meth:`EngineSlots.follow`); everything else is the batch's."""

    def __init__(self, venv: Any, slots: EngineSlots):
        self._venv = venv
        self._slots = slots

    def __getattr__(self, name: str) -> Any:
        return getattr(self._venv, name)

    def step(self, actions: Any, active: np.ndarray | None = None) -> tuple[Any, ...]:
        """The batch's step; then the same actions in the tracked slots' engine games."""
        games = self._slots.games
        if not games:
            return self._venv.step(actions, active)
        tracked = np.fromiter(games, np.int64, len(games))
        seats = self._venv.impl.agent[tracked].copy()
        played = np.asarray(actions)[tracked].copy()
        moved = np.ones(tracked.size, np.bool_) if active is None else active[tracked]
        step = self._venv.step(actions, active)
        self._slots.follow(tracked, seats, played, moved, step)
        return step
