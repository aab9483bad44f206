"""Play a game in the terminal against agents (``kiaule play kozel --seat 0``).

    kiaule play kozel --seat 0 --opponents kozel/heuristic
    kiaule play pig --web --seat 1 --agents pig/random   (in the browser: experiments/web_play.py)

The human sees the table from his seat (the env's ``render_view(agent)`` where the game has it,
else the table from above plus his own hand), the other seats' moves as his seat may know them
(a Kozel discard is face down, K6: ``player_1 plays: discard ▒ ▒``; Pig's moves are
simultaneous, so nobody's choice is told, only the table at the next decision), the numbered
legal moves with their texts, and answers with a move text (case-insensitive, cards in any
order) or its number. Bad input is answered with a clear message and asked again; end of input
or Ctrl-C quits cleanly. Opponents are agents by registry name: one name for every other seat,
or one per other seat in seat order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents.base import Decision, decision_from_env
from experiments.cli_args import Parser, describe, fail, non_negative_int, parse_key_values
from experiments.seating import QuitGame, opponent_agents, table_renderer
from kiaule_env import GAMES
from kiaule_env.core.engine import text_seen_by


def normalise_move(text: str) -> tuple[str, tuple[str, ...]]:
    """Canonical form of a move text: verb, then the other tokens as a sorted multiset."""
    tokens = text.upper().split()
    if not tokens:
        return "", ()
    return tokens[0], tuple(sorted(tokens[1:]))


def parse_human_move(answer: str, legal: dict[int, str]) -> int:
    """Action index for a typed answer: a listed number or a move text; else ``ValueError``."""
    answer = answer.strip()
    if not answer:
        raise ValueError("empty answer")
    numbered = list(legal.items())
    if answer.isdigit():
        number = int(answer)
        if 1 <= number <= len(numbered):
            return numbered[number - 1][0]
        raise ValueError(f"there is no move number {number}; choose 1..{len(numbered)}")
    wanted = normalise_move(answer)
    for action, text in numbered:
        if normalise_move(text) == wanted:
            return action
    raise ValueError(f"{answer!r} is not a legal move now")


class HumanAgent:
    """An agent that asks a person at the terminal."""

    def __init__(
        self,
        table: Callable[[str], str],
        ask: Callable[[str], str],
        say: Callable[[str], None],
        auto_forced: bool = False,
    ):
        self.name = "human"
        self.auto_forced = auto_forced
        self.table, self.ask, self.say = table, ask, say

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        self.say(self.table(decision.agent))
        legal = decision.legal_moves
        if len(legal) == 1 and self.auto_forced:
            action, only = next(iter(legal.items()))
            self.say(f"Your only move: {only} (played for you)")
            return action
        self.say("Your moves:")
        for number, text in enumerate(legal.values(), start=1):
            self.say(f"  {number:>2}. {text}")
        while True:
            try:
                answer = self.ask(f"{decision.agent}> ")
            except (EOFError, KeyboardInterrupt):  # end of input or Ctrl-C: quit cleanly
                raise QuitGame from None
            if answer.strip().lower() in ("quit", "exit", "q"):
                raise QuitGame
            try:
                return parse_human_move(answer, legal)
            except ValueError as exc:
                self.say(
                    f"Not understood: {exc}. Type a move as listed (e.g. "
                    f"'{next(iter(legal.values()))}') or its number; 'quit' ends the game."
                )


def play(
    game: str,
    seat: int,
    opponents: Sequence[str],
    seed: int | None = None,
    env_kwargs: dict[str, Any] | None = None,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> dict[str, Any] | None:
    """Play one episode with a human at ``seat``; returns the env's ``result``.

    ``ValueError`` for a bad seat, opponent or env option (the command prints it as one line).
    """
    entry = GAMES[game]
    kwargs = {"render_mode": "ansi", **(env_kwargs or {})}
    env = entry.native_env(**kwargs)
    num_players = len(env.possible_agents)
    if not 0 <= seat < num_players:
        raise ValueError(f"--seat must be 0..{num_players - 1}")
    seats: dict[int, Any] = opponent_agents(game, seat, num_players, opponents, seed or 0)
    # Elgeta has no decisions: its only move is played for the human (a notice shows it).
    seats[seat] = HumanAgent(table_renderer(env), ask, say, auto_forced=not entry.has_decisions)
    lineup = [seats[s] for s in range(num_players)]
    say(
        f"You are {env.possible_agents[seat]}. Opponents: "
        + ", ".join(
            f"{env.possible_agents[s]}={a.name}" for s, a in sorted(seats.items()) if s != seat
        )
    )
    from agents.arena import play_aec, play_parallel

    try:
        if entry.parallel:
            outcome = play_parallel(env, lineup, seed=seed)
        else:
            outcome = play_aec(env, lineup, seed=seed, on_decision=_announcer(env, seat, say))
    except QuitGame:
        say("Game abandoned.")
        return None
    say(table_renderer(env)(env.possible_agents[seat]))
    say(f"Game over. Result: {outcome.result}")
    say("Rewards: " + ", ".join(f"{a}: {r:+g}" for a, r in outcome.rewards.items()))
    return outcome.result


def _announcer(
    env: Any, human_seat: int, say: Callable[[str], None]
) -> Callable[[Decision, int], None]:
    """Says every other seat's move as the human's seat may know it: a Kozel discard is face
    down (K6), so ``player_1 plays: discard ▒ ▒`` (``text_seen_by``)."""
    human = env.possible_agents[human_seat]
    seat_of = {agent: seat for seat, agent in enumerate(env.possible_agents)}

    def announce(decision: Decision, action: int) -> None:
        if decision.agent != human:
            text = decision.legal_moves[action]
            seen = text_seen_by(decision.engine, text, seat_of[decision.agent], human_seat)
            say(f"{decision.agent} plays: {seen}")

    return announce


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="kiaule play", description=describe(__doc__))
    parser.add_argument("game", choices=list(GAMES), help="the game to play")
    parser.add_argument("--seat", type=non_negative_int, default=0, help="your seat (0 acts first)")
    parser.add_argument(
        "--opponents",
        "--agents",
        dest="opponents",
        nargs="+",
        default=None,
        help="agent name(s) for the other seats (default <game>/heuristic)",
    )
    parser.add_argument(
        "--web",
        action="store_true",
        help="play in the browser: serve a local page on 127.0.0.1 (experiments/web_play.py)",
    )
    parser.add_argument(
        "--port", type=non_negative_int, default=0, help="--web: the port (default: a free one)"
    )
    parser.add_argument("--open", action="store_true", help="--web: open the page in a browser")
    parser.add_argument(
        "--record",
        default=None,
        metavar="FILE.json",
        help="--web: where to save the game record (never overwritten; default "
        "runs/play/<game>-<time>.json)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=None, help="seed of the deal and the agents"
    )
    parser.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="env options, e.g. num_players=3 deck=54 series=true",
    )
    args = parser.parse_args(argv)
    try:
        kwargs = parse_key_values(args.set, "--set")
    except ValueError as exc:
        parser.error(str(exc))
    opponents = args.opponents or [f"{args.game}/heuristic"]
    if not args.web and (args.record or args.port or args.open):
        parser.error("--record, --port and --open go with --web")
    try:
        if args.web:
            from experiments.web_play import serve

            record, port = args.record, args.port
            serve(args.game, args.seat, opponents, args.seed, kwargs, record, port, args.open)
        else:
            play(args.game, args.seat, opponents, args.seed, kwargs)
    except (ValueError, TypeError, OSError) as exc:  # bad env option, agent, record or port
        fail("kiaule play", str(exc))
    return 0


# For tests and tools that build decisions themselves.
__all__ = ["HumanAgent", "QuitGame", "decision_from_env", "main", "parse_human_move", "play"]
