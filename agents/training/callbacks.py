"""SB3 callbacks of a training run: self-play snapshots, evaluation, checkpoints, time budget,
and timers that split the wall time between the environment side and the network side.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.training.evaluate import EvalResult, evaluate
from agents.training.policy import NumpyPolicy, PolicyAgent


def snapshot_of(model: Any) -> NumpyPolicy:
    """A frozen numpy copy of the model's current actor."""
    return NumpyPolicy.from_sb3(model.policy)


class SelfPlayCallback(BaseCallback):
    """Every ``every`` steps, add a frozen copy of the learner to every env's pool."""

    def __init__(self, every: int, initial: bool = True):
        super().__init__()
        self.every = int(every)
        self.initial = initial
        self._last = 0
        self.added = 0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps
        has_any = bool(self.training_env.env_method("pool_snapshots", indices=[0])[0])
        if self.initial and not has_any:
            self._add()

    def _add(self) -> None:
        arrays = snapshot_of(self.model).to_arrays()
        self.training_env.env_method("add_snapshot", arrays)
        self.added += 1
        self.logger.record("selfplay/snapshots_added", self.added)

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps
            self._add()
        return True


class EvalCallback(BaseCallback):
    """Every ``every`` steps, evaluate the deterministic policy seat-rotated against ``opponent``;
    log the result, keep the best model (by mean reward) as ``best.zip``.
    """

    def __init__(
        self,
        every: int,
        game: str,
        opponent: str,
        deals: int,
        env_kwargs: dict[str, Any],
        team_play: bool,
        save_model: Callable[[Path], None] | None = None,
        best_path: Path | None = None,
        log_path: Path | None = None,
        seed: int = 10**6,
    ):
        super().__init__()
        self.every = int(every)
        self.game, self.opponent, self.deals = game, opponent, deals
        self.env_kwargs, self.team_play = env_kwargs, team_play
        self.save_model, self.best_path, self.log_path = save_model, best_path, log_path
        self.seed = seed
        self.best = -np.inf
        self.seconds = 0.0
        self.history: list[dict[str, Any]] = []
        self._last = 0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps

    def run_eval(self) -> EvalResult:
        start = time.perf_counter()
        policy = snapshot_of(self.model)
        result = evaluate(
            self.game,
            lambda s: PolicyAgent(policy, name=f"{self.game}/learner", seed=s, deterministic=True),
            self.opponent,
            deals=self.deals,
            env_kwargs=self.env_kwargs,
            seed=self.seed,
            team_play=self.team_play,
        )
        self.logger.record("eval/mean_reward", result.mean_reward)
        self.logger.record("eval/reward_ci95", result.reward_ci95)
        self.logger.record("eval/win_rate", result.win_rate)
        entry = {"timesteps": self.num_timesteps, **result.as_dict()}
        self.history.append(entry)
        if self.log_path is not None:
            with open(self.log_path, "a") as fh:
                fh.write(json.dumps(entry) + "\n")
        if result.mean_reward > self.best and self.save_model is not None and self.best_path:
            self.best = result.mean_reward
            self.save_model(self.best_path)
        self.seconds += time.perf_counter() - start
        return result

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps
            self.run_eval()
        return True


class CheckpointCallback(BaseCallback):
    """Every ``every`` steps, save the model and the pool's snapshots so training can resume."""

    def __init__(self, every: int, save: Callable[[int], Path]):
        super().__init__()
        self.every = int(every)
        self.save = save
        self._last = 0
        self.seconds = 0.0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps
            start = time.perf_counter()
            self.save(self.num_timesteps)
            self.seconds += time.perf_counter() - start
        return True


class TimeBudgetCallback(BaseCallback):
    """Stop training once ``seconds`` of wall time have passed since ``learn`` began."""

    def __init__(self, seconds: float | None):
        super().__init__()
        self.seconds = seconds
        self.stopped_early = False
        self._start = 0.0

    def _on_training_start(self) -> None:
        self._start = time.perf_counter()

    def _on_step(self) -> bool:
        if self.seconds is not None and time.perf_counter() - self._start > self.seconds:
            self.stopped_early = True
            return False
        return True


class TimingCallback(BaseCallback):
    """Wall time of ``learn`` split into rollout collection and PPO updates."""

    def __init__(self):
        super().__init__()
        self.rollout = 0.0
        self.update = 0.0
        self.learn = 0.0
        self._t_learn = self._t_rollout = self._t_update = 0.0
        self.start_steps = 0

    def _on_training_start(self) -> None:
        self._t_learn = time.perf_counter()
        self.start_steps = self.num_timesteps
        self._t_update = 0.0

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._t_update:
            self.update += now - self._t_update
            self._t_update = 0.0
        self._t_rollout = now

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self.rollout += now - self._t_rollout
        self._t_update = now

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        now = time.perf_counter()
        self.learn = now - self._t_learn
        if self._t_update:  # ended after an update
            self.update += now - self._t_update
        elif self._t_rollout:  # stopped during a rollout (time budget)
            self.rollout += now - self._t_rollout
