"""A CleanRL-style single-file masked PPO on Kozel (RULES §1), in plain PyTorch.

Everything is here: the rollout loop over the AEC env, the masked categorical (illegal
actions' logits set to a large negative number before the softmax, so they are never sampled
and get no probability mass in the loss), generalised advantage estimation per seat, and the
clipped PPO update. One policy plays the team of seats 0 and 2 (K1: partners) against a
uniformly random team; the reward is the env's (defaults: loss points, K12), credited to the
seat's latest decision (AEC ``last()`` returns what the seat earned since it last acted).

    python -m experiments.examples.cleanrl_masked_ppo_kozel --iterations 50
    python -m experiments.examples.cleanrl_masked_ppo_kozel --smoke
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from pettingzoo import AECEnv
from torch import nn

from kiaule_env import kozel_v0

LEARNERS = ("player_0", "player_2")


@dataclass
class Args:
    """The run's hyperparameters (CleanRL keeps them in one place)."""

    iterations: int = 50
    games_per_iteration: int = 16
    epochs: int = 4
    minibatch: int = 256
    lr: float = 3e-4
    gamma: float = 1.0  # an episodic game: the final score counts in full
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 128
    seed: int = 0
    eval_games: int = 50


class Agent(nn.Module):
    """Actor and critic MLPs on the observation vector."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.actor = nn.Sequential(
            nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, num_actions)
        )

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        """The masked categorical: illegal logits at -1e8 (zero probability)."""
        logits = self.actor(obs).masked_fill(~mask, -1e8)
        return torch.distributions.Categorical(logits=logits)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)


@dataclass
class Trajectory:
    """One seat's decisions in one game."""

    obs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logps: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)


def play(
    env: AECEnv, agent: Agent, rng: np.random.Generator, seed: int, greedy: bool
) -> tuple[list[Trajectory], float]:
    """One game; the learners' trajectories and the team's return (seat 0's total)."""
    env.reset(seed=seed)
    trajs = {name: Trajectory() for name in LEARNERS}
    team_return = 0.0
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if name in LEARNERS:
            traj = trajs[name]
            if traj.actions:
                traj.rewards[-1] += reward
            if name == LEARNERS[0]:
                team_return += reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        if name not in LEARNERS:
            env.step(int(rng.choice(np.flatnonzero(mask))))
            continue
        with torch.no_grad():
            o = torch.as_tensor(obs["observation"]).unsqueeze(0)
            m = torch.as_tensor(mask).unsqueeze(0)
            dist = agent.dist(o, m)
            action = dist.probs.argmax(-1) if greedy else dist.sample()
            traj.obs.append(obs["observation"])
            traj.masks.append(mask)
            traj.actions.append(int(action))
            traj.logps.append(float(dist.log_prob(action)))
            traj.values.append(float(agent.value(o)))
            traj.rewards.append(0.0)
        env.step(int(action))
    return list(trajs.values()), team_return


def gae(traj: Trajectory, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns of one finished trajectory (the value after the end is 0)."""
    n = len(traj.rewards)
    adv = np.zeros(n, np.float32)
    last = 0.0
    for t in reversed(range(n)):
        next_value = traj.values[t + 1] if t + 1 < n else 0.0
        delta = traj.rewards[t] + gamma * next_value - traj.values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv, adv + np.asarray(traj.values, np.float32)


def update(agent: Agent, optim: torch.optim.Optimizer, trajs: list[Trajectory], args: Args):
    """The clipped PPO update over the iteration's decisions; returns the last losses."""
    parts = [gae(t, args.gamma, args.gae_lambda) for t in trajs if t.actions]
    obs = torch.as_tensor(np.concatenate([np.stack(t.obs) for t in trajs if t.actions]))
    masks = torch.as_tensor(np.concatenate([np.stack(t.masks) for t in trajs if t.actions]))
    actions = torch.as_tensor(np.concatenate([t.actions for t in trajs if t.actions]))
    old_logp = torch.as_tensor(np.concatenate([t.logps for t in trajs if t.actions]))
    adv = torch.as_tensor(np.concatenate([a for a, _ in parts]))
    returns = torch.as_tensor(np.concatenate([r for _, r in parts]))
    n = len(actions)
    stats = {}
    for _ in range(args.epochs):
        for idx in torch.randperm(n).split(args.minibatch):
            dist = agent.dist(obs[idx], masks[idx])
            ratio = (dist.log_prob(actions[idx]) - old_logp[idx]).exp()
            a = adv[idx]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(idx) > 1 else a
            pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
            v_loss = 0.5 * (agent.value(obs[idx]) - returns[idx]).pow(2).mean()
            entropy = dist.entropy().mean()
            loss = pg + args.vf_coef * v_loss - args.ent_coef * entropy
            optim.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optim.step()
            stats = {"pg": pg.item(), "v": v_loss.item(), "entropy": entropy.item()}
    return stats


def evaluate(agent: Agent, games: int, seed: int) -> float:
    """The team's mean return, greedy, against the random team."""
    env, rng = kozel_v0.env(), np.random.default_rng(seed)
    return float(np.mean([play(env, agent, rng, seed + k, True)[1] for k in range(games)]))


def run(args: Args) -> dict[str, float]:
    """Train for ``args.iterations`` and evaluate before and after."""
    if args.iterations < 1 or args.games_per_iteration < 1:
        raise ValueError(f"iterations and games_per_iteration must be >= 1, got {args}")
    torch.manual_seed(args.seed)
    env = kozel_v0.env()
    obs_size = env.observation_space("player_0")["observation"].shape[0]
    agent = Agent(obs_size, env.action_space("player_0").n, args.hidden)
    optim = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    rng = np.random.default_rng(args.seed)
    before = evaluate(agent, args.eval_games, 10_000)
    start, decisions, stats = time.perf_counter(), 0, {}
    for it in range(args.iterations):
        trajs = []
        for g in range(args.games_per_iteration):
            seed = args.seed * 1_000_003 + it * args.games_per_iteration + g
            trajs += play(env, agent, rng, seed, greedy=False)[0]
        decisions += sum(len(t.actions) for t in trajs)
        stats = update(agent, optim, trajs, args)
    seconds = time.perf_counter() - start
    after = evaluate(agent, args.eval_games, 10_000)
    return {
        "decisions": float(decisions),
        "seconds": seconds,
        "before": before,
        "after": after,
        **stats,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=Args.iterations)
    parser.add_argument("--games-per-iteration", type=int, default=Args.games_per_iteration)
    parser.add_argument("--seed", type=int, default=Args.seed)
    parser.add_argument("--smoke", action="store_true", help="2 iterations of 2 games (CI)")
    ns = parser.parse_args(argv)
    args = Args(iterations=ns.iterations, games_per_iteration=ns.games_per_iteration, seed=ns.seed)
    if ns.smoke:
        args = Args(iterations=2, games_per_iteration=2, seed=ns.seed, eval_games=2)
    figures = run(args)
    print(
        f"masked PPO on Kozel: {figures['decisions']:.0f} learner decisions in "
        f"{figures['seconds']:.1f} s; team return vs random {figures['before']:+.2f} before, "
        f"{figures['after']:+.2f} after ({args.eval_games} games)"
    )
    return figures


if __name__ == "__main__":
    main()
