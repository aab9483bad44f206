"""List the registered agents, per game, with the options each takes: ``kiaule agents [game]``.

Options go after the name wherever agents are named: ``kozel/pimc:worlds=64,rollouts=2``.
"""

from __future__ import annotations

import agents
from experiments.cli_args import Parser, describe
from kiaule_env import GAMES


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule agents", description=describe(__doc__, paragraphs=2))
    parser.add_argument(
        "game", nargs="?", choices=list(GAMES), help="only this game's agents (default: every game)"
    )
    args = parser.parse_args(argv)
    from agents.registry import agent_options

    for game in [args.game] if args.game else list(GAMES):
        print(f"{game}:")
        for name in agents.list_agents(game):
            options = agent_options(name)
            listed = ",".join(f"{k}=<{t.__name__}>" for k, t in options.items())
            print(f"  {name}{':' + listed if listed else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
