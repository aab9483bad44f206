"""Seat-rotated evaluation of an agent against an opponent, with 95% confidence intervals.

Every deal (an env seed) is played once with the evaluated agent on each side of the table — each
seat, or each team in Kozel team play — and the opponent on all others. The same seed gives the
same deal, so the rotation cancels most of the luck of the cards (duplicate play). The mean
reward and the win rate come with normal-approximation 95% intervals computed over the deals
(each deal's average over its rotations is one independent sample).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from agents.arena import play_aec, play_parallel
from agents.base import Agent
from kiaule_env import get_game

Z95 = 1.959964


@dataclass
class EvalResult:
    """Mean reward per game of the evaluated side, win/loss rates, and their 95% intervals."""

    game: str
    agent: str
    opponent: str
    env_kwargs: dict[str, Any]
    games: int
    deals: int
    mean_reward: float
    reward_ci95: float
    win_rate: float
    win_ci95: float
    loss_rate: float
    seconds: float = 0.0
    per_side_mean: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        return (
            f"{self.agent} vs {self.opponent}: mean reward {self.mean_reward:+.3f} "
            f"± {self.reward_ci95:.3f}, win rate {self.win_rate:.3f} ± {self.win_ci95:.3f}, "
            f"loss rate {self.loss_rate:.3f} ({self.games} games, {self.deals} deals)"
        )


def mean_ci95(samples: np.ndarray) -> tuple[float, float]:
    """Mean and half-width of its normal-approximation 95% interval."""
    n = len(samples)
    if n == 0:
        return math.nan, math.nan
    mean = float(np.mean(samples))
    if n == 1:
        return mean, math.inf
    return mean, float(Z95 * np.std(samples, ddof=1) / math.sqrt(n))


def evaluate(
    game: str,
    agent: Callable[[int], Agent] | str,
    opponent: Callable[[int], Agent] | str,
    deals: int,
    env_kwargs: dict[str, Any] | None = None,
    seed: int = 0,
    team_play: bool = True,
    agent_label: str | None = None,
    opponent_label: str | None = None,
) -> EvalResult:
    """Play ``deals`` deals, each once per side of the table; see the module docstring.

    ``agent`` and ``opponent`` are registry names or factories ``seed -> Agent``; every seat gets
    its own instance.
    """
    import time

    from agents import registry

    spec = get_game(game)
    env_kwargs = dict(env_kwargs or {})
    env = spec.native_env(**env_kwargs)
    n = len(env.possible_agents)
    sides = spec.sides(n) if (team_play and spec.teams is not None) else [(s,) for s in range(n)]

    def factory(who: Callable[[int], Agent] | str) -> Callable[[int], Agent]:
        if isinstance(who, str):
            return lambda s: registry.make(who, seed=s)
        return who

    make_agent, make_opp = factory(agent), factory(opponent)
    agent_seats = [make_agent(seed * 7919 + 101 + s) for s in range(n)]
    opp_seats = [make_opp(seed * 7919 + 211 + s) for s in range(n)]
    play = play_parallel if spec.parallel else play_aec
    rewards = np.zeros((deals, len(sides)))
    start = time.perf_counter()
    for d in range(deals):
        for r, side in enumerate(sides):
            lineup = [agent_seats[s] if s in side else opp_seats[s] for s in range(n)]
            outcome = play(env, lineup, seed=seed + d)
            rewards[d, r] = np.mean([outcome.rewards[env.possible_agents[s]] for s in side])
    seconds = time.perf_counter() - start
    mean, ci = mean_ci95(rewards.mean(axis=1))
    win, win_ci = mean_ci95((rewards > 0).mean(axis=1))
    return EvalResult(
        game=game,
        agent=agent_label or (agent if isinstance(agent, str) else agent_seats[0].name),
        opponent=opponent_label or (opponent if isinstance(opponent, str) else opp_seats[0].name),
        env_kwargs=env_kwargs,
        games=deals * len(sides),
        deals=deals,
        mean_reward=mean,
        reward_ci95=ci,
        win_rate=win,
        win_ci95=win_ci,
        loss_rate=float((rewards < 0).mean()),
        seconds=seconds,
        per_side_mean=rewards.mean(axis=0).round(4).tolist(),
    )
