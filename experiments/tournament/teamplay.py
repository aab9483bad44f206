"""Team play (Kozel, RULES §1, K1): results per team composition, metrics split by partner, and
whether partners coordinate.

A team-play tournament (``TournamentConfig.team_compositions``) plays given teams of two agents
against each other, including teams that share an agent (``ppo+ppo`` against ``ppo+heuristic``),
on duplicate deals. An agent may then sit on both sides of a game, so per-agent figures mean
nothing; everything is reported per *team composition* (labelled ``kozel/ppo+heuristic``):

* ``compositions``: each team's mean team reward per game (the mean reward of its two seats;
  K15/K16 give both partners the team's reward), over all its games and against each other
  team, with 95% intervals paired over deals;
* ``partner_metrics``: the game's research metrics of every agent split by the partner it played
  with (and by the opposing team), e.g. ``kozel/ppo`` with a ``kozel/ppo`` partner against
  ``kozel/heuristic+heuristic`` vs with a ``kozel/heuristic`` partner against the same team;
* ``coordination``: for two agents ``A`` (say the learned one) and ``B`` (the baseline) whose
  teams ``A+A``, ``A+B`` and ``B+B`` all play: ``R(A+A vs A+B)``, ``R(A+B vs B+B)`` and
  ``R(A+A vs B+B)`` (the first team's mean team reward against the second), and the
  **coordination gain** ``G = R(A+A vs B+B) − 2·R(A+B vs B+B)``, paired over deals. One ``A``
  in place of a ``B`` wins ``R(A+B vs B+B)`` against the ``B`` team; if two ``A`` partners were
  worth no more than their separate contributions, the ``A`` team would win twice that. ``G > 0``
  (its interval above 0): the ``A`` partners gain more together than apart, they coordinate;
  ``G < 0``: less (sub-additive: diminishing returns of the score, or partners in each other's
  way); an interval around 0: no measurable effect.

Mixed-partner tournaments (``mixed_partners``, teams that share no agent) get ``partner_metrics``
too.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from experiments import metrics as metrics_pkg
from experiments.stats import Estimate, paired_mean_ci

#: the opponents column of the partner metrics aggregated over every opposing team
ALL_OPPONENTS = "all"


def composition_label(team: Sequence[str]) -> str:
    """``kozel/ppo+heuristic`` for ``("kozel/ppo", "kozel/heuristic")``: the game once, then
    the members' kinds (with their options) joined by ``+``, in the order given."""
    games = {name.split("/", 1)[0] for name in team}
    if len(games) == 1 and all("/" in name for name in team):
        return f"{games.pop()}/" + "+".join(name.split("/", 1)[1] for name in team)
    return "+".join(team)


class Compositions:
    """The team compositions of a tournament, and which of them a team at the table is.

    A composition is an unordered pair of agents; ``label`` names it as first given.
    """

    def __init__(self, compositions: Sequence[Sequence[str]]):
        self.teams = [tuple(t) for t in compositions]
        self.labels = [composition_label(t) for t in self.teams]
        self._by_members = {
            tuple(sorted(t)): label for t, label in zip(self.teams, self.labels, strict=True)
        }

    @classmethod
    def every_pair(cls, agents: Sequence[str]) -> Compositions:
        """Every team of two of ``agents`` (an agent with itself too), members in that order."""
        return cls(list(itertools.combinations_with_replacement(agents, 2)))

    def label(self, members: Sequence[str]) -> str:
        """The label of the team made of ``members`` (in any order)."""
        key = tuple(sorted(members))
        if key not in self._by_members:
            raise ValueError(f"team {list(members)} is not one of the compositions {self.labels}")
        return self._by_members[key]

    def members(self, label: str) -> tuple[str, ...]:
        return self.teams[self.labels.index(label)]

    def seat_labels(self, seats: Sequence[str], teams: Sequence[Sequence[int]]) -> list[str]:
        """Per seat, the label of the composition of the team that seat belongs to."""
        out = [""] * len(seats)
        for group in teams:
            label = self.label([seats[s] for s in group])
            for s in group:
                out[s] = label
        return out


def _partner_of(seat: int, teams: Sequence[Sequence[int]]) -> int:
    for group in teams:
        if seat in group:
            return next(s for s in group if s != seat)
    raise ValueError(f"seat {seat} is in no team of {teams}")


def _team_scores(
    line: Mapping[str, Any], teams: Sequence[Sequence[int]], table: Compositions
) -> list[tuple[str, float]]:
    """``(composition label, team reward)`` of both teams of one game: the mean of its seats."""
    seats, rewards = line["seats"], line["rewards"]
    return [
        (table.label([seats[s] for s in group]), math.fsum(rewards[s] for s in group) / len(group))
        for group in teams
    ]


def _estimate(e: Estimate, digits: int = 6) -> dict[str, Any]:
    def r(x: float | None) -> float | None:
        return None if x is None or math.isnan(x) else round(x, digits)

    return {"deals": e.n, "mean": r(e.mean), "ci95": [r(e.lo), r(e.hi)]}


