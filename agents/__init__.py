"""Agents for every game, by name: ``agents.make("kozel/heuristic", seed=0)``.

See :mod:`agents.base` for the protocol and :mod:`agents.registry` for the names.
"""

from agents.base import Agent, Decision, decision_from_env
from agents.registry import list_agents, make, register

__all__ = ["Agent", "Decision", "decision_from_env", "list_agents", "make", "register"]
