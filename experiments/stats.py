"""Statistics of tournaments: paired confidence intervals, win rates, head-to-head, ratings.

Tournaments replay every shuffled deal with the seats permuted (duplicate deals), so the games of
one deal are strongly correlated and the deals are independent. Every interval here therefore
treats the *deal* as the unit of sampling: an agent's per-deal mean (over all its games of that
deal, every seat, every lineup) is one observation, and the 95% interval is Student's t over the
deal means. The luck of the cards cancels within a deal, which is what makes the interval paired
and narrow.

Shares (win rates, head-to-head scores) live in [0, 1] and get the Korn–Graubard interval, which
stays inside it. The interval math lives in :mod:`agents.intervals` (the training evaluations use
it too) and is re-exported here.

Ratings come from OpenSkill (Plackett–Luce, Weng & Lin 2011) via the maintained ``openskill``
library; nothing here re-implements rating math.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agents.intervals import (
    Estimate,
    clopper_pearson,
    mean_ci,
    paired_mean_ci,
    paired_proportion_ci,
    t_quantile,
)

__all__ = [
    "Estimate",
    "GameStats",
    "Side",
    "agent_summaries",
    "clopper_pearson",
    "head_to_head",
    "mean_ci",
    "openskill_ratings",
    "paired_mean_ci",
    "paired_proportion_ci",
    "t_quantile",
]

# ---------------------------------------------------------------------------- per game view


@dataclass(frozen=True)
class Side:
    """One competing side of a game: the agents that share its fate, and its score.

    In a team game a side is a team (its distinct agents; one agent playing both seats is one
    entry); in a free-for-all a side is one agent with its mean reward over the seats it held.
    """

    agents: tuple[str, ...]
    score: float


@dataclass(frozen=True)
class GameStats:
    """What statistics need from one played game."""

    deal: int
    #: agent name per seat
    seats: tuple[str, ...]
    #: reward per seat
    rewards: tuple[float, ...]
    sides: tuple[Side, ...]

    def agent_reward(self) -> dict[str, float]:
        """Mean reward per agent over the seats it held."""
        sums: dict[str, list[float]] = defaultdict(list)
        for name, r in zip(self.seats, self.rewards, strict=True):
            sums[name].append(r)
        return {a: math.fsum(v) / len(v) for a, v in sums.items()}

    def agent_win(self) -> dict[str, float]:
        """Share of the agent's seats that won: a positive reward (beat the table)."""
        wins: dict[str, list[float]] = defaultdict(list)
        for name, r in zip(self.seats, self.rewards, strict=True):
            wins[name].append(1.0 if r > 1e-12 else 0.0)
        return {a: math.fsum(v) / len(v) for a, v in wins.items()}


@dataclass
class AgentSummary:
    """The per-agent figures of a tournament."""

    name: str
    games: int
    reward: Estimate
    win_rate: Estimate
    rating_mu: float
    rating_sigma: float

    @property
    def rating_ordinal(self) -> float:
        """OpenSkill's conservative estimate mu − 3·sigma (what the leaderboard sorts by)."""
        return self.rating_mu - 3 * self.rating_sigma


def agent_summaries(
    games: Sequence[GameStats], agents: Sequence[str], level: float = 0.95
) -> dict[str, AgentSummary]:
    """Mean reward (paired t interval) and win rate (paired proportion interval), and OpenSkill
    ratings, per agent."""
    rewards: dict[str, dict[int, list[float]]] = {a: defaultdict(list) for a in agents}
    wins: dict[str, dict[int, list[float]]] = {a: defaultdict(list) for a in agents}
    counts = dict.fromkeys(agents, 0)
    for g in games:
        for a, r in g.agent_reward().items():
            rewards[a][g.deal].append(r)
            counts[a] += 1
        for a, w in g.agent_win().items():
            wins[a][g.deal].append(w)
    ratings = openskill_ratings(games, agents)
    return {
        a: AgentSummary(
            name=a,
            games=counts[a],
            reward=paired_mean_ci(rewards[a], level),
            win_rate=paired_proportion_ci(wins[a], level),
            rating_mu=ratings[a][0],
            rating_sigma=ratings[a][1],
        )
        for a in agents
    }


def openskill_ratings(
    games: Iterable[GameStats], agents: Sequence[str]
) -> dict[str, tuple[float, float]]:
    """OpenSkill Plackett–Luce ``(mu, sigma)`` per agent after rating ``games`` in their order.

    Each game is one match between its sides, ranked by score (ties are ties). Sides holding the
    same agent twice cannot occur (the tournament schedule never seats an agent on two sides).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    for g in games:
        if len(g.sides) < 2:
            continue
        teams = [[ratings[a] for a in side.agents] for side in g.sides]
        rated = model.rate(teams, scores=[side.score for side in g.sides])
        for side, team in zip(g.sides, rated, strict=True):
            for a, r in zip(side.agents, team, strict=True):
                ratings[a] = r
    return {a: (float(r.mu), float(r.sigma)) for a, r in ratings.items()}


@dataclass(frozen=True)
class HeadToHead:
    """Row agent against column agent, over the games where they sat on opposing sides.

    ``score`` is the share of those games where the row agent's reward beat the column agent's,
    ties counting one half; ``reward_diff`` is the row agent's mean reward minus the column's,
    with its paired interval over deals.
    """

    games: int
    score: Estimate
    reward_diff: Estimate


def head_to_head(
    games: Sequence[GameStats], agents: Sequence[str], level: float = 0.95
) -> dict[tuple[str, str], HeadToHead]:
    """Pairwise matrix for every ordered pair of distinct agents that met."""
    score: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    diff: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        for side_a in g.sides:
            for side_b in g.sides:
                if side_a is side_b:
                    continue
                ra, rb = side_a.score, side_b.score
                s = 1.0 if ra > rb + 1e-12 else 0.0 if rb > ra + 1e-12 else 0.5
                for a in side_a.agents:
                    for b in side_b.agents:
                        score[a, b][g.deal].append(s)
                        diff[a, b][g.deal].append(ra - rb)
    out = {}
    for a in agents:
        for b in agents:
            if a == b or (a, b) not in score:
                continue
            out[a, b] = HeadToHead(
                games=sum(len(v) for v in score[a, b].values()),
                score=paired_proportion_ci(score[a, b], level),
                reward_diff=paired_mean_ci(diff[a, b], level),
            )
    return out
