"""Training throughput of the previous and the current zoo configs (``kiaule bench --train``).

For each game whose zoo training changed, the previous zoo config ("before", kept below as
overrides of the current file) and the current config ("after") each run ``steps`` MaskablePPO
learner steps from scratch (no evaluation, checkpoints or tensorboard), on the same machine one
after the other, and report learner steps/s with the time breakdown of
:func:`experiments.train.training_stats` (env, opponents, wrapper, network). A config with a
``warm_start`` also reports its imitation stage: teacher labels per second (one process, one
chunk of games) and supervised samples per second of the fit. Compare the rows of one run: the
machine is shared and its speed varies between runs.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from experiments import train as train_mod

#: the zoo configs before the imitation warm start and opponent lineups, as overrides of the
#: current config files (commits b00d41a and 97c06d2); the Kiauliaganys "before" runs on
#: today's observation (with its counting slices)
PREVIOUS: dict[str, dict[str, Any]] = {
    "kiauliaganys": {
        "opponents": {"mix": {"heuristic": 0.7, "self": 0.3}, "snapshot_every": 50000},
        "policy": {"net_arch": [256, 256], "activation": "tanh"},
        "ppo": {
            "learning_rate": 1e-4,
            "n_steps": 256,
            "batch_size": 256,
            "n_epochs": 10,
            "gamma": 0.99,
            "ent_coef": 0.02,
        },
        "warm_start": None,
    },
    "pig": {
        "deterministic_play": True,
        "opponents": {
            "mix": {"heuristic": 0.7, "self": 0.3},
            "snapshot_every": 40000,
            "max_snapshots": 8,
            "lineups": None,  # the mix, drawn per seat (today's file has lineups)
            "team_with_copies": False,
        },
        "policy": {"net_arch": [64, 64], "activation": "tanh"},
        "ppo": {"learning_rate": 3e-4, "n_steps": 256, "batch_size": 512, "n_epochs": 4},
        "warm_start": None,
    },
}

#: what a throughput run switches off: it measures learning, nothing else
QUIET = {"eval": {"every": 0}, "checkpoint": {"every": 10**9}, "tensorboard": False}


def measure_ppo(game: str, overrides: dict[str, Any], steps: int, out: Path) -> dict[str, Any]:
    """Learner steps/s and time shares of ``steps`` PPO steps of ``game``'s config."""
    config = train_mod.resolve_config(
        game,
        {
            **overrides,
            **QUIET,
            "total_timesteps": steps,
            "time_budget_s": None,
            "warm_start": None,
            "output": str(out),
        },
    )
    result = train_mod.train(config, progress=False)
    stats = result.stats
    return {
        "steps": stats["steps_this_run"],
        "steps_per_second": stats["steps_per_second"],
        "share": stats["share"],
        "net_arch": config.policy.net_arch,
        "n_epochs": config.ppo.n_epochs,
        "batch_size": config.ppo.batch_size,
    }


def measure_warm_start(game: str, games: int) -> dict[str, Any] | None:
    """Teacher labels/s (one process) and fit samples/s of the config's warm start, if any."""
    from agents.training import distill

    config = train_mod.resolve_config(game)
    if config.warm_start is None:
        return None
    warm = config.warm_start.model_dump()
    plain = config.as_dict()  # the agents layer reads the config as data
    tasks = distill._tasks({**plain, "warm_start": {**warm, "games_per_round": games}}, 0, None)
    start = time.perf_counter()
    labels = distill.Labels.concat([distill.play_and_label(t) for t in tasks])
    label_s = time.perf_counter() - start
    import torch

    torch.set_num_threads(config.torch_threads)
    with tempfile.TemporaryDirectory() as tmp:
        vec_env = train_mod.make_vec_env(config.model_copy(update={"output": tmp, "n_envs": 1}))
        model = train_mod.new_model(config, vec_env)
        start = time.perf_counter()
        distill.fit(model, labels, {**warm, "epochs": 1}, seed=0)
        fit_s = time.perf_counter() - start
        vec_env.close()
    return {
        "teacher": warm["teacher"],
        "games": labels.games,
        "labels": len(labels),
        "labels_per_second": round(len(labels) / label_s, 1),
        "fit_samples_per_second": round(len(labels) * 0.95 / fit_s, 1),
    }


def run(games: list[str], steps: int, label_games: int) -> dict[str, Any]:
    """Every measurement of the module docstring, in one process, one after the other."""
    report: dict[str, Any] = {"steps": steps, "games": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            rows = {}
            for setup, overrides in (("before", PREVIOUS.get(game, {})), ("after", {})):
                rows[setup] = measure_ppo(game, overrides, steps, Path(tmp) / f"{game}-{setup}")
            rows["warm_start"] = measure_warm_start(game, label_games)
            report["games"][game] = rows
    return report


def format_report(report: dict[str, Any]) -> str:
    """The Markdown table of :func:`run`'s report."""
    lines = [
        f"MaskablePPO learner steps/s over {report['steps']:,} steps from scratch, and where the "
        "time went (one run, one process per config, one after the other):",
        "",
        "| game | config | network | epochs × batch | steps/s | env | opponents | wrapper "
        "| network share |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    warm_lines = []
    for game, rows in report["games"].items():
        for setup in ("before", "after"):
            r = rows[setup]
            share = r["share"]
            arch = "×".join(str(w) for w in r["net_arch"])
            lines.append(
                f"| {game} | {setup} | {arch} | {r['n_epochs']} × {r['batch_size']} | "
                f"{r['steps_per_second']:,.0f} | {share['env']:.0%} | {share['opponents']:.0%} "
                f"| {share['wrapper_overhead']:.0%} | {share['network']:.0%} |"
            )
        w = rows.get("warm_start")
        if w:
            warm_lines.append(
                f"| {game} | `{w['teacher']}` | {w['labels']:,} from {w['games']} games | "
                f"{w['labels_per_second']:,.0f} | {w['fit_samples_per_second']:,.0f} |"
            )
    if warm_lines:
        lines += [
            "",
            "Imitation warm start (after only): teacher labels per second in one process, and "
            "supervised samples per second of the fit:",
            "",
            "| game | teacher | labels | labels/s | fit samples/s |",
            "|---|---|---|---:|---:|",
            *warm_lines,
        ]
    return "\n".join(lines)


def main(games: list[str], steps: int, label_games: int, json_path: str | None) -> int:
    """``kiaule bench --train``: print the table; also write the report as JSON if asked."""
    chosen = [g for g in games if g in PREVIOUS] or list(PREVIOUS)
    report = run(chosen, steps, label_games)
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=2))
    print(format_report(report))
    return 0
