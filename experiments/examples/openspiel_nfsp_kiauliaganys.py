"""OpenSpiel's NFSP (PyTorch) on two-player Kiauliaganys, through the pyspiel bridge.

Neural Fictitious Self-Play (``open_spiel.python.pytorch.nfsp``) trains one agent per seat on
the bridged ``kiaule_kiauliaganys`` (RULES §2; 2 players, the 36-card deck, ``max_turns`` 60)
through ``open_spiel.python.rl_environment``. Its networks read the bridge's fixed-size
``information_state_tensor``: the seat's observation (the env's encoder) followed by its own
actions since the deal, one-hot, padded to the longest game. After training, each agent's
average policy plays against uniformly random legal moves, seats swapped, and the example
reports its mean return (G12 win_loss: +1 a win, −1 the swineherd).

    python -m experiments.examples.openspiel_nfsp_kiauliaganys --episodes 2000
    python -m experiments.examples.openspiel_nfsp_kiauliaganys --smoke
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import nfsp

import kiaule_env.openspiel  # noqa: F401 - registers the bridged games

#: the small variant: two players, the 36-card deck, at most 60 turns (G10)
GAME = "kiaule_kiauliaganys"
PARAMS: dict[str, Any] = {"num_players": 2, "deck": 36, "max_turns": 60}


@dataclass
class Figures:
    """What a run measured."""

    #: the length of the information-state tensor the networks read
    info_state_size: int
    episodes: int
    #: the agents' training steps (their decisions), both seats together
    steps: int
    #: each seat's last supervised (average-policy) and RL (best-response DQN) losses
    losses: list[tuple[float | None, float | None]]
    #: the average policies' mean return against random moves, over both seats
    mean_return_vs_random: float
    eval_games: int


def _positive(name: str, value: Any) -> int:
    """``value`` if it is a positive int, else a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def make_agents(
    env: rl_environment.Environment,
    hidden: int,
    anticipatory: float,
    batch: int = 32,
    capacity: int = 10_000,
    seed: int = 0,
) -> list:
    """One NFSP agent per seat, sized from the environment's specs (the information-state
    tensor and the game's actions), learning every ``batch`` steps once its buffers hold a
    batch, so that short runs update too; ``capacity`` transitions per buffer."""
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    return [
        nfsp.NFSP(
            seat,
            state_representation_size=size,
            num_actions=actions,
            hidden_layers_sizes=[hidden],
            reservoir_buffer_capacity=capacity,
            anticipatory_param=anticipatory,
            batch_size=batch,
            min_buffer_size_to_learn=batch,
            learn_every=batch,
            replay_buffer_capacity=capacity,
            seed=seed + 3 * seat,  # NFSP seeds its networks with seed + 1 and seed + 2
        )
        for seat in range(env.num_players)
    ]


def train(env: rl_environment.Environment, agents: list, episodes: int) -> int:
    """``episodes`` self-play episodes; returns the number of decisions taken."""
    steps = 0
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            seat = time_step.observations["current_player"]
            output = agents[seat].step(time_step)
            time_step = env.step([output.action])
            steps += 1
        for agent in agents:  # the last step: each agent sees the result and learns from it
            agent.step(time_step)
    return steps


def evaluate(env: rl_environment.Environment, agents: list, games: int, seed: int) -> float:
    """The average policies' mean return against uniformly random legal moves: in game ``k``
    the agent of seat ``k % 2`` plays, the other seat moves at random."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for k in range(games):
        learner = k % 2
        time_step = env.reset()
        while not time_step.last():
            seat = time_step.observations["current_player"]
            if seat == learner:
                with agents[seat].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                    action = agents[seat].step(time_step, is_evaluation=True).action
            else:
                action = int(rng.choice(time_step.observations["legal_actions"][seat]))
            time_step = env.step([action])
        total += time_step.rewards[learner]
    return total / games


def run(
    episodes: int,
    eval_games: int,
    seed: int = 0,
    hidden: int = 64,
    anticipatory: float = 0.1,
    batch: int = 32,
    capacity: int = 10_000,
    params: dict[str, Any] | None = None,
) -> Figures:
    """Train NFSP for ``episodes`` episodes on the small Kiauliaganys (``params`` override
    :data:`PARAMS`), then evaluate."""
    _positive("episodes", episodes)
    _positive("eval_games", eval_games)
    _positive("hidden", hidden)
    _positive("batch", batch)
    _positive("capacity", capacity)
    if not 0.0 <= anticipatory <= 1.0:
        raise ValueError(f"anticipatory must lie in [0, 1], got {anticipatory!r}")
    nfsp.set_seed(seed)
    game = pyspiel.load_game(GAME, {**PARAMS, **(params or {})})
    sampler = rl_environment.ChanceEventSampler(seed=seed)  # the deal's chance nodes
    env = rl_environment.Environment(game, chance_event_sampler=sampler)
    agents = make_agents(env, hidden, anticipatory, batch, capacity, seed)
    steps = train(env, agents, episodes)
    mean = evaluate(env, agents, eval_games, seed)
    return Figures(
        info_state_size=env.observation_spec()["info_state"][0],
        episodes=episodes,
        steps=steps,
        losses=[agent.loss for agent in agents],
        mean_return_vs_random=mean,
        eval_games=eval_games,
    )


def main(argv: Sequence[str] | None = None) -> Figures:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=500, help="training episodes")
    parser.add_argument("--eval-games", type=int, default=100, help="games against random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="4 episodes, 2 games (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.episodes, args.eval_games = 4, 2
    for name in ("episodes", "eval_games"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    start = time.perf_counter()
    figures = run(args.episodes, args.eval_games, args.seed)
    print(
        f"NFSP on 2-player Kiauliaganys: information state {figures.info_state_size} floats, "
        f"{figures.episodes} episodes ({figures.steps} decisions), average policy vs random "
        f"{figures.mean_return_vs_random:+.3f} over {figures.eval_games} games, "
        f"{time.perf_counter() - start:.1f} s"
    )
    return figures


if __name__ == "__main__":
    main()
