"""The benchmark's report (:mod:`experiments.benchmark`): what one run of the suite produces
(a :class:`GameReport` per tournament of a :class:`SuiteEntry`, the Kozel :class:`Speed` runs)
and the Markdown ``README.md`` made from it, compared with the published results.
"""

from __future__ import annotations

import json
import math
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.tournament import teamplay
from experiments.tournament.report import (
    LEADERBOARD_HEADER,
    endings_rows,
    h2h_rows,
    leaderboard_rows,
    markdown_table,
    metric_rows,
)

#: the committed, published results (docs/tournaments.md); written only when asked for with --out
PUBLISHED = Path(__file__).resolve().parent / "results" / "benchmark"
PUBLISHED_TEXT = "experiments/results/benchmark"


@dataclass(frozen=True)
class SuiteEntry:
    """One tournament of the suite: its game, settings and default number of games.

    The lineup is every agent of the game that can play it except the search agents, which play
    their own, smaller tournament (``search=True``) at the benchmark's budget
    (:data:`agents.search.BENCHMARK_BUDGETS`) against the rule-based and learned agents. A
    team-play study (``teams``: teams of two agent kinds, e.g. ``("ppo", "heuristic")``) plays
    those teams against each other instead (:mod:`experiments.tournament.teamplay`); its report
    shows the ``team_metrics`` split by partner.
    """

    game: str
    games: int
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    search: bool = False
    teams: tuple[tuple[str, str], ...] = ()
    team_metrics: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The tournament's folder and heading: the game, ``<game>-search`` or ``<game>-teams``."""
        if self.teams:
            return f"{self.game}-teams"
        return f"{self.game}-search" if self.search else self.game


@dataclass
class GameReport:
    entry: SuiteEntry
    agents: list[str]
    skipped: dict[str, str]
    summary: dict[str, Any] | None
    seconds: float
    games_per_s: float
    #: games taken from the work folder of an earlier run instead of played (a resumed suite)
    resumed: int = 0

    def rate_text(self) -> str:
        """The tournament's speed, or that its games came from the work folder."""
        if not self.resumed:
            return f"{self.games_per_s:,.0f} games/s"
        if self.summary is not None and self.resumed >= self.summary["games"]:
            return "every game resumed from the work folder (no speed measured)"
        return f"{self.games_per_s:,.0f} games/s over the games played, {self.resumed} resumed"


@dataclass
class Speed:
    """Wall time and the CPU time of the main and worker processes of the speed runs: the
    tournament without records, then the same tournament with records (the default)."""

    agent: str
    games: int
    workers: int
    seconds: float
    cpu_seconds: float
    #: with records: ``games.jsonl`` with every game's replayable record, the reports and the
    #: sample pages written into a fresh folder (NaN when not measured)
    records_seconds: float = math.nan
    records_cpu_seconds: float = math.nan

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def cpu_bound_games_per_s(self) -> float:
        """Throughput if the workers had their cores to themselves (CPU time shared evenly).

        On a machine shared with other jobs the wall figure understates the harness; this one
        divides the games by the CPU time all its processes used, spread over the workers.
        """
        return self.games / (self.cpu_seconds / self.workers)

    @property
    def records_games_per_s(self) -> float:
        return self.games / self.records_seconds

    @property
    def records_cpu_bound_games_per_s(self) -> float:
        """:attr:`cpu_bound_games_per_s` of the run with records."""
        return self.games / (self.records_cpu_seconds / self.workers)


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def speed_section(speed: Speed) -> list[str]:
    """The ``## Speed`` section: the Kozel tournament without and with records."""

    def rate(label: str, games_per_s: float, seconds: float, cpu: float, bound: float) -> str:
        cpu_text = (
            f", {cpu:.1f} CPU-seconds in all, i.e. {bound:,.0f} games/s with the cores to itself"
            if math.isfinite(cpu)
            else " on the Ray backend (CPU time not measured)"
        )
        return f"- {label}: **{games_per_s:,.0f} games/s** wall ({seconds:.1f} s){cpu_text}."

    lines = [
        "## Speed",
        "",
        f"Kozel, `{speed.agent}` on both teams, {speed.games} games through the tournament "
        f"harness with {speed.workers} worker(s), research metrics included (load average "
        f"{_load():.1f} on {os.cpu_count()} cores at the end):",
        "",
        rate(
            "no records (`--no-records`, results in memory)",
            speed.games_per_s,
            speed.seconds,
            speed.cpu_seconds,
            speed.cpu_bound_games_per_s,
        ),
    ]
    if math.isfinite(speed.records_seconds):
        lines.append(
            rate(
                "with records (the default: `games.jsonl` with every game's replayable record, "
                "the reports and sample pages, no plots)",
                speed.records_games_per_s,
                speed.records_seconds,
                speed.records_cpu_seconds,
                speed.records_cpu_bound_games_per_s,
            )
        )
    return [*lines, ""]


