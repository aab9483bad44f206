"""Play episodes between agents (AEC or parallel): a thin face on the one play loop.

``play_aec`` and ``play_parallel`` are :func:`kiaule_env.core.play.play_episode` with the
outcome keyed by agent id, as tests of the rule-based agents and evaluations of learned agents
like to read it. Each seat is played by the agent given for it; agents see only
:class:`~agents.base.Decision` s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent, Decision
from kiaule_env.core.play import play_episode


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
    """Play one episode of an env (AEC, wrapped or raw, or parallel); ``seats[i]`` plays
    ``player_i``. ``on_decision(decision, action)`` sees every decision (checks, commentary)."""
    if on_decision is not None:
        seats = [_Watched(agent, on_decision) for agent in seats]
    episode = play_episode(env, seats, seed, options, record=record_moves)
    names = env.possible_agents
    return EpisodeOutcome(
        dict(zip(names, episode.rewards, strict=True)), episode.result, episode.moves
    )


#: the same loop serves ParallelEnvs (Pig): the name is kept for readers of either API
play_parallel = play_aec


class _Watched:
    """An agent whose every decision and answer is shown to a callback."""

    def __init__(self, agent: Agent, on_decision: Callable[[Decision, int], None]):
        self.agent = agent
        self.name = agent.name
        self.on_decision = on_decision

    def reset(self) -> None:
        self.agent.reset()

    def act(self, decision: Decision) -> int:
        action = self.agent.act(decision)
        self.on_decision(decision, action)
        return action
