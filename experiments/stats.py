"""Statistics of tournaments: paired confidence intervals, win rates, head-to-head, ratings.

Tournaments replay every shuffled deal with the seats permuted (duplicate deals), so the games of
one deal are strongly correlated and the deals are independent. Every interval here therefore
treats the *deal* as the unit of sampling: an agent's per-deal mean (over all its games of that
deal, every seat, every lineup) is one observation, and the 95% interval is Student's t over the
deal means. The luck of the cards cancels within a deal, which is what makes the interval paired
and narrow.

Shares (win rates, head-to-head scores) live in [0, 1], and a t interval around them can leave it
or collapse to a point when every deal has the same share. They get the Korn–Graubard interval
(Korn & Graubard 1998, the one survey statistics uses for clustered proportions): a
Clopper–Pearson interval at the *effective* sample size ``p(1 − p) / var`` of the paired variance
over deals, scaled by ``(z / t)²`` for the few-deals case and never more than the number of games.
It stays inside [0, 1], and with no variance between deals it is the Clopper–Pearson interval of
all the games, never a point.

Ratings come from OpenSkill (Plackett–Luce, Weng & Lin 2011) via the maintained ``openskill``
library; nothing here re-implements rating math.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


def t_quantile(p: float, df: int) -> float:
    """Quantile ``p`` of Student's t with ``df`` degrees of freedom (SciPy's ``stdtrit``, what
    ``scipy.stats.t.ppf`` calls; ``scipy.special`` is imported when first needed, as it loads
    in a fraction of ``scipy.stats``'s time)."""
    from scipy import special

    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df < 1:
        raise ValueError(f"df must be at least 1, got {df}")
    return float(special.stdtrit(df, p))


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval (``lo``/``hi`` are None with fewer than 2 samples)."""

    mean: float
    lo: float | None
    hi: float | None
    n: int

    @property
    def half_width(self) -> float | None:
        return None if self.lo is None or self.hi is None else (self.hi - self.lo) / 2

    def as_list(self) -> list[float | None]:
        return [self.lo, self.hi]


def mean_ci(samples: Sequence[float], level: float = 0.95) -> Estimate:
    """Mean of independent ``samples`` with a two-sided Student-t interval at ``level``."""
    n = len(samples)
    if n == 0:
        return Estimate(math.nan, None, None, 0)
    mean = math.fsum(samples) / n
    if n < 2:
        return Estimate(mean, None, None, n)
    var = math.fsum((x - mean) ** 2 for x in samples) / (n - 1)
    half = t_quantile(0.5 + level / 2, n - 1) * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


def paired_mean_ci(values_by_deal: Mapping[int, Sequence[float]], level: float = 0.95) -> Estimate:
    """Mean over all values with the interval over per-deal means (the duplicate structure).

    ``values_by_deal[d]`` holds one agent's values in every game of deal ``d``. The point
    estimate weights deals equally (every deal has the same games in a tournament, so it equals
    the plain mean of all games); ``n`` of the estimate is the number of deals.
    """
    deal_means = [math.fsum(v) / len(v) for _, v in sorted(values_by_deal.items()) if v]
    return mean_ci(deal_means, level)


def paired_proportion_ci(
    values_by_deal: Mapping[int, Sequence[float]], level: float = 0.95
) -> Estimate:
    """Share (values in [0, 1]) over all values with the Korn–Graubard interval over deals.

    The point estimate is that of :func:`paired_mean_ci`; the interval is Clopper–Pearson at the
    effective sample size ``n* = p(1 − p) / v · (z / t_{deals−1})²``, where ``v`` is the paired
    variance of the mean over per-deal means, truncated at the number of values (module
    docstring). ``lo``/``hi`` are None with fewer than 2 deals, like every paired interval.
    """
    from scipy import special

    deals = [v for _, v in sorted(values_by_deal.items()) if v]
    for values in deals:
        if any(not 0.0 <= x <= 1.0 for x in values):
            raise ValueError(f"a proportion's values must lie in [0, 1], got {list(values)}")
    estimate = paired_mean_ci(dict(enumerate(deals)), level)
    if estimate.lo is None or estimate.hi is None:
        return estimate
    p, n_deals = estimate.mean, estimate.n
    observations = sum(len(v) for v in deals)
    deal_means = [math.fsum(v) / len(v) for v in deals]
    variance = math.fsum((m - p) ** 2 for m in deal_means) / (n_deals - 1) / n_deals
    t = t_quantile(0.5 + level / 2, n_deals - 1)
    z = float(special.ndtri(0.5 + level / 2))
    n_eff = float(observations)
    if variance > 0.0:
        n_eff = min(n_eff, p * (1.0 - p) / variance * (z / t) ** 2)
    lo, hi = clopper_pearson(p * n_eff, n_eff, level)
    return Estimate(p, lo, hi, n_deals)


def clopper_pearson(successes: float, trials: float, level: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson interval for ``successes`` of ``trials`` (both may be fractional, as the
    effective counts of :func:`paired_proportion_ci` are): Beta quantiles (SciPy's
    ``betaincinv``, what ``scipy.stats.beta.ppf`` calls), 0 and 1 at the ends."""
    from scipy import special

    if trials <= 0 or not 0.0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials > 0, got {successes}/{trials}")
    alpha = 1.0 - level
    failures = trials - successes
    inverse = special.betaincinv
    lo = 0.0 if successes <= 0 else float(inverse(successes, failures + 1, alpha / 2))
    hi = 1.0 if failures <= 0 else float(inverse(successes + 1, failures, 1 - alpha / 2))
    return lo, hi


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