def results_table(reports: list[GameReport]) -> str:
    """One row per game and agent: the report's results table."""
    rows = []
    for rep in reports:
        if rep.summary is None:
            continue
        for row in leaderboard_rows(rep.summary):
            rows.append([rep.entry.key, *row[1:]])
    return markdown_table(["game", *LEADERBOARD_HEADER[1:]], rows)


def all_warnings(reports: list[GameReport]) -> list[str]:
    """Every game's ending warnings (lineups with games not decided by play), game first."""
    return [
        f"{rep.entry.key}: {w}"
        for rep in reports
        if rep.summary is not None
        for w in rep.summary.get("warnings", [])
    ]


def markdown_report(
    reports: list[GameReport],
    speed: Speed | None,
    command: str,
    seconds: float,
    workers: int,
    out: Path,
) -> str:
    """The benchmark's ``README.md``: the results of every game, the speed runs, how they
    compare with the published results, then a section per tournament (plots from ``out``)."""
    lines = _introduction(reports, command, seconds, workers)
    if speed is not None:
        lines += speed_section(speed)
    lines += comparison_section(reports, out)
    for rep in reports:
        lines += _game_section(rep, out)
    return "\n".join(lines)


def _introduction(
    reports: list[GameReport], command: str, seconds: float, workers: int
) -> list[str]:
    """The title, how the tournaments are run and measured, the results table and warnings."""
    lines = [
        "# kiaule-env benchmark",
        "",
        f"Generated by `{command}` in {seconds / 60:.1f} min with {workers} worker process(es) "
        f"({platform.python_implementation()} {platform.python_version()}).",
        "",
        "Every tournament replays each shuffled deal as a stacked deck with the seats rotated, so "
        "every agent plays every hand from every seat (duplicate deals). Mean rewards carry 95% "
        "confidence intervals paired over deals (Student t over per-deal means); win rate is the "
        "share of games with a positive reward, its interval a Clopper–Pearson interval at the "
        "paired effective sample size (inside [0, 1]); ratings are OpenSkill (Plackett–Luce) "
        "μ ± σ. Rows are ranked by mean reward.",
        "",
        "## Results",
        "",
        results_table(reports),
        "",
    ]
    if any(rep.entry.search for rep in reports):
        lines += [
            "The `<game>-search` rows are the search agents' own tournaments at the benchmark's "
            "budget (`agents.search.BENCHMARK_BUDGETS`, kept small so the benchmark stays within "
            "minutes) against the rule-based and learned agents. Their strength at larger "
            "budgets, with seconds per move and the curve against budget, is measured by "
            "`kiaule strength` (`experiments/results/strength/README.md`).",
            "",
        ]
    warnings = all_warnings(reports)
    if warnings:
        lines += ["> **Warning**: games not decided by play", ">"]
        lines += [f"> - {w}" for w in warnings]
        lines.append("")
    return lines


def _game_section(rep: GameReport, out: Path) -> list[str]:
    """One tournament's section: settings, leaderboard, endings, head-to-head, metrics, the
    team-play study and plots; or why it was not run."""
    entry = rep.entry
    lines = [f"## {entry.key}", "", entry.note, ""]
    if rep.summary is None:
        return lines + _not_run(rep)
    s = rep.summary["settings"]
    lines += [
        f"{rep.summary['games']} games = {s['deals']} deals × {s['games_per_deal']} seatings, "
        f"seed {s['seed']}, env keywords `{s['env_kwargs'] or 'defaults'}`; "
        f"{rep.rate_text()}.",
        "",
        markdown_table(LEADERBOARD_HEADER, leaderboard_rows(rep.summary)),
        "",
    ]
    header, rows = endings_rows(rep.summary)
    lines += [
        "How the games ended, per lineup: decided by play, ended by a rule cap of the game, "
        "or truncated by `max_cycles` (⚠: more than 5% not decided by play).",
        "",
        markdown_table(header, rows),
        "",
    ]
    if rep.summary.get("warnings"):
        lines += ["> **Warning**: games not decided by play", ">"]
        lines += [f"> - {w}" for w in rep.summary["warnings"]]
        lines.append("")
    if rep.skipped:
        lines += [
            "Agents not included: "
            + "; ".join(f"`{k}` ({v})" for k, v in rep.skipped.items())
            + ".",
            "",
        ]
    header, rows = h2h_rows(rep.summary)
    lines += [
        "Head-to-head: share of games the row agent beat the column agent (ties ½).",
        "",
        markdown_table(header, rows),
        "",
    ]
    if rep.summary["metrics"]:
        header, rows = metric_rows(rep.summary)
        lines += ["Research metrics:", "", markdown_table(header, rows), ""]
        lines += [f"- `{m['name']}`: {m['description']}" for m in rep.summary["metrics"]]
        lines.append("")
    lines += team_play_section(entry, rep.summary)
    pictures = ("ratings.png", "head_to_head.png", "metrics.png")
    shown = [p for p in pictures if (out / entry.key / p).exists()]
    if shown:
        lines += [" ".join(f"![{p}]({entry.key}/{p})" for p in shown), ""]
    return lines


