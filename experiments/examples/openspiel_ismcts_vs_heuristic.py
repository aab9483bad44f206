"""OpenSpiel's IS-MCTS bot against the suite's rule-based agents, through the pyspiel bridge.

``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (random-rollout evaluator) plays Kozel
(seats 0 and 2, RULES §1) against ``kozel/heuristic`` (seats 1 and 3), and two-player
Kiauliaganys (RULES §2) against ``kiauliaganys/heuristic``, on the bridged games of
:mod:`kiaule_env.openspiel`. The bot samples worlds with the bridge's ``resample_from_infostate``
(the engine's ``resample_hidden``) and keys its tree by the perfect-recall information-state
strings. The suite's agents see their usual ``Decision`` (``LazyDecision`` on the bridged
state's engine state). Seats swap every other game, so both sides sit in both positions.

    python -m experiments.examples.openspiel_ismcts_vs_heuristic --games 4 --simulations 50
    python -m experiments.examples.openspiel_ismcts_vs_heuristic --smoke
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import agents
import kiaule_env.openspiel as bridge
from kiaule_env.core.play import LazyDecision

#: the matches: (label, pyspiel game, parameters, the bot's seats in even games)
MATCHES: dict[str, tuple[str, dict[str, Any], tuple[int, ...]]] = {
    "kozel": ("kiaule_kozel", {}, (0, 2)),
    "kiauliaganys": (
        "kiaule_kiauliaganys",
        {"num_players": 2, "deck": 36, "max_turns": 60},
        (0,),
    ),
}


def make_bot(game: pyspiel.Game, simulations: int, seed: int) -> ismcts.ISMCTSBot:
    """An IS-MCTS bot with one random rollout per leaf and the bridge's resampler."""
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
        raise ValueError(f"simulations must be a positive int, got {simulations!r}")
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(
        game,
        evaluator,
        uct_c=2.0,
        max_simulations=simulations,
        random_state=np.random.RandomState(seed + 1),
        child_selection_policy=ismcts.ChildSelectionPolicy.UCT,
    )
    bot.set_resampler(bridge.resampler(seed + 2))
    return bot


@dataclass
class GameResult:
    """One finished game: every seat's return, the bot's seats, the bot's decisions."""

    returns: list[float]
    bot_seats: tuple[int, ...]
    bot_decisions: int

    @property
    def bot_return(self) -> float:
        """The mean return of the bot's seats (zero-sum: the other side has the opposite)."""
        return float(np.mean([self.returns[s] for s in self.bot_seats]))


def play_game(
    game: pyspiel.Game,
    bot: Any,
    bot_seats: Sequence[int],
    agent: Any,
    rng: np.random.Generator,
) -> GameResult:
    """One game: chance from ``rng``, ``bot`` (a pyspiel bot) at ``bot_seats``, ``agent`` (a
    suite agent, ``act(Decision)``) at the other seats."""
    state = game.new_initial_state()
    agent.reset()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        seat = state.current_player()
        legal = state.legal_actions()
        if seat in bot_seats:
            action = int(bot.step(state))
            decisions += len(legal) > 1
        else:
            action = agent.act(LazyDecision(state.engine, state.game_state, seat, legal))
        state.apply_action(int(action))
    return GameResult(list(state.returns()), tuple(bot_seats), decisions)


def run_match(
    label: str, games: int, simulations: int, seed: int, opponent: str = "heuristic"
) -> list[GameResult]:
    """``games`` games of IS-MCTS against ``<game>/<opponent>``, seats swapped every other
    game (the bot takes the other team / the other seat)."""
    if label not in MATCHES:
        raise ValueError(f"unknown match {label!r}; choose one of {', '.join(MATCHES)}")
    name, params, seats = MATCHES[label]
    game = pyspiel.load_game(name, params)
    n = game.num_players()
    bot = make_bot(game, simulations, seed)
    agent = agents.make(f"{label}/{opponent}", seed=seed)
    rng = np.random.default_rng(seed)
    results = []
    for k in range(games):
        bot_seats = seats if k % 2 == 0 else tuple((s + 1) % n for s in seats)
        results.append(play_game(game, bot, bot_seats, agent, rng))
    return results


def summary(label: str, results: Sequence[GameResult], seconds: float) -> str:
    """One line: games, the bot's mean return and wins, the time."""
    mean = float(np.mean([r.bot_return for r in results]))
    wins = sum(r.bot_return > 0 for r in results)
    return (
        f"{label}: IS-MCTS vs heuristic, {len(results)} games, bot mean return {mean:+.3f}, "
        f"bot ahead in {wins}, {sum(r.bot_decisions for r in results)} searches, "
        f"{seconds:.1f} s"
    )


def main(argv: Sequence[str] | None = None) -> dict[str, list[GameResult]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per match (default 4)")
    parser.add_argument("--simulations", type=int, default=50, help="IS-MCTS simulations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--match", choices=list(MATCHES), action="append", help="default: all")
    parser.add_argument("--smoke", action="store_true", help="1 game, 8 simulations (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.games, args.simulations = 1, 8
    if args.games < 1:
        parser.error(f"--games must be >= 1, got {args.games}")
    out = {}
    for label in args.match or list(MATCHES):
        start = time.perf_counter()
        out[label] = run_match(label, args.games, args.simulations, args.seed)
        print(summary(label, out[label], time.perf_counter() - start))
    return out


if __name__ == "__main__":
    main()
