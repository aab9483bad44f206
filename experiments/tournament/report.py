"""Tournament results: ``summary.json``, the terminal leaderboard, CSV files and plots.

``summary.json`` is the machine-readable result a paper cites: the game, settings and seed, and
for each agent its games, mean reward with the paired 95% interval ``[lo, hi]``, win rate, OpenSkill
rating, and the research metrics; plus the head-to-head matrix and how the games ended
(``endings``: decided by play, ended by a rule cap, truncated by ``max_cycles``; per lineup, with
a warning when more than :data:`ENDING_WARNING_SHARE` of a lineup's games were not decided by
play). It depends only on the tournament
(never on workers or timing), so two runs can be compared byte for byte; timing goes to
``run.json``.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments import metrics as metrics_pkg
from experiments.outdir import naming_errors, write_atomic
from experiments.stats import AgentSummary, GameStats, Side, agent_summaries, head_to_head
from experiments.tournament import teamplay
from experiments.tournament.ranking import ranked
from experiments.tournament.runner import RunOutcome
from experiments.tournament.specs import MAX_CYCLES, PLAY

#: a lineup whose games end otherwise than by play more often than this gets a warning
ENDING_WARNING_SHARE = 0.05
#: the three kinds of ending counted separately
ENDING_KINDS = ("play", "rule_cap", "max_cycles")


def game_stats(line: dict[str, Any], teams: Sequence[Sequence[int]] | None) -> GameStats:
    """The :class:`GameStats` of one result line: sides are teams, or one per agent."""
    seats: list[str] = line["seats"]
    rewards: list[float] = line["rewards"]
    groups: list[list[int]]
    if teams is not None:
        groups = [list(t) for t in teams]
    else:
        by_agent: dict[str, list[int]] = {}
        for seat, name in enumerate(seats):
            by_agent.setdefault(name, []).append(seat)
        groups = list(by_agent.values())
    sides = []
    for group in groups:
        agents = tuple(dict.fromkeys(seats[s] for s in group))
        score = math.fsum(rewards[s] for s in group) / len(group)
        sides.append(Side(agents, score))
    return GameStats(line["key"][0], tuple(seats), tuple(rewards), tuple(sides))


def _r(x: float | None, digits: int = 6) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(x, digits)


def summarize(outcome: RunOutcome) -> dict[str, Any]:
    """The content of ``summary.json``."""
    config, spec = outcome.config, outcome.spec
    compositions = config.team_compositions
    games, agents = _seat_agents(outcome)
    stats = [game_stats(g, spec.teams) for g in games]
    per_agent = agent_summaries(stats, agents)
    h2h = head_to_head(stats, agents)
    metric_defs, metric_values = _metric_values(spec.metrics, games)
    seat_means = _seat_means(outcome.games, len(outcome.schedule.lineups[0]))
    endings = endings_summary(outcome)
    body: dict[str, Any] = {
        "game": config.game,
        "env_id": spec.env_id,
        "settings": _settings(outcome),
        "games": len(outcome.games),
        "complete": outcome.complete,
        "seat_mean_reward": [_r(x) for x in seat_means],
        "agents": {},
        "head_to_head": {},
        "metrics": [{"name": d.name, "description": d.description} for d in metric_defs],
        "endings": endings,
        "warnings": ending_warnings(endings),
    }
    if spec.teams is not None and (compositions is not None or config.mixed_partners):
        body["team_play"] = teamplay.team_play_summary(
            outcome.games, spec.teams, compositions, config.agents, metric_defs
        )
    for a in agents:
        body["agents"][a] = _agent_entry(per_agent[a], metric_values.get(a, {}))
    for (a, b), h in h2h.items():
        body["head_to_head"].setdefault(a, {})[b] = {
            "games": h.games,
            "score": _r(h.score.mean),
            "score_ci95": [_r(h.score.lo), _r(h.score.hi)],
            "reward_diff": _r(h.reward_diff.mean),
            "reward_diff_ci95": [_r(h.reward_diff.lo), _r(h.reward_diff.hi)],
        }
    return body


def _seat_agents(outcome: RunOutcome) -> tuple[list[dict[str, Any]], list[str]]:
    """The games with their seats named as the summary ranks them, and those names: the agents,
    or in the team-play study the team compositions."""
    config, spec = outcome.config, outcome.spec
    compositions = config.team_compositions
    if compositions is not None and spec.teams is not None:
        # the team-play study: an agent may sit on both sides, so the summary's "agents" are the
        # team compositions (each seat named after its team), and "team_play" has the details
        table = teamplay.Compositions(compositions)
        games = [{**g, "seats": table.seat_labels(g["seats"], spec.teams)} for g in outcome.games]
        return games, list(table.labels)
    return outcome.games, list(config.agents)


def _metric_values(
    metrics: str | None, games: list[dict[str, Any]]
) -> tuple[list[Any], dict[str, dict[str, float | None]]]:
    """The game's research metrics (its metrics module's ``METRICS``) and each seat name's
    aggregated values over ``games``."""
    module = metrics_pkg.load(metrics)
    metric_defs = list(module.METRICS) if module is not None else []
    metric_values: dict[str, dict[str, float | None]] = {}
    if metric_defs:
        pairs = (
            (seat_agent, counts)
            for g in games
            if g.get("metrics")
            for seat_agent, counts in zip(g["seats"], g["metrics"], strict=True)
        )
        metric_values = metrics_pkg.aggregate(metric_defs, pairs)
    return metric_defs, metric_values


def _settings(outcome: RunOutcome) -> dict[str, Any]:
    """The summary's ``settings``: what was asked for, the schedule and the statistics used."""
    config, spec, schedule = outcome.config, outcome.spec, outcome.schedule
    settings: dict[str, Any] = {
        "agents": list(config.agents),
        "env_kwargs": config.env_kwargs,
        "seed": config.seed,
        "games_requested": config.games,
        "mixed_partners": config.mixed_partners,
        "deals": schedule.deals,
        "games_per_deal": schedule.games_per_deal,
        "lineups": [list(lu) for lu in schedule.lineups],
        "seat_rotations": [list(r) for r in schedule.rotations],
        "teams": [list(t) for t in spec.teams] if spec.teams else None,
        "confidence": 0.95,
        "interval": "Student t over per-deal means (duplicate deals, paired); win rates and "
        "head-to-head scores: Korn-Graubard Clopper-Pearson at the paired effective size",
        "rating": "OpenSkill Plackett-Luce (openskill library), games in canonical order",
    }
    if config.team_compositions is not None:
        settings["team_compositions"] = [list(t) for t in config.team_compositions]
    return settings


