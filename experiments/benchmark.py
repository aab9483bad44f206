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
import platform
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

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
    teamplay,
    usable_agents,
)
from experiments.tournament.fingerprint import code_fingerprint
from experiments.tournament.report import (
    LEADERBOARD_HEADER,
    endings_rows,
    h2h_rows,
    leaderboard_rows,
    markdown_table,
    metric_rows,
)
from kiaule_env import GAMES

#: the committed, published results (docs/tournaments.md); written only when asked for with --out
PUBLISHED = Path(__file__).resolve().parent / "results" / "benchmark"
PUBLISHED_TEXT = "experiments/results/benchmark"
DEFAULT_WORK = Path("runs/benchmark")
DEFAULT_OUT = DEFAULT_WORK / "report"
#: the owner named in the report folder's marker (:mod:`experiments.outdir`)
OWNER = "kiaule benchmark"


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
        try:
            agents, skipped = usable_agents(entry.game, entry.env_kwargs)
        except ImportError as exc:  # the game itself is not there
            reports.append(GameReport(entry, [], {"(game)": str(exc)}, None, 0.0, 0.0))
            continue
        compositions = None
        if entry.teams:
            compositions, missing = team_lineup(entry, agents, overrides or [])
            agents = list(dict.fromkeys(a for team in compositions for a in team))
            if missing:
                why = {m: skipped.get(m, "not a usable agent of the game") for m in missing}
                reports.append(GameReport(entry, agents, why, None, 0.0, 0.0))
                continue
            skipped = {}  # the study plays its teams only: other agents are not left out
        else:
            agents = lineup(entry, agents, overrides or [])
        if len(agents) < 2:
            reports.append(GameReport(entry, agents, skipped, None, 0.0, 0.0))
            continue
        config = TournamentConfig(
            game=entry.game,
            agents=agents,
            games=max(1, round(entry.games * scale)),
            seed=seed,
            env_kwargs=dict(entry.env_kwargs),
            team_compositions=compositions,
            records=False,
        )
        folder = _work_dir(work, config)
        start = time.perf_counter()
        result = run_tournament(
            config,
            workers=workers,
            out=folder,
            progress=progress,
            plots=plots,
            backend=backend,
            address=address,
            force=force,
        )
        seconds = time.perf_counter() - start
        target = out / entry.key
        target.mkdir(parents=True, exist_ok=True)
        for name in ("summary.json", "ratings.png", "head_to_head.png", "metrics.png"):
            if (folder / name).exists():
                shutil.copyfile(folder / name, target / name)
        reports.append(
            GameReport(
                entry,
                agents,
                skipped,
                result.summary,
                seconds,
                result.outcome.games_per_s,
                result.outcome.resumed,
            )
        )
    return reports


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
    if speed is not None:
        lines += speed_section(speed)
    lines += comparison_section(reports, out)
    for rep in reports:
        entry = rep.entry
        lines += [f"## {entry.key}", "", entry.note, ""]
        if rep.summary is None:
            have = ", ".join(f"`{a}`" for a in rep.agents) or "none"
            if entry.teams:
                lines.append(f"Not run: the teams need {have}, and these cannot play:")
            else:
                lines.append(
                    f"Not run: a tournament needs two agents that can play; usable: {have}."
                )
            lines += [f"- `{k}`: {v}" for k, v in rep.skipped.items()]
            lines.append("")
            continue
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
    return "\n".join(lines)


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
