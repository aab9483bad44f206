"""Play one game between random agents and print the moves and the table after every step.

    kiaule demo kozel              # omniscient: every move in full, face-down cards included
    kiaule demo kozel --seat 1     # as player_1 may know it: his table, others' hidden cards ▒

By default the demo is omniscient and says so: it names every card a move puts down, the ones
played face down (Kozel's discards, K6) and passed (Pig, P2) too, which no player at the table
learns. With ``--seat N`` it shows the game as that seat may know it: the table from his seat
(as ``kiaule play`` shows it) and the other seats' moves with what he may not see masked
(``kiaule_env.core.engine.text_seen_by``, the rule the replay viewer's seat view uses).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.random_agent import RandomAgent
from experiments.cli_args import Parser, describe, fail, non_negative_int
from experiments.play import table_renderer
from kiaule_env import GAMES
from kiaule_env.core.engine import text_seen_by
from kiaule_env.core.play import play_episode

#: the first line of an omniscient demo
OMNISCIENT = (
    "Omniscient demo: every move is shown in full, cards played face down or passed included, "
    "which no player at the table sees (--seat N shows what one seat may know)."
)


class _Printer:
    """Step observer that prints every step's moves and the table after it, as ``seat`` may
    know them (``None``: omniscient)."""

    def __init__(self, seat: int | None, say: Callable[[str], None]):
        self.seat, self.say = seat, say

    def start(self, env: Any) -> None:
        if self.seat is None:
            self.say(OMNISCIENT)
            self.table: Callable[[], str] = env.render
        else:
            agent = env.possible_agents[self.seat]
            self.say(f"Watching as {agent}: the table from his seat, other seats' hidden cards ▒.")
            seat_view = table_renderer(env)
            self.table = lambda: seat_view(agent)
        self.say(self.table())

    def before(self, env: Any, seats: tuple[int, ...], actions: tuple[int, ...]) -> None:
        engine, state = env.engine, env.game_state
        texts = [
            text_seen_by(engine, engine.action_text(state, s, a), s, self.seat)
            for s, a in zip(seats, actions, strict=True)
        ]
        self.say(
            "moves: " + ", ".join(f"player_{s}: {t}" for s, t in zip(seats, texts, strict=True))
        )

    def after(self, env: Any, seats: Any, actions: Any, info: Any) -> None:
        self.say(self.table())


def run(
    game: str, seed: int = 0, seat: int | None = None, say: Callable[[str], None] = print
) -> None:
    """Play and print one game of ``game``; ``seat``: watch as that seat (``ValueError`` if the
    game has no such seat), ``None``: omniscient."""
    env = GAMES[game].native_env(render_mode="ansi")
    num_players = len(env.possible_agents)
    if seat is not None and not 0 <= seat < num_players:
        raise ValueError(f"--seat must be 0..{num_players - 1} for {game}, got {seat}")
    players = [RandomAgent(game, seed)] * num_players
    episode = play_episode(env, players, seed=seed, observer=_Printer(seat, say))
    say(f"result: {episode.result}")


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule demo", description=describe(__doc__))
    parser.add_argument(
        "game", choices=list(GAMES), nargs="?", default="kozel", help="the game (default kozel)"
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="seed of the deal and the agents"
    )
    parser.add_argument(
        "--seat",
        type=non_negative_int,
        default=None,
        help="watch as this seat (0 acts first): only what it may know; default omniscient",
    )
    args = parser.parse_args(argv)
    try:
        run(args.game, args.seed, args.seat)
    except ValueError as exc:  # a seat the game does not have
        fail("kiaule demo", str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
