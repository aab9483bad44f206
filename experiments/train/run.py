"""One training run: build the envs and the model, learn with the callbacks (evaluation,
checkpoints, self-play snapshots, time budget), write the final model and the run's stats."""

from __future__ import annotations

import contextlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.train.build import (
    eval_opponent,
    extra_opponents,
    make_vec_env,
    model_metadata,
    new_model,
    plays_self,
)
from experiments.train.checkpoint import (
    check_resume,
    check_warm_start,
    imitates,
    load_checkpoint_model,
    load_pool,
    load_training_state,
    pool_path,
    restore_training_state,
    save_pool,
    save_training_state,
    state_path,
)
from experiments.train.config import TrainConfig


@dataclass
class TrainResult:
    """What a training run produced.

    ``stopped_at`` is the step where a stop request (Ctrl-C) ended the run; then no final model
    is written and ``checkpoint`` is the checkpoint to resume from (``final_model`` is it too).
    """

    output: Path
    final_model: Path
    timesteps: int
    stats: dict[str, Any]
    evals: list[dict[str, Any]] = field(default_factory=list)
    stopped_at: int | None = None
    checkpoint: Path | None = None


def _sigint_handler(stop: Any):
    """Ctrl-C once: stop at the next rollout boundary with a checkpoint; twice: abort."""

    def handle(signum: int, frame: Any) -> None:
        if stop.requested:
            raise KeyboardInterrupt
        stop.request()
        print(
            "\ntrain: stopping at the end of this rollout, with a checkpoint "
            "(Ctrl-C again aborts without one)",
            file=sys.stderr,
        )

    return handle


