"""The standard benchmark suite: every game, its baseline and zoo agents, one Markdown report.

    kiaule benchmark                      # default size: about a minute on 2 cores
    kiaule benchmark --scale 0.1          # a quick look
    kiaule benchmark --only kozel pig --scale 4 --workers 8
    kiaule benchmark --out experiments/results/benchmark   # regenerate the published results

For each game (default rules, RULES.md) it runs a duplicate-deal tournament
(:mod:`experiments.tournament`) between every registered agent of the game that can play it
(``random``, the rule-based ``heuristic``, learned zoo agents such as ``ppo`` when their model file
is present), the Kozel team-play study (``kozel-teams``: the learned team, the mixed team
``ppo+heuristic`` and the rule-based team against each other, with the metrics split by partner
and the coordination gain, :mod:`experiments.tournament.teamplay`), then measures the
tournament throughput of Kozel between two rule-based agents.
The report (``README.md``), each game's ``summary.json`` and plots go to ``--out``, by default
the run folder ``runs/benchmark/report``; the report compares its results with the published ones
(``experiments/results/benchmark``, committed), which are only rewritten on purpose, with
``--out experiments/results/benchmark``. The raw game results go to ``--work``
(``runs/benchmark``, resumable: rerunning the same benchmark continues where it stopped).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from experiments.benchmark_report import (
    PUBLISHED,
    PUBLISHED_TEXT,
    GameReport,
    Speed,
    SuiteEntry,
    all_warnings,
    markdown_report,
    results_table,
)
from experiments.cli_args import (
    Parser,
    check_output_dir,
    describe,
    fail,
    non_negative_int,
    positive_float,
    positive_int,
)
from experiments.outdir import claim_output, write_atomic
from experiments.tournament import (
    BackendUnavailable,
    TournamentConfig,
    add_backend_arguments,
    check_backend_arguments,
    run_tournament,
    usable_agents,
)
from experiments.tournament.fingerprint import code_fingerprint
from kiaule_env import GAMES

DEFAULT_WORK = Path("runs/benchmark")
DEFAULT_OUT = DEFAULT_WORK / "report"
#: the owner named in the report folder's marker (:mod:`experiments.outdir`)
OWNER = "kiaule benchmark"


#: games of each search tournament (every game with decisions)
SEARCH_GAMES = 200

#: games of the Kozel team-play study (10 per deal: three pairings, 4 + 4 + 2 seatings)
TEAM_GAMES = 6000

#: the Kozel team-play study: the learned team, the mixed team and the rule-based team
KOZEL_TEAMS = SuiteEntry(
    "kozel",
    TEAM_GAMES,
    {},
    "Team-play study (K1: 2 v 2, partners opposite): the learned team (`kozel/ppo` in both "
    "seats, trained as one team sharing the policy), the mixed team (`kozel/ppo` with a "
    "`kozel/heuristic` partner) and the rule-based team play each other on duplicate deals; "
    "rows are teams, not agents; single games (K15 loss points).",
    teams=(("ppo", "ppo"), ("ppo", "heuristic"), ("heuristic", "heuristic")),
    team_metrics=(
        "team_points",
        "discard_to_partner",
        "discard_share_to_partner",
        "beat_partner_rate",
    ),
)

#: every game of the suite, with the size and note its descriptor gives, the team-play study,
#: then the search agents'
SUITE: tuple[SuiteEntry, ...] = (
    tuple(
        SuiteEntry(game.name, game.benchmark_games, {}, game.benchmark_note)
        for game in GAMES.values()
    )
    + ((KOZEL_TEAMS,) if "kozel" in GAMES else ())
    + tuple(
        SuiteEntry(
            game.name,
            SEARCH_GAMES,
            {},
            f"Search agents at the benchmark's budget against the rule-based and learned agents; "
            f"{game.benchmark_note}",
            search=True,
        )
        for game in GAMES.values()
        if game.has_decisions
    )
)

#: games of the Kozel throughput measurement
SPEED_GAMES = 10000


def _work_dir(work: Path, config: TournamentConfig) -> Path:
    """The cache folder of a tournament: its settings and the code that plays it.

    Results in the folder are resumed, so its name also covers the game's package, its agents
    and zoo models: a changed rule or model gets a fresh folder instead of stale results.
    """
    digest = hashlib.sha1(json.dumps([config.identity(), config.records], sort_keys=True).encode())
    digest.update(code_fingerprint(config.game).encode())
    return work / f"{config.game}-{digest.hexdigest()[:10]}"


def run_suite(
    scale: float = 1.0,
    workers: int | None = None,
    seed: int = 0,
    only: list[str] | None = None,
    work: Path = DEFAULT_WORK,
    out: Path = DEFAULT_OUT,
    progress: bool = True,
    plots: bool = True,
    overrides: list[str] | None = None,
    backend: str = "local",
    address: str | None = None,
    force: bool = False,
) -> list[GameReport]:
    """Run the suite's tournaments; copy each summary (and plots) into ``out/<key>/``.

    ``overrides``: agent names with options (``kozel/pimc:worlds=32``) that replace the agent of
    the same name in its game's tournaments, or join its search tournament (:func:`lineup`).
    ``force`` restarts a tournament folder under ``work`` that cannot be resumed.
    """
    reports = []
    for entry in SUITE:
        if only and entry.game not in only:
            continue
        planned = _plan(entry, overrides or [])
        if isinstance(planned, GameReport):  # not run: says why
            reports.append(planned)
            continue
        agents, skipped, compositions = planned
        config = TournamentConfig(
            game=entry.game,
            agents=agents,
            games=max(1, round(entry.games * scale)),
            seed=seed,
            env_kwargs=dict(entry.env_kwargs),
            team_compositions=compositions,
            records=False,
        )
        run = {"workers": workers, "progress": progress, "plots": plots, "force": force}
        run |= {"backend": backend, "address": address}
        reports.append(_play(entry, config, (agents, skipped), work, out, run))
    return reports


def _plan(
    entry: SuiteEntry, overrides: list[str]
) -> tuple[list[str], dict[str, str], list[list[str]] | None] | GameReport:
    """The agents of ``entry``'s tournament, those left out (with why) and its team
    compositions; or the report of a tournament that cannot run (fewer than two agents)."""
    try:
        agents, skipped = usable_agents(entry.game, entry.env_kwargs)
    except ImportError as exc:  # the game itself is not there
        return GameReport(entry, [], {"(game)": str(exc)}, None, 0.0, 0.0)
    compositions = None
    if entry.teams:
        compositions, missing = team_lineup(entry, agents, overrides)
        agents = list(dict.fromkeys(a for team in compositions for a in team))
        if missing:
            why = {m: skipped.get(m, "not a usable agent of the game") for m in missing}
            return GameReport(entry, agents, why, None, 0.0, 0.0)
        skipped = {}  # the study plays its teams only: other agents are not left out
    else:
        agents = lineup(entry, agents, overrides)
    if len(agents) < 2:
        return GameReport(entry, agents, skipped, None, 0.0, 0.0)
    return agents, skipped, compositions


def _play(
    entry: SuiteEntry,
    config: TournamentConfig,
    players: tuple[list[str], dict[str, str]],
    work: Path,
    out: Path,
    run: dict[str, Any],
) -> GameReport:
    """Run (or resume) one tournament in its work folder; copy its summary and plots into
    ``out/<key>/``. ``players``: the agents and those left out, for the report."""
    folder = _work_dir(work, config)
    start = time.perf_counter()
    result = run_tournament(config, out=folder, **run)
    seconds = time.perf_counter() - start
    target = out / entry.key
    target.mkdir(parents=True, exist_ok=True)
    for name in ("summary.json", "ratings.png", "head_to_head.png", "metrics.png"):
        if (folder / name).exists():
            shutil.copyfile(folder / name, target / name)
    agents, skipped = players
    outcome = result.outcome
    return GameReport(
        entry, agents, skipped, result.summary, seconds, outcome.games_per_s, outcome.resumed
    )


def lineup(entry: SuiteEntry, usable: list[str], overrides: list[str]) -> list[str]:
    """The agents of ``entry``'s tournament: the usable agents (no search agents), or for a
    search tournament the rule-based and learned ones with the search agents at the benchmark
    budget; then each override replaces the agent of its name (options aside), and an override
    of an agent not in any of the game's tournaments joins the search tournament."""
    from agents.search import BENCHMARK_BUDGETS

    def kind(name: str) -> str:
        return name.partition(":")[0].split("/")[1]

    if entry.search:
        names = [a for a in usable if kind(a) in ("heuristic", "ppo")]
        names += [f"{entry.game}/{k}:{b}" for k, b in BENCHMARK_BUDGETS.items() if _has(entry, k)]
    else:
        names = [a for a in usable if kind(a) not in BENCHMARK_BUDGETS]
    base = [n.partition(":")[0] for n in names]
    for spec in overrides:
        name = spec.partition(":")[0]
        if name.split("/")[0] != entry.game:
            continue
        if name in base:
            names[base.index(name)] = spec
        elif entry.search and (kind(name) in BENCHMARK_BUDGETS or name not in usable):
            names.append(spec)
    return names


