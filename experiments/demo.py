"""Play one game between random agents and print the rendered table after every move."""

from __future__ import annotations

from agents.random_agent import RandomAgent
from experiments.cli_args import Parser, non_negative_int
from kiaule_env import GAMES
from kiaule_env.core.play import play_episode


class _Printer:
    """Step observer that prints every move and the table after it."""

    def start(self, env) -> None:
        self.env = env
        print(env.render())

    def before(self, env, seats, actions) -> None:
        engine, state = env.engine, env.game_state
        texts = [engine.action_text(state, s, a) for s, a in zip(seats, actions, strict=True)]
        print("moves: " + ", ".join(f"player_{s}: {t}" for s, t in zip(seats, texts, strict=True)))

    def after(self, env, seats, actions, info) -> None:
        print(env.render())


def run(game: str, seed: int = 0) -> None:
    env = GAMES[game].native_env(render_mode="ansi")
    players = [RandomAgent(game, seed)] * len(env.possible_agents)
    episode = play_episode(env, players, seed=seed, observer=_Printer())
    print(f"result: {episode.result}")


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule demo", description=__doc__)
    parser.add_argument("game", choices=list(GAMES), nargs="?", default="kozel")
    parser.add_argument("--seed", type=non_negative_int, default=0)
    args = parser.parse_args(argv)
    run(args.game, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
