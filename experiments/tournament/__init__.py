"""Benchmark tournaments between registered agents: fair, statistically honest, resumable.

    kiaule tournament kozel --agents kozel/random kozel/heuristic --games 2000 --out runs/t1

* **Fairness** (:mod:`.schedule`): every shuffled deal is replayed as a stacked deck with the
  seats rotated, so every agent (or Kozel team) plays every hand from every seat; Kozel pairs
  agents into teams (one agent per team, both seats; ``--mixed-partners`` adds teams of two
  different agents; ``--teams A+B C+D …`` plays given teams, also teams sharing an agent,
  reported per team composition with the metrics split by partner, :mod:`.teamplay`).
* **Statistics** (:mod:`experiments.stats`): mean reward with 95% intervals paired over deals,
  win rates, a head-to-head matrix, OpenSkill ratings.
* **Research metrics** per game (:mod:`experiments.metrics`), computed from the moves.
* **Execution** (:mod:`.runner`): worker processes (default: all cores; no more than the chunks
  of games to play), a progress bar, the same results for a seed whatever the number of workers,
  results streamed to ``--out`` so a rerun resumes (and more ``--games`` later only adds deals).
  The folder is locked for the run; a resume must be the same tournament (its fingerprint:
  settings, code and models) and every line read back is checked; a folder of other files or
  another tournament is refused unless ``--force`` (:mod:`experiments.outdir`).
* **Output** (:mod:`.report`): a leaderboard in the terminal (with how the games ended, and a
  warning when more than 5% of a lineup's games were not decided by play); in ``--out``:
  ``summary.json``, ``games.jsonl`` (one line per game with its replayable record),
  ``games.csv``, ``agents.csv``, ``head_to_head.csv``, ``leaderboard.txt``, ``ratings.png``,
  ``head_to_head.png``, ``metrics.png``, ``run.json`` (timing).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agents import registry
from agents.ray_cluster import BackendUnavailable
from experiments.cli_args import (
    Parser,
    check_output_dir,
    fail,
    non_negative_int,
    parse_key_values,
    positive_int,
)
from experiments.tournament.config import TournamentConfig
from experiments.tournament.report import leaderboard_text, summarize, write_outputs
from experiments.tournament.runner import (
    BACKENDS,
    GAMES_FILE,
    RunOutcome,
    claim_folder,
    plan,
    play,
    usable_agents,
)
from experiments.tournament.specs import TournamentGame, get_spec, known_games, register_game

__all__ = [
    "BackendUnavailable",
    "TournamentConfig",
    "TournamentGame",
    "TournamentResult",
    "load_records",
    "main",
    "register_game",
    "run_tournament",
    "usable_agents",
]


class TournamentResult:
    """A finished (or partly finished) tournament: its summary and how the run went."""

    def __init__(self, outcome: RunOutcome, summary: dict[str, Any]):
        self.outcome = outcome
        self.summary = summary

    @property
    def games(self) -> list[dict[str, Any]]:
        """One dict per game in canonical order: key, seats, rewards, result, steps, metrics."""
        return self.outcome.games

    def leaderboard(self) -> str:
        return leaderboard_text(self.summary)


def run_tournament(
    config: TournamentConfig,
    workers: int | None = None,
    out: str | Path | None = None,
    progress: bool = False,
    plots: bool = True,
    max_new_games: int | None = None,
    backend: str = "local",
    address: str | None = None,
    force: bool = False,
) -> TournamentResult:
    """Play (or resume) ``config`` and write its outputs into ``out`` if given.

    ``backend="ray"`` plays on Ray actors (a local Ray, or the cluster at ``address``) with
    the same results as the local process pool (:mod:`.ray_backend`). ``out`` is locked for
    the run and must be empty or hold this tournament (a resume); ``force`` overwrites another
    tournament's or a user's folder (:func:`.runner.claim_folder`).
    """
    tournament = plan(config, workers, backend, address)
    if out is None:
        outcome = play(tournament, None, progress, max_new_games)
        return TournamentResult(outcome, summarize(outcome))
    with claim_folder(tournament, out, force):
        outcome = play(tournament, Path(out), progress, max_new_games)
        summary = summarize(outcome)
        write_outputs(outcome, summary, Path(out), plots=plots and outcome.complete)
    return TournamentResult(outcome, summary)


def load_records(out: str | Path) -> Iterator[tuple[list[int], Any]]:
    """``(key, GameRecord)`` for every game in a results folder, replayable with
    :func:`kiaule_env.core.records.replay` (or :func:`experiments.metrics.metrics_from_record`).
    """
    from kiaule_env.core.records import GameRecord

    path = Path(out) / GAMES_FILE
    with path.open() as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                data = json.loads(line)
                if "record" in data:
                    yield data["key"], GameRecord.from_dict(data["record"], f"{path}:{number}")


def _parse_env_kwargs(items: list[str]) -> dict[str, Any]:
    """``--env KEY=VALUE`` items (the same parser as ``kiaule play --set``)."""
    return parse_key_values(items, "--env")


def _check_env_kwargs(game: str, env_kwargs: dict[str, Any]) -> None:
    """Build the env once so a bad keyword or value is refused before any work."""
    get_spec(game).build_env(dict(env_kwargs))


def _agent_names(game: str, names: list[str] | None, env_kwargs: dict[str, Any]) -> list[str]:
    if not names:
        agents, skipped = usable_agents(game, env_kwargs)
        for name, why in skipped.items():
            print(f"leaving out {name}: {why}")
        return agents
    return [registry.qualified(game, n) for n in names]


def parse_teams(game: str, items: list[str]) -> list[list[str]]:
    """``--teams`` items ``A+B`` (agent names, ``<game>/`` optional) as lists of two names."""
    teams = []
    for item in items:
        names = [n.strip() for n in item.split("+")]
        if len(names) != 2 or not all(names):
            raise ValueError(
                f"--teams {item!r}: give a team as two agents joined by '+', e.g. ppo+heuristic"
            )
        teams.append([registry.qualified(game, n) for n in names])
    return teams


def add_backend_arguments(parser: Parser) -> None:
    """``--backend local|ray`` and ``--address`` (shared by tournament, benchmark, train)."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="local: worker processes on this machine; ray: Ray actors (needs the ray extra), "
        "on a local Ray or the cluster at --address",
    )
    parser.add_argument(
        "--address",
        default=None,
        metavar="HOST:PORT",
        help="an existing Ray cluster (what 'ray start --head' prints; 'auto' finds one on "
        "this machine); default: start a local Ray",
    )


