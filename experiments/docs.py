"""Regenerate the documentation's tables from the code and the results files.

Each generated table sits between ``<!-- BEGIN GENERATED: <subject> <kind> -->`` and
``<!-- END GENERATED -->`` markers in ``README.md`` or a page under ``docs/``:

* ``<game> facts|options|observation|action|state``: the game's descriptor (env id, players,
  decks, rewards; its default options) and its default observation, action and global-state
  encodings, from the encoders themselves;
* ``results <name>``: a table of published results (:data:`RESULTS`), from the results files
  under ``experiments/results/`` and ``agents/zoo/results.json``.

``python -m experiments.docs`` rewrites every block in place, and ``tests/test_docs.py`` fails
when a page has drifted from the code or the results.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kiaule_env import GAMES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
RESULTS_DIR = ROOT / "experiments" / "results"
ZOO_RESULTS = ROOT / "agents" / "zoo" / "results.json"

BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<subject>[\w-]+) (?P<kind>[\w-]+) -->\n)"
    r"(?P<body>.*?)"
    r"(<!-- END GENERATED -->)",
    re.DOTALL,
)

#: the generated tables of each game's page, ``docs/games/<game>.md``
GAME_KINDS: tuple[str, ...] = ("facts", "options", "observation", "action", "state")


def game_page(game: str) -> Path:
    """The documentation page of ``game``."""
    return DOCS / "games" / f"{game}.md"


def documents() -> list[Path]:
    """Every Markdown file that may hold generated blocks: the README and the pages of docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def _table(header: list[str], rows: list[list[str]], align: str = "---") -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _literal(value: Any) -> str:
    """An option value as the Python literal a user types, in code."""
    return f"`{value!r}`"


def facts_table(game: str) -> str:
    """The descriptor's facts: env id, module, API, players, decks, teams, reward range and the
    longest episode."""
    d = GAMES[game]
    low, high = d.reward_range
    teams = (
        " v ".join("+".join(f"player_{s}" for s in team) for team in d.teams) if d.teams else "none"
    )
    rows = [
        ["registry id", f"`{d.env_id}`"],
        ["module", f"`{d.module}`"],
        ["API", d.api],
        ["players", ", ".join(map(str, d.player_counts))],
        ["decks", ", ".join(map(str, d.decks))],
        ["teams", teams],
        ["reward range", f"{low:g} … {high:g}"],
        ["decisions", "yes" if d.has_decisions else "none after the deal"],
        ["longest episode", _longest(d)],
    ]
    return _table(["", "value"], rows)


def _longest(descriptor: Any) -> str:
    """The most engine steps an episode of the default options can take, and which rules say so."""
    steps = descriptor.longest_game()
    bound = "unbounded" if steps is None else f"{steps:,} engine steps"
    return f"{bound}: {descriptor.longest_game_reason}"


def options_table(game: str) -> str:
    """The game's constructor keywords with their defaults (the descriptor's default options)."""
    rows = [[f"`{key}`", _literal(value)] for key, value in GAMES[game].default_options.items()]
    rows += [["`render_mode`", _literal(None)], ["`max_cycles`", _literal(None)]]
    return _table(["keyword", "default"], rows)


def generated_table(game: str, kind: str) -> str:
    """The current Markdown table ``kind`` of ``game`` (one of :data:`GAME_KINDS`)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} in a generated block; known: {', '.join(GAMES)}")
    if kind == "facts":
        return facts_table(game)
    if kind == "options":
        return options_table(game)
    if kind == "state":
        return GAMES[game].state_table().strip() + "\n"
    if kind not in ("observation", "action"):
        raise ValueError(f"unknown table {kind!r} of {game}; choose one of {', '.join(GAME_KINDS)}")
    module = GAMES[game].load()
    table = module.observation_table() if kind == "observation" else module.action_table()
    return table.strip() + "\n"


def _ci(mean: float, low: float, high: float) -> str:
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the results file {path}: {err}") from None


def benchmark_table() -> str:
    """The published benchmark's leaderboard rows, tournament by tournament, in suite order."""
    from experiments.benchmark import PUBLISHED, SUITE
    from experiments.tournament.report import LEADERBOARD_HEADER, leaderboard_rows

    rows = []
    for entry in SUITE:
        path = PUBLISHED / entry.key / "summary.json"
        if path.is_file():
            rows += [[entry.key, *row[1:]] for row in leaderboard_rows(_read_json(path))]
    return _table(["tournament", *LEADERBOARD_HEADER[1:]], rows)


