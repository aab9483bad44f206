"""Training throughput of the two rollout collectors (``kiaule bench --train``).

For Kozel, Kiauliaganys and Pig, today's zoo config runs ``steps`` MaskablePPO learner steps from
scratch (no evaluation, checkpoints, tensorboard or warm start) twice, one after the other in
one process: with ``collector: envs`` as the file says (one ``LearnerEnv`` per env, Python rules
engines and agents) and with ``collector: vector`` (one compiled batch, opponents decided a batch
at a time). Both have the same network, PPO settings and rollout size ``n_steps × n_envs``: the
batched run has ``slots`` slots and ``n_steps = rollout / slots``, and the same torch threads
(the config's, or ``--torch-threads N`` for both rows: the PPO update is most of a batched
row's time, and on a machine with more cores it is what more threads speed up). ``--rounds N``
measures each game's two rows N times in interleaved pairs and reports medians (:func:`run`).
Each row reports learner steps/s, the speed-up over ``envs``, its ceiling (the ``envs`` row's
learning time over the ``vector`` row's PPO update: the speed-up if the batched row's
collection and rollout forward passes cost nothing, since both rows do the same update), and
where the time went
(:func:`experiments.train.training_stats`: env, opponents, wrapper, the network's forward
passes during rollouts and the PPO update, the same work in both rows). Opponents without a
batched form are played by their Python agents in the ``vector`` row too (docs/training.md);
a collector that refuses the config (``ValueError``) gets the reason instead of its row. A
config with a ``warm_start`` also reports its imitation stage: teacher labels per second (one
process, one chunk of games) and supervised samples per second of the fit. Compare the rows of
one run: the machine's speed varies between runs.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from experiments import train as train_mod
from experiments.bench_api import lower_median

#: the games measured (those with decisions and a batched env)
GAMES = ("kozel", "kiauliaganys", "pig")

#: the batched collector's slots (its n_steps is the config's rollout size over this)
SLOTS = 512

#: what a throughput run switches off: it measures learning, nothing else
QUIET = {"eval": {"every": 0}, "checkpoint": {"every": 10**9}, "tensorboard": False}


def measure_ppo(game: str, overrides: dict[str, Any], steps: int, out: Path) -> dict[str, Any]:
    """Learner steps/s and time shares of ``steps`` PPO steps of ``game``'s config (with
    ``overrides``)."""
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
        "collector": config.collector,
        "n_envs": config.n_envs,
        "n_steps": config.ppo.n_steps,
        "steps": stats["steps_this_run"],
        "steps_per_second": stats["steps_per_second"],
        "learn_seconds": stats["learn_seconds"],
        "seconds": stats["seconds"],
        "share": stats["share"],
        "net_arch": config.policy.net_arch,
        "n_epochs": config.ppo.n_epochs,
        "batch_size": config.ppo.batch_size,
        "torch_threads": config.torch_threads,
    }


def collector_overrides(game: str, slots: int = SLOTS) -> dict[str, dict[str, Any]]:
    """The two setups of ``game``: its config's ``envs`` collector, and ``vector`` with
    ``slots`` slots and the same rollout size (``n_steps × n_envs``)."""
    config = train_mod.resolve_config(game)
    rollout = config.ppo.n_steps * config.n_envs
    if rollout % slots:
        raise ValueError(f"{game}: its rollout of {rollout} steps is not a multiple of {slots}")
    return {
        "envs": {"collector": "envs"},
        "vector": {"collector": "vector", "n_envs": slots, "ppo": {"n_steps": rollout // slots}},
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


def run(
    games: list[str],
    steps: int,
    label_games: int,
    slots: int = SLOTS,
    torch_threads: int | None = None,
    rounds: int = 1,
) -> dict[str, Any]:
    """Every measurement of the module docstring, in one process, one after the other;
    ``torch_threads`` (both rows) replaces the configs' own. With ``rounds`` > 1 each game's
    two rows are measured that many times in interleaved pairs (envs, vector, envs, ...): each
    row is its median round by steps/s and the speed-up is the median of the pairs' ratios, so
    a slow or fast moment of the shared machine does not decide a row."""
    if rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds}")
    report: dict[str, Any] = {"steps": steps, "slots": slots, "rounds": rounds, "games": {}}
    threads = {} if torch_threads is None else {"torch_threads": torch_threads}
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            measured: dict[str, list[dict[str, Any]]] = {"envs": [], "vector": []}
            setups = collector_overrides(game, slots)
            for index in range(rounds):
                for setup, overrides in setups.items():
                    out = Path(tmp) / f"{game}-{setup}-{index}"
                    try:
                        row = measure_ppo(game, {**overrides, **threads}, steps, out)
                    except ValueError as exc:  # a config the collector refuses
                        row = {"error": str(exc)}
                    measured[setup].append(row)
            rows: dict[str, Any] = {setup: _median_row(m) for setup, m in measured.items()}
            if "error" not in rows["vector"]:
                ratios = [
                    v["steps_per_second"] / e["steps_per_second"]
                    for e, v in zip(measured["envs"], measured["vector"], strict=True)
                ]
                rows["vector"]["speedup"] = round(lower_median(ratios), 2)
                rows["vector"]["round_speedups"] = [round(r, 2) for r in ratios]  # round order
                ceilings = [
                    e["learn_seconds"] / v["seconds"]["network_update"]
                    for e, v in zip(measured["envs"], measured["vector"], strict=True)
                    if v["seconds"]["network_update"] > 0
                ]
                if ceilings:
                    rows["vector"]["speedup_ceiling"] = round(lower_median(ceilings), 2)
            rows["warm_start"] = measure_warm_start(game, label_games) if label_games else None
            report["games"][game] = rows
    return report


def _median_row(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The median round by steps/s (the lower middle one of an even count), with every round's
    steps/s under ``rounds``; a refused config's error as it is."""
    if "error" in rounds[0]:
        return rounds[0]
    median = dict(lower_median(rounds, key=lambda row: row["steps_per_second"]))
    median["rounds"] = [row["steps_per_second"] for row in rounds]
    return median


