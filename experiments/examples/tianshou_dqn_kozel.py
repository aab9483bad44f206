"""Tianshou DQN with action masking on Kozel (RULES §1), seats 0 and 2 against random play.

Tianshou's ``PettingZooEnv`` turns the AEC env's ``{"observation", "action_mask"}`` into
``obs.obs`` / ``obs.mask``; DQN's Q-values of masked actions are pushed below every legal one
(``DiscreteQLearningPolicy.compute_q_value``), and the random opponents pick among the legal
actions (``MARLRandomDiscreteMaskedOffPolicyAlgorithm``). ``MultiAgentOffPolicyAlgorithm``
(Tianshou 2's successor of ``MultiAgentPolicyManager``) dispatches every transition to the
seat's algorithm, and a ``Collector`` gathers them into a shared replay buffer. The learning
team shares one DQN (seats 0 and 2); the loop alternates collection and updates, then
evaluates greedily against the random team.

    python -m experiments.examples.tianshou_dqn_kozel --steps 20000
    python -m experiments.examples.tianshou_dqn_kozel --smoke

Needs the ``examples`` extra (Tianshou 2).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step

from kiaule_env import kozel_v0

#: the learning team (K1: seats 0 and 2 play together)
LEARNERS = ("player_0", "player_2")


def make_env() -> PettingZooEnv:
    """One Kozel game (defaults: loss points reward) as Tianshou's ``PettingZooEnv``."""
    return PettingZooEnv(kozel_v0.env())


def build(env: PettingZooEnv, hidden: int, lr: float, seed: int) -> MultiAgentOffPolicyAlgorithm:
    """The multi-agent algorithm: one shared DQN for the learners, random for the others."""
    torch.manual_seed(seed)
    obs_space = env.observation_space["observation"]
    net = Net(
        state_shape=obs_space.shape,
        action_shape=env.action_space.n,
        hidden_sizes=(hidden, hidden),
    )
    policy = DiscreteQLearningPolicy(
        model=net,
        action_space=env.action_space,
        observation_space=obs_space,
        eps_training=0.2,
        eps_inference=0.0,
    )
    dqn = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=lr),
        gamma=0.99,
        n_step_return_horizon=1,
        target_update_freq=200,
    )
    algorithms: list[Any] = [
        dqn if agent in LEARNERS else MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
        for agent in env.agents
    ]
    return MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)


def evaluate(algorithm: MultiAgentOffPolicyAlgorithm, episodes: int, seed: int) -> float:
    """The learners' mean episode return, greedy, against the random team."""
    algorithm.policy.eval()
    envs = DummyVectorEnv([make_env])
    envs.seed(seed)
    stats = Collector(algorithm, envs).collect(n_episode=episodes, reset_before_collect=True)
    returns = np.asarray(stats.returns)  # episodes × seats
    seats = [int(agent.split("_")[1]) for agent in LEARNERS]
    return float(returns[:, seats].mean())


def train(
    steps: int,
    batch: int = 64,
    hidden: int = 128,
    lr: float = 1e-3,
    seed: int = 0,
    eval_episodes: int = 20,
) -> dict[str, float]:
    """Collect ``steps`` env steps (in chunks of 100, an update of ``batch`` after each) and
    evaluate before and after; returns the figures."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive int, got {steps!r}")
    envs = DummyVectorEnv([make_env for _ in range(2)])
    envs.seed(seed)
    algorithm = build(make_env(), hidden, lr, seed)
    before = evaluate(algorithm, eval_episodes, seed + 1)
    buffer = VectorReplayBuffer(max(steps, 1000), len(envs))
    collector = Collector(algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    start, chunk, updates = time.perf_counter(), min(100, steps), 0
    collected = 0
    while collected < steps:
        algorithm.policy.train()
        collected += collector.collect(n_step=chunk).n_collected_steps
        with policy_within_training_step(algorithm.policy):  # what a Trainer would do
            for _ in range(max(1, chunk // 10)):
                algorithm.update(buffer=buffer, sample_size=batch)
                updates += 1
    seconds = time.perf_counter() - start
    after = evaluate(algorithm, eval_episodes, seed + 1)
    return {
        "steps": float(collected),
        "updates": float(updates),
        "seconds": seconds,
        "return_before": before,
        "return_after": after,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="env steps to collect")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="100 steps, 1 evaluation game (CI)")
    args = parser.parse_args(argv)
    steps, episodes = (100, 1) if args.smoke else (args.steps, 20)
    if steps < 1:
        parser.error(f"--steps must be >= 1, got {steps}")
    figures = train(steps, seed=args.seed, eval_episodes=episodes)
    print(
        f"Tianshou DQN on Kozel: {figures['steps']:.0f} steps, {figures['updates']:.0f} updates "
        f"in {figures['seconds']:.1f} s; team return vs random {figures['return_before']:+.2f} "
        f"before, {figures['return_after']:+.2f} after"
    )
    return figures


if __name__ == "__main__":
    main()