def _not_run(rep: GameReport) -> list[str]:
    """Why a tournament was not run: the agents it had, and those that cannot play."""
    have = ", ".join(f"`{a}`" for a in rep.agents) or "none"
    if rep.entry.teams:
        lines = [f"Not run: the teams need {have}, and these cannot play:"]
    else:
        lines = [f"Not run: a tournament needs two agents that can play; usable: {have}."]
    lines += [f"- `{k}`: {v}" for k, v in rep.skipped.items()]
    lines.append("")
    return lines


def team_play_section(entry: SuiteEntry, summary: dict[str, Any]) -> list[str]:
    """The report of a team-play study: each team's mean team reward overall and per opposing
    team, the metrics split by partner, and whether the first team's agent coordinates with
    itself (the coordination gain, :mod:`experiments.tournament.teamplay`), all from
    ``summary``; nothing for a summary without team compositions."""
    team_play = summary.get("team_play") or {}
    if "compositions" not in team_play:
        return []
    lines = [
        "### Team play",
        "",
        "Mean team reward per game (the mean reward of the team's two seats; both partners get "
        "the team's loss points), with 95% intervals paired over deals, over all the team's "
        "games and against each other team:",
        "",
        markdown_table(*teamplay.composition_rows(team_play)),
        "",
    ]
    known = [m["name"] for m in summary["metrics"]]
    names = [n for n in entry.team_metrics if n in known] or known
    if team_play["partner_metrics"] and names:
        lines += [
            "Research metrics split by the partner the agent played with, over all opposing "
            "teams and against each (seat-games: the agent's seats over those games):",
            "",
            markdown_table(*teamplay.partner_rows(team_play, names)),
            "",
        ]
    studies = team_play.get("coordination", [])
    first = summary["settings"]["team_compositions"][0][0]
    chosen = [c for c in studies if c["agent"] == first] or studies[:1]
    for study in chosen:
        t = study["teams"]
        lines += [
            f"Do the partners coordinate? The coordination gain G = R(`{t['aa']}` vs "
            f"`{t['bb']}`) − 2 × R(`{t['ab']}` vs `{t['bb']}`), where R(X vs Y) is team X's "
            f"mean team reward per game against team Y: one `{study['agent']}` in place of a "
            f"`{study['baseline']}` wins R(`{t['ab']}` vs `{t['bb']}`) against the "
            f"`{t['bb']}` team, so partners worth no more than their separate contributions "
            "would win twice that (G = 0); G > 0 means they gain more together (they "
            "coordinate), G < 0 less. Paired over deals (every deal is played by all three "
            "pairings).",
            "",
            markdown_table(*teamplay.coordination_rows(study)),
            "",
            teamplay.coordination_sentence(study),
            "",
        ]
    return lines


def _published_summary(game: str) -> dict[str, Any] | None:
    path = PUBLISHED / game / "summary.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("agents"), dict) else None


def comparison_section(reports: list[GameReport], out: Path) -> list[str]:
    """How this run differs from the published results (none if it is the published run)."""
    if out.resolve() == PUBLISHED.resolve():
        return ["These are the published results of the project.", ""]
    lines = [
        "## Compared with the published results",
        "",
        f"This run's report is not the published one (`{PUBLISHED_TEXT}/README.md`). "
        "Differences in settings, then mean rewards (this run − published):",
        "",
    ]
    rows = []
    for rep in reports:
        if rep.summary is None:
            continue
        published = _published_summary(rep.entry.key)
        if published is None:
            lines.append(f"- {rep.entry.key}: no published summary to compare with.")
            continue
        lines += _settings_differences(rep.entry.key, rep.summary, published)
        for agent, stats in rep.summary["agents"].items():
            old = published["agents"].get(agent)
            mine = stats["mean_reward"]
            if old is None:
                rows.append([rep.entry.key, agent, f"{mine:+.3f}", "not published", ""])
            else:
                diff = mine - old["mean_reward"]
                rows.append(
                    [
                        rep.entry.key,
                        agent,
                        f"{mine:+.3f}",
                        f"{old['mean_reward']:+.3f}",
                        f"{diff:+.3f}",
                    ]
                )
    header = ["game", "agent", "this run", "published", "difference"]
    return [*lines, "", markdown_table(header, rows), ""]


def _settings_differences(game: str, mine: dict[str, Any], published: dict[str, Any]) -> list[str]:
    keys = ("games",)
    out = [
        f"- {game}: {k} {mine.get(k)} (published {published.get(k)})"
        for k in keys
        if mine.get(k) != published.get(k)
    ]
    for k in ("seed", "env_kwargs", "agents"):
        a, b = mine["settings"].get(k), published.get("settings", {}).get(k)
        if a != b:
            out.append(f"- {game}: {k} {a} (published {b})")
    return out or [f"- {game}: same settings as published."]