def format_report(report: dict[str, Any]) -> str:
    """The Markdown tables of :func:`run`'s report."""
    rounds = report.get("rounds", 1)
    how = (
        "one run, one after the other"
        if rounds == 1
        else f"one run, {rounds} interleaved rounds: each row its median round, the speed-up "
        "the median of the rounds' ratios"
    )
    lines = [
        f"MaskablePPO learner steps/s over {report['steps']:,} steps from scratch per collector, "
        f"same network and PPO settings, and where the time went ({how}):",
        "",
        "| game | collector | envs × n_steps | network | epochs × batch | torch threads | steps/s "
        "| speed-up | ceiling | env | opponents | wrapper | env+opp+wrapper | rollout forward "
        "| PPO update |",
        "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    warm_lines, errors = [], []
    for game, rows in report["games"].items():
        for setup in ("envs", "vector"):
            r = rows[setup]
            if "error" in r:
                errors.append(f"* {game}, {setup}: {r['error']}")
                continue
            share = r["share"]
            arch = "×".join(str(w) for w in r["net_arch"])
            speedup = f"{r['speedup']:.2f}×" if "speedup" in r else "1.00×"
            ceiling = f"{r['speedup_ceiling']:.2f}×" if "speedup_ceiling" in r else ""
            learn = r["learn_seconds"] or 1.0
            forward = r["seconds"]["network_rollout_forward"] / learn
            update = r["seconds"]["network_update"] / learn
            lines.append(
                f"| {game} | {setup} | {r['n_envs']} × {r['n_steps']} | {arch} | "
                f"{r['n_epochs']} × {r['batch_size']} | {r['torch_threads']} "
                f"| {r['steps_per_second']:,.0f} | {speedup} | {ceiling} "
                f"| {share['env']:.0%} | {share['opponents']:.0%} "
                f"| {share['wrapper_overhead']:.0%} | {share['env_and_wrapper']:.0%} "
                f"| {forward:.0%} | {update:.0%} |"
            )
        w = rows.get("warm_start")
        if w:
            warm_lines.append(
                f"| {game} | `{w['teacher']}` | {w['labels']:,} from {w['games']} games | "
                f"{w['labels_per_second']:,.0f} | {w['fit_samples_per_second']:,.0f} |"
            )
    if errors:
        lines += ["", "Not measured:", "", *errors]
    if warm_lines:
        lines += [
            "",
            "Imitation warm start: teacher labels per second in one process, and supervised "
            "samples per second of the fit:",
            "",
            "| game | teacher | labels | labels/s | fit samples/s |",
            "|---|---|---|---:|---:|",
            *warm_lines,
        ]
    return "\n".join(lines)


def main(
    games: list[str],
    steps: int,
    label_games: int,
    json_path: str | None,
    torch_threads: int | None = None,
    rounds: int = 1,
) -> int:
    """``kiaule bench --train``: print the tables; also write the report as JSON if asked."""
    chosen = [g for g in games if g in GAMES] or list(GAMES)
    report = run(chosen, steps, label_games, torch_threads=torch_threads, rounds=rounds)
    if json_path:
        Path(json_path).write_text(json.dumps(report, indent=2))
    print(format_report(report))
    return 0
