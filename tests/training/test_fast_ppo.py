"""FastMaskablePPO (``agents.training.fast_ppo``), the model ``kiaule train`` builds: it trains
to byte-identical weights and optimizer moments as sb3-contrib's plain ``MaskablePPO``, with
both rollout collectors, and only switches off what does not change a float."""

from __future__ import annotations

import io
import zipfile

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402

import agents.training.fast_ppo as fast_ppo  # noqa: E402
from experiments import train as train_mod  # noqa: E402
from tests.training.conftest import require_env  # noqa: E402

TINY = {
    "game": "kozel",
    "env_kwargs": {"reward": "card_points"},
    "team_play": True,
    "total_timesteps": 1024,
    "opponents": {"mix": {"heuristic": 1.0, "self": 1.0, "random": 0.5}, "snapshot_every": 256},
    "ppo": {"batch_size": 64, "n_epochs": 2, "learning_rate": 0.001},
    "policy": {"net_arch": [32, 32], "activation": "tanh"},
    "eval": {"every": 0, "deals": 2, "opponent": "random"},
    "checkpoint": {"every": 10**9},
    "time_budget_s": None,
    "tensorboard": False,
}

#: the two collectors' shapes of the same rollout size (512 steps)
COLLECTORS = {
    "envs": {"collector": "envs", "n_envs": 2, "ppo": {"n_steps": 256}},
    "vector": {"collector": "vector", "n_envs": 64, "ppo": {"n_steps": 8}},
}


def tensors(path, entry: str) -> dict:
    """A saved model's tensors of ``entry`` (``policy.pth`` or the optimizer's), flattened."""
    with zipfile.ZipFile(path) as zf:
        loaded = torch.load(io.BytesIO(zf.read(entry)), weights_only=True)
    if entry == "policy.pth":
        return loaded
    return {
        f"{index}.{name}": value
        for index, state in loaded["state"].items()
        for name, value in state.items()
    }


def run(collector: str, out, model_class=None, monkeypatch=None):
    """A tiny Kozel run with ``collector``; ``model_class`` replaces FastMaskablePPO."""
    if model_class is not None:
        monkeypatch.setattr(fast_ppo, "FastMaskablePPO", model_class)
    setup = COLLECTORS[collector]
    config = train_mod.resolve_config(
        {**TINY, **setup, "ppo": {**TINY["ppo"], **setup["ppo"]}, "output": str(out)}
    )
    result = train_mod.train(config, progress=False)
    if model_class is not None:
        monkeypatch.undo()
    return result


@pytest.mark.parametrize("collector", sorted(COLLECTORS))
def test_same_weights_and_moments_as_plain_maskable_ppo(collector, tmp_path, monkeypatch):
    require_env("kozel")
    plain = run(collector, tmp_path / "plain", MaskablePPO, monkeypatch)
    fast = run(collector, tmp_path / "fast")
    assert fast.timesteps == plain.timesteps == 1024
    for entry in ("policy.pth", "policy.optimizer.pth"):
        a, b = tensors(plain.final_model, entry), tensors(fast.final_model, entry)
        assert a.keys() == b.keys() and len(a) > 0
        changed = [key for key in a if not torch.equal(a[key], b[key])]
        assert not changed, f"{entry}: {changed} differ from plain MaskablePPO"


def test_train_builds_the_fast_model(tmp_path):
    from experiments.train.build import make_vec_env, new_model

    config = train_mod.resolve_config({**TINY, **COLLECTORS["envs"], "output": str(tmp_path)})
    vec_env = make_vec_env(config)
    try:
        model = new_model(config, vec_env)
    finally:
        vec_env.close()
    assert type(model) is fast_ppo.FastMaskablePPO


def test_distribution_checks_off_inside_the_block_only():
    from torch.distributions import Categorical

    bad = torch.tensor([[0.0, float("nan")]])
    previous = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(True)
    try:
        with pytest.raises(ValueError):
            Categorical(logits=bad)
        with pytest.raises(RuntimeError, match="inside"), fast_ppo.distribution_checks_off():
            Categorical(logits=bad)  # not checked: no ValueError
            raise RuntimeError("inside")
        with pytest.raises(ValueError):  # restored, also after an exception
            Categorical(logits=bad)
    finally:
        torch.distributions.Distribution.set_default_validate_args(previous)


def test_foreach_adam_keeps_the_per_tensor_floats():
    def steps(optimizer_kwargs, foreach: bool):
        torch.manual_seed(0)
        params = [torch.nn.Parameter(torch.randn(shape)) for shape in [(7, 5), (5,), (3, 7)]]
        optimizer = torch.optim.Adam(params, lr=0.01, eps=1e-5, **optimizer_kwargs)
        if foreach:
            fast_ppo.use_foreach_adam(optimizer)
            assert all(group["foreach"] for group in optimizer.param_groups)
        grads = torch.Generator().manual_seed(1)
        for _ in range(5):
            for p in params:
                p.grad = torch.randn(p.shape, generator=grads)
            optimizer.step()
        return params

    plain, foreach = steps({}, False), steps({}, True)
    assert all(torch.equal(a, b) for a, b in zip(plain, foreach, strict=True))
    fused = torch.optim.Adam([torch.nn.Parameter(torch.zeros(2))], fused=True)
    fast_ppo.use_foreach_adam(fused)  # a fused optimizer is left fused
    assert fused.param_groups[0]["fused"] and not fused.param_groups[0]["foreach"]