def strength_table() -> str:
    """The search agents at their default budget against each opponent (``kiaule strength``)."""
    rows = [
        [
            row["game"],
            f"`{row['agent']}`",
            f"`{row['opponent']}`",
            str(row["games"]),
            _ci(row["mean_reward"], *row["ci95"]),
            f"{row['seconds_per_move']:.3f}",
        ]
        for row in _read_json(RESULTS_DIR / "strength" / "results.json")["rows"]
        if "seconds_per_move" in row
    ]
    header = ["game", "search agent", "opponent", "games", "mean reward [95% CI]", "s/move"]
    return _table(header, rows)


def zoo_table() -> str:
    """Every zoo model's evaluation: one learner, the opponent on every other seat."""
    rows = [
        [
            row["game"],
            f"`{key}`",
            f"`{row['opponent']}`",
            f"{row['games']:,}",
            f"{row['mean_reward']:+.3f} ± {row['reward_ci95']:.3f}",
            f"{row['win_rate']:.3f}",
        ]
        for key, evaluations in _read_json(ZOO_RESULTS).items()
        if key.endswith(".zip")
        for row in evaluations
    ]
    header = ["game", "model", "opponents", "games", "mean reward ± 95%", "win rate"]
    return _table(header, rows)


def zoo_tournaments_table() -> str:
    """The zoo's two-agent tournaments (``experiments/results/zoo/<lineup>/summary.json``)."""
    from experiments.tournament.report import LEADERBOARD_HEADER, leaderboard_rows

    rows = []
    for path in sorted((RESULTS_DIR / "zoo").glob("*/summary.json")):
        rows += [[path.parent.name, *row[1:]] for row in leaderboard_rows(_read_json(path))]
    return _table(["tournament", *LEADERBOARD_HEADER[1:]], rows)


def _table_in(path: Path, heading: str = "") -> str:
    """The first Markdown table of a generated results file, after the heading starting with
    ``heading`` (``""``: from the top)."""
    lines = path.read_text().splitlines() if path.is_file() else []
    start = next(
        (i for i, line in enumerate(lines) if line.startswith("#") and heading in line),
        None if heading else 0,
    )
    table = []
    for line in lines[start or 0 :] if start is not None else []:
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    if not table:
        raise ValueError(f"no table under {heading!r} in the results file {path}")
    return "\n".join(table) + "\n"


#: ``results <name>`` blocks: each name's generator
RESULTS: dict[str, Callable[[], str]] = {
    "benchmark": benchmark_table,
    "strength": strength_table,
    "zoo": zoo_table,
    "zoo-tournaments": zoo_tournaments_table,
    "endings-kiauliaganys": lambda: _table_in(RESULTS_DIR / "endings" / "table.md", "Kiauliaganys"),
    "endings-pig": lambda: _table_in(RESULTS_DIR / "endings" / "table.md", "Pig"),
    "elgeta-lengths": lambda: _table_in(RESULTS_DIR / "elgeta_lengths" / "table.md"),
}


def block_body(subject: str, kind: str) -> str:
    """The current body of the block ``<subject> <kind>``: a game table or a results table."""
    if subject == "results":
        if kind not in RESULTS:
            raise ValueError(f"unknown results table {kind!r}; choose one of {', '.join(RESULTS)}")
        return RESULTS[kind]()
    return generated_table(subject, kind)


def render(text: str) -> str:
    """``text`` with every generated block replaced by the current table."""

    def substitute(match: re.Match) -> str:
        return match.group(1) + block_body(match["subject"], match["kind"]) + match.group(5)

    return BLOCK.sub(substitute, text)


def blocks(text: str) -> list[tuple[str, str, str]]:
    """``(subject, kind, body)`` of every generated block in ``text``."""
    return [(m["subject"], m["kind"], m["body"]) for m in BLOCK.finditer(text)]


def stale(paths: list[Path] | None = None) -> list[Path]:
    """The documents whose generated blocks differ from the current tables."""
    return [p for p in paths or documents() if render(p.read_text()) != p.read_text()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report drift (exit 1)")
    args = parser.parse_args(argv)
    if args.check:
        drifted = stale()
        for path in drifted:
            print(f"{path.relative_to(ROOT)}: generated tables are out of date")
        if drifted:
            print("run python -m experiments.docs")
        return 1 if drifted else 0
    for path in documents():
        current = path.read_text()
        updated = render(current)
        if updated != current:
            path.write_text(updated)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
