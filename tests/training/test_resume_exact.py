"""Stopping and resuming a training run changes nothing: a run stopped (as by Ctrl-C) and resumed
from its checkpoint ends with bit for bit the model of the uninterrupted run with the same seed."""

from __future__ import annotations

import signal

import pytest

from agents.training.callbacks import StopRequest
from experiments import train as train_mod
from experiments.train import run as train_run
from tests.training.conftest import tiny_kozel_run

TINY = {
    "game": "kozel",
    "env_kwargs": {},
    "total_timesteps": 3072,
    "n_envs": 2,
    "opponents": {"mix": {"random": 1.0, "self": 1.0}, "snapshot_every": 512},
    "ppo": {"n_steps": 256, "batch_size": 128, "n_epochs": 2},
    "policy": {"net_arch": [16]},
    "eval": {"every": 0, "deals": 2, "opponent": "random"},
    "checkpoint": {"every": 1024},
    "tensorboard": False,
}


def config(out) -> dict:
    return train_mod.resolve_config({**TINY, "output": str(out)})


def weights(path):
    from agents.training.model_io import load_policy_arrays

    return load_policy_arrays(path)


def same_weights(a, b) -> bool:
    import torch

    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def full_and_resumed(config: dict, tmp_path, step: int):
    """Train ``config`` uninterrupted (in ``tmp_path/full``), then again from that run's
    checkpoint at ``step`` (in ``tmp_path/resumed``); both results and the checkpoint."""
    full = train_mod.train(
        train_mod.resolve_config({**config, "output": str(tmp_path / "full")}), progress=False
    )
    checkpoint = full.output / "checkpoints" / f"step_{step}.zip"
    resolved = train_mod.resolve_config({**config, "output": str(tmp_path / "resumed")})
    resumed = train_mod.train(resolved, resume=checkpoint, progress=False)
    return full, resumed, checkpoint


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("full")
    return train_mod.train(config(out), progress=False)


def test_stopped_and_resumed_run_equals_the_uninterrupted_one(uninterrupted, tmp_path):
    assert uninterrupted.timesteps == 3072
    stopped = train_mod.train(config(tmp_path), progress=False, stop=StopRequest(at_step=1000))
    assert stopped.stopped_at == 1024  # the next rollout boundary
    assert stopped.checkpoint == tmp_path / "checkpoints" / "step_1024.zip"
    assert train_mod.state_path(stopped.checkpoint).is_file()
    assert not (tmp_path / "final.zip").exists()
    resumed = train_mod.train(config(tmp_path), resume=stopped.checkpoint, progress=False)
    assert resumed.timesteps == 3072
    assert same_weights(resumed.final_model, uninterrupted.final_model)


def test_resume_from_a_scheduled_checkpoint_is_exact(uninterrupted, tmp_path):
    checkpoint = uninterrupted.output / "checkpoints" / "step_2048.zip"
    resumed = train_mod.train(config(tmp_path), resume=checkpoint, progress=False)
    assert resumed.timesteps == 3072
    assert same_weights(resumed.final_model, uninterrupted.final_model)
    # the time breakdown is this run's alone, not the totals the restored envs carried
    stats = resumed.stats
    assert stats["steps_this_run"] == 1024
    assert 0 < stats["share"]["env_and_wrapper"] < 1
    assert stats["seconds"]["env"] <= uninterrupted.stats["seconds"]["env"]


def optimizer_rate(path) -> float:
    """The learning rate a saved model's optimizer last stepped with."""
    from agents.training.model_io import load_state_entry

    (group,) = load_state_entry(path, "policy.optimizer.pth")["param_groups"]
    return group["lr"]


def test_annealed_learning_rate_follows_its_schedule_and_resumes_exactly(uninterrupted, tmp_path):
    """``ppo.learning_rate_final``: the rate falls linearly with SB3's progress (an update after
    1,024 of 3,072 steps runs at two thirds of the way from the final rate to the first, the
    last at the final rate), and a run resumed mid-schedule ends as the uninterrupted one."""
    annealed = {**TINY, "ppo": {**TINY["ppo"], "learning_rate": 1e-3, "learning_rate_final": 1e-4}}
    full, resumed, checkpoint = full_and_resumed(annealed, tmp_path, 2048)
    assert optimizer_rate(full.output / "checkpoints" / "step_1024.zip") == pytest.approx(7e-4)
    assert optimizer_rate(checkpoint) == pytest.approx(4e-4)
    assert optimizer_rate(full.final_model) == pytest.approx(1e-4)
    assert same_weights(resumed.final_model, full.final_model)
    # without it the rate stays the config's (the default 3e-4) to the end
    assert optimizer_rate(uninterrupted.final_model) == pytest.approx(3e-4)


def test_ctrl_c_requests_a_stop_then_aborts():
    stop = StopRequest()
    handle = train_run._sigint_handler(stop)
    handle(signal.SIGINT, None)
    assert stop.requested and stop.due(0)
    with pytest.raises(KeyboardInterrupt):
        handle(signal.SIGINT, None)


def test_cli_says_how_to_resume_after_a_stop(tmp_path, capsys, monkeypatch):
    import agents.training.callbacks as cb

    monkeypatch.setattr(cb, "StopRequest", lambda: StopRequest(at_step=1))
    argv = [*tiny_kozel_run(timesteps=2048, checkpoint_every=1024), "--output", str(tmp_path)]
    assert train_mod.main(argv) == 130
    err = capsys.readouterr().err
    assert "stopped at step 128" in err
    assert "resume with: kiaule train kozel --resume" in err and "step_128.zip" in err