def composition_results(
    games: Sequence[Mapping[str, Any]], teams: Sequence[Sequence[int]], table: Compositions
) -> dict[str, Any]:
    """Per composition: games and mean team reward (paired CI), overall and per opposing team."""
    overall: dict[str, dict[int, list[float]]] = {lb: defaultdict(list) for lb in table.labels}
    pairing: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        (a, ra), (b, rb) = _team_scores(g, teams, table)
        deal = g["key"][0]
        for me, mine, other in ((a, ra, b), (b, rb, a)):
            overall[me][deal].append(mine)
            pairing[me, other][deal].append(mine)
    out: dict[str, Any] = {}
    for label in table.labels:
        vs = {}
        for other in table.labels:
            if (label, other) in pairing:
                values = pairing[label, other]
                vs[other] = {
                    "games": sum(len(v) for v in values.values()),
                    **_estimate(paired_mean_ci(values)),
                }
        out[label] = {
            "members": list(table.members(label)),
            "games": sum(len(v) for v in overall[label].values()),
            **_estimate(paired_mean_ci(overall[label])),
            "vs": vs,
        }
    return out


def partner_metrics(
    games: Sequence[Mapping[str, Any]],
    teams: Sequence[Sequence[int]],
    table: Compositions,
    defs: Sequence[metrics_pkg.MetricDef],
) -> list[dict[str, Any]]:
    """Every agent's metrics per partner, over all opposing teams and per opposing team.

    Rows are ``{"agent", "partner", "opponents", "seat_games", "metrics"}``, ordered by agent,
    partner (in the order of the compositions) and opponents (``"all"`` first).
    """
    counts: list[tuple[tuple[str, str, str], Mapping[str, float]]] = []
    for g in games:
        if not g.get("metrics"):
            continue
        seats = g["seats"]
        labels = table.seat_labels(seats, teams)
        for seat, seat_counts in enumerate(g["metrics"]):
            partner = seats[_partner_of(seat, teams)]
            opponents = next(labels[s] for s in range(len(seats)) if labels[s] != labels[seat])
            for against in (ALL_OPPONENTS, opponents):
                counts.append(((seats[seat], partner, against), seat_counts))
    seat_games: dict[tuple[str, str, str], int] = defaultdict(int)
    for key, _ in counts:
        seat_games[key] += 1
    values = metrics_pkg.aggregate(defs, counts)  # type: ignore[arg-type]  # tuple keys
    order = {name: i for i, name in enumerate(dict.fromkeys(a for t in table.teams for a in t))}
    rank = {label: i for i, label in enumerate([ALL_OPPONENTS, *table.labels])}

    def sort_key(key: tuple[str, str, str]) -> tuple[int, int, int]:
        return order[key[0]], order[key[1]], rank[key[2]]

    return [
        {
            "agent": key[0],
            "partner": key[1],
            "opponents": key[2],
            "seat_games": seat_games[key],
            "metrics": {k: None if v is None else round(v, 6) for k, v in values[key].items()},
        }
        for key in sorted(values, key=sort_key)
    ]


def coordination(
    games: Sequence[Mapping[str, Any]], teams: Sequence[Sequence[int]], table: Compositions
) -> list[dict[str, Any]]:
    """The coordination study of every ordered pair of agents ``A``, ``B`` whose teams
    ``A+A``, ``A+B`` and ``B+B`` are all compositions (module docstring)."""
    per_deal: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for g in games:
        (a, ra), (b, rb) = _team_scores(g, teams, table)
        per_deal[a, b][g["key"][0]].append(ra)
        per_deal[b, a][g["key"][0]].append(rb)
    agents = list(dict.fromkeys(m for t in table.teams for m in t))
    out = []
    for first, base in itertools.permutations(agents, 2):
        try:
            aa, ab, bb = (table.label(t) for t in ((first, first), (first, base), (base, base)))
        except ValueError:
            continue
        margins = {
            "aa_vs_ab": per_deal.get((aa, ab), {}),
            "ab_vs_bb": per_deal.get((ab, bb), {}),
            "aa_vs_bb": per_deal.get((aa, bb), {}),
        }
        gain = _gain_per_deal(margins["aa_vs_bb"], margins["ab_vs_bb"])
        entry: dict[str, Any] = {
            "agent": first,
            "baseline": base,
            "teams": {"aa": aa, "ab": ab, "bb": bb},
            **{k: _estimate(paired_mean_ci(v)) for k, v in margins.items()},
            "gain": _estimate(paired_mean_ci(gain)),
        }
        entry["verdict"] = verdict(entry["gain"])
        out.append(entry)
    return out


def _gain_per_deal(
    aa_vs_bb: Mapping[int, Sequence[float]], ab_vs_bb: Mapping[int, Sequence[float]]
) -> dict[int, list[float]]:
    """Per deal with both pairings: ``mean(A+A vs B+B) − 2·mean(A+B vs B+B)``."""
    out = {}
    for deal in sorted(set(aa_vs_bb) & set(ab_vs_bb)):
        pp, pb = aa_vs_bb[deal], ab_vs_bb[deal]
        if pp and pb:
            out[deal] = [math.fsum(pp) / len(pp) - 2 * math.fsum(pb) / len(pb)]
    return out


