"""How deals between rule-based (and learned) agents end: by play, or by a rule cap.

    kiaule endings                        # the published figures (a minute or two on 2 cores)
    kiaule endings --deals 20 --pig-rounds 40 --pig-games 10 --skip-ppo   # a quick look

Kiauliaganys: ``kiauliaganys/heuristic`` on every seat, ``--deals`` seeded deals per player count
(default 2, 3, 4, 6; deck 52), played twice, "before" with ``repetition=None`` (G10a off: only
the G10 turn cap ends a cycle) and "after" with the default ``repetition=3``. For each: the share
of deals ended by the cap and by repetition, the median deal length in turns, and the games/s of
the one play loop (:func:`kiaule_env.core.play.play_episode`, one process).

Pig: one round and full games (P5) between ``pig/heuristic`` on every seat (with its default
rank tie-breaks, and with ``ties=random``), the zoo's ``pig/ppo`` on every seat, and
``pig/heuristic`` and ``pig/ppo`` alternating; the share of episodes, and of rounds, ended by
``max_passes`` (P4) and by a cut nose race (P3 ``max_race_steps``). Pig's rules are not changed.

Every game is seeded (deal ``d`` is ``reset(seed=d)``, seat ``s`` plays with agent seed
``1000 * d + s``), so the figures are reproducible; only the games/s depend on the machine.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments.cli_args import Parser, describe
from kiaule_env.core.play import play_episode

DEFAULT_OUT = Path("experiments/results/endings")
PLAYERS = (2, 3, 4, 6)
#: the rule settings compared: G10a off (before the rule) and the default (after)
SETTINGS: tuple[tuple[str, int | None], ...] = (("before", None), ("after", 3))


def _agents(names: Sequence[str], deal: int) -> list[Any]:
    from agents.registry import make

    return [make(name, seed=1000 * deal + s) for s, name in enumerate(names)]


def kiauliaganys_endings(
    players: Sequence[int] = PLAYERS, deals: int = 60, agent: str = "kiauliaganys/heuristic"
) -> list[dict[str, Any]]:
    """One row per player count and setting: shares of cap and repetition, median turns,
    games/s (see the module docstring)."""
    from kiaule_env import kiauliaganys_v0
    from kiaule_env.kiauliaganys.rules import ending

    rows = []
    for n in players:
        for label, repetition in SETTINGS:
            env = kiauliaganys_v0.raw_env(num_players=n, repetition=repetition)
            counts = {"play": 0, "cap": 0, "repetition": 0}
            turns = []
            start = time.perf_counter()
            for d in range(deals):
                game = play_episode(env, _agents([agent] * n, d), d)
                counts[ending(game.result)] += 1
                turns.append(game.result["turns"])
            seconds = time.perf_counter() - start
            rows.append(
                {
                    "players": n,
                    "setting": label,
                    "repetition": repetition,
                    "deals": deals,
                    "cap_share": counts["cap"] / deals,
                    "repetition_share": counts["repetition"] / deals,
                    "median_turns": statistics.median(turns),
                    "mean_turns": statistics.fmean(turns),
                    "games_per_s": deals / seconds,
                }
            )
    return rows


class _RoundCounter:
    """Counts how every round of a Pig episode ended, from its ``round_result`` infos (P10)."""

    def __init__(self) -> None:
        self.endings: list[str] = []

    def start(self, env: Any) -> None:
        pass

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        pass

    def after(self, env: Any, seats: Any, actions: Any, info: dict[str, Any] | None) -> None:
        from kiaule_env.pig.rules import ending

        if info and "round_result" in info:
            self.endings.append(ending(info["round_result"]))


def pig_lineups(skip_ppo: bool = False) -> list[tuple[str, list[str]]]:
    """The Pig lineups measured (4 players): the heuristic (its ties by rank, and at random), the
    zoo's ppo, and heuristic and ppo alternating."""
    lineups = [
        ("heuristic ×4", ["pig/heuristic"] * 4),
        ("heuristic:ties=random ×4", ["pig/heuristic:ties=random"] * 4),
    ]
    if not skip_ppo:
        lineups += [
            ("ppo ×4", ["pig/ppo"] * 4),
            ("heuristic/ppo alternating", ["pig/heuristic", "pig/ppo"] * 2),
        ]
    return lineups


