"""The standard benchmark suite: every game, its baseline and zoo agents, one Markdown report.

    kiaule benchmark                      # default size: a few minutes on 2 cores
    kiaule benchmark --scale 0.1          # a quick look
    kiaule benchmark --only kozel pig --scale 4 --workers 8

For each game (default rules, RULES.md) it runs a duplicate-deal tournament
(:mod:`experiments.tournament`) between every registered agent of the game that can play it
(``random``, the rule-based ``heuristic``, learned zoo agents such as ``ppo`` when their model file
is present), then measures the tournament throughput of Kozel between two rule-based agents.
The report (``README.md``), each game's ``summary.json`` and plots go to ``--out``
(``experiments/results/benchmark``, committed); the raw game results go to ``--work``
(``runs/benchmark``, resumable: rerunning the same benchmark continues where it stopped).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.tournament import TournamentConfig, run_tournament, usable_agents
from experiments.tournament.report import (
    LEADERBOARD_HEADER,
    endings_rows,
    h2h_rows,
    leaderboard_rows,
    markdown_table,
    metric_rows,
)

DEFAULT_OUT = Path("experiments/results/benchmark")
DEFAULT_WORK = Path("runs/benchmark")


@dataclass(frozen=True)
class SuiteEntry:
    """One game of the suite: its settings and default number of games."""

    game: str
    games: int
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    note: str = ""


SUITE: tuple[SuiteEntry, ...] = (
    SuiteEntry(
        "kozel", 16000, {}, "2 v 2, one agent per team (K1); single games (K15 loss points)"
    ),
    SuiteEntry(
        "kiauliaganys", 6000, {}, "4 players, 52 cards; reward −1 swineherd, +1/3 others (G12)"
    ),
    SuiteEntry("pig", 4000, {}, "4 players, one round; reward −1 pig, +1/3 others (P9)"),
    SuiteEntry(
        "elgeta",
        400,
        {},
        "4 players; no decisions (E3: the only move is `play`), so every agent must score "
        "exactly the same — a check of the duplicate-deal fairness",
    ),
)

#: games of the Kozel throughput measurement
SPEED_GAMES = 10000


def _work_dir(work: Path, config: TournamentConfig) -> Path:
    digest = hashlib.sha1(
        json.dumps([config.identity(), config.records], sort_keys=True).encode()
    ).hexdigest()
    return work / f"{config.game}-{digest[:10]}"


@dataclass
class GameReport:
    entry: SuiteEntry
    agents: list[str]
    skipped: dict[str, str]
    summary: dict[str, Any] | None
    seconds: float
    games_per_s: float


def run_suite(
    scale: float = 1.0,
    workers: int | None = None,
    seed: int = 0,
    only: list[str] | None = None,
    work: Path = DEFAULT_WORK,
    out: Path = DEFAULT_OUT,
    progress: bool = True,
    plots: bool = True,
) -> list[GameReport]:
    """Run the suite's tournaments; copy each summary (and plots) into ``out/<game>/``."""
    reports = []
    for entry in SUITE:
        if only and entry.game not in only:
            continue
        try:
            agents, skipped = usable_agents(entry.game, entry.env_kwargs)
        except ImportError as exc:  # the game itself is not there
            reports.append(GameReport(entry, [], {"(game)": str(exc)}, None, 0.0, 0.0))
            continue
        if len(agents) < 2:
            reports.append(GameReport(entry, agents, skipped, None, 0.0, 0.0))
            continue
        config = TournamentConfig(
            game=entry.game,
            agents=agents,
            games=max(1, round(entry.games * scale)),
            seed=seed,
            env_kwargs=dict(entry.env_kwargs),
            records=False,
        )
        folder = _work_dir(work, config)
        start = time.perf_counter()
        result = run_tournament(config, workers=workers, out=folder, progress=progress, plots=plots)
        seconds = time.perf_counter() - start
        target = out / entry.game
        target.mkdir(parents=True, exist_ok=True)
        for name in ("summary.json", "ratings.png", "head_to_head.png", "metrics.png"):
            if (folder / name).exists():
                shutil.copyfile(folder / name, target / name)
        reports.append(
            GameReport(entry, agents, skipped, result.summary, seconds, result.outcome.games_per_s)
        )
    return reports


@dataclass
class Speed:
    """Wall time and the CPU time of the main and worker processes of the speed run."""

    agent: str
    games: int
    workers: int
    seconds: float
    cpu_seconds: float

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


def kozel_speed(games: int = SPEED_GAMES, workers: int | None = None) -> Speed | None:
    """Kozel tournament throughput between two rule-based agents (the issue's speed target).

    Both teams play ``kozel/heuristic`` (registered a second time under another name, since a
    tournament needs two names), through the full harness: worker processes, research metrics,
    results collected; no records are written.
    """
    from agents.registry import list_agents, make, register

    base = "kozel/heuristic" if "kozel/heuristic" in list_agents("kozel") else None
    if base is None:
        return None
    register("kozel/heuristic-copy", lambda seed=0: make(base, seed=seed))
    config = TournamentConfig(
        game="kozel", agents=[base, "kozel/heuristic-copy"], games=games, seed=1, records=False
    )
    cpu_before = _cpu_seconds()
    start = time.perf_counter()
    result = run_tournament(config, workers=workers, progress=False, plots=False)
    seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu_before
    return Speed(base, len(result.games), result.outcome.workers, seconds, cpu)


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def _cpu_seconds() -> float:
    """User + system time of this process and its finished children (the pool's workers)."""
    import resource

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


