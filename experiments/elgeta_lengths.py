"""How long does Elgeta last? Game lengths over many random deals (``kiaule elgeta-lengths``).

Elgeta has no decisions (RULES §4, E3), so a deal fixes the game. This study plays N random deals
(default 100,000) for each player count with the engine's fast whole-game path
(:func:`kiaule_env.elgeta.rules.simulate`, which agrees with the env card by card) and reports the
distribution of the game length in tricks — mean, standard deviation, median, percentiles and
maximum — with the shares of games drawn by a repeated position (E8 ``cycle``), by the cap (E8
``capped``) and by nobody being able to add a card (E5), and each seat's share of wins.

    python -m experiments.elgeta_lengths                       # 100,000 deals for 2, 3, 4 players
    python -m experiments.elgeta_lengths --players 4 --deals 10000 --deck 36

Deals are drawn in chunks of 1,000, chunk ``k`` of ``n`` players from
``numpy.random.default_rng([seed, n, k])``, so the numbers do not depend on the number of worker
processes. Outputs, in ``--out`` (default ``experiments/results/elgeta_lengths``):
``summary.csv`` (one row per player count), ``histogram.csv`` (counts per bin of 25 tricks),
``histogram.png`` (the distributions, with matplotlib) and ``table.md`` (the Markdown table).
"""

from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from kiaule_env.elgeta import rules

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "elgeta_lengths"
CHUNK = 1_000
BIN_WIDTH = 25
#: how a game ended, per deal
WON, CYCLE, CAPPED, E5_DRAW = 0, 1, 2, 3
ENDINGS = {WON: "won", CYCLE: "cycle", CAPPED: "capped", E5_DRAW: "E5 draw"}


@dataclass
class Lengths:
    """Per-deal results of one player count: tricks, how it ended, the winner (-1: nobody)."""

    num_players: int
    tricks: np.ndarray
    ending: np.ndarray
    winner: np.ndarray
    seconds: float


def simulate_chunk(task: tuple[rules.Config, int, int, int]) -> tuple[int, np.ndarray]:
    """Play ``count`` deals of chunk ``index``; return ``(index, [[tricks, ending, winner]])``."""
    config, seed, index, count = task
    rng = np.random.default_rng([seed, config.num_players, index])
    out = np.empty((count, 3), dtype=np.int64)
    for i in range(count):
        outcome = rules.simulate(config, rules.deal_piles(config, rng))
        if outcome.cycle:
            ending = CYCLE
        elif outcome.capped:
            ending = CAPPED
        elif outcome.winner == rules.NOBODY:
            ending = E5_DRAW
        else:
            ending = WON  # by E7, or by E8 stop_on_all_aces
        out[i] = (outcome.tricks, ending, outcome.winner)
    return index, out


def run(
    config: rules.Config, deals: int, seed: int = 0, workers: int = 2, progress: bool = True
) -> Lengths:
    """Simulate ``deals`` random deals of ``config`` in ``workers`` processes."""
    tasks = [
        (config, seed, k, min(CHUNK, deals - k * CHUNK))
        for k in range((deals + CHUNK - 1) // CHUNK)
    ]
    parts: dict[int, np.ndarray] = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals, desc=f"elgeta {config.num_players} players", unit="deal")
    start = time.perf_counter()
    if workers > 1:
        with Pool(workers) as pool:
            for index, part in pool.imap_unordered(simulate_chunk, tasks):
                parts[index] = part
                if bar is not None:
                    bar.update(len(part))
    else:
        for task in tasks:
            index, part = simulate_chunk(task)
            parts[index] = part
            if bar is not None:
                bar.update(len(part))
    seconds = time.perf_counter() - start
    if bar is not None:
        bar.close()
    data = np.concatenate([parts[k] for k in sorted(parts)]) if parts else np.empty((0, 3))
    return Lengths(config.num_players, data[:, 0], data[:, 1], data[:, 2], seconds)


PERCENTILES = (10, 25, 75, 90, 99)


def summary(result: Lengths, config: rules.Config) -> dict[str, float | int | str]:
    """The numbers of one player count (one CSV row)."""
    tricks = result.tricks
    n = len(tricks)
    row: dict[str, float | int | str] = {
        "players": result.num_players,
        "deck": config.deck,
        "deals": n,
        "mean": round(float(tricks.mean()), 2),
        "std": round(float(tricks.std()), 2),
        "median": float(np.median(tricks)),
    }
    for p in PERCENTILES:
        row[f"p{p}"] = round(float(np.percentile(tricks, p)), 1)
    row["max"] = int(tricks.max())
    row["share_cycle"] = round(float(np.mean(result.ending == CYCLE)), 6)
    row["share_capped"] = round(float(np.mean(result.ending == CAPPED)), 6)
    row["share_e5_draw"] = round(float(np.mean(result.ending == E5_DRAW)), 6)
    for seat in range(4):
        row[f"win_share_player_{seat}"] = (
            round(float(np.mean(result.winner == seat)), 4) if seat < result.num_players else ""
        )
    row["seconds"] = round(result.seconds, 1)
    return row