def verdict(gain: Mapping[str, Any]) -> str:
    """``coordinate`` (interval above 0), ``interfere`` (below 0), ``no effect`` (around 0), or
    ``undecided`` (no interval: fewer than two deals)."""
    lo, hi = gain["ci95"]
    if lo is None or hi is None:
        return "undecided"
    if lo > 0:
        return "coordinate"
    if hi < 0:
        return "interfere"
    return "no effect"


def team_play_summary(
    games: Sequence[Mapping[str, Any]],
    teams: Sequence[Sequence[int]],
    compositions: Sequence[Sequence[str]] | None,
    agents: Sequence[str],
    defs: Sequence[metrics_pkg.MetricDef],
) -> dict[str, Any]:
    """``summary.json``'s ``team_play``: all three parts for given compositions; the partner
    metrics alone for a mixed-partner tournament (``compositions`` None: every pair of
    ``agents`` may be a team)."""
    if compositions is None:
        return {
            "partner_metrics": partner_metrics(games, teams, Compositions.every_pair(agents), defs)
        }
    table = Compositions(compositions)
    return {
        "compositions": composition_results(games, teams, table),
        "partner_metrics": partner_metrics(games, teams, table, defs),
        "coordination": coordination(games, teams, table),
    }


# ---------------------------------------------------------------------------- report


def fmt_estimate(e: Mapping[str, Any]) -> str:
    """``+0.123 [+0.050, +0.196]`` (the mean alone without an interval, ``n/a`` without data)."""
    mean, (lo, hi) = e["mean"], e["ci95"]
    if mean is None:
        return "n/a"
    if lo is None or hi is None:
        return f"{mean:+.3f}"
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def composition_rows(team_play: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: each team over all its games, then against each other team."""
    rows = []
    for label, c in team_play["compositions"].items():
        rows.append([label, ALL_OPPONENTS, str(c["games"]), fmt_estimate(c)])
        for other, v in c["vs"].items():
            rows.append([label, other, str(v["games"]), fmt_estimate(v)])
    return ["team", "against", "games", "mean team reward [95% CI]"], rows


def partner_rows(
    team_play: Mapping[str, Any], names: Sequence[str]
) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the partner split, with the metrics ``names``."""
    rows = []
    for row in team_play["partner_metrics"]:
        cells = [_fmt_metric(row["metrics"].get(n)) for n in names]
        rows.append(
            [row["agent"], row["partner"], row["opponents"], str(row["seat_games"]), *cells]
        )
    return ["agent", "partner", "against", "seat-games", *names], rows


def _fmt_metric(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"


def coordination_rows(entry: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of one coordination study: the three margins and the gain."""
    t = entry["teams"]
    rows = [
        [f"{t['aa']} against {t['ab']}", fmt_estimate(entry["aa_vs_ab"])],
        [f"{t['ab']} against {t['bb']}", fmt_estimate(entry["ab_vs_bb"])],
        [f"{t['aa']} against {t['bb']}", fmt_estimate(entry["aa_vs_bb"])],
        [
            f"coordination gain G = ({t['aa']} vs {t['bb']}) − 2 × ({t['ab']} vs {t['bb']})",
            fmt_estimate(entry["gain"]),
        ],
    ]
    return ["comparison", "mean team reward per game [95% CI, paired over deals]"], rows


def coordination_sentence(entry: Mapping[str, Any]) -> str:
    """The answer to "do the partners coordinate?", from the figures of ``entry``."""
    a, t = entry["agent"], entry["teams"]
    one, gain = entry["ab_vs_bb"], entry["gain"]
    if gain["mean"] is None or one["mean"] is None:
        return f"Do `{a}` partners coordinate? Not measured: no games of the teams it needs."
    head = (
        f"Do `{a}` partners coordinate? One `{a}` with a `{entry['baseline']}` partner wins "
        f"{fmt_estimate(one)} per game against `{t['bb']}`; two `{a}` partners win "
        f"{fmt_estimate(entry['aa_vs_bb'])}, so their coordination gain is "
        f"G = {fmt_estimate(gain)}"
    )
    ending = {
        "coordinate": f": **yes**, together they win more than twice what one `{a}` adds "
        "(the interval is above 0).",
        "interfere": f": **no**, together they win less than twice what one `{a}` adds "
        "(the interval is below 0): sub-additive, from diminishing returns of the score or "
        "from the partners getting in each other's way (the figure does not tell which).",
        "no effect": ": **not measurably**, the team wins what two separate contributions "
        "predict (the interval contains 0).",
        "undecided": ": undecided (fewer than two deals, no interval).",
    }[entry["verdict"]]
    direct = entry["aa_vs_ab"]
    if direct["mean"] is None:
        return head + ending
    return (
        head
        + ending
        + f" Head-to-head, `{t['aa']}` against `{t['ab']}`: {fmt_estimate(direct)} per game."
    )