def check_backend_arguments(parser: Parser, args: Any) -> None:
    """Refuse ``--address`` without ``--backend ray`` (one line, status 2)."""
    if args.address and args.backend != "ray":
        parser.error("--address needs --backend ray")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    env_kwargs, compositions = _checked_arguments(parser, args)
    try:
        config = TournamentConfig(
            game=args.game,
            agents=_agent_names(args.game, args.agents, env_kwargs),
            games=args.games,
            seed=args.seed,
            env_kwargs=env_kwargs,
            mixed_partners=args.mixed_partners,
            team_compositions=compositions,
            records=not args.no_records,
        )
        result = run_tournament(
            config,
            workers=args.workers,
            out=args.out,
            progress=not args.no_progress,
            plots=not args.no_plots,
            backend=args.backend,
            address=args.address,
            force=args.force,
        )
    except KeyboardInterrupt:
        where = f" rerun the same command to resume from {args.out}" if args.out else ""
        print(f"\ninterrupted;{where}", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, BackendUnavailable) as exc:
        fail("kiaule tournament", str(exc))
    _print_result(args, result)
    return 0


def _parser() -> Parser:
    """``kiaule tournament``'s command line."""
    parser = Parser(
        prog="kiaule tournament",
        description="Duplicate-deal tournament between registered agents, with paired 95% CIs, "
        "head-to-head, OpenSkill ratings and research metrics.",
    )
    parser.add_argument("game", choices=known_games(), help="the game")
    parser.add_argument(
        "--agents",
        nargs="+",
        help="registered agent names (<game>/<kind>, or just <kind>); default: every agent of "
        "the game that can play it",
    )
    parser.add_argument(
        "--games", type=positive_int, default=1000, help="at least this many games (whole deals)"
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="seed of the deals and agents (default 0)"
    )
    parser.add_argument(
        "--workers", type=positive_int, default=None, help="default: all cores (of the cluster)"
    )
    add_backend_arguments(parser)
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results folder (resumable; locked while the run lasts; refused if it holds other "
        "files or another tournament, unless --force)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite --out even if it holds other files or another tournament (whose games "
        "are discarded)",
    )
    parser.add_argument(
        "--env",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="env constructor keywords, e.g. --env series=True trump_card=bottom",
    )
    parser.add_argument(
        "--mixed-partners",
        action="store_true",
        help="Kozel: also teams of two different agents",
    )
    parser.add_argument(
        "--teams",
        nargs="+",
        default=None,
        metavar="A+B",
        help="Kozel team-play study: these teams of two agents play each other, also teams that "
        "share an agent (e.g. --teams ppo+ppo ppo+heuristic heuristic+heuristic); results per "
        "team composition, metrics split by partner, the coordination gain",
    )
    parser.add_argument("--no-records", action="store_true", help="do not store game records")
    parser.add_argument("--no-plots", action="store_true", help="no plot images")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def _checked_arguments(parser: Parser, args: Any) -> tuple[dict[str, Any], list[list[str]] | None]:
    """The env keywords and team compositions of the command line (``--teams`` also sets
    ``args.agents``); a bad one ends the command through ``parser.error``."""
    check_backend_arguments(parser, args)
    try:
        env_kwargs = _parse_env_kwargs(args.env)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        _check_env_kwargs(args.game, env_kwargs)
    except (ValueError, TypeError) as exc:
        parser.error(f"--env {' '.join(args.env)}: {exc}")
    compositions = None
    if args.teams is not None:
        if args.agents or args.mixed_partners:
            parser.error(
                "--teams chooses the agents and teams: leave out --agents and --mixed-partners"
            )
        try:
            compositions = parse_teams(args.game, args.teams)
        except ValueError as exc:
            parser.error(str(exc))
        args.agents = list(dict.fromkeys(a for team in compositions for a in team))
    if args.out is not None:
        try:
            check_output_dir(args.out)
        except ValueError as exc:
            parser.error(str(exc))
    return env_kwargs, compositions


def _print_result(args: Any, result: TournamentResult) -> None:
    """The leaderboard, how many games were played how fast, where the files are, warnings."""
    outcome = result.outcome
    if args.workers is not None and outcome.workers < args.workers and outcome.played:
        print(
            f"kiaule tournament: --workers {args.workers}: used {outcome.workers}, one per "
            f"chunk of the {outcome.played} games to play",
            file=sys.stderr,
        )
    print(result.leaderboard())
    rate = f"{outcome.games_per_s:,.0f} games/s" if outcome.played else "nothing left to play"
    print(
        f"\nplayed {outcome.played} games in {outcome.seconds:.1f}s ({rate}) with "
        f"{outcome.workers} worker(s)"
        + (f"; {outcome.resumed} already done" if outcome.resumed else "")
    )
    if args.out:
        extras = ["CSV"] + ([] if args.no_plots else ["plots"])
        extras.append("games.jsonl" + ("" if args.no_records else " with records"))
        print(f"results: {args.out}/summary.json (and {', '.join(extras)})")
    for warning in result.summary["warnings"]:  # repeated last, where it cannot scroll away
        print(warning)
