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


class ResumableCallback(BaseCallback):
    """A callback acting every ``every`` steps whose counter a resumed run takes over.

    ``_last`` (the step of its last action) is part of a checkpoint's training state
    (:meth:`state`, :meth:`restore`), so a resumed run acts at the same steps as an uninterrupted
    one.
    """

    def __init__(self, every: int):
        super().__init__()
        self.every = int(every)
        self._last = 0
        self._restored: dict[str, Any] | None = None

    def state(self) -> dict[str, Any]:
        return {"last": self._last}

    def restore(self, state: dict[str, Any]) -> None:
        """Take over a checkpoint's counters (applied when training starts)."""
        self._restored = dict(state)

    def _on_training_start(self) -> None:
        if self._restored is not None:
            self._apply(self._restored)
            self._restored = None
        else:
            self._last = self.num_timesteps

    def _apply(self, state: dict[str, Any]) -> None:
        self._last = int(state["last"])

    def _due(self) -> bool:
        return self.every > 0 and self.num_timesteps - self._last >= self.every


class SelfPlayCallback(ResumableCallback):
    """Every ``every`` steps, add a frozen copy of the learner to every env's pool."""

    def __init__(self, every: int, initial: bool = True):
        super().__init__(every)
        self.initial = initial
        self.added = 0

    def _on_training_start(self) -> None:
        super()._on_training_start()
        has_any = bool(self.training_env.env_method("pool_snapshots", indices=[0])[0])
        if self.initial and not has_any:
            self._add()

    def _add(self) -> None:
        arrays = snapshot_of(self.model).to_arrays()
        self.training_env.env_method("add_snapshot", arrays)
        self.added += 1
        self.logger.record("selfplay/snapshots_added", self.added)

    def _on_step(self) -> bool:
        if self._due():
            self._last = self.num_timesteps
            self._add()
        return True


class EvalCallback(ResumableCallback):
    """Every ``every`` steps, evaluate the policy seat-rotated against ``opponent`` and each of
    ``extra`` (name -> deals), played as the model will play (``deterministic``: its most
    probable move, else a draw from it) and seated by ``seating`` (one seat or team per game,
    or every other seat as the two-agent tournament: :func:`agents.training.evaluate.
    evaluation_sides`); log the results, keep the best model (by its mean reward against
    ``opponent``) as ``best.zip``.

    Every logged entry (``eval.jsonl``, one line per opponent) carries the step count and two
    clocks for the learning curves (:mod:`experiments.train.curves`): ``elapsed_s``, the run's
    wall-clock seconds since training started, and ``train_s``, the same less the time spent in
    evaluations. A resumed run continues both clocks from its checkpoint.
    """

    def __init__(
        self,
        every: int,
        game: str,
        opponent: str,
        deals: int,
        env_kwargs: dict[str, Any],
        team_play: bool,
        deterministic: bool = True,
        save_model: Callable[[Path], None] | None = None,
        best_path: Path | None = None,
        log_path: Path | None = None,
        seed: int = 10**6,
        extra: dict[str, int] | None = None,
        seating: str = "one",
    ):
        super().__init__(every)
        self.game, self.opponent, self.deals = game, opponent, deals
        self.extra = dict(extra or {})
        self.env_kwargs, self.team_play = env_kwargs, team_play
        self.deterministic = deterministic
        self.seating = seating
        self.save_model, self.best_path, self.log_path = save_model, best_path, log_path
        self.seed = seed
        self.best = -np.inf
        self.seconds = 0.0
        self.history: list[dict[str, Any]] = []
        #: wall-clock and evaluation seconds of earlier sessions of a resumed run
        self._elapsed_before = 0.0
        self._eval_before = 0.0
        self._clock = time.perf_counter()

    def state(self) -> dict[str, Any]:
        return {
            "last": self._last,
            "best": float(self.best),
            "elapsed_s": self._elapsed(),
            "eval_s": self._eval_before + self.seconds,
        }

    def _on_training_start(self) -> None:
        self._clock = time.perf_counter()
        super()._on_training_start()

    def _apply(self, state: dict[str, Any]) -> None:
        super()._apply(state)
        self.best = float(state.get("best", -np.inf))
        self._elapsed_before = float(state.get("elapsed_s", 0.0))
        self._eval_before = float(state.get("eval_s", 0.0))

    def _elapsed(self) -> float:
        return self._elapsed_before + time.perf_counter() - self._clock

    def run_eval(self) -> EvalResult:
        """Evaluate against ``opponent`` (returned) and each of ``extra``; log every result."""
        start = time.perf_counter()
        elapsed = self._elapsed()
        clocks = {
            "elapsed_s": round(elapsed, 3),
            "train_s": round(elapsed - self._eval_before - self.seconds, 3),
        }
        policy = snapshot_of(self.model)
        result = self._evaluate(policy, self.opponent, self.deals)
        self._log(result, clocks, prefix="eval")
        for name, deals in self.extra.items():
            self._log(self._evaluate(policy, name, deals), clocks, prefix=f"eval/{name}")
        if result.mean_reward > self.best and self.save_model is not None and self.best_path:
            self.best = result.mean_reward
            self.save_model(self.best_path)
        self.seconds += time.perf_counter() - start
        return result

    def _evaluate(self, policy: NumpyPolicy, opponent: str, deals: int) -> EvalResult:
        return evaluate(
            self.game,
            lambda s: PolicyAgent(
                policy, name=f"{self.game}/learner", seed=s, deterministic=self.deterministic
            ),
            opponent,
            deals=deals,
            env_kwargs=self.env_kwargs,
            seed=self.seed,
            team_play=self.team_play,
            seating=self.seating,
        )

    def _log(self, result: EvalResult, clocks: dict[str, float], prefix: str) -> None:
        """Into the SB3 logger (under ``prefix``), the history and ``eval.jsonl``."""
        self.logger.record(f"{prefix}/mean_reward", result.mean_reward)
        self.logger.record(f"{prefix}/reward_ci95", result.reward_ci95)
        self.logger.record(f"{prefix}/win_rate", result.win_rate)
        entry = {"timesteps": self.num_timesteps, **clocks, **result.as_dict()}
        entry["seating"] = self.seating
        self.history.append(entry)
        if self.log_path is not None:
            with open(self.log_path, "a") as fh:
                fh.write(json.dumps(entry) + "\n")

    def _on_step(self) -> bool:
        if self._due():
            self._last = self.num_timesteps
            self.run_eval()
        return True


