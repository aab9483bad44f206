"""The opponents a learner meets: named baseline agents and frozen snapshots of itself.

Every episode the training wrapper asks the pool for one opponent per opposing side (Kozel: the
other team, both seats played by the same kind of agent; other games: each other seat), drawn
according to the configured mix. ``"self"`` in the mix stands for the frozen snapshots of the
learner taken every K steps (self-play); the others are registry names (``"heuristic"`` is
short for ``"<game>/heuristic"``).

``lineups`` draws whole lineups instead of one member per side: each key lists the members of
the opposing sides clockwise from the learner's left, separated by spaces (Pig, four players:
``"heuristic self heuristic"`` puts a snapshot opposite the learner, between two heuristics, as
in the tournament's two-agent lineups), each with its weight; the mix is then not drawn. A
lineup's ``self`` entries are drawn from the snapshots independently; before the first snapshot
the lineups without ``self`` are drawn (if there are none, ``self`` plays random, as in the mix).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from agents.base import Agent
from agents.training.policy import NumpyPolicy, PolicyAgent

SELF = "self"


def generator_states(obj: Any) -> dict[str, dict[str, Any]]:
    """The states (JSON-able dicts) of the numpy generators among ``obj``'s attributes."""
    return {
        name: value.bit_generator.state
        for name, value in vars(obj).items()
        if isinstance(value, np.random.Generator)
    }


def set_generator_states(obj: Any, states: Mapping[str, Any], where: str) -> None:
    """Put :func:`generator_states` back; ``ValueError`` naming ``where`` if one does not fit."""
    for name, state in states.items():
        generator = getattr(obj, name, None)
        if not isinstance(generator, np.random.Generator):
            raise ValueError(f"{where} has no generator {name!r} to restore")
        try:
            generator.bit_generator.state = state
        except (TypeError, ValueError, KeyError) as exc:
            raise ValueError(f"{where}: generator {name!r} has no valid state ({exc})") from None


def lineups_seat_self(lineups: Mapping[str, float] | None) -> bool:
    """Whether any lineup with a positive weight seats the learner's snapshots (``self``)."""
    return any(w > 0 and SELF in lineup.split() for lineup, w in (lineups or {}).items())


def check_seat_pairs(game: str, num_players: int) -> None:
    """``ValueError`` unless ``seat_pairs`` can seat the learner in ``game`` with
    ``num_players``: a turn-based game without teams and an even number of seats."""
    from kiaule_env import get_game

    spec = get_game(game)
    if spec.teams is not None:
        raise ValueError(f"seat_pairs is for games without teams; {game} has teams (use team_play)")
    if spec.parallel:
        raise ValueError(
            f"seat_pairs: {game} is a simultaneous-move game; its learner plays one seat"
        )
    pair_sides(num_players, "seat_pairs")


class LearnerSeating(NamedTuple):
    """How the learner is seated, checked against the game (:func:`learner_seating`)."""

    team_play: bool
    team_with_copies: bool
    seat_pairs: bool


def learner_seating(
    game: str, num_players: int, team_play: bool, team_with_copies: bool, seat_pairs: bool
) -> LearnerSeating:
    """The learner's seating options for ``game`` with ``num_players``: ``team_play`` only
    where the game has teams; ``ValueError`` for ``team_with_copies`` in a game with teams and
    for ``seat_pairs`` where :func:`check_seat_pairs` refuses it. Shared by ``LearnerEnv`` and
    the batched collector."""
    from kiaule_env import get_game

    teams = get_game(game).teams is not None
    if team_with_copies and teams:
        raise ValueError(
            f"team_with_copies is for games without teams; {game} has teams (team_play)"
        )
    if seat_pairs:
        check_seat_pairs(game, num_players)
    return LearnerSeating(bool(team_play and teams), bool(team_with_copies), bool(seat_pairs))


def pair_sides(num_players: int, what: str = "every-other-seat seating") -> list[tuple[int, ...]]:
    """The two-agent tournament's seating as two sides: every other seat (A B A B ...).
    ``ValueError`` naming ``what`` asked for it with an odd number of players (the two halves
    of the table would differ)."""
    if num_players % 2:
        raise ValueError(
            f"{what} needs an even number of players (every other seat is one agent's); "
            f"got num_players={num_players}"
        )
    return [tuple(range(0, num_players, 2)), tuple(range(1, num_players, 2))]


def learner_seats_at(
    game: str, num_players: int, seat: int, team_play: bool, seat_pairs: bool
) -> tuple[int, ...]:
    """The seats a learner sitting at ``seat`` plays: its team (``team_play``, K1), every other
    seat from it (``seat_pairs``), or ``seat`` alone. Shared by ``LearnerEnv`` and the
    batched collector."""
    from kiaule_env import get_game

    if seat_pairs:
        return pair_sides(num_players)[seat % 2]
    return tuple(get_game(game).team_of(seat)) if team_play else (seat,)


