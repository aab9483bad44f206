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
    partial_steps = True  # a slot whose action is -1 does not move

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
            if actions[slot] < 0:
                continue
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


class Counter:
    """A tiny numpy game with a ``state`` array and no ``partial_steps``: the base's fallback
    (copy the waiting rows, step all, put them back) is exercised on it. Two seats alternate;
    action ``a`` (0 or 1 legal) adds ``1 + a`` to the count; the episode ends at the target
    (``3 + seed % 5``) and the seat that reached it gets +1. Spaces as High card's."""

    num_players, obs_size, num_actions = 2, 42, 12

    def __init__(self, num_envs: int, options: Mapping[str, Any]) -> None:
        self.state = np.zeros((num_envs, 3), np.int64)  # count, target, seat to act
        self.obs = np.zeros((num_envs, self.obs_size), np.float32)
        self.mask = np.zeros((num_envs, self.num_actions), np.int8)
        self.mask[:, :2] = 1
        self.agent = np.zeros(num_envs, np.int64)

    def _write(self, slots: np.ndarray) -> None:
        self.obs[slots, 0] = self.state[slots, 0]
        self.agent[slots] = self.state[slots, 2]

    def reset_slots(self, slots: np.ndarray, seeds: np.ndarray) -> None:
        self.state[slots] = np.stack([0 * seeds, 3 + seeds % 5, 0 * seeds], axis=1)
        self._write(slots)

    def step(self, actions: np.ndarray, rewards: np.ndarray, terminated: np.ndarray) -> None:
        if (actions < 0).any():
            raise AssertionError("Counter has no partial_steps: it must never get -1")
        s = self.state
        s[:, 0] += 1 + actions
        ended = s[:, 0] >= s[:, 1]
        rewards[np.flatnonzero(ended), s[ended, 2]] = 1.0
        terminated[:] = ended
        s[:, 2] = 1 - s[:, 2]
        self._write(np.arange(s.shape[0]))

    def results(self, slots: np.ndarray) -> list[dict[str, Any]]:
        return [{"count": int(self.state[s, 0])} for s in slots]

    def load_state(self, slot: int, state: Any) -> None:
        self.state[slot] = state  # (count, target, seat to act)
        self._write(np.array([slot]))

    def state_bytes(self) -> int:
        return self.state.itemsize * self.state.shape[1]