def _agent_entry(s: AgentSummary, metrics: dict[str, float | None]) -> dict[str, Any]:
    """One agent's (or team's) entry of the summary: reward, win rate, rating, metrics."""
    return {
        "games": s.games,
        "mean_reward": _r(s.reward.mean),
        "ci95": [_r(s.reward.lo), _r(s.reward.hi)],
        "win_rate": _r(s.win_rate.mean),
        "win_rate_ci95": [_r(s.win_rate.lo), _r(s.win_rate.hi)],
        "rating": {
            "mu": _r(s.rating_mu),
            "sigma": _r(s.rating_sigma),
            "ordinal": _r(s.rating_ordinal),
        },
        "metrics": {k: _r(v) for k, v in metrics.items()},
    }


def ending_kind(ending: str) -> str:
    """``"play"``, ``"max_cycles"`` or ``"rule_cap"`` (any other ending: a game's own cap)."""
    return ending if ending in (PLAY, MAX_CYCLES) else "rule_cap"


def _ending_counts(endings: Sequence[str]) -> dict[str, Any]:
    games = len(endings)
    by_ending: dict[str, int] = {}
    for e in endings:
        by_ending[e] = by_ending.get(e, 0) + 1
    kinds = dict.fromkeys(ENDING_KINDS, 0)
    for e, count in by_ending.items():
        kinds[ending_kind(e)] += count
    not_by_play = games - kinds["play"]
    return {
        "games": games,
        **kinds,
        "by_ending": dict(sorted(by_ending.items())),
        "not_by_play_share": _r(not_by_play / games) if games else None,
        "warning": games > 0 and not_by_play / games > ENDING_WARNING_SHARE,
    }


def endings_summary(outcome: RunOutcome) -> dict[str, Any]:
    """How the games ended, in total and per lineup: decided by ``play``; ended by a
    ``rule_cap`` of the game (its ``ending`` function: the Kiauliaganys turn cap or repetition,
    Pig's ``max_passes``, Elgeta's cycle rule or cap …, broken down in ``by_ending``); truncated
    by ``max_cycles`` (no result: such a game scores 0 for everybody)."""
    spec, schedule = outcome.spec, outcome.schedule
    per_lineup: list[list[str]] = [[] for _ in schedule.lineups]
    every: list[str] = []
    for g in outcome.games:
        ending = spec.ending_of(g.get("result"))
        per_lineup[g["key"][1]].append(ending)
        every.append(ending)
    return {
        "warning_share": ENDING_WARNING_SHARE,
        "total": _ending_counts(every),
        "lineups": [
            {"lineup": list(lineup), **_ending_counts(ends)}
            for lineup, ends in zip(schedule.lineups, per_lineup, strict=True)
        ],
    }