# ---------------------------------------------------------------------------- report


def results_table(reports: list[GameReport]) -> str:
    """One row per game and agent: the table the README shows."""
    rows = []
    for rep in reports:
        if rep.summary is None:
            continue
        for row in leaderboard_rows(rep.summary):
            rows.append([rep.entry.game, *row[1:]])
    return markdown_table(["game", *LEADERBOARD_HEADER[1:]], rows)


def all_warnings(reports: list[GameReport]) -> list[str]:
    """Every game's ending warnings (lineups with games not decided by play), game first."""
    return [
        f"{rep.entry.game}: {w}"
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
    out: Path = DEFAULT_OUT,
) -> str:
    lines = [
        "# kiaule-env benchmark",
        "",
        f"Generated by `{command}` in {seconds / 60:.1f} min with {workers} worker process(es) "
        f"({platform.python_implementation()} {platform.python_version()}).",
        "",
        "Every tournament replays each shuffled deal as a stacked deck with the seats rotated, so "
        "every agent plays every hand from every seat (duplicate deals). Mean rewards carry 95% "
        "confidence intervals paired over deals (Student t over per-deal means); win rate is the "
        "share of games with a positive reward; ratings are OpenSkill (Plackett–Luce) μ ± σ. "
        "Rows are ranked by mean reward.",
        "",
        "## Results",
        "",
        results_table(reports),
        "",
    ]
    warnings = all_warnings(reports)
    if warnings:
        lines += ["> **Warning**: games not decided by play", ">"]
        lines += [f"> - {w}" for w in warnings]
        lines.append("")
    if speed is not None:
        lines += [
            "## Speed",
            "",
            f"Kozel, `{speed.agent}` on both teams, {speed.games} games through the tournament "
            f"harness with {speed.workers} worker(s), research metrics included, no records: "
            f"**{speed.games_per_s:,.0f} games/s** wall ({speed.seconds:.1f} s; load average "
            f"{_load():.1f} on {os.cpu_count()} cores), {speed.cpu_seconds:.1f} CPU-seconds in "
            f"all, i.e. {speed.cpu_bound_games_per_s:,.0f} games/s with the cores to itself.",
            "",
        ]
    for rep in reports:
        entry = rep.entry
        lines += [f"## {entry.game}", "", entry.note, ""]
        if rep.summary is None:
            have = ", ".join(f"`{a}`" for a in rep.agents) or "none"
            lines.append(f"Not run: a tournament needs two agents that can play; usable: {have}.")
            lines += [f"- `{k}`: {v}" for k, v in rep.skipped.items()]
            lines.append("")
            continue
        s = rep.summary["settings"]
        lines += [
            f"{rep.summary['games']} games = {s['deals']} deals × {s['games_per_deal']} seatings, "
            f"seed {s['seed']}, env keywords `{s['env_kwargs'] or 'defaults'}`; "
            f"{rep.games_per_s:,.0f} games/s.",
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
        pictures = ("ratings.png", "head_to_head.png", "metrics.png")
        shown = [p for p in pictures if (out / entry.game / p).exists()]
        if shown:
            lines += [" ".join(f"![{p}]({entry.game}/{p})" for p in shown), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kiaule benchmark", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count")
    parser.add_argument("--workers", type=int, default=None, help="default: all cores")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="+", choices=[e.game for e in SUITE], default=None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--work", type=Path, default=DEFAULT_WORK)
    parser.add_argument("--no-speed", action="store_true", help="skip the Kozel speed run")
    parser.add_argument("--no-plots", action="store_true")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    reports = run_suite(
        scale=args.scale,
        workers=args.workers,
        seed=args.seed,
        only=args.only,
        work=args.work,
        out=args.out,
        progress=not args.no_progress,
        plots=not args.no_plots,
    )
    speed = None
    if not args.no_speed:
        speed = kozel_speed(max(200, round(SPEED_GAMES * min(args.scale, 1.0))), args.workers)
    seconds = time.perf_counter() - start
    workers = args.workers or os.cpu_count() or 1
    command = "kiaule benchmark" + (" " + " ".join(argv) if argv else "")
    report = markdown_report(reports, speed, command, seconds, workers, args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "README.md").write_text(report + "\n")
    print(results_table(reports))
    for warning in all_warnings(reports):
        print(warning)
    if speed is not None:
        print(
            f"\nKozel speed ({speed.agent} both teams, {speed.workers} workers): "
            f"{speed.games_per_s:,.0f} games/s wall, {speed.cpu_bound_games_per_s:,.0f} games/s "
            "by CPU time"
        )
    print(f"\nreport: {args.out / 'README.md'} ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