def team_lineup(
    entry: SuiteEntry, usable: list[str], overrides: list[str]
) -> tuple[list[list[str]], list[str]]:
    """The teams of a team-play study as agent names (an override replaces the agent of its
    name, options aside), and the members that are not usable agents (then it is not run)."""
    by_name = {spec.partition(":")[0]: spec for spec in overrides}
    usable_names = {n.partition(":")[0] for n in usable}
    teams, missing = [], []
    for team in entry.teams:
        names = []
        for kind in team:
            name = f"{entry.game}/{kind}"
            names.append(by_name.get(name, name))
            if name not in usable_names and name not in missing:
                missing.append(name)
        teams.append(names)
    return teams, missing


def _has(entry: SuiteEntry, kind: str) -> bool:
    from agents.registry import list_agents

    return f"{entry.game}/{kind}" in list_agents(entry.game)


def kozel_speed(
    games: int = SPEED_GAMES,
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
) -> Speed | None:
    """Kozel tournament throughput between two rule-based agents (docs/speed.md's target).

    Both teams play ``kozel/heuristic`` (registered a second time under another name, since a
    tournament needs two names), through the full harness: worker processes, research metrics,
    results collected. It runs twice: without records (results in memory only), then with
    records into a fresh temporary folder, as ``kiaule tournament`` runs by default
    (``games.jsonl`` with the records, reports, sample pages; no plots). With ``backend="ray"``
    the CPU time is not known (Ray's workers are not this process's children): the CPU seconds
    are NaN.
    """
    from agents.registry import list_agents, make, register

    base = "kozel/heuristic" if "kozel/heuristic" in list_agents("kozel") else None
    if base is None:
        return None
    register("kozel/heuristic-copy", lambda seed=0: make(base, seed=seed))
    plain = TournamentConfig(
        game="kozel", agents=[base, "kozel/heuristic-copy"], games=games, seed=1, records=False
    )
    run = {"workers": workers, "backend": backend, "address": address}
    result, seconds, cpu = _timed(plain, None, **run)
    with tempfile.TemporaryDirectory(prefix="kiaule-speed-") as folder:
        recorded = replace(plain, records=True)
        _, records_seconds, records_cpu = _timed(recorded, Path(folder) / "kozel", **run)
    return Speed(
        base, len(result.games), result.outcome.workers, seconds, cpu, records_seconds, records_cpu
    )