@contextlib.contextmanager
def _stop_on_sigint(stop: Any):
    """Route Ctrl-C to ``stop`` while training (main thread only; elsewhere nothing changes)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _sigint_handler(stop))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def train(
    config: TrainConfig,
    resume: str | Path | None = None,
    progress: bool = True,
    export: str | Path | None = None,
    command: str | None = None,
    stop: Any = None,
) -> TrainResult:
    """Run (or resume) one training run described by a resolved ``config``.

    ``command`` (the command line that started the run) is recorded in every saved model.

    Checkpoints are taken at rollout boundaries, each with its training state as data
    (``step_N_state.json`` and ``.npz``: every env's game in progress, as a replay of its episode,
    and opponent pool, the numpy, Python and torch generators, the callbacks' and the model's
    counters), so resuming from one gives bit for bit the model the uninterrupted run with the
    same seed gives. ``stop`` (a
    :class:`~agents.training.callbacks.StopRequest`; Ctrl-C sets it) ends the run at the next
    boundary with a checkpoint, reported in ``TrainResult.stopped_at`` and ``checkpoint``.
    """
    from agents.training.callbacks import StopRequest

    stop = stop if stop is not None else StopRequest()
    resume = Path(resume) if resume is not None else None
    if resume is not None:
        check_resume(config, resume)
    check_warm_start(config, resume)
    with _stop_on_sigint(stop):
        run = _Run(config, resume, command, stop)
        try:
            return run.learn(progress, export)
        finally:
            run.vec_env.close()


class _Run:
    """The parts of one run: its folder, envs, model and callbacks, and how it saves them."""

    def __init__(self, config: TrainConfig, resume: Path | None, command: str | None, stop):
        import torch

        self.config, self.resume, self.command = config, resume, command
        torch.set_num_threads(config.torch_threads)
        self.out = Path(config.output)
        (self.out / "checkpoints").mkdir(parents=True, exist_ok=True)
        tb_dir = str(self.out / "tb") if config.tensorboard else None
        self.vec_env = make_vec_env(config)
        if resume is not None:  # from tensors and the config: nothing in the zip is unpickled
            self.model = load_checkpoint_model(resume, config, self.vec_env, tb_dir)
        else:
            self.model = new_model(config, self.vec_env, tb_dir)
        (self.out / "config.json").write_text(json.dumps(config.as_dict(), indent=2))
        self.warm_stats = self._warm_start()
        self._make_callbacks(stop)

    def _warm_start(self) -> dict[str, Any] | None:
        """Imitation before PPO where the run has one (:func:`.checkpoint.imitates`): its stats,
        else None."""
        if not imitates(self.config, self.resume):
            return None
        from agents.training.distill import warm_start

        def log(row: Any) -> None:
            print(f"warm start: {row}", file=sys.stderr)

        config = self.config.as_dict()
        from_model = self.resume is not None
        return warm_start(self.model, config, self.out, log=log, from_model=from_model)

    def save_model(self, path: Path) -> None:
        """The model with its ``kiaule.json``."""
        from agents.training.model_io import write_metadata

        self.model.save(path)
        metadata = model_metadata(self.config, self.vec_env, self.model, self.command)
        write_metadata(path, metadata)

    def save_checkpoint(self, step: int) -> Path:
        """``checkpoints/step_N.zip`` with its snapshots and training state."""
        path = self.out / "checkpoints" / f"step_{step}.zip"
        self.save_model(path)
        save_pool(self.vec_env, pool_path(path))
        save_training_state(path, self.vec_env, self.resumable, self.model)
        return path

    def _make_callbacks(self, stop) -> None:
        from agents.training import callbacks as cb

        config = self.config
        eval_kwargs = config.eval.env_kwargs
        self.eval_cb = cb.EvalCallback(
            every=config.eval.every,
            game=config.game,
            opponent=eval_opponent(config),
            deals=config.eval.deals,
            env_kwargs=config.env_kwargs if eval_kwargs is None else eval_kwargs,
            team_play=config.team_play,
            deterministic=config.deterministic_play,
            save_model=self.save_model,
            best_path=self.out / "best.zip",
            log_path=self.out / "eval.jsonl",
            extra=extra_opponents(config),
            seating=config.eval.seating,
        )
        self.timing = cb.TimingCallback()
        self.budget = cb.TimeBudgetCallback(config.time_budget_s)
        self.ckpt = cb.CheckpointCallback(config.checkpoint.every, self.save_checkpoint, stop)
        selfplay_every = config.opponents.snapshot_every if plays_self(config) else 0
        self.selfplay = cb.SelfPlayCallback(selfplay_every)
        #: the callbacks whose counters a checkpoint keeps
        self.resumable = {"selfplay": self.selfplay, "checkpoint": self.ckpt, "eval": self.eval_cb}

    def _restore(self) -> None:
        """Continue from the checkpoint's training state, or (an exported or older model
        without one) from its weights and snapshots alone."""
        resume = self.resume
        if state_path(resume).is_file():
            state = load_training_state(resume)
            where = str(state_path(resume))
            restore_training_state(state, self.vec_env, self.resumable, self.model, where)
            return
        load_pool(self.vec_env, pool_path(resume))
        print(
            f"train: {resume} has no training state ({state_path(resume).name}); the run "
            "continues from its weights, but not exactly as the original run would have",
            file=sys.stderr,
        )

    def learn(self, progress: bool, export: str | Path | None) -> TrainResult:
        """Learn up to ``total_timesteps``, write the stats and the final model."""
        from stable_baselines3.common.callbacks import CallbackList

        if self.resume is not None:
            self._restore()
        model = self.model
        callbacks = [self.timing, self.budget, self.selfplay, self.ckpt, self.eval_cb]
        remaining = self.config.total_timesteps - int(model.num_timesteps)
        start_steps = int(model.num_timesteps)
        start_timing = self.vec_env.env_method("timing_stats")  # a resumed run's envs: totals
        if remaining > 0:  # 0 with a warm start only: the imitated network is the model
            self.timing.begin()  # the learn time includes SB3's first reset of the envs
            model.learn(
                total_timesteps=remaining,
                callback=CallbackList(callbacks),
                progress_bar=progress,
                reset_num_timesteps=self.resume is None,
                tb_log_name="run",
            )
        stats = self._stats(start_steps, start_timing)
        if self.ckpt.stopped_at is not None:
            ckpt = self.ckpt
            path = ckpt.last_path or self.out
            history = self.eval_cb.history
            return TrainResult(
                self.out, path, ckpt.stopped_at, stats, history, ckpt.stopped_at, ckpt.last_path
            )
        return self._finish(stats, export)

    def _stats(self, start_steps: int, start_timing: list) -> dict[str, Any]:
        """``train_stats.json``: throughput, where the time went, how the run ended."""
        parts = (self.timing, self.eval_cb, self.ckpt)
        stats = training_stats(self.model, self.vec_env, *parts, start_steps, start_timing)
        if self.warm_stats is not None:
            stats["warm_start"] = self.warm_stats
        stats["stopped_by_time_budget"] = self.budget.stopped_early
        stats["stopped_at"] = self.ckpt.stopped_at
        (self.out / "train_stats.json").write_text(json.dumps(stats, indent=2))
        return stats

    def _finish(self, stats: dict[str, Any], export: str | Path | None) -> TrainResult:
        """``final.zip`` (resumable when the run ended at a rollout boundary) and the export."""
        final = self.out / "final.zip"
        self.save_model(final)
        save_pool(self.vec_env, pool_path(final))
        if not self.budget.stopped_early:  # ended at a rollout boundary: it resumes exactly
            save_training_state(final, self.vec_env, self.resumable, self.model)
        if export is not None:
            from agents.training.model_io import export_for_play

            export_for_play(final, export)
        timesteps = int(self.model.num_timesteps)
        if self.eval_cb.history:
            from experiments.train.curves import write_curves

            write_curves(self.out, title=f"{self.config.game}: {self.out}")
        return TrainResult(self.out, final, timesteps, stats, self.eval_cb.history)


def _this_run(parts: list[dict[str, float]], start: list | None) -> list[dict[str, float]]:
    """The envs' timing totals less those they had when this run started (a resumed env
    restores its totals)."""
    if start is None:
        return parts
    return [{k: p[k] - q.get(k, 0) for k in p} for p, q in zip(parts, start, strict=True)]


def training_stats(
    model, vec_env, timing, eval_cb, ckpt, start_steps: int, start_timing: list | None = None
) -> dict[str, Any]:
    """Throughput of ``learn`` and the share of its time in env + wrapper vs. the network.

    ``env`` is the rules engines' own time (steps, observations), ``opponents`` the pool agents'
    ``act``, ``wrapper`` the rest of the wrapper's reset/step; ``network`` is everything else in
    ``learn`` (policy forward passes during rollouts, the rollout buffer, PPO updates), with the
    periodic evaluation and checkpoint time taken out.
    """
    parts = _this_run(vec_env.env_method("timing_stats"), start_timing)
    env_s = sum(p["env"] for p in parts)
    opp_s = sum(p["opponents"] for p in parts)
    wrapper = sum(p["total"] for p in parts)
    steps = int(model.num_timesteps) - start_steps
    learn = timing.learn - eval_cb.seconds - ckpt.seconds
    network = max(0.0, learn - wrapper)

    def share(x: float) -> float:
        return round(x / learn, 4) if learn > 0 else 0.0

    return {
        "timesteps": int(model.num_timesteps),
        "steps_this_run": steps,
        "episodes_this_run": sum(p["episodes"] for p in parts),
        "learn_seconds": round(learn, 3),
        "steps_per_second": round(steps / learn, 1) if learn > 0 else 0.0,
        "seconds": {
            "env": round(env_s, 3),
            "opponents": round(opp_s, 3),
            "wrapper_overhead": round(wrapper - env_s - opp_s, 3),
            "network_rollout_forward": round(max(0.0, network - timing.update), 3),
            "network_update": round(timing.update, 3),
            "eval_excluded": round(eval_cb.seconds, 3),
            "checkpoint_excluded": round(ckpt.seconds, 3),
        },
        "share": {
            "env_and_wrapper": share(wrapper),
            "env": share(env_s),
            "opponents": share(opp_s),
            "wrapper_overhead": share(wrapper - env_s - opp_s),
            "network": share(network),
        },
    }
