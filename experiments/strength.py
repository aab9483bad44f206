"""How strong are the search agents? Duplicate, seat-rotated tournaments against the baselines.

    kiaule strength                          # the published figures (about an hour on 2 cores)
    kiaule strength --games 100 --budgets 2 8 --only kozel --out runs/strength-quick   # a look

For every game with search agents (``agents/search.py``), each search kind plays two-agent
tournaments (:mod:`experiments.tournament`: every deal replayed with the seats rotated, 95%
intervals paired over deals):

* against ``<game>/heuristic`` at every budget of ``--budgets`` (PIMC: worlds; IS-MCTS: as many
  worlds and ``ISMCTS_PER_WORLD`` times as many iterations), for the plot of strength against
  budget;
* against the zoo's ``<game>/ppo`` at the default budget (``--default``).

``--merge DIR ...`` writes one table and plot from the ``results.json`` of earlier runs (one per
game, say, each run with its own ``--games``), listing the runs' commands.

Seconds per move are measured at the default budget, on the decisions with a choice of one
seeded game (the other agent is the heuristic). Tournament folders go under ``--work``
(resumable); the table (``README.md``), ``results.json`` and ``strength.png`` go to ``--out``
(default: the published ``experiments/results/strength``, which any run rewrites; another folder
must be empty or hold ``kiaule strength`` output for the same settings, unless ``--force``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from experiments.cli_args import Parser, check_output_dir, choice_of, describe, positive_int
from experiments.outdir import claim_output, write_atomic
from experiments.tournament import TournamentConfig, run_tournament

DEFAULT_OUT = Path("experiments/results/strength")
DEFAULT_WORK = Path("runs/strength")
#: the owner named in the ``--out`` folder's marker (:mod:`experiments.outdir`)
OWNER = "kiaule strength"
BUDGETS = (2, 8, 32)
DEFAULT_BUDGET = 16
#: IS-MCTS iterations per PIMC world at the same budget step (one playout each vs one per move)
ISMCTS_PER_WORLD = 8


def search_kinds(game: str) -> list[str]:
    from agents.registry import list_agents

    return [k for k in ("pimc", "ismcts") if f"{game}/{k}" in list_agents(game)]


def spec(game: str, kind: str, budget: int) -> str:
    if kind == "pimc":
        return f"{game}/pimc:worlds={budget}"
    return f"{game}/ismcts:iterations={budget * ISMCTS_PER_WORLD},worlds={budget}"


def match(
    game: str, a: str, b: str, games: int, work: Path, workers: int | None, force: bool = False
) -> dict:
    """One two-agent tournament; ``a``'s row (mean reward, CI, win rate) and the games/s.

    ``force`` restarts its folder under ``work`` if it cannot be resumed (other code, say)."""
    config = TournamentConfig(game=game, agents=[a, b], games=games, seed=0, records=False)
    folder = work / f"{a}-vs-{b}".replace("/", "_").replace(":", "_").replace("=", "")
    start = time.perf_counter()
    result = run_tournament(
        config, workers=workers, out=folder, progress=False, plots=False, force=force
    )
    row = result.summary["agents"][a]
    return {
        "game": game,
        "agent": a,
        "opponent": b,
        "games": row["games"],
        "mean_reward": row["mean_reward"],
        "ci95": row["ci95"],
        "win_rate": row["win_rate"],
        "seconds": round(time.perf_counter() - start, 1),
    }


def seconds_per_move(game: str, name: str, seed: int = 0) -> float:
    """Mean seconds of the search agent's decisions with a choice, in three seeded games against
    heuristics. The first such decision is played untimed: it loads the compiled twin (numba's
    cache, about a second), which a process running its tournaments in-process had already
    paid and one with worker processes had not."""
    from agents.registry import make
    from kiaule_env import get_game
    from kiaule_env.core.play import play_episode

    agent = make(name, seed=seed)
    timed: list[float] = []
    inner = agent.act

    warmed = False

    def act(decision):
        nonlocal warmed
        if len(decision.legal_moves) < 2:
            return inner(decision)
        if not warmed:  # the first choice loads the compiled twin: not timed
            warmed = True
            return inner(decision)
        start = time.perf_counter()
        action = inner(decision)
        timed.append(time.perf_counter() - start)
        return action

    agent.act = act  # type: ignore[method-assign]
    env = get_game(game).raw_env()
    n = len(env.possible_agents)
    for g in range(3):
        players = [make(f"{game}/heuristic", seed=seed + s) for s in range(n)]
        players[g % n] = agent
        play_episode(env, players, seed=seed + g)
    return sum(timed) / max(1, len(timed))


def run(
    games: list[str],
    count: int,
    budgets: list[int],
    default: int,
    work: Path,
    workers: int | None,
    budget_count: int | None = None,
    kinds: list[str] | None = None,
    force: bool = False,
) -> list[dict[str, Any]]:
    """The tournaments: ``count`` games at the default budget (against the heuristic and ppo),
    ``budget_count`` (default ``count``) at the other budgets; ``force``: see :func:`match`."""
    rows = []
    for game in games:
        for kind in search_kinds(game):
            if kinds and kind not in kinds:
                continue
            for budget in sorted(set(budgets) | {default}):
                name = spec(game, kind, budget)
                size = count if budget == default else (budget_count or count)
                row = match(game, name, f"{game}/heuristic", size, work, workers, force)
                rows.append({**row, "kind": kind, "budget": budget})
            name = spec(game, kind, default)
            row = match(game, name, f"{game}/ppo", count, work, workers)
            rows.append({**row, "kind": kind, "budget": default})
            per_move = seconds_per_move(game, name)
            for r in rows:
                if r["agent"] == name:
                    r["seconds_per_move"] = round(per_move, 4)
    return rows


def markdown(rows: list[dict[str, Any]], commands: list[str]) -> str:
    lines = [
        "# Search agents: strength against the baselines",
        "",
        "Generated by " + ", ".join(f"`{c}`" for c in commands) + ": two-agent duplicate "
        "tournaments (games per tournament in the `games` column), seats rotated over every "
        "deal, mean reward of the search agent per game with its 95% interval paired over deals "
        "(positive: the search agent is stronger); seconds per move at the default budget, on "
        "the decisions with a choice of one seeded game, on the machine each command ran on "
        "(compare them within a game).",
        "",
        "| game | search agent | opponent | games | mean reward [95% CI] | win rate | s/move |",
        "|---|---|---|---:|---|---:|---:|",
    ]
    for r in rows:
        lo, hi = r["ci95"]
        per_move = r.get("seconds_per_move")
        lines.append(
            f"| {r['game']} | `{r['agent']}` | `{r['opponent']}` | {r['games']} | "
            f"{r['mean_reward']:+.3f} [{lo:+.3f}, {hi:+.3f}] | {r['win_rate']:.3f} | "
            f"{'' if per_move is None else f'{per_move:.3f}'} |"
        )
    return "\n".join(lines) + "\n\n![strength against budget](strength.png)\n"


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = sorted({r["game"] for r in rows})
    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 3.8), squeeze=False)
    for ax, game in zip(axes[0], games, strict=True):
        for kind in ("pimc", "ismcts"):
            pts = sorted(
                (r["budget"], r["mean_reward"], r["ci95"])
                for r in rows
                if r["game"] == game and r["kind"] == kind and r["opponent"].endswith("heuristic")
            )
            if not pts:
                continue
            x = [p[0] for p in pts]
            y = [p[1] for p in pts]
            err = [[p[1] - p[2][0] for p in pts], [p[2][1] - p[1] for p in pts]]
            label = (
                "PIMC (worlds)" if kind == "pimc" else f"IS-MCTS (iterations/{ISMCTS_PER_WORLD})"
            )
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{game}: vs {game}/heuristic")
        ax.set_xlabel("budget per move")
        ax.set_ylabel("mean reward per game (95% CI)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    from kiaule_env import GAMES

    searchable = [g for g, d in GAMES.items() if d.has_decisions]
    parser = Parser(prog="kiaule strength", description=describe(__doc__))
    parser.add_argument(
        "--only",
        nargs="+",
        type=choice_of(searchable, "game"),
        default=None,
        help="only these games (default: every game with search agents)",
    )
    parser.add_argument("--games", type=positive_int, default=1000, help="games per tournament")
    parser.add_argument(
        "--budget-games",
        type=positive_int,
        default=None,
        help="games per tournament at the budgets other than the default (default: --games)",
    )
    parser.add_argument(
        "--kinds",
        nargs="+",
        choices=["pimc", "ismcts"],
        default=None,
        help="only these search kinds (default: both)",
    )
    parser.add_argument(
        "--budgets",
        nargs="+",
        type=positive_int,
        default=list(BUDGETS),
        help="search budgets (worlds) played against the heuristic "
        f"(default {' '.join(map(str, BUDGETS))})",
    )
    parser.add_argument(
        "--default",
        type=positive_int,
        default=DEFAULT_BUDGET,
        help="the budget also played against the zoo model and timed per move "
        f"(default {DEFAULT_BUDGET})",
    )
    parser.add_argument("--workers", type=positive_int, default=None, help="default: all cores")
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=f"table, results.json and plot (default: the published {DEFAULT_OUT})",
    )
    parser.add_argument(
        "--merge",
        nargs="+",
        type=Path,
        default=None,
        metavar="DIR",
        help="write the table and plot from these earlier --out folders instead of playing",
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
        help="overwrite --out even if it holds other files or other settings' results, and "
        "restart --work tournaments that cannot be resumed",
    )
    args = parser.parse_args(argv)
    try:
        check_output_dir(args.out)
        check_output_dir(args.work, "--work")
    except ValueError as exc:
        parser.error(str(exc))
    # the published results, the default --out, are rewritten whatever the settings
    published = args.out.resolve() == DEFAULT_OUT.resolve()
    with claim_output(args.out, OWNER, out_settings(args), args.force, any_settings=published):
        return _run_and_write(args, argv, searchable)


def out_settings(args: Any) -> dict[str, Any]:
    """The settings that decide ``--out``'s content (recorded in its marker)."""
    if args.merge:
        return {"merge": [str(folder) for folder in args.merge]}
    keys = ("only", "games", "budget_games", "kinds", "budgets", "default")
    return {key: getattr(args, key) for key in keys}


def _run_and_write(args: Any, argv: list[str] | None, searchable: list[str]) -> int:
    """Play the tournaments (or merge earlier results) and write ``args.out`` (claimed)."""
    if args.merge:
        return _merge(args.merge, args.out)
    rows = run(
        args.only or searchable,
        args.games,
        args.budgets,
        args.default,
        args.work,
        args.workers,
        args.budget_games,
        args.kinds,
        args.force,
    )
    command = "kiaule strength" + (" " + " ".join(argv) if argv else "")
    _write(rows, [command], args.out)
    return 0


def _write(rows: list[dict[str, Any]], commands: list[str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "results.json", json.dumps({"commands": commands, "rows": rows}, indent=1))
    plot(rows, out / "strength.png")
    text = markdown(rows, commands)
    write_atomic(out / "README.md", text)
    print(text)


def _merge(folders: list[Path], out: Path) -> int:
    rows, commands = [], []
    for folder in folders:
        path = folder / "results.json"
        try:
            data = json.loads(path.read_text())
            rows += data["rows"]
            commands += data["commands"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(
                f"--merge {folder}: no results.json of kiaule strength ({exc})"
            ) from None
    _write(rows, commands, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