def pig_endings(rounds: int = 200, games: int = 30, skip_ppo: bool = False) -> list[dict[str, Any]]:
    """One row per game kind (one round, full game) and lineup: shares of episodes and of
    rounds ended by ``max_passes`` and by a cut race, median passes per round."""
    from kiaule_env import pig_v0
    from kiaule_env.pig.rules import ending

    rows = []
    for kind, episodes in (("round", rounds), ("full", games)):
        for label, names in pig_lineups(skip_ppo):
            env = pig_v0.parallel_env(num_players=4, game=kind)
            episode_endings: list[str] = []
            round_endings: list[str] = []
            start = time.perf_counter()
            for d in range(episodes):
                counter = _RoundCounter()
                game = play_episode(env, _agents(names, d), d, observer=counter)
                episode_endings.append(ending(game.result))
                round_endings += counter.endings
            seconds = time.perf_counter() - start
            rows.append(
                {
                    "game": kind,
                    "lineup": label,
                    "episodes": episodes,
                    "rounds": len(round_endings),
                    "episode_max_passes_share": episode_endings.count("max_passes") / episodes,
                    "round_max_passes_share": round_endings.count("max_passes")
                    / max(1, len(round_endings)),
                    "round_race_cut_share": round_endings.count("race_cut")
                    / max(1, len(round_endings)),
                    "games_per_s": episodes / seconds,
                }
            )
    return rows


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def kiauliaganys_table(rows: list[dict[str, Any]]) -> str:
    """Before/after per player count, as a Markdown table."""
    by = {(r["players"], r["setting"]): r for r in rows}
    lines = [
        "| players | deals | ended by the cap, before → after | ended by repetition, after | "
        "median turns, before → after | games/s, before → after |",
        "|---|---|---|---|---|---|",
    ]
    for n in dict.fromkeys(r["players"] for r in rows):
        b, a = by[n, "before"], by[n, "after"]
        lines.append(
            f"| {n} | {a['deals']} | {_pct(b['cap_share'])} → {_pct(a['cap_share'])} | "
            f"{_pct(a['repetition_share'])} | {b['median_turns']:g} → {a['median_turns']:g} | "
            f"{b['games_per_s']:,.1f} → {a['games_per_s']:,.1f} |"
        )
    return "\n".join(lines)


def pig_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | lineup | episodes | rounds | episodes ended by max_passes | "
        "rounds ended by max_passes | rounds with the race cut |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['game']} | {r['lineup']} | {r['episodes']} | {r['rounds']} | "
            f"{_pct(r['episode_max_passes_share'])} | {_pct(r['round_max_passes_share'])} | "
            f"{_pct(r['round_race_cut_share'])} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule endings", description=describe(__doc__))
    parser.add_argument("--deals", type=int, default=60, help="Kiauliaganys deals per count")
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        default=list(PLAYERS),
        help=f"Kiauliaganys player counts (default {' '.join(map(str, PLAYERS))})",
    )
    parser.add_argument("--pig-rounds", type=int, default=200, help="Pig one-round episodes")
    parser.add_argument("--pig-games", type=int, default=30, help="Pig full games")
    parser.add_argument("--skip-ppo", action="store_true", help="Pig: heuristic lineup only")
    parser.add_argument("--skip-pig", action="store_true", help="Kiauliaganys only")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="table.md, summary.json")
    args = parser.parse_args(argv)
    kia = kiauliaganys_endings(args.players, args.deals)
    parts = [
        "## Kiauliaganys: kiauliaganys/heuristic on every seat (deck 52)",
        "",
        "Before: `repetition=None` (G10a off); after: the default `repetition=3`.",
        "",
        kiauliaganys_table(kia),
    ]
    pig: list[dict[str, Any]] = []
    if not args.skip_pig:
        pig = pig_endings(args.pig_rounds, args.pig_games, args.skip_ppo)
        parts += ["", "## Pig: 4 players, default rules", "", pig_table(pig)]
    command = "kiaule endings" + (" " + " ".join(argv) if argv else "")
    text = f"Generated by `{command}` (load average {_load():.1f} on {os.cpu_count()} cores).\n\n"
    text += "\n".join(parts) + "\n"
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "table.md").write_text(text)
    body = {"command": command, "kiauliaganys": kia, "pig": pig}
    (args.out / "summary.json").write_text(json.dumps(body, indent=1) + "\n")
    return 0


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


if __name__ == "__main__":
    raise SystemExit(main())
