"""Environment speed benchmark: random play through the public env API, in one run.

For every game: uniformly random legal moves through ``<game>_v0.env()`` with ``agent_iter`` /
``last`` / ``step`` (the play loop's public-API driver, ``play_episode(..., api=True)``:
observation and mask computed every step, as a learner would see them), in
agent-steps/s and games/s; Pig through its ``parallel_env`` (one agent-step = one agent's action
in a parallel step). Where PettingZoo's ``texas_holdem_v4`` is installed (``rlcard``), the same
AEC loop runs on it in the same process and each game's ratio to it is printed, so the comparison
holds on a noisy shared machine.

    python -m experiments.bench_envs --seconds 5

``--engine`` measures the playout engines instead (:mod:`experiments.bench_engine`): random
playouts of whole deals, each game's compiled twin against its Python engine. ``--vector``
measures the batched envs (:mod:`experiments.bench_vector`).
"""

from __future__ import annotations

import argparse

from experiments.bench_api import BenchResult, bench
from experiments.cli_args import Parser, choice_of, positive_float, positive_int
from kiaule_env import GAMES


def holdem_factory():
    """``texas_holdem_v4.env`` if PettingZoo's classic extra (rlcard) is installed, else None."""
    try:
        from pettingzoo.classic import texas_holdem_v4

        texas_holdem_v4.env().reset(seed=0)
    except Exception:
        return None
    return texas_holdem_v4.env


def run(games: list[str], seconds: float) -> list[BenchResult]:
    results = []
    reference = holdem_factory()
    if reference is not None:
        results.append(bench("texas_holdem_v4", reference, seconds))
    for name in games:
        game = GAMES[name]
        options = dict(game.bench_options)
        label = f"{name} {options}" if options else name
        module = game.load()
        make = module.parallel_env if game.parallel else module.env
        results.append(bench(label, lambda m=make, o=options: m(**o), seconds))
    return results


def format_table(results: list[BenchResult]) -> str:
    base = next((r for r in results if r.name == "texas_holdem_v4"), None)
    lines = [
        "| env | agent-steps/s | games/s | × texas_holdem_v4 |",
        "|---|---:|---:|---:|",
    ]
    for r in results:
        ratio = f"{r.steps_per_s / base.steps_per_s:.1f}×" if base else "n/a"
        lines.append(f"| {r.name} | {r.steps_per_s:,.0f} | {r.games_per_s:,.1f} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.compile_time and not args.engine:
        parser.error("--compile-time goes with --engine")
    if sum((args.engine, args.train, args.vector)) > 1:
        parser.error("choose one of --engine, --train and --vector")
    if args.torch_threads and not args.train:
        parser.error("--torch-threads goes with --train")
    if (args.batches or args.no_compile_time) and not args.vector:
        parser.error("--batches and --no-compile-time go with --vector")
    if args.rounds and not (args.vector or args.train):
        parser.error("--rounds goes with --vector or --train")
    if args.vector:
        from experiments import bench_vector

        games = args.games or bench_vector.vector_games()
        batches = args.batches or bench_vector.BATCHES
        return bench_vector.main(
            games,
            args.seconds,
            batches,
            args.json,
            compile_time=not args.no_compile_time,
            rounds=args.rounds or 1,
        )
    games = args.games or [g for g in GAMES if _available(g)]
    if args.train:
        from experiments import bench_train

        return bench_train.main(
            games,
            args.steps,
            args.label_games,
            args.json,
            torch_threads=args.torch_threads,
            rounds=args.rounds or 1,
        )
    if args.engine:
        return _engine_main(parser, games, args.seconds, args.compile_time)
    print(format_table(run(games, args.seconds)))
    return 0


def _parser() -> Parser:
    """``kiaule bench``'s arguments."""
    parser = Parser(prog="kiaule bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "games",
        nargs="*",
        type=choice_of(list(GAMES), "game"),
        default=None,
        help=f"subset of {', '.join(GAMES)}",
    )
    parser.add_argument("--seconds", type=positive_float, default=5.0, help="time per env")
    parser.add_argument(
        "--engine",
        action="store_true",
        help="benchmark the playout engines (compiled twin vs Python engine) instead of the envs",
    )
    parser.add_argument(
        "--compile-time",
        action="store_true",
        help="with --engine: also time the first use (empty numba cache) and a cached start",
    )
    parser.add_argument(
        "--train",
        action="store_true",
        help="measure training throughput instead: each zoo config with the envs and the vector "
        "(batched) rollout collector, same network and PPO settings (experiments.bench_train)",
    )
    parser.add_argument(
        "--steps", type=positive_int, default=20_000, help="with --train: learner steps per config"
    )
    parser.add_argument(
        "--torch-threads",
        type=positive_int,
        default=None,
        help="with --train: torch threads for both collectors' rows (default: each config's own)",
    )
    parser.add_argument(
        "--label-games",
        type=positive_int,
        default=10,
        help="with --train: games labelled by the warm start's teacher",
    )
    parser.add_argument(
        "--vector",
        action="store_true",
        help="benchmark the batched envs (kiaule_env.vector) at several batch sizes, beside the "
        "PettingZoo API path and OpenSpiel's hearts, euchre and spades (experiments.bench_vector)",
    )
    parser.add_argument(
        "--batches",
        type=_batches,
        default=None,
        help="with --vector: comma-separated batch sizes (default 1,64,1024,4096)",
    )
    parser.add_argument(
        "--rounds",
        type=positive_int,
        default=None,
        help="with --vector: measure every cell this many times, in interleaved rounds of the "
        "whole table, and report each cell's median round; with --train: each game's two "
        "collectors this many times in interleaved pairs, the rows' median rounds and the "
        "median speed-up (default 1)",
    )
    parser.add_argument(
        "--no-compile-time",
        action="store_true",
        help="with --vector: skip the compile-time measurement (two fresh processes)",
    )
    parser.add_argument(
        "--json", default=None, help="with --train or --vector: also write the report here"
    )
    return parser


def _engine_main(parser: Parser, games: list[str], seconds: float, compile_time: bool) -> int:
    from experiments import bench_engine

    print(bench_engine.format_table(bench_engine.run(games, seconds)))
    if compile_time:
        compiled = [g for g in games if g in bench_engine.compiled_games()]
        if not compiled:
            parser.error("no compiled playout engine here (install the 'search' extra)")
        print(
            "\n| game | first use, empty cache (s) | fresh process, cached (s) |\n|---|---:|---:|"
        )
        for game, (first, cached) in bench_engine.compile_times(compiled).items():
            print(f"| {game} | {first:.2f} | {cached:.2f} |")
    return 0


def _batches(text: str) -> tuple[int, ...]:
    """``--batches``: positive integers separated by commas."""
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(
            f"expected positive integers separated by commas, like 1,64,1024; got {text!r}"
        )
    return sizes


def _available(name: str) -> bool:
    try:
        GAMES[name].load()
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    raise SystemExit(main())
