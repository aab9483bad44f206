"""List the registered agents, per game: ``kiaule agents [game]``."""

from __future__ import annotations

import agents
from experiments.cli_args import Parser
from kiaule_env import GAMES


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule agents", description=__doc__)
    parser.add_argument("game", nargs="?", choices=list(GAMES))
    args = parser.parse_args(argv)
    for game in [args.game] if args.game else list(GAMES):
        print(f"{game}: {' '.join(agents.list_agents(game))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