def ending_warnings(endings: dict[str, Any]) -> list[str]:
    """One line per lineup whose games were not decided by play more than the warning share."""
    out = []
    for row in endings["lineups"]:
        if not row["warning"]:
            continue
        parts = [f"{row['rule_cap']} by a rule cap"] if row["rule_cap"] else []
        if row["rule_cap"]:
            caps = {k: v for k, v in row["by_ending"].items() if ending_kind(k) == "rule_cap"}
            parts[0] += " (" + ", ".join(f"{k} {v}" for k, v in caps.items()) + ")"
        if row["max_cycles"]:
            parts.append(f"{row['max_cycles']} truncated by max_cycles (scored 0 for all)")
        share = row["not_by_play_share"]
        out.append(
            f"WARNING: {share:.0%} of the {row['games']} games of lineup "
            f"{' '.join(row['lineup'])} were not decided by play: {'; '.join(parts)}"
        )
    return out


def endings_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the endings table: one row per lineup."""
    rows = []
    for row in summary["endings"]["lineups"]:
        caps = ", ".join(
            f"{k} {v}" for k, v in row["by_ending"].items() if ending_kind(k) == "rule_cap"
        )
        share = row["not_by_play_share"]
        rows.append(
            [
                " ".join(row["lineup"]),
                str(row["games"]),
                str(row["play"]),
                str(row["rule_cap"]) + (f" ({caps})" if caps else ""),
                str(row["max_cycles"]),
                "–" if share is None else f"{share:.1%}" + (" ⚠" if row["warning"] else ""),
            ]
        )
    header = ["lineup", "games", "by play", "rule cap", "max_cycles", "not by play"]
    return header, rows


def _seat_means(games: Sequence[dict[str, Any]], seats: int) -> list[float]:
    sums = [0.0] * seats
    for g in games:
        for i, r in enumerate(g["rewards"]):
            sums[i] += r
    return [s / len(games) if games else math.nan for s in sums]


def _fmt_ci(mean: float | None, ci: list[float | None], signed: bool = True) -> str:
    if mean is None:
        return "n/a"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    if ci[0] is None or ci[1] is None:
        return fmt.format(mean)
    return f"{fmt.format(mean)} [{fmt.format(ci[0])}, {fmt.format(ci[1])}]"


def leaderboard_rows(summary: dict[str, Any]) -> list[list[str]]:
    rows = []
    for rank, a in enumerate(ranked(summary), 1):
        s = summary["agents"][a]
        rows.append(
            [
                str(rank),
                a,
                str(s["games"]),
                _fmt_ci(s["mean_reward"], s["ci95"]),
                _fmt_ci(s["win_rate"], s["win_rate_ci95"], signed=False),
                f"{s['rating']['mu']:.1f} ± {s['rating']['sigma']:.1f}",
            ]
        )
    return rows


LEADERBOARD_HEADER = [
    "#",
    "agent",
    "games",
    "mean reward [95% CI]",
    "win rate [95% CI]",
    "rating μ ± σ",
]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*r) for r in rows]
    return "\n".join(lines)


def metric_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    names = [m["name"] for m in summary["metrics"]]
    rows = []
    for a in ranked(summary):
        values = summary["agents"][a]["metrics"]
        rows.append([a, *(_fmt_metric(values.get(n)) for n in names)])
    return ["agent", *names], rows


def _fmt_metric(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"


def h2h_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    order = ranked(summary)
    h2h = summary["head_to_head"]
    rows = []
    for a in order:
        cells = []
        for b in order:
            cell = h2h.get(a, {}).get(b)
            cells.append("·" if cell is None else f"{cell['score']:.3f}")
        rows.append([a, *cells])
    return ["score vs →", *order], rows


def leaderboard_text(summary: dict[str, Any]) -> str:
    """The terminal leaderboard: ranking, head-to-head scores, research metrics."""
    s = summary["settings"]
    title = (
        f"{summary['game']}: {summary['games']} games ({s['deals']} deals × "
        f"{s['games_per_deal']} seatings), seed {s['seed']}"
        + (f", {s['env_kwargs']}" if s["env_kwargs"] else "")
    )
    parts = [title, ""]
    if summary.get("warnings"):
        parts += [*summary["warnings"], ""]
    parts.append(text_table(LEADERBOARD_HEADER, leaderboard_rows(summary)))
    header, rows = endings_rows(summary)
    parts += ["", "how the games ended (per lineup)", text_table(header, rows)]
    header, rows = h2h_rows(summary)
    parts += ["", "head-to-head (share of games the row agent beat the column agent)"]
    parts.append(text_table(header, rows))
    if summary["metrics"]:
        header, rows = metric_rows(summary)
        parts += ["", "research metrics", text_table(header, rows)]
        parts += [f"  {m['name']}: {m['description']}" for m in summary["metrics"]]
    parts += _team_play_text(summary)
    return "\n".join(parts)


def _team_play_text(summary: dict[str, Any]) -> list[str]:
    """The terminal's team-play part: per team and pairing, the partner split, coordination."""
    team_play = summary.get("team_play")
    if not team_play:
        return []
    parts = []
    if "compositions" in team_play:
        header, rows = teamplay.composition_rows(team_play)
        parts += ["", "team play: mean team reward per game (paired 95% CI)"]
        parts.append(text_table(header, rows))
    names = [m["name"] for m in summary["metrics"]]
    if team_play["partner_metrics"] and names:
        header, rows = teamplay.partner_rows(team_play, names)
        parts += ["", "research metrics by partner (and opposing team)", text_table(header, rows)]
    for entry in team_play.get("coordination", []):
        parts += ["", teamplay.coordination_sentence(entry).replace("**", "").replace("`", "")]
    return parts


