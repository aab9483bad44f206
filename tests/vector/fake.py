"""A batched env made of Python envs, one per slot: a reference ``VectorGame`` for the tests of
the batch owner (``kiaule_env.vector.base``), the test harness and the training adapters, for
any turn-based game, independent of the games' compiled implementations.

It is exact by construction (each slot *is* ``raw_env(**options)`` reset with the slot's seed),
slow, and never shipped. ``Skewed`` breaks it on purpose, so that the harness is seen to fail.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import kiaule_env


class PythonVector:
    """One ``raw_env`` per slot behind the :class:`~kiaule_env.vector.base.VectorGame` API."""

    game = "highcard"

    def __init__(self, num_envs: int, options: Mapping[str, Any]) -> None:
        if "unsupported" in options:
            raise ValueError("option 'unsupported' is not supported by the batched env yet")
        descriptor = kiaule_env.GAMES[self.game]
        self.envs = [descriptor.raw_env(**options) for _ in range(num_envs)]
        first = self.envs[0]
        self.num_players = first.num_players
        self.num_actions = first.num_actions
        self.obs_size = first.layout.size
        self.obs = np.zeros((num_envs, self.obs_size), np.float32)
        self.mask = np.zeros((num_envs, self.num_actions), np.int8)
        self.agent = np.zeros(num_envs, np.int64)

    def _write(self, slot: int) -> None:
        env = self.envs[slot]
        if not env.agents or all(env.terminations.values()):
            return
        agent = env.agent_selection
        seen = env.observe(agent)
        self.obs[slot] = seen["observation"]
        self.mask[slot] = seen["action_mask"]
        self.agent[slot] = env.agent_name_mapping[agent]

    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        for slot, seed in zip(slots, seeds, strict=True):
            self.envs[slot].reset(seed=int(seed))
            self._write(int(slot))

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        for slot, env in enumerate(self.envs):
            env.step(int(actions[slot]))
            for seat, agent in enumerate(env.possible_agents):
                rewards[slot, seat] = env.rewards.get(agent, 0.0)
            terminated[slot] = all(env.terminations.values())
            self._write(slot)

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]:
        return [self.envs[s].infos[self.envs[s].agent_selection]["result"] for s in slots]

    def load_state(self, slot: int, state: Any) -> None:
        self.envs[slot].load_state(state)
        self._write(slot)

    def state_bytes(self) -> int:
        return 0


class KozelPython(PythonVector):
    game = "kozel"


class Skewed(PythonVector):
    """Wrong on purpose: from the third step of slot 1's episode, observation bit 0 flips."""

    def __init__(self, num_envs: int, options: Mapping[str, Any]) -> None:
        super().__init__(num_envs, options)
        self.count = np.zeros(num_envs, np.int64)

    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        self.count[slots] = 0
        super().reset_slots(slots, seeds)

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        super().step(actions, rewards, terminated)
        self.count += 1
        if self.count[1] == 3 and not terminated[1]:
            self.obs[1, 0] = 1.0 - self.obs[1, 0]


class WrongReward(PythonVector):
    """Wrong on purpose: the last reward of an episode is halved."""

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        super().step(actions, rewards, terminated)
        rewards[terminated] *= 0.5


def use(monkeypatch: pytest.MonkeyPatch, game: str, cls: str) -> None:
    """Give ``game``'s descriptor the batched env ``tests.vector.fake:<cls>`` for one test."""
    descriptor = kiaule_env.GAMES[game]
    patched = replace(descriptor, vector=f"tests.vector.fake:{cls}")
    monkeypatch.setitem(kiaule_env.GAMES, game, patched)


class Leaky(KozelPython):
    """Wrong on purpose: the observation's first entry reads the whole state (hidden cards)."""

    def _write(self, slot: int) -> None:
        super()._write(slot)
        self.obs[slot, 0] = float(hash(repr(self.envs[slot].game_state)) % 9973)