def _timed(
    config: TournamentConfig,
    out: Path | None,
    workers: int | None,
    backend: str,
    address: str | None,
) -> tuple[Any, float, float]:
    """``run_tournament`` of ``config`` into ``out``, its wall seconds and CPU seconds (NaN on
    the Ray backend)."""
    cpu_before = _cpu_seconds()
    start = time.perf_counter()
    result = run_tournament(
        config,
        workers=workers,
        out=out,
        progress=False,
        plots=False,
        backend=backend,
        address=address,
    )
    seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu_before if backend == "local" else math.nan
    return result, seconds, cpu


def _cpu_seconds() -> float:
    """User + system time of this process and its finished children (the pool's workers)."""
    import resource

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _check_overrides(specs: list[str]) -> None:
    """Every ``--agents`` entry must be a registered agent with valid options."""
    from agents.registry import make

    for spec in specs:
        if "/" not in spec or spec.split("/")[0] not in GAMES:
            raise ValueError(
                f"--agents {spec!r}: give <game>/<kind>[:options], games: {', '.join(GAMES)}"
            )
        make(spec, seed=0)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule benchmark", description=describe(__doc__))
    parser.add_argument(
        "--scale", type=positive_float, default=1.0, help="multiply every game count"
    )
    parser.add_argument("--workers", type=positive_int, default=None, help="default: all cores")
    add_backend_arguments(parser)
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="seed of every tournament (default 0)"
    )
    parser.add_argument(
        "--only", nargs="+", choices=list(GAMES), default=None, help="only these games' entries"
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        default=[],
        metavar="NAME[:KEY=VALUE,...]",
        help="agents with options, e.g. kozel/pimc:worlds=32: each replaces the agent of that name "
        "in its game's tournaments (or joins its search tournament)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"report folder (default {DEFAULT_OUT}; {PUBLISHED_TEXT} rewrites the published "
        "results)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=DEFAULT_WORK,
        help=f"the tournaments' folders, resumable (default {DEFAULT_WORK})",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite --out even if it holds other files or another benchmark's report, and "
        "restart --work tournaments that cannot be resumed",
    )
    parser.add_argument("--no-speed", action="store_true", help="skip the Kozel speed run")
    parser.add_argument("--no-plots", action="store_true", help="no plot images")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    check_backend_arguments(parser, args)
    try:
        check_output_dir(args.out)
        check_output_dir(args.work, "--work")
        _check_overrides(args.agents)
    except ValueError as exc:
        parser.error(str(exc))
    # the published results are rewritten whatever the settings: asked for by name
    published = args.out.resolve() == PUBLISHED.resolve()
    with claim_output(args.out, OWNER, report_settings(args), args.force, any_settings=published):
        return _run_and_report(args, argv)


def report_settings(args: Any) -> dict[str, Any]:
    """The settings that decide the report folder's content (recorded in its marker)."""
    only = sorted(args.only) if args.only else None
    return {"scale": args.scale, "seed": args.seed, "only": only, "agents": list(args.agents)}


def _run_and_report(args: Any, argv: list[str] | None) -> int:
    """Run the suite into ``args.work`` and write the report into ``args.out`` (claimed)."""
    start = time.perf_counter()
    backend = {"backend": args.backend, "address": args.address}
    try:
        reports = run_suite(
            scale=args.scale,
            workers=args.workers,
            seed=args.seed,
            only=args.only,
            work=args.work,
            out=args.out,
            progress=not args.no_progress,
            plots=not args.no_plots,
            overrides=args.agents,
            force=args.force,
            **backend,
        )
        speed = None
        if not args.no_speed:
            games = max(200, round(SPEED_GAMES * min(args.scale, 1.0)))
            speed = kozel_speed(games, args.workers, **backend)
    except BackendUnavailable as exc:
        fail("kiaule benchmark", str(exc))
    seconds = time.perf_counter() - start
    workers = args.workers or os.cpu_count() or 1
    command = "kiaule benchmark" + (" " + " ".join(argv) if argv else "")
    report = markdown_report(reports, speed, command, seconds, workers, args.out)
    write_atomic(args.out / "README.md", report + "\n")
    print(results_table(reports))
    for warning in all_warnings(reports):
        print(warning)
    if speed is not None:
        print(
            f"\nKozel speed ({speed.agent} both teams, {speed.workers} workers): "
            f"{speed.games_per_s:,.0f} games/s wall, {speed.cpu_bound_games_per_s:,.0f} games/s "
            "by CPU time without records; "
            f"{speed.records_games_per_s:,.0f} games/s wall, "
            f"{speed.records_cpu_bound_games_per_s:,.0f} games/s by CPU time with records"
        )
    print(f"\nreport: {args.out / 'README.md'} ({seconds:.0f} s)")
    if args.out.resolve() != PUBLISHED.resolve():
        print(
            f"(the published results in {PUBLISHED_TEXT} are unchanged; "
            f"--out {PUBLISHED_TEXT} regenerates them)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
