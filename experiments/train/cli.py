"""Train a MaskablePPO agent on one game of the suite, with self-play and team play.

    kiaule train kozel                                   # experiments/configs/kozel.yaml
    kiaule train mygame                                  # a game without a config: defaults
    kiaule train experiments/configs/pig.yaml --timesteps 200000 --seed 3
    kiaule train kozel --resume runs/kozel/checkpoints/step_100000.zip --timesteps 200000
    kiaule train kozel --set ppo.learning_rate=1e-4 --set opponents.mix.self=0.7
    kiaule train --evaluate agents/zoo/kozel.zip --deals 500 --opponents random heuristic

A game name trains with its config in ``experiments/configs/<game>.yaml``; a game without one
trains from the defaults of :class:`~experiments.train.config.TrainConfig` and the game's
descriptor (its default player count): the learner against ``random`` opponents, evaluated
against the game's ``heuristic`` (``random`` if it has none). ``--set`` changes any key.

A run writes under its ``output`` folder: ``tb/`` (TensorBoard logs: ``tensorboard --logdir
runs``), ``checkpoints/step_N.zip`` (+ ``step_N_pool.npz``, the self-play snapshots, so a resumed
run meets the same opponents), ``best.zip`` (best periodic evaluation), ``final.zip``,
``eval.jsonl`` (periodic evaluations against the rule-based agent, seats rotated) and
``train_stats.json`` (throughput and where the time went). Model files carry their game and player
count; load them with ``agents.make("<game>/ppo", path=...)``.

Config files (YAML or JSON) are checked against :class:`~experiments.train.config.TrainConfig`,
which holds every key's default; see ``experiments/configs/``. Checkpoints also hold the run's
state (``step_N_state.json`` + ``step_N_state.npz``), so ``--resume`` continues exactly where the
run stopped; on resume ``--timesteps`` is the total to reach. Ctrl-C stops at the next rollout
boundary with a checkpoint.

Nothing a run loads is unpickled: ``--resume`` builds the model from the config and reads the
checkpoint's tensors with ``torch.load(weights_only=True)`` (SB3's pickled ``data`` entry is never
read), and the training state is JSON and plain arrays.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from experiments.cli_args import (
    Parser,
    describe,
    fail,
    non_negative_int,
    positive_float,
    positive_int,
)
from experiments.outdir import claim_output
from experiments.train.checkpoint import check_resume, check_warm_start
from experiments.train.config import TrainConfig, config_keys, parse_set, resolve_config
from experiments.train.evaluate import evaluate_model, write_results
from experiments.train.run import TrainResult, train

#: the owner named in a run folder's marker (:mod:`experiments.outdir`)
OWNER = "kiaule train"
#: config keys a run folder's runs may differ in: the length to reach and how it is executed
RUN_FOLDER_FREE = ("total_timesteps", "time_budget_s", "output", "vec_env", "torch_threads")
#: options that override a config key, each as (option's dest, config key)
OVERRIDES = (
    ("timesteps", "total_timesteps"),
    ("time_budget", "time_budget_s"),
    ("seed", "seed"),
    ("n_envs", "n_envs"),
    ("vec_env", "vec_env"),
    ("output", "output"),
)
#: the overrides a run takes: all for MaskablePPO, the first four for RLlib
TRAIN_OVERRIDES = tuple(dest for dest, _ in OVERRIDES)
RLLIB_OVERRIDES = ("timesteps", "time_budget", "seed", "output")


def run_settings(config: TrainConfig | dict[str, Any]) -> dict[str, Any]:
    """What a run folder's runs must share (its marker's settings): the config (a
    :class:`TrainConfig`, or an RLlib run's dict) but for the steps to reach and how it is
    executed, so a resume into its own folder (``--timesteps`` larger) is accepted and a run of
    another seed or game is refused."""
    data = config.as_dict() if isinstance(config, TrainConfig) else config
    return {k: v for k, v in data.items() if k not in RUN_FOLDER_FREE}


def _set_help() -> str:
    """``--set``'s help: every key a config has, read from :class:`TrainConfig`."""
    plain, sections = config_keys()
    listed = "; ".join(f"{name} ({', '.join(keys)})" for name, keys in sections.items())
    return (
        "override one config key (repeatable; the value is read as YAML): "
        f"{', '.join(plain)}, or a key of a section as SECTION.KEY, sections "
        f"{listed} (e.g. ppo.learning_rate=3e-4)"
    )


def _default(key: str) -> Any:
    return TrainConfig.model_fields[key].default


def _add_run_options(parser: Parser) -> None:
    """The options of a training run."""
    parser.add_argument(
        "config",
        nargs="?",
        help="a game name (its experiments/configs/<game>.yaml; a game without one trains from "
        "the defaults: its default player count, the learner against random opponents) or a "
        "config file (YAML/JSON)",
    )
    parser.add_argument(
        "--timesteps",
        type=positive_int,
        help="total learner steps to reach (overrides config); on --resume it counts the "
        "checkpoint's steps too, so it must be above them",
    )
    parser.add_argument(
        "--time-budget", type=positive_float, help="stop learning after this many seconds"
    )
    parser.add_argument(
        "--seed",
        type=non_negative_int,
        help=f"training seed (overrides config; default {_default('seed')})",
    )
    parser.add_argument(
        "--n-envs",
        type=positive_int,
        help=f"parallel training envs (overrides config; default {_default('n_envs')})",
    )
    parser.add_argument(
        "--vec-env",
        choices=["dummy", "subproc"],
        help="envs in this process (dummy) or one process each (subproc); overrides config",
    )
    parser.add_argument("--output", help="output folder (default runs/<game>)")
    parser.add_argument("--resume", help="a checkpoint zip to continue from")
    parser.add_argument(
        "--force",
        action="store_true",
        help="train into --output even if it holds other files or a run with other settings "
        "(their files are overwritten)",
    )
    parser.add_argument(
        "--export", help="also write the final model, without optimizer moments, to this path"
    )
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=_set_help())
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--trainer",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: MaskablePPO (default); rllib: multi-agent PPO on Ray "
        "(experiments/configs/rllib_*.yaml; agents.training.rllib_train)",
    )