# ---------------------------------------------------------------------------- files


def write_outputs(outcome: RunOutcome, summary: dict[str, Any], out: Path, plots: bool) -> None:
    """``summary.json``, ``run.json``, CSV files, (optionally) PNG plots and the replay pages of
    a few sample games (``samples/``, linked from ``leaderboard.txt``) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "summary.json", json.dumps(summary, indent=1, sort_keys=False) + "\n")
    run = {
        "played_this_run": outcome.played,
        "already_done": outcome.resumed,
        "seconds": round(outcome.seconds, 3),
        "games_per_s": _r(outcome.games_per_s, 1),
        "workers": outcome.workers,
    }
    write_atomic(out / "run.json", json.dumps(run, indent=1) + "\n")
    for name, write, data in (
        ("games.csv", _write_games_csv, outcome),
        ("agents.csv", _write_agents_csv, summary),
        ("head_to_head.csv", _write_h2h_csv, summary),
    ):
        with naming_errors(out / name):  # a full disk names the file
            write(data, out / name)
    from experiments.viewer.samples import samples_text, write_samples

    # replay pages of a few sample games, chosen from the games in memory: only their lines of
    # games.jsonl are parsed
    links = samples_text(write_samples(out, outcome.games), out)
    board = leaderboard_text(summary) + (f"\n\n{links}" if links else "") + "\n"
    write_atomic(out / "leaderboard.txt", board)
    if plots:
        from experiments.tournament.plots import write_plots

        write_plots(summary, out)


def _scalar_result_fields(games: Sequence[dict[str, Any]]) -> list[str]:
    keys: dict[str, None] = {}
    for g in games:
        for k, v in (g.get("result") or {}).items():
            if isinstance(v, (int, float, str, bool)) or v is None:
                keys.setdefault(k, None)
    return list(keys)


def _write_games_csv(outcome: RunOutcome, path: Path) -> None:
    games = outcome.games
    n = len(outcome.schedule.lineups[0])
    result_keys = _scalar_result_fields(games)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "deal",
                "lineup",
                "rotation",
                *(f"agent_{i}" for i in range(n)),
                *(f"reward_{i}" for i in range(n)),
                "steps",
                "ending",
                *(f"result.{k}" for k in result_keys),
            ]
        )
        spec = outcome.spec
        for g in games:
            result = g.get("result") or {}
            w.writerow(
                [
                    *g["key"],
                    *g["seats"],
                    *(_r(r) for r in g["rewards"]),
                    g["steps"],
                    spec.ending_of(g.get("result")),
                    *(result.get(k, "") for k in result_keys),
                ]
            )


def _write_agents_csv(summary: dict[str, Any], path: Path) -> None:
    names = [m["name"] for m in summary["metrics"]]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "rank",
                "agent",
                "games",
                "mean_reward",
                "ci95_lo",
                "ci95_hi",
                "win_rate",
                "win_rate_ci95_lo",
                "win_rate_ci95_hi",
                "rating_mu",
                "rating_sigma",
                "rating_ordinal",
                *names,
            ]
        )
        for rank, a in enumerate(ranked(summary), 1):
            s = summary["agents"][a]
            w.writerow(
                [
                    rank,
                    a,
                    s["games"],
                    s["mean_reward"],
                    *s["ci95"],
                    s["win_rate"],
                    *s["win_rate_ci95"],
                    s["rating"]["mu"],
                    s["rating"]["sigma"],
                    s["rating"]["ordinal"],
                    *(s["metrics"].get(n) for n in names),
                ]
            )


def _write_h2h_csv(summary: dict[str, Any], path: Path) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            ["agent", "opponent", "games", "score", "score_ci95_lo", "score_ci95_hi",
             "reward_diff", "reward_diff_ci95_lo", "reward_diff_ci95_hi"]
        )  # fmt: skip
        for a, row in summary["head_to_head"].items():
            for b, c in row.items():
                w.writerow(
                    [a, b, c["games"], c["score"], *c["score_ci95"], c["reward_diff"],
                     *c["reward_diff_ci95"]]
                )  # fmt: skip
