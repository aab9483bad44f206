"""Learning curves of a ``kiaule train`` run, from its evaluations (``eval.jsonl``).

Every periodic evaluation logs one line per opponent (:class:`agents.training.callbacks.
EvalCallback`): the step count, the training clocks and the seat-rotated mean reward with its
95% interval. :func:`write_curves` draws them as ``curves.png``: the mean reward against each
opponent (the rule-based agent, and a search agent when the config's ``eval.extra_opponents``
names one) by wall-clock minutes of training (evaluation time left out) on the left and by
learner steps on the right; zero, the line where the model starts to beat that opponent, is
drawn. A run writes its own at the end; for any run folder::

    python -m experiments.train.curves runs/kozel                 # runs/kozel/curves.png
    python -m experiments.train.curves runs/kozel --out kozel.png
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

#: the evaluation log of a run folder
EVAL_LOG = "eval.jsonl"
#: the plot's file name in the run folder
CURVES = "curves.png"


def read_evaluations(path: str | Path) -> list[dict[str, Any]]:
    """The entries of an ``eval.jsonl`` (a run folder or the file); ``ValueError`` naming the
    file and line when it is not what a run writes."""
    path = Path(path)
    if path.is_dir():
        path = path / EVAL_LOG
    if not path.is_file():
        raise ValueError(f"no evaluation log at {path} (a kiaule train run folder writes one)")
    entries = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not JSON ({err.msg})") from None
        missing = {"timesteps", "opponent", "mean_reward", "reward_ci95"} - set(entry)
        if not isinstance(entry, dict) or missing:
            raise ValueError(f"{path}:{number}: not an evaluation entry (missing {missing})")
        entries.append(entry)
    return entries


def curves_by_opponent(entries: list[dict[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """Per opponent, in step order: steps, training minutes (None where the log predates the
    clocks), mean reward and its interval's half-width (0 where it is infinite: one deal)."""
    curves: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    for entry in sorted(entries, key=lambda e: e["timesteps"]):
        curve = curves[entry["opponent"]]
        curve["steps"].append(int(entry["timesteps"]))
        train_s = entry.get("train_s")
        curve["minutes"].append(None if train_s is None else train_s / 60)
        curve["mean"].append(float(entry["mean_reward"]))
        half = float(entry["reward_ci95"])
        curve["half"].append(half if half != float("inf") else 0.0)
    return {name: dict(curve) for name, curve in curves.items()}


def write_curves(run: str | Path, out: str | Path | None = None, title: str | None = None) -> Path:
    """Draw the run's learning curves (module docstring) into ``out`` (default: the run
    folder's ``curves.png``); returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = Path(run)
    curves = curves_by_opponent(read_evaluations(run))
    if not curves:
        raise ValueError(f"{run}: the evaluation log has no entries yet")
    folder = run if run.is_dir() else run.parent
    out = Path(out) if out is not None else folder / CURVES
    fig, (by_time, by_steps) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for name, curve in curves.items():
        mean, half = curve["mean"], curve["half"]
        lo = [m - h for m, h in zip(mean, half, strict=True)]
        hi = [m + h for m, h in zip(mean, half, strict=True)]
        by_steps.plot(curve["steps"], mean, marker="o", ms=3, label=name)
        by_steps.fill_between(curve["steps"], lo, hi, alpha=0.2)
        timed = [i for i, m in enumerate(curve["minutes"]) if m is not None]
        if timed:
            minutes = [curve["minutes"][i] for i in timed]
            by_time.plot(minutes, [mean[i] for i in timed], marker="o", ms=3, label=name)
            by_time.fill_between(minutes, [lo[i] for i in timed], [hi[i] for i in timed], alpha=0.2)
    for axis, label in (
        (by_time, "training wall-clock (minutes, evaluations left out)"),
        (by_steps, "learner steps"),
    ):
        axis.axhline(0.0, color="grey", lw=0.8)
        axis.set_xlabel(label)
        axis.grid(alpha=0.3)
    by_time.set_ylabel("mean reward per game vs opponent (95% CI)")
    by_steps.legend(loc="lower right", fontsize=8)
    fig.suptitle(title or f"learning curves: {folder}")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m experiments.train.curves RUN [--out PNG] [--title T]``."""
    from experiments.cli_args import Parser

    parser = Parser(prog="python -m experiments.train.curves", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a kiaule train run folder (or its eval.jsonl)")
    parser.add_argument("--out", help=f"the PNG to write (default: RUN/{CURVES})")
    parser.add_argument("--title", help="the plot's title")
    args = parser.parse_args(argv)
    try:
        path = write_curves(args.run, args.out, args.title)
    except ValueError as err:
        print(f"curves: {err}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
