"""Long random-play invariant checks outside CI: ``python -m experiments.soak kozel --games N``.

Plays seeded random games through the raw env, checks the engine invariants after every step
(``env.check_invariants()``: every card exactly once, scores consistent, …) and that rewards
sum to zero, and reports games/s. Any violation is reported with the seed and configuration
that reproduce it, and the command exits with status 1.
"""

from __future__ import annotations

import sys
import time

from agents.random_agent import RandomAgent
from experiments.cli_args import Parser, describe, non_negative_int, positive_int
from kiaule_env import GAMES
from kiaule_env.core.game import GameDescriptor
from kiaule_env.core.play import play_episode


class _CheckInvariants:
    """Step observer that audits the engine state after every step."""

    def start(self, env) -> None:
        self.engine = env.engine

    def before(self, env, seats, actions) -> None:
        pass

    def after(self, env, seats, actions, info) -> None:
        self.engine.check_invariants(env.game_state)


def soak(game: GameDescriptor, games: int, seed: int, progress: bool = True) -> int:
    """Play ``games`` seeded random games cycling through the game's option variants; return
    the number of violations (each printed with the seed and configuration)."""
    failures = 0
    configs = game.variants
    iterator = range(games)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc=f"soak {game.name}", unit="game", mininterval=1.0)
    envs = [game.native_env(**cfg) for cfg in configs]
    check = _CheckInvariants()
    for g in iterator:
        index = g % len(configs)
        env, game_seed = envs[index], seed + g
        players = [RandomAgent(game.name, seed=game_seed)] * len(env.possible_agents)
        try:
            episode = play_episode(env, players, seed=game_seed, observer=check)
            total = sum(episode.rewards)
            if abs(total) >= 1e-9:
                raise AssertionError(f"rewards sum to {total}, not zero")
        except Exception as exc:  # report and keep going: one run shows every failing seed
            failures += 1
            print(f"VIOLATION game seed={game_seed} config={configs[index]}: {exc!r}")
    return failures


def run(game: str, games: int, seed: int, progress: bool = True) -> int:
    start = time.perf_counter()
    failures = soak(GAMES[game], games, seed, progress)
    elapsed = time.perf_counter() - start
    print(
        f"{game}: {games} games in {elapsed:.1f}s ({games / elapsed:.0f} games/s), "
        f"{failures} violation(s)"
    )
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule soak", description=describe(__doc__))
    parser.add_argument("game", choices=[*GAMES, "all"], help="the game, or all of them")
    parser.add_argument(
        "--games", type=positive_int, default=10_000, help="random games per game (default 10,000)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the first game")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    names = list(GAMES) if args.game == "all" else [args.game]
    failures = sum(run(n, args.games, args.seed, not args.no_progress) for n in names)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
