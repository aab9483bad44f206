"""Seat-rotated evaluation of an agent against an opponent, with 95% confidence intervals.

Every deal (an env seed) is played once with the evaluated agent on each side of the table — each
seat, or each team in Kozel team play — and the opponent on all others. With
``seating="alternate"`` the sides are every other seat (``0, 2, …`` then ``1, 3, …``): the agent
plays half the table, as ``kiaule tournament`` seats two agents, so the evaluation measures what
the two-agent tournament does (an even number of players; in Kozel these are the teams). The
same seed gives the same deal, so the rotation cancels most of the luck of the cards (duplicate
play). Each deal's average over its rotations is one independent sample: the mean reward gets
Student's t interval over the deals, and the win rate, a share, the Korn–Graubard interval,
which stays inside [0, 1] (:mod:`agents.intervals`, the same intervals the tournaments report).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from agents.arena import play_aec, play_parallel
from agents.base import Agent
from agents.intervals import paired_mean_ci, paired_proportion_ci
from agents.training.pool import pair_sides
from kiaule_env import get_game

#: how :func:`evaluate` seats the evaluated agent: one seat (or team) per game, or every other
#: seat (the two-agent tournament's seating)
SEATINGS = ("one", "alternate")


@dataclass
class EvalResult:
    """Mean reward per game of the evaluated side, win/loss rates, and their 95% intervals.

    ``reward_ci95`` is the half-width of the mean reward's t interval (inf with one deal);
    ``win_ci95`` is the win rate's interval ``[lo, hi]``, inside [0, 1] (``[0, 1]`` with one
    deal): a share's interval is not symmetric.
    """

    game: str
    agent: str
    opponent: str
    env_kwargs: dict[str, Any]
    games: int
    deals: int
    mean_reward: float
    reward_ci95: float
    win_rate: float
    win_ci95: tuple[float, float]
    loss_rate: float
    seconds: float = 0.0
    per_side_mean: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        return (
            f"{self.agent} vs {self.opponent}: mean reward {self.mean_reward:+.3f} "
            f"± {self.reward_ci95:.3f}, win rate {self.win_rate:.3f} "
            f"[{self.win_ci95[0]:.3f}, {self.win_ci95[1]:.3f}], "
            f"loss rate {self.loss_rate:.3f} ({self.games} games, {self.deals} deals)"
        )


def _intervals(rewards: np.ndarray) -> tuple[float, float, float, tuple[float, float]]:
    """Mean reward with its t half-width, and the win rate with its interval, over deals.

    ``rewards[d, r]`` is the evaluated side's reward in deal ``d``, rotation ``r``.
    """
    by_deal = {d: row.tolist() for d, row in enumerate(rewards)}
    reward = paired_mean_ci(by_deal)
    wins = paired_proportion_ci(
        {d: (row > 0).astype(float).tolist() for d, row in enumerate(rewards)}
    )
    half = reward.half_width
    win_lo, win_hi = (0.0, 1.0) if wins.lo is None or wins.hi is None else (wins.lo, wins.hi)
    return (
        reward.mean,
        float("inf") if half is None else half,
        wins.mean,
        (win_lo, win_hi),
    )


def evaluation_sides(
    game: str, num_players: int, team_play: bool = True, seating: str = "one"
) -> list[tuple[int, ...]]:
    """The seats the evaluated agent plays in each game of a deal: one seat per game (its team's
    seats in a game with teams and ``team_play``), or with ``seating="alternate"`` every other
    seat, starting at seat 0 and then at seat 1. ``ValueError`` for another seating, or for
    ``alternate`` with an odd number of players (the two halves of the table would differ)."""
    if seating not in SEATINGS:
        raise ValueError(f"seating must be one of {', '.join(SEATINGS)}, got {seating!r}")
    if seating == "alternate":
        return pair_sides(num_players, "seating 'alternate'")
    spec = get_game(game)
    if team_play and spec.teams is not None:
        return [tuple(side) for side in spec.sides(num_players)]
    return [(s,) for s in range(num_players)]


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
    seating: str = "one",
) -> EvalResult:
    """Play ``deals`` deals, each once per side of the table (:func:`evaluation_sides`); see the
    module docstring.

    ``agent`` and ``opponent`` are registry names or factories ``seed -> Agent``; every seat gets
    its own instance.
    """
    import time

    from agents import registry

    spec = get_game(game)
    env_kwargs = dict(env_kwargs or {})
    env = spec.native_env(**env_kwargs)
    n = len(env.possible_agents)
    sides = evaluation_sides(game, n, team_play, seating)

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
    mean, ci, win, win_ci = _intervals(rewards)
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
