"""Play one game between random agents and print the rendered table after every move."""

from __future__ import annotations

import numpy as np

from experiments.cli_args import Parser, non_negative_int
from experiments.games import GAMES, get_game


def run(game: str, seed: int = 0) -> None:
    entry = get_game(game)
    module = entry.load()
    rng = np.random.default_rng(seed)
    if entry.parallel:
        env = module.parallel_env(render_mode="ansi")
        obs, _ = env.reset(seed=seed)
        print(env.render())
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(legal[rng.integers(len(legal))])
            texts = {a: env.unwrapped.legal_moves(a)[act] for a, act in actions.items()}
            print("moves: " + ", ".join(f"{a}: {t}" for a, t in texts.items()))
            obs, _, _, _, infos = env.step(actions)
            print(env.render())
        result = next(iter(infos.values()), {}).get("result")
        print(f"result: {result}")
        return
    env = module.env(render_mode="ansi")
    env.reset(seed=seed)
    print(env.render())
    result = None
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            result = info.get("result", result)
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        print(f"{agent}: {env.unwrapped.legal_moves(agent)[action]}")
        env.step(action)
        print(env.render())
    print(f"result: {result}")


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule demo", description=__doc__)
    parser.add_argument("game", choices=list(GAMES), nargs="?", default="kozel")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    args = parser.parse_args(argv)
    run(args.game, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
