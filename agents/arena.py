"""Play episodes between agents through the public env API (AEC or parallel).

``play_aec`` is the loop everything that pits agents against each other uses: tests of the
rule-based agents, tournaments, evaluation of learned agents. Each seat is played by the agent
given for it; agents see only :class:`~agents.base.Decision` s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent, Decision, decision_from_env


@dataclass
class EpisodeOutcome:
    """Total reward per agent id, the env's ``result``, and the moves ``[agent, action, text]``."""

    rewards: dict[str, float]
    result: dict[str, Any] | None
    moves: list[list[Any]] = field(default_factory=list)


def play_aec(
    env: Any,
    seats: Sequence[Agent],
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    record_moves: bool = False,
    on_decision: Callable[[Decision, int], None] | None = None,
) -> EpisodeOutcome:
    """Play one episode of an AEC env; ``seats[i]`` plays ``player_i``."""
    env.reset(seed=seed, options=dict(options) if options else None)
    for agent in seats:
        agent.reset()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    result = None
    moves: list[list[Any]] = []
    raw = env.unwrapped
    for agent_id in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            if result is None and "result" in info:
                result = info["result"]
            env.step(None)
            continue
        decision = decision_from_env(env, agent_id, obs)
        action = int(seats[raw.agent_name_mapping[agent_id]].act(decision))
        if on_decision is not None:
            on_decision(decision, action)
        if record_moves:
            moves.append([agent_id, action, decision.legal_moves.get(action)])
        env.step(action)
        for a, r in env.rewards.items():
            totals[a] += r
    return EpisodeOutcome(totals, result, moves)


def play_parallel(
    env: Any,
    seats: Sequence[Agent],
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    record_moves: bool = False,
) -> EpisodeOutcome:
    """Play one episode of a ParallelEnv; ``seats[i]`` plays ``player_i``."""
    observations, infos = env.reset(seed=seed, options=dict(options) if options else None)
    for agent in seats:
        agent.reset()
    totals = dict.fromkeys(env.possible_agents, 0.0)
    result = None
    moves: list[list[Any]] = []
    index = {a: i for i, a in enumerate(env.possible_agents)}
    while env.agents:
        actions = {}
        for agent_id in env.agents:
            obs = observations[agent_id]
            decision = Decision(
                agent=agent_id,
                observation=obs["observation"],
                action_mask=obs["action_mask"],
                view=env.view(agent_id),
                legal_moves=env.legal_moves(agent_id),
            )
            actions[agent_id] = int(seats[index[agent_id]].act(decision))
            if record_moves:
                moves.append([agent_id, actions[agent_id], decision.legal_moves[actions[agent_id]]])
        observations, rewards, _, _, infos = env.step(actions)
        for a, r in rewards.items():
            totals[a] += r
        for info in infos.values():
            if "result" in info:
                result = info["result"]
    return EpisodeOutcome(totals, result, moves)