def markdown_table(rows: list[dict], config: rules.Config) -> str:
    """The Markdown table of the results (table.md, shown in docs/studies.md)."""
    lines = [
        "| players | deals | mean | median | p10 | p90 | p99 | max | cycle | capped | E5 draw |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['players']} | {r['deals']:,} | {r['mean']:.1f} | {r['median']:.0f} | "
            f"{r['p10']:.0f} | {r['p90']:.0f} | {r['p99']:.0f} | {r['max']:,} | "
            f"{_share(r['share_cycle'])} | {_share(r['share_capped'])} | "
            f"{_share(r['share_e5_draw'])} |"
        )
    lines.append("")
    lines.append(
        f"Game length in tricks, {config.deck}-card deck, `max_tricks={config.max_tricks}`"
        + (", `stop_on_all_aces=True`" if config.stop_on_all_aces else "")
        + "; random deals (E2) played out with `kiaule_env.elgeta.rules.simulate`."
    )
    return "\n".join(lines) + "\n"


def _share(value: float) -> str:
    return "0" if value == 0 else f"{100 * value:.3f}%"


def histogram_counts(results: list[Lengths]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Bin edges (width ``BIN_WIDTH`` tricks) covering every game, and counts per player count."""
    top = max(int(r.tricks.max()) for r in results)
    edges = np.arange(0, top + BIN_WIDTH + 1, BIN_WIDTH)
    return edges, [np.histogram(r.tricks, bins=edges)[0] for r in results]


def write_outputs(results: list[Lengths], config: rules.Config, out: Path, plot: bool) -> str:
    """Write summary.csv, histogram.csv, table.md (and histogram.png); return the table."""
    out.mkdir(parents=True, exist_ok=True)
    rows = [summary(r, config) for r in results]
    with open(out / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    edges, counts = histogram_counts(results)
    with open(out / "histogram.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["tricks_from", "tricks_to", *(f"players_{r.num_players}" for r in results)]
        )
        for i in range(len(edges) - 1):
            writer.writerow([edges[i], edges[i + 1] - 1, *(int(c[i]) for c in counts)])
    table = markdown_table(rows, config)
    (out / "table.md").write_text(table)
    if plot:
        plot_histogram(results, edges, counts, config, out / "histogram.png")
    return table


def plot_histogram(results, edges, counts, config: rules.Config, path: Path) -> bool:
    """The length distributions as step histograms, linear and log counts; False without
    matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no histogram.png (pip install matplotlib)")
        return False
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for r, c in zip(results, counts, strict=True):
        label = f"{r.num_players} players (median {np.median(r.tricks):.0f})"
        for ax in axes:
            ax.stairs(c / c.sum(), edges, label=label)
    axes[1].set_yscale("log")
    for ax, title in zip(axes, ("share of games", "share of games (log)"), strict=True):
        ax.set_xlabel("game length (tricks)")
        ax.set_ylabel(f"{title}, per {BIN_WIDTH} tricks")
        ax.grid(alpha=0.3)
    p99 = max(np.percentile(r.tricks, 99.5) for r in results)
    axes[0].set_xlim(0, p99)
    axes[0].legend()
    deals = len(results[0].tricks)
    fig.suptitle(f"Elgeta game length, {deals:,} random deals each, {config.deck}-card deck")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    from experiments.cli_args import Parser, describe, non_negative_int, positive_int

    parser = Parser(prog="kiaule elgeta-lengths", description=describe(__doc__))
    parser.add_argument(
        "--deals", type=positive_int, default=100_000, help="deals per player count"
    )
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        default=[2, 3, 4],
        choices=[2, 3, 4],
        help="player counts to study (default 2 3 4)",
    )
    parser.add_argument(
        "--deck", default="52", choices=list(rules.ALLOWED_DECKS), help="the deck (default 52)"
    )
    parser.add_argument(
        "--max-tricks",
        type=positive_int,
        default=10_000,
        help="the rules' max_tricks option (E8): a deal ends after this many tricks (default "
        "10,000)",
    )
    parser.add_argument(
        "--stop-on-all-aces",
        action="store_true",
        help="the rules' stop_on_all_aces option (E8): a deal ends when one pile holds every ace",
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the first deal")
    parser.add_argument("--workers", type=positive_int, default=2, help="processes (1: no pool)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"results folder (default {DEFAULT_OUT})"
    )
    parser.add_argument("--no-plot", action="store_true", help="no histogram image")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    base = rules.Config(
        deck=args.deck, max_tricks=args.max_tricks, stop_on_all_aces=args.stop_on_all_aces
    )
    results = []
    for n in args.players:
        config = rules.Config(**{**vars(base), "num_players": n})
        result = run(config, args.deals, args.seed, args.workers, not args.no_progress)
        print(f"{n} players: {args.deals:,} deals in {result.seconds:.1f}s")
        results.append(result)
    table = write_outputs(results, base, args.out, plot=not args.no_plot)
    print(table)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
