"""Tournament schedule (seat rotation, duplicate deals, team lineups) and statistics."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from scipy import stats as scipy_stats

from experiments.stats import (
    GameStats,
    Side,
    agent_summaries,
    clopper_pearson,
    head_to_head,
    mean_ci,
    paired_mean_ci,
    paired_proportion_ci,
    t_quantile,
)
from experiments.tournament.schedule import (
    GameKey,
    agent_seed,
    deal_seed,
    distinct_rotations,
    make_lineups,
    make_schedule,
    mix,
)

KOZEL_TEAMS = ((0, 2), (1, 3))


@pytest.mark.parametrize(
    ("df", "expected"),
    [(1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (7, 2.3646), (10, 2.2281),
     (30, 2.0423), (120, 1.9799)],
)  # fmt: skip
def test_t_quantile_matches_the_table(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_mean_ci_is_student_t():
    est = mean_ci([1.0, 2.0, 3.0, 4.0])
    half = 3.1824463 * math.sqrt((5 / 3) / 4)
    assert est.mean == 2.5
    assert est.lo == pytest.approx(2.5 - half) and est.hi == pytest.approx(2.5 + half)
    assert mean_ci([1.0]).lo is None and mean_ci([]).n == 0


def test_paired_interval_uses_deal_means_not_games():
    # every deal's luck (+-5) is shared by both games of the deal: the deal means are all 1
    by_deal = {d: [1.0 + luck, 1.0 - luck] for d, luck in enumerate([5, -5, 3, -3, 4])}
    est = paired_mean_ci(by_deal)
    assert est.mean == pytest.approx(1.0)
    assert est.n == 5 and est.half_width == pytest.approx(0.0)
    unpaired = mean_ci([x for v in by_deal.values() for x in v])
    assert unpaired.half_width > 2.0


def test_proportion_interval_stays_in_the_unit_interval_with_few_deals():
    # 3 deals with shares 0.5, 0, 1: the t interval is [-0.74, 1.74]
    by_deal = {0: [1.0, 0.0], 1: [0.0, 0.0], 2: [1.0, 1.0]}
    assert paired_mean_ci(by_deal).lo < 0
    est = paired_proportion_ci(by_deal)
    assert est.mean == 0.5 and est.n == 3
    assert 0.0 <= est.lo < 0.5 < est.hi <= 1.0
    # n* = p(1-p)/v · (z/t_2)² with v = var(deal means)/deals = (1/4)/3
    n_eff = 0.25 / (0.25 / 3) * (scipy_stats.norm.ppf(0.975) / scipy_stats.t.ppf(0.975, 2)) ** 2
    assert (est.lo, est.hi) == pytest.approx(clopper_pearson(0.5 * n_eff, n_eff), rel=1e-6)


def test_proportion_interval_with_equal_deals_is_never_a_point():
    # every deal's share is 1/4 (a duplicate set-up can do this): no variance between deals
    by_deal = {d: [1.0, 0.0, 0.0, 0.0] for d in range(100)}
    assert paired_mean_ci(by_deal).half_width == 0.0
    est = paired_proportion_ci(by_deal)
    # Clopper-Pearson over all 400 games: 100 successes
    lo = scipy_stats.beta.ppf(0.025, 100, 301)
    hi = scipy_stats.beta.ppf(0.975, 101, 300)
    assert (est.lo, est.hi) == pytest.approx((lo, hi), rel=1e-9)
    assert est.lo < 0.25 < est.hi


def test_proportion_interval_at_the_ends():
    zeros = paired_proportion_ci({d: [0.0, 0.0] for d in range(10)})
    assert zeros.lo == 0.0 and zeros.hi == pytest.approx(1 - 0.025 ** (1 / 20))
    ones = paired_proportion_ci({d: [1.0] for d in range(5)})
    assert ones.hi == 1.0 and ones.lo == pytest.approx(0.025 ** (1 / 5))
    assert paired_proportion_ci({0: [1.0, 0.0]}).lo is None
    assert paired_proportion_ci({}).n == 0


def test_proportion_interval_counts_deals_when_their_games_agree():
    # all 4 games of a deal share one outcome: 200 deals are 200 observations, not 800 games
    by_deal = {d: [float(d % 2)] * 4 for d in range(200)}
    est = paired_proportion_ci(by_deal)
    assert est.mean == 0.5
    assert est.half_width == pytest.approx(paired_mean_ci(by_deal).half_width, rel=0.05)
    games_lo, games_hi = clopper_pearson(400, 800)
    assert est.half_width > 1.8 * (games_hi - games_lo) / 2


def test_proportion_interval_is_never_narrower_than_the_games_binomial():
    # deal shares alternate 0.4 / 0.6: tiny variance between deals, n* is truncated at the games
    by_deal = {d: [1.0, 1.0, 0.0, 0.0, float(d % 2)] for d in range(400)}
    est = paired_proportion_ci(by_deal)
    assert paired_mean_ci(by_deal).half_width < est.half_width
    assert (est.lo, est.hi) == pytest.approx(clopper_pearson(1000, 2000), rel=1e-9)


def test_proportion_interval_refuses_values_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        paired_proportion_ci({0: [1.5], 1: [0.0]})
    with pytest.raises(ValueError, match="trials"):
        clopper_pearson(3, 2)


def test_win_rates_and_head_to_head_scores_are_proportion_intervals():
    # two deals, each played twice with the seats swapped; "a" wins 1 of 2, then 2 of 2
    games = [
        GameStats(
            d, seats, rewards, tuple(Side((s,), r) for s, r in zip(seats, rewards, strict=True))
        )
        for d, seats, rewards in [
            (0, ("a", "b"), (1.0, -1.0)),
            (0, ("b", "a"), (1.0, -1.0)),
            (1, ("a", "b"), (1.0, -1.0)),
            (1, ("b", "a"), (-1.0, 1.0)),
        ]
    ]
    summary = agent_summaries(games, ["a", "b"])["a"]
    assert summary.win_rate.mean == 0.75
    assert summary.win_rate.lo >= 0.0 and summary.win_rate.hi == 1.0
    score = head_to_head(games, ["a", "b"])["b", "a"].score
    assert score.mean == 0.25 and 0.0 <= score.lo < 1e-6 and 0.5 < score.hi <= 1.0


def test_head_to_head_compares_opposing_sides_only():
    game = GameStats(
        deal=0,
        seats=("a", "c", "b", "c"),
        rewards=(2.0, -2.0, 2.0, -2.0),
        sides=(Side(("a", "b"), 2.0), Side(("c",), -2.0)),
    )
    h2h = head_to_head([game], ["a", "b", "c"])
    assert ("a", "b") not in h2h and ("b", "a") not in h2h  # partners
    assert h2h["a", "c"].score.mean == 1.0 and h2h["c", "b"].score.mean == 0.0
    assert h2h["a", "c"].reward_diff.mean == 4.0


def test_free_for_all_lineups():
    assert make_lineups(["a", "b", "c", "d"], 4) == [("a", "b", "c", "d")]
    assert make_lineups(["a", "b"], 4) == [("a", "b", "a", "b")]
    assert make_lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(make_lineups(list("abcde"), 4)) == 5
    with pytest.raises(ValueError, match="at least two"):
        make_lineups(["a"], 4)
    with pytest.raises(ValueError, match="different"):
        make_lineups(["a", "a"], 4)


def test_rotations_give_every_agent_every_seat_of_every_deal():
    for lineup in [("a", "b", "c", "d"), ("a", "b", "a", "b"), ("a", "b", "c", "a")]:
        rots = distinct_rotations(lineup)
        seats_of = {name: set() for name in lineup}
        for r in rots:
            for seat in range(4):
                seats_of[lineup[(seat + r) % 4]].add(seat)
        assert all(s == {0, 1, 2, 3} for s in seats_of.values()), lineup
    assert distinct_rotations(("a", "b", "a", "b")) == [0, 1]
    assert distinct_rotations(("a", "b", "c")) == [0, 1, 2]


def test_kozel_teams_one_agent_per_team():
    lineups = make_lineups(["x", "y", "z"], 4, KOZEL_TEAMS)
    assert lineups == [("x", "y", "x", "y"), ("x", "z", "x", "z"), ("y", "z", "y", "z")]
    schedule = make_schedule(["x", "y"], 4, 10, KOZEL_TEAMS)
    # per deal: x plays team 0 (seats 0, 2), then team 1 (seats 1, 3)
    assert [schedule.seating(k) for k in schedule.keys()[:2]] == [
        ("x", "y", "x", "y"),
        ("y", "x", "y", "x"),
    ]
    assert schedule.deals == 5 and schedule.total_games == 10


def test_kozel_mixed_partners_never_seat_an_agent_on_both_sides():
    lineups = make_lineups(["a", "b", "c", "d"], 4, KOZEL_TEAMS, mixed_partners=True)
    teams = [(frozenset((lu[0], lu[2])), frozenset((lu[1], lu[3]))) for lu in lineups]
    assert all(not (t0 & t1) for t0, t1 in teams)
    assert (frozenset("ab"), frozenset("cd")) in teams  # two mixed teams
    assert (frozenset("a"), frozenset("bc")) in teams  # one agent alone against a pair
    # with two agents, mixing is impossible without one agent on both sides
    assert make_lineups(["a", "b"], 4, KOZEL_TEAMS, mixed_partners=True) == [("a", "b", "a", "b")]
    for lu in lineups:
        rots = distinct_rotations(lu)
        team_sets = {frozenset((lu[(0 + r) % 4], lu[(2 + r) % 4])) for r in rots}
        assert len(team_sets) == 2  # rotations keep partners together, swapping sides
    with pytest.raises(ValueError, match="team"):
        make_lineups(["a", "b"], 4, ((0, 1), (2, 3)))
    with pytest.raises(ValueError, match="mixed partners need"):
        make_lineups(["a", "b"], 4, None, mixed_partners=True)


def test_schedule_covers_whole_deals_and_seeds_depend_only_on_indices():
    schedule = make_schedule(["a", "b", "c"], 4, 25)
    keys = schedule.keys()
    assert len(keys) == schedule.total_games >= 25 and len(keys) % schedule.games_per_deal == 0
    assert Counter(k.deal for k in keys) == dict.fromkeys(range(schedule.deals), 4)
    assert keys == sorted(keys)
    assert deal_seed(7, 3) == deal_seed(7, 3) != deal_seed(7, 4) != deal_seed(8, 3)
    key = GameKey(1, 0, 2)
    seeds = {agent_seed(0, key, s) for s in range(4)}
    assert len(seeds) == 4
    assert mix(1, 2) != mix(2, 1)