def sides_from(
    game: str,
    num_players: int,
    seat: int,
    learner_seats: tuple[int, ...],
    lineups: bool,
    seat_pairs: bool = False,
) -> list[list[int]]:
    """The opposing sides of a learner at ``seat`` playing ``learner_seats``, in the order the
    pool's members are given to them: clockwise from the learner's left with lineups, else the
    game's order (the order of the random draws, kept so that earlier runs reproduce). With
    ``seat_pairs`` the seats between the learner's are one side (one member plays them all, as
    the other agent of a two-agent tournament). Shared by ``LearnerEnv`` and the batched
    collector."""
    from kiaule_env import get_game

    table = pair_sides(num_players) if seat_pairs else get_game(game).sides(num_players)
    sides = [list(side) for side in table if any(s not in learner_seats for s in side)]
    if lineups:
        sides.sort(key=lambda side: min((s - seat) % num_players for s in side))
    return sides


class OpponentPool:
    """Draws opponents by a weighted mix; keeps the newest ``max_snapshots`` snapshots."""

    def __init__(
        self,
        game: str,
        mix: Mapping[str, float] | None = None,
        max_snapshots: int = 8,
        snapshot_deterministic: bool = False,
        lineups: Mapping[str, float] | None = None,
    ):
        self.game = game
        mix = dict(mix) if mix else {"random": 1.0}
        self.names: list[str] = []
        weights: list[float] = []
        for key, weight in mix.items():
            if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight < 0:
                raise ValueError(f"opponent mix weight of {key!r} must be a number >= 0")
            if weight == 0:
                continue
            self.names.append(self._full_name(key))
            weights.append(float(weight))
        if not self.names or sum(weights) <= 0:
            raise ValueError("the opponent mix needs at least one positive weight")
        self.weights = np.array(weights) / sum(weights)
        if max_snapshots < 1:
            raise ValueError("max_snapshots must be at least 1")
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        #: (serial number, policy) of the retained snapshots, oldest first
        self.snapshots: list[tuple[int, NumpyPolicy]] = []
        self._next_serial = 0
        self._agents: dict[tuple[str, int], Agent] = {}
        self._check_names()
        self.lineups: list[tuple[str, ...]] = []
        self.lineup_weights = np.zeros(0)
        if lineups:
            self._set_lineups(lineups)

    def _set_lineups(self, lineups: Mapping[str, float]) -> None:
        chosen, weights = [], []
        for key, weight in lineups.items():
            if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight < 0:
                raise ValueError(f"opponent lineup weight of {key!r} must be a number >= 0")
            members = tuple(self._full_name(m) for m in str(key).split())
            if not members:
                raise ValueError("an opponent lineup needs at least one member")
            if weight > 0:
                chosen.append(members)
                weights.append(float(weight))
        if not chosen:
            raise ValueError("the opponent lineups need at least one positive weight")
        saved, self.names = self.names, sorted({m for lineup in chosen for m in lineup})
        try:
            self._check_names()
        finally:
            self.names = saved
        self.lineups = chosen
        self.lineup_weights = np.array(weights) / sum(weights)

    def check_sides(self, sides: int) -> None:
        """Refuse lineups whose length is not the number of opposing sides."""
        for lineup in self.lineups:
            if len(lineup) != sides:
                raise ValueError(
                    f"opponent lineup {' '.join(lineup)!r} has {len(lineup)} members; this game "
                    f"has {sides} opposing side(s) for the learner, clockwise from its left"
                )

    def draw_lineup(self, rng: np.random.Generator) -> tuple[str, ...] | None:
        """A whole lineup (registry names, snapshots resolved), or None without ``lineups``."""
        if not self.lineups:
            return None
        lineups, weights = self.lineups, self.lineup_weights
        if not self.snapshots:  # before the first snapshot, as with the mix: lineups without self
            keep = [i for i, lineup in enumerate(lineups) if SELF not in lineup]
            if not keep:
                return tuple(f"{self.game}/random" if m == SELF else m for m in lineups[0])
            lineups = [lineups[i] for i in keep]
            weights = weights[keep] / weights[keep].sum()
        index = int(rng.choice(len(lineups), p=weights)) if len(lineups) > 1 else 0
        members = []
        for member in lineups[index]:
            if member == SELF:
                serial, _ = self.snapshots[int(rng.integers(len(self.snapshots)))]
                member = f"{SELF}:{serial}"
            members.append(member)
        return tuple(members)

    def _full_name(self, key: str) -> str:
        if key == SELF:
            return SELF
        from agents import registry

        return registry.qualified(self.game, key)

    def _check_names(self) -> None:
        """Refuse a member that is not one of the game's registry agents; one with options
        (``pimc:worlds=4``, ``heuristic:ties=random``) must name options the agent takes."""
        from agents import registry

        for name in self.names:
            if name == SELF:
                continue
            if name.split("/")[0] != self.game:
                raise ValueError(f"opponent {name!r} is not a {self.game} agent")
            known = registry.list_agents(self.game)
            kind, has_options, _ = name.partition(":")
            if kind not in known:
                raise ValueError(f"unknown opponent {name!r}; known: {', '.join(known)}")
            if has_options:
                registry.parse_spec(name)  # ValueError naming a bad option and the allowed ones

    # ------------------------------------------------------------------ snapshots
    def add_snapshot(self, policy: NumpyPolicy | Mapping[str, np.ndarray]) -> int:
        """Add a frozen copy of the learner; evict the oldest beyond ``max_snapshots``."""
        if not isinstance(policy, NumpyPolicy):
            policy = NumpyPolicy.from_arrays(policy)
        serial = self._next_serial
        self._next_serial += 1
        self.snapshots.append((serial, policy))
        while len(self.snapshots) > self.max_snapshots:
            old, _ = self.snapshots.pop(0)
            for key in [k for k in self._agents if k[0] == f"{SELF}:{old}"]:
                del self._agents[key]
        return serial

    def snapshot_arrays(self) -> list[dict[str, np.ndarray]]:
        """The retained snapshots as arrays (saved with checkpoints for resuming)."""
        return [p.to_arrays() for _, p in self.snapshots]

    # ------------------------------------------------------------------ checkpoint state (data)
    def agent_states(self) -> list[list[Any]]:
        """The created agents as data: ``[member, seat, generator states]`` each.

        Agents are rebuilt from their member name, so their generators are all a checkpoint
        needs of them across episodes (what they remember within an episode, such as the
        Kiauliaganys heuristic's tried moves, is rebuilt by replaying the episode).
        """
        agents = self._agents.items()
        return [[member, seat, generator_states(agent)] for (member, seat), agent in agents]

    def restore(
        self,
        serials: list[int],
        policies: Mapping[int, NumpyPolicy],
        next_serial: int,
        agents: list[list[Any]],
    ) -> None:
        """Become the pool a checkpoint described: the snapshots ``serials`` (from ``policies``),
        the next serial, and the created agents (those already here are kept, so an agent that
        plays the episode in progress stays the same object; the others are built anew)."""
        self.snapshots = [(int(s), policies[int(s)]) for s in serials]
        self._next_serial = int(next_serial)
        previous, self._agents = self._agents, {}
        for member, seat, states in agents:
            key = (str(member), int(seat))
            agent = previous.get(key)
            if agent is None:
                agent = self._create(key[0], seed=0)
            set_generator_states(agent, states, f"opponent {key[0]}")
            self._agents[key] = agent

    # ------------------------------------------------------------------ drawing
    def draw(self, rng: np.random.Generator) -> str:
        """A pool member for one side: a registry name or ``"self:<serial>"``."""
        names, weights = self.names, self.weights
        if not self.snapshots and SELF in names:
            keep = [i for i, n in enumerate(names) if n != SELF]
            if not keep:  # self-play only, before the first snapshot: play random
                return f"{self.game}/random"
            names = [names[i] for i in keep]
            weights = self.weights[keep] / self.weights[keep].sum()
        name = names[int(rng.choice(len(names), p=weights))] if len(names) > 1 else names[0]
        if name == SELF:
            serial, _ = self.snapshots[int(rng.integers(len(self.snapshots)))]
            return f"{SELF}:{serial}"
        return name

    def agent(self, member: str, seat: int, seed: int) -> Agent:
        """The agent instance playing ``member`` at ``seat`` (created once, then reused)."""
        key = (member, seat)
        agent = self._agents.get(key)
        if agent is None:
            agent = self._create(member, seed)
            self._agents[key] = agent
        return agent

    def _create(self, member: str, seed: int) -> Agent:
        if member.startswith(f"{SELF}:"):
            serial = int(member.split(":")[1])
            policy = next(p for s, p in self.snapshots if s == serial)
            return PolicyAgent(
                policy, name=member, seed=seed, deterministic=self.snapshot_deterministic
            )
        from agents import registry

        return registry.make(member, seed=seed)

    def describe(self) -> dict[str, Any]:
        described = {
            "mix": dict(zip(self.names, self.weights.round(4).tolist(), strict=True)),
            "snapshots": [s for s, _ in self.snapshots],
        }
        if self.lineups:
            described["lineups"] = {
                " ".join(k): round(float(w), 4)
                for k, w in zip(self.lineups, self.lineup_weights, strict=True)
            }
        return described