def _add_evaluate_options(parser: Parser) -> None:
    """The options of ``--evaluate``."""
    parser.add_argument(
        "--evaluate", metavar="MODEL", help="only evaluate a model file (or an agent name)"
    )
    parser.add_argument("--num-players", type=positive_int, help="player count for --evaluate NAME")
    parser.add_argument(
        "--deals", type=positive_int, default=250, help="deals per opponent (--evaluate)"
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["random", "heuristic"],
        help="agents the model is evaluated against (--evaluate; default random heuristic)",
    )
    parser.add_argument(
        "--eval-seed",
        type=non_negative_int,
        default=20_000,
        help="seed of the first evaluation deal (--evaluate; default 20000)",
    )
    from experiments.tournament import add_backend_arguments

    add_backend_arguments(parser)  # --backend/--address: where --evaluate plays
    parser.add_argument(
        "--json", help="merge the evaluation results into this JSON file, keyed by the model"
    )


def _parser() -> Parser:
    parser = Parser(prog="kiaule train", description=describe(__doc__))
    _add_run_options(parser)
    _add_evaluate_options(parser)
    return parser


def _overrides(args: argparse.Namespace, options: tuple[str, ...]) -> dict[str, Any]:
    """The ``--set`` items and the given options (those set) as nested config overrides."""
    overrides = parse_set(args.set)
    for dest, key in OVERRIDES:
        value = getattr(args, dest)
        if dest in options and value is not None:
            overrides[key] = value
    return overrides


def _config_from_args(args: argparse.Namespace) -> TrainConfig:
    overrides = _overrides(args, TRAIN_OVERRIDES)
    source: Any = args.config
    if source is None:  # resume with the checkpoint's own config
        from agents.training.model_io import read_metadata

        source = read_metadata(args.resume)["config"]
    return resolve_config(source, overrides)


