"""Kozel (Goat), RULES.md §1: rules engine, encoders and the PettingZoo env.

The public, versioned module is :mod:`kiaule_env.kozel_v0`.
"""

from kiaule_env.kozel.rules import Config, State, View

__all__ = ["Config", "State", "View"]
