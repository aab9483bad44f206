"""Confidence intervals over duplicate deals: Student-t means and Korn–Graubard shares.

Duplicate play (tournaments, the training evaluations) replays every deal with the seats
permuted, so the games of one deal are strongly correlated and the deals are independent. The
*deal* is the unit of sampling: one observation per deal (a per-deal mean), and Student's t over
the deal means for a mean. Shares (win rates, head-to-head scores) live in [0, 1], and a t
interval around them can leave it or collapse to a point when every deal has the same share; they
get the Korn–Graubard interval (Korn & Graubard 1998, the one survey statistics uses for
clustered proportions): Clopper–Pearson at the *effective* sample size ``p(1 − p) / var`` of the
paired variance over deals, scaled by ``(z / t)²`` for the few-deals case and never more than the
number of games. It stays inside [0, 1], and with no variance between deals it is the
Clopper–Pearson interval of all the games, never a point.

The quantiles come from SciPy (``scipy.special``, imported when first needed: it loads in a
fraction of ``scipy.stats``'s time). This module sits in ``agents`` because the training
evaluations need it and ``agents`` may not import ``experiments``; the tournament statistics
(``experiments/stats.py``) use it too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
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
