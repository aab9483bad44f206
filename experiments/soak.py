"""Long random-play invariant checks outside CI: ``python -m experiments.soak kozel --games N``.

Plays seeded random games through the raw env, checks the engine invariants after every step
(``env.check_invariants()``: every card exactly once, scores consistent, …) and that rewards
sum to zero, and reports games/s. Any violation is reported with the seed and configuration
that reproduce it, and the command exits with status 1.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from experiments.cli_args import Parser, non_negative_int, positive_int
from experiments.games import GAMES, get_game, random_aec_game


def soak_aec(entry, games: int, seed: int, progress: bool = True) -> int:
    module = entry.load()
    failures = 0
    configs = entry.soak_configs
    iterator = range(games)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc=f"soak {entry.name}", unit="game", mininterval=1.0)
    envs = [module.raw_env(**cfg) for cfg in configs]
    rng = np.random.default_rng(seed)
    for g in iterator:
        index = g % len(configs)
        env, game_seed = envs[index], seed + g
        totals = dict.fromkeys(env.possible_agents, 0.0)
        try:
            random_aec_game(
                env, rng, seed=game_seed, after_step=lambda e: e.check_invariants(), totals=totals
            )
            total = sum(totals.values())
            if abs(total) >= 1e-9:
                raise AssertionError(f"rewards sum to {total}, not zero")
        except Exception as exc:  # report and keep going: one run shows every failing seed
            failures += 1
            print(f"VIOLATION game seed={game_seed} config={configs[index]}: {exc!r}")
    return failures


def soak_parallel(entry, games: int, seed: int, progress: bool = True) -> int:
    module = entry.load()
    failures = 0
    configs = entry.soak_configs
    iterator = range(games)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc=f"soak {entry.name}", unit="game", mininterval=1.0)
    rng = np.random.default_rng(seed)
    envs = [module.parallel_env(**cfg) for cfg in configs]
    for g in iterator:
        index = g % len(configs)
        env, game_seed = envs[index], seed + g
        try:
            obs, _ = env.reset(seed=game_seed)
            total = 0.0
            while env.agents:
                actions = {}
                for a in env.agents:
                    legal = np.flatnonzero(obs[a]["action_mask"])
                    actions[a] = int(legal[rng.integers(len(legal))])
                obs, rewards, _, _, _ = env.step(actions)
                total += sum(rewards.values())
                env.check_invariants()
            if abs(total) >= 1e-9:
                raise AssertionError(f"rewards sum to {total}, not zero")
        except Exception as exc:
            failures += 1
            print(f"VIOLATION game seed={game_seed} config={configs[index]}: {exc!r}")
    return failures


def run(game: str, games: int, seed: int, progress: bool = True) -> int:
    entry = get_game(game)
    start = time.perf_counter()
    soak = soak_parallel if entry.parallel else soak_aec
    failures = soak(entry, games, seed, progress)
    elapsed = time.perf_counter() - start
    print(
        f"{game}: {games} games in {elapsed:.1f}s ({games / elapsed:.0f} games/s), "
        f"{failures} violation(s)"
    )
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule soak", description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=[*GAMES, "all"])
    parser.add_argument("--games", type=positive_int, default=10_000)
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    names = list(GAMES) if args.game == "all" else [args.game]
    failures = sum(run(n, args.games, args.seed, not args.no_progress) for n in names)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