class StopRequest:
    """Asks a training run to stop, resumably, at the next rollout boundary.

    Ctrl-C sets it (:meth:`request`); ``at_step`` stops the run at the first boundary at or after
    that many steps (budgeted runs, tests).
    """

    def __init__(self, at_step: int | None = None):
        self.requested = False
        self.at_step = at_step

    def request(self) -> None:
        self.requested = True

    def due(self, timesteps: int) -> bool:
        return self.requested or (self.at_step is not None and timesteps >= self.at_step)


class CheckpointCallback(ResumableCallback):
    """Saves checkpoints at rollout boundaries, where a resumed run continues exactly.

    A checkpoint is taken at the first rollout boundary at least ``every`` steps after the last
    one (and at the end of training), between a PPO update and the next rollout: nothing is
    half-collected then, so model, optimizer, envs and random generators describe the run
    completely. When ``stop`` is due, a checkpoint is written at the next boundary and training
    stops there (``stopped_at``).
    """

    def __init__(self, every: int, save: Callable[[int], Path], stop: StopRequest | None = None):
        super().__init__(every)
        self.save = save
        self.stop = stop
        self.seconds = 0.0
        self.stopped_at: int | None = None
        self.last_path: Path | None = None
        self._in_rollout = False

    def _save(self, scheduled: bool) -> None:
        start = time.perf_counter()
        if scheduled:
            self._last = self.num_timesteps
        self.last_path = self.save(self.num_timesteps)
        self.seconds += time.perf_counter() - start

    def _on_rollout_start(self) -> None:
        self._in_rollout = True
        if self.stop is not None and self.stop.due(self.num_timesteps):
            self._save(scheduled=self._due())
            self.stopped_at = self.num_timesteps
        elif self._due():
            self._save(scheduled=True)

    def _on_rollout_end(self) -> None:
        self._in_rollout = False

    def _on_step(self) -> bool:
        return self.stopped_at is None

    def _on_training_end(self) -> None:
        # after the last update (not when stopped inside a rollout: that state is not exact)
        if self.stopped_at is None and not self._in_rollout and self._due():
            self._save(scheduled=True)


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
    """Wall time of ``learn`` split into rollout collection and PPO updates.

    Call :meth:`begin` right before ``model.learn``: SB3 resets the envs in its setup, before
    ``on_training_start``, and the wrappers count that reset in their own timing, so the learn
    time must include it (else env + wrapper could exceed the learn time they are a share of).
    """

    def __init__(self):
        super().__init__()
        self.rollout = 0.0
        self.update = 0.0
        self.learn = 0.0
        self._t_learn = self._t_rollout = self._t_update = 0.0
        self._begun = False
        self.start_steps = 0

    def begin(self) -> None:
        """Start the learn clock now (before ``model.learn`` and its first env reset)."""
        self._t_learn = time.perf_counter()
        self._begun = True

    def _on_training_start(self) -> None:
        if not self._begun:
            self._t_learn = time.perf_counter()
        self._begun = False
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
