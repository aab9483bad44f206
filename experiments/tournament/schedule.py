"""Who plays which deal from which seat: lineups, seat rotations and duplicate deals.

A tournament is a list of *deals* (shuffled decks, one per deal index ``d``). Every deal is played
by every *lineup* (an assignment of agents to seats) in every distinct *seat rotation* of it:
rotation ``r`` seats ``lineup[(i + r) % n]`` at seat ``i``. Over the rotations every agent plays
every hand of the deal from every seat, so the luck of the cards cancels within a deal
(duplicate deals). The same stacked deck and reset seed are used for every game of a deal.

Lineups:

* free-for-all, ``k`` agents, ``n`` seats: ``k >= n`` — every combination of ``n`` agents (in
  the order given); ``k < n`` — one lineup, the agents repeated in turn (``A B A B``);
* two fixed teams (Kozel, K1: seats 0+2 against 1+3): one agent per team, both its seats —
  every pair of agents, ``A B A B``; with ``mixed_partners`` also teams of two different agents:
  every pair of teams (each team a pair of agents, possibly the same one twice) that share no
  agent, seated ``t0[0] t1[0] t0[1] t1[1]``;
* given team compositions (``compositions``, the team-play study): every pair of the given
  teams, seated the same way, *including* pairs that share an agent (``ppo+ppo`` against
  ``ppo+heuristic``). An agent then sits on both sides, so the results are reported per team
  composition rather than per agent (:mod:`.teamplay`).

Seeds: every deal, game and seat has its own seed derived from the tournament seed and its
indices only (:func:`mix`), so results do not depend on how the games are split among workers.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

_MASK64 = (1 << 64) - 1


def mix(*values: int) -> int:
    """A well-spread 63-bit seed from integers (SplitMix64 over their sequence).

    Cheap and platform independent; used for deal, game and agent seeds.
    """
    state = 0x9E3779B97F4A7C15
    for v in values:
        state = (state + (v & _MASK64) + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        state = z ^ (z >> 31)
    return state >> 1


def deal_seed(seed: int, deal: int) -> int:
    """Reset seed of every game of ``deal`` (also seeds the stacked deck's shuffle)."""
    return mix(seed, deal, 0xDEA1) % (2**32)


def agent_seed(seed: int, key: GameKey, seat: int) -> int:
    """Seed of the agent in ``seat`` of the game ``key``."""
    return mix(seed, key.deal, key.lineup, key.rotation, seat, 0xA9E7) % (2**32)


@dataclass(frozen=True, order=True)
class GameKey:
    """One game of a tournament: deal index, lineup index, rotation offset."""

    deal: int
    lineup: int
    rotation: int

    def as_list(self) -> list[int]:
        return [self.deal, self.lineup, self.rotation]


def rotate(lineup: Sequence[str], r: int) -> tuple[str, ...]:
    """Seat ``i`` gets ``lineup[(i + r) % n]``."""
    n = len(lineup)
    return tuple(lineup[(i + r) % n] for i in range(n))


def distinct_rotations(lineup: Sequence[str]) -> list[int]:
    """Rotation offsets giving distinct seatings (``A B A B`` has two, ``A B C D`` four)."""
    seen: set[tuple[str, ...]] = set()
    out = []
    for r in range(len(lineup)):
        seating = rotate(lineup, r)
        if seating not in seen:
            seen.add(seating)
            out.append(r)
    return out


def make_lineups(
    agents: Sequence[str],
    num_seats: int,
    teams: Sequence[Sequence[int]] | None = None,
    mixed_partners: bool = False,
    compositions: Sequence[Sequence[str]] | None = None,
) -> list[tuple[str, ...]]:
    """The lineups of a tournament (see the module docstring)."""
    if compositions is not None:
        return _composition_lineups(agents, num_seats, teams, mixed_partners, compositions)
    if len(agents) < 2:
        raise ValueError("a tournament needs at least two different agents")
    if len(set(agents)) != len(agents):
        raise ValueError(f"agents must be different, got {list(agents)}")
    if teams is None:
        if mixed_partners:
            raise ValueError("mixed partners need a team game (Kozel)")
        if len(agents) >= num_seats:
            return [tuple(c) for c in itertools.combinations(agents, num_seats)]
        return [tuple(agents[i % len(agents)] for i in range(num_seats))]
    return _team_lineups(agents, num_seats, teams, mixed_partners)


def _team_lineups(
    agents: Sequence[str], num_seats: int, teams: Sequence[Sequence[int]], mixed: bool
) -> list[tuple[str, ...]]:
    _check_team_seats(num_seats, teams)
    if mixed:
        pairs = list(itertools.combinations_with_replacement(agents, 2))
    else:
        pairs = [(a, a) for a in agents]
    return [
        _seat_teams(num_seats, teams, t0, t1)
        for t0, t1 in itertools.combinations(pairs, 2)
        if not set(t0) & set(t1)  # an agent on both sides would play against itself
    ]


def _seat_teams(
    num_seats: int, teams: Sequence[Sequence[int]], t0: Sequence[str], t1: Sequence[str]
) -> tuple[str, ...]:
    """The lineup seating team ``t0`` on ``teams[0]``'s seats and ``t1`` on ``teams[1]``'s."""
    seats = [""] * num_seats
    for team, members in ((teams[0], t0), (teams[1], t1)):
        for seat, agent in zip(team, members, strict=True):
            seats[seat] = agent
    return tuple(seats)


def _check_team_seats(num_seats: int, teams: Sequence[Sequence[int]]) -> None:
    """Two teams of two seats covering the table, mapped onto each other by seat rotation."""
    if len(teams) != 2 or sorted(s for t in teams for s in t) != list(range(num_seats)):
        raise ValueError(f"team play supports two teams covering every seat, got {teams}")
    if any(len(t) != 2 for t in teams):
        raise ValueError(f"team play supports teams of two seats, got {teams}")
    team_sets = {frozenset(t) for t in teams}
    if any(
        frozenset((s + r) % num_seats for s in t) not in team_sets
        for t in teams
        for r in range(num_seats)
    ):
        raise ValueError(f"seat rotation must map teams onto teams (partners opposite): {teams}")


def check_compositions(agents: Sequence[str], compositions: Sequence[Sequence[str]]) -> None:
    """``ValueError`` unless ``compositions`` are at least two different teams of two of
    ``agents`` (as unordered pairs) that together use every agent of ``agents``."""
    if isinstance(compositions, (str, bytes)) or not isinstance(compositions, Sequence):
        raise TypeError(f"compositions must be a list of teams of two agents, got {compositions!r}")
    if len(set(agents)) != len(agents):
        raise ValueError(f"agents must be different, got {list(agents)}")
    seen: set[tuple[str, ...]] = set()
    for team in compositions:
        if isinstance(team, (str, bytes)) or not isinstance(team, Sequence) or len(team) != 2:
            raise ValueError(f"compositions: every team is two agent names, got {team!r}")
        unknown = [a for a in team if a not in agents]
        if unknown:
            raise ValueError(
                f"compositions: team {list(team)} has agents not in the tournament's agents "
                f"{list(agents)}: {unknown}"
            )
        members = tuple(sorted(team))
        if members in seen:
            raise ValueError(f"compositions: team {list(team)} is given twice (order aside)")
        seen.add(members)
    if len(seen) < 2:
        raise ValueError(
            f"compositions: a tournament needs two different teams, got {compositions}"
        )
    unused = [a for a in agents if not any(a in t for t in compositions)]
    if unused:
        raise ValueError(f"compositions: agents {unused} are in no team; list only team members")


def _composition_lineups(
    agents: Sequence[str],
    num_seats: int,
    teams: Sequence[Sequence[int]] | None,
    mixed: bool,
    compositions: Sequence[Sequence[str]],
) -> list[tuple[str, ...]]:
    """Every pair of the given teams (in the order given), ``t0[0] t1[0] t0[1] t1[1]``."""
    if teams is None:
        raise ValueError("team compositions need a team game (Kozel)")
    if mixed:
        raise ValueError("give either mixed_partners or compositions, not both")
    check_compositions(agents, compositions)
    _check_team_seats(num_seats, teams)
    return [
        _seat_teams(num_seats, teams, t0, t1) for t0, t1 in itertools.combinations(compositions, 2)
    ]


@dataclass(frozen=True)
class Schedule:
    """Every game of a tournament, in the canonical (deterministic) order."""

    lineups: tuple[tuple[str, ...], ...]
    rotations: tuple[tuple[int, ...], ...]
    deals: int

    @property
    def games_per_deal(self) -> int:
        return sum(len(r) for r in self.rotations)

    @property
    def total_games(self) -> int:
        return self.deals * self.games_per_deal

    def iter_keys(self) -> Iterator[GameKey]:
        """Every game's key in canonical order, generated one at a time (no list in memory)."""
        for d in range(self.deals):
            for li, rots in enumerate(self.rotations):
                for r in rots:
                    yield GameKey(d, li, r)

    def keys(self) -> list[GameKey]:
        """:meth:`iter_keys` as a list (small schedules only)."""
        return list(self.iter_keys())

    def contains(self, key: GameKey) -> bool:
        """Whether ``key`` is a game of this schedule."""
        return (
            0 <= key.deal < self.deals
            and 0 <= key.lineup < len(self.lineups)
            and key.rotation in self.rotations[key.lineup]
        )

    def seating(self, key: GameKey) -> tuple[str, ...]:
        return rotate(self.lineups[key.lineup], key.rotation)


def make_schedule(
    agents: Sequence[str],
    num_seats: int,
    games: int,
    teams: Sequence[Sequence[int]] | None = None,
    mixed_partners: bool = False,
    compositions: Sequence[Sequence[str]] | None = None,
) -> Schedule:
    """The schedule with at least ``games`` games: whole deals, each played by every seating."""
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    lineups = make_lineups(agents, num_seats, teams, mixed_partners, compositions)
    if not lineups:
        raise ValueError("no lineup possible with these agents")
    rotations = tuple(tuple(distinct_rotations(lu)) for lu in lineups)
    per_deal = sum(len(r) for r in rotations)
    deals = -(-games // per_deal)
    return Schedule(tuple(lineups), rotations, deals)