def _resume_hint(args: argparse.Namespace, checkpoint: Path | None, total: int) -> str:
    parts = ["kiaule", "train"]
    if args.config:
        parts.append(args.config)
    parts += ["--resume", str(checkpoint), "--timesteps", str(total)]
    for item in args.set:
        parts += ["--set", item]
    # the settings the run folder records (run_settings): a resume that dropped them would be
    # another run
    for flag, value in (
        ("--seed", args.seed),
        ("--n-envs", args.n_envs),
        ("--vec-env", args.vec_env),
        ("--output", args.output),
    ):
        if value is not None:
            parts += [flag, str(value)]
    return shlex.join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    from experiments.tournament import BackendUnavailable, check_backend_arguments

    check_backend_arguments(parser, args)
    if not args.evaluate and args.config is None and not args.resume:
        parser.error("give a game name or a config file (or --resume CHECKPOINT)")
    try:
        if args.evaluate:
            return _evaluate(args)
        if args.trainer == "rllib":
            return _train_rllib(args)
        config = _config_from_args(args)
        result = _train(args, config, argv)
    except (ValueError, TypeError, OSError, BackendUnavailable) as exc:
        fail("kiaule train", str(exc))
    if result.stopped_at is not None:
        hint = _resume_hint(args, result.checkpoint, config.total_timesteps)
        print(
            f"interrupted: stopped at step {result.stopped_at:,} with checkpoint "
            f"{result.checkpoint}; resume with: {hint}",
            file=sys.stderr,
        )
        return 130
    _report(config, result)
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    """``--evaluate MODEL``: its results printed, and merged into ``--json``."""
    results = evaluate_model(
        args.evaluate,
        args.opponents,
        args.deals,
        args.eval_seed,
        args.num_players,
        backend=args.backend,
        address=args.address,
    )
    if args.json:
        key = Path(args.evaluate).name if Path(args.evaluate).is_file() else args.evaluate
        write_results(args.json, key, results)
    return 0


def _train(args: argparse.Namespace, config: TrainConfig, argv: list[str] | None) -> TrainResult:
    """The run of ``config`` in its claimed output folder."""
    resume = Path(args.resume) if args.resume else None
    if resume is not None:
        check_resume(config, resume)
    check_warm_start(config, resume)
    command = shlex.join(
        ["python", "-m", "experiments.train", *(sys.argv[1:] if argv is None else argv)]
    )
    with claim_output(config.output, OWNER, run_settings(config), args.force, "--output"):
        return train(
            config,
            resume=args.resume,
            progress=not args.no_progress,
            export=args.export,
            command=command,
        )


def _train_rllib(args: argparse.Namespace) -> int:
    """``--trainer rllib``: multi-agent PPO on a local Ray or the cluster at ``--address``."""
    from agents.training.rllib_train import resolve_rllib_config, train_rllib

    config = resolve_rllib_config(args.config, _overrides(args, RLLIB_OVERRIDES))
    # an RLlib run does not resume: a rerun for the same settings rewrites its own folder
    settings = {"trainer": "rllib"} | run_settings(config)
    with claim_output(config["output"], OWNER, settings, args.force, "--output"):
        progress = None if args.no_progress else print
        result = train_rllib(config, address=args.address, progress=progress)
    print(
        f"trained {config['game']} with RLlib to {result.timesteps} env steps in "
        f"{result.seconds:.0f}s, {result.illegal_moves} illegal moves; checkpoint "
        f"{result.checkpoint} (agents.make('{config['game']}/rllib', path=...)), curve "
        f"{result.output / 'learning_curve.png'}"
    )
    return 0


def _report(config: TrainConfig, result: TrainResult) -> None:
    stats = result.stats
    print(
        f"trained {config.game} to {result.timesteps} steps: {stats['steps_per_second']} "
        f"steps/s, env+wrapper {stats['share']['env_and_wrapper']:.0%} of learn time, "
        f"network {stats['share']['network']:.0%}; final model {result.final_model}"
    )
    if result.evals:
        step = result.evals[-1]["timesteps"]
        keys = ("opponent", "mean_reward", "reward_ci95", "win_rate")
        for entry in (e for e in result.evals if e["timesteps"] == step):
            print("last evaluation: " + json.dumps({k: entry[k] for k in keys}))
        if (result.output / "curves.png").is_file():
            print(f"learning curves: {result.output / 'curves.png'}")
