"""PNG plots of a tournament summary (matplotlib, Agg backend: no display needed).

* ``ratings.png`` — mean reward with its paired 95% interval, and the OpenSkill rating μ ± 1.96σ;
* ``head_to_head.png`` — heatmap of the pairwise score (row agent beats column agent);
* ``metrics.png`` — one bar chart per research metric (only if the game has metrics).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from experiments.tournament.ranking import ranked


def write_plots(summary: dict[str, Any], out: Path) -> list[Path]:
    """Write every plot of ``summary`` into ``out``; return the paths."""
    paths = [_ratings(summary, out / "ratings.png"), _h2h(summary, out / "head_to_head.png")]
    if summary["metrics"]:
        paths.append(_metrics(summary, out / "metrics.png"))
    return paths


def _short(name: str) -> str:
    return name.split("/", 1)[1] if "/" in name else name


def _ratings(summary: dict[str, Any], path: Path) -> Path:
    order = ranked(summary)[::-1]  # best on top
    agents = summary["agents"]
    ys = range(len(order))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 0.6 * len(order) + 1.8), sharey=True)
    means = [agents[a]["mean_reward"] or 0.0 for a in order]
    lo = [
        m - (agents[a]["ci95"][0] if agents[a]["ci95"][0] is not None else m)
        for a, m in zip(order, means, strict=True)
    ]
    hi = [
        (agents[a]["ci95"][1] if agents[a]["ci95"][1] is not None else m) - m
        for a, m in zip(order, means, strict=True)
    ]
    ax1.errorbar(means, ys, xerr=[lo, hi], fmt="o", capsize=4)
    ax1.axvline(0.0, color="grey", lw=0.8)
    ax1.set_xlabel("mean reward per game (95% CI, paired over deals)")
    mus = [agents[a]["rating"]["mu"] for a in order]
    sig = [1.96 * agents[a]["rating"]["sigma"] for a in order]
    ax2.errorbar(mus, ys, xerr=sig, fmt="s", color="tab:orange", capsize=4)
    ax2.set_xlabel("OpenSkill rating μ ± 1.96σ")
    ax1.set_yticks(list(ys), [_short(a) for a in order])
    fig.suptitle(f"{summary['game']}: {summary['games']} games, seed {summary['settings']['seed']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _h2h(summary: dict[str, Any], path: Path) -> Path:
    order = ranked(summary)
    h2h = summary["head_to_head"]
    n = len(order)
    grid = [[math.nan] * n for _ in range(n)]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            cell = h2h.get(a, {}).get(b)
            if cell is not None and cell["score"] is not None:
                grid[i][j] = cell["score"]
    fig, ax = plt.subplots(figsize=(1.2 * n + 2.5, 1.0 * n + 1.5))
    im = ax.imshow(grid, cmap="RdBu", vmin=0.0, vmax=1.0)
    for i in range(n):
        for j in range(n):
            if not math.isnan(grid[i][j]):
                ax.text(j, i, f"{grid[i][j]:.2f}", ha="center", va="center", fontsize=9)
    labels = [_short(a) for a in order]
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("opponent")
    ax.set_title("head-to-head score (row beats column; ties ½)")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _metrics(summary: dict[str, Any], path: Path) -> Path:
    metrics = summary["metrics"]
    order = ranked(summary)
    cols = min(3, len(metrics))
    rows = math.ceil(len(metrics) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.6 * rows + 0.6), squeeze=False)
    for k, m in enumerate(metrics):
        ax = axes[k // cols][k % cols]
        values = [summary["agents"][a]["metrics"].get(m["name"]) for a in order]
        ax.bar(range(len(order)), [v if v is not None else 0.0 for v in values])
        ax.set_xticks(range(len(order)), [_short(a) for a in order], rotation=30, ha="right")
        ax.set_title(m["name"], fontsize=10)
    for k in range(len(metrics), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle(f"{summary['game']}: research metrics per agent")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
