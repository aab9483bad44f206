"""A training run's checkpoints, as data: the model's tensors, the self-play snapshots and the
run's state (envs, random generators, counters), and how a run resumes from them.

Nothing is unpickled: tensors are read with ``torch.load(weights_only=True)``, arrays with
numpy's ``allow_pickle=False``, the rest is JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from experiments.train.build import new_model
from experiments.train.config import TrainConfig

#: 2: JSON + npz, envs as replayable episodes (1, a pickle, is refused)
STATE_FORMAT = 2


def pool_path(checkpoint: Path) -> Path:
    """The self-play snapshots saved next to a checkpoint (``.npz``)."""
    return checkpoint.with_name(checkpoint.stem + "_pool.npz")


def state_path(checkpoint: Path) -> Path:
    """The training state saved next to a checkpoint (envs, random generators, counters): a JSON
    file, with its arrays beside it (:func:`state_arrays_path`)."""
    return checkpoint.with_name(checkpoint.stem + "_state.json")


def state_arrays_path(checkpoint: Path) -> Path:
    """The arrays of a checkpoint's training state (``.npz``: generators, snapshots, last
    observations), read with numpy's ``allow_pickle=False``."""
    return checkpoint.with_name(checkpoint.stem + "_state.npz")


def legacy_state_path(checkpoint: Path) -> Path:
    """Where older versions wrote a checkpoint's training state, as a pickle (never read)."""
    return checkpoint.with_name(checkpoint.stem + "_state.pkl")


def save_pool(vec_env, path: Path) -> None:
    """Write the self-play snapshots of the first env's pool (every env holds the same)."""
    import numpy as np

    snapshots = vec_env.env_method("pool_snapshots", indices=[0])[0]
    arrays = {f"s{i}__{k}": v for i, snap in enumerate(snapshots) for k, v in snap.items()}
    np.savez(path, **arrays)


def load_pool(vec_env, path: Path) -> int:
    """Put the saved snapshots into every env's pool; return how many. Arrays only
    (``allow_pickle=False``); ``ValueError`` naming the file if it is not such snapshots."""
    import zipfile

    import numpy as np

    from agents.training.policy import NumpyPolicy

    if not path.is_file():
        return 0
    try:
        with np.load(path, allow_pickle=False) as data:
            grouped: dict[int, dict[str, Any]] = {}
            for key in data.files:
                index, name = key.split("__", 1)
                grouped.setdefault(int(index[1:]), {})[name] = data[key]
        policies = [NumpyPolicy.from_arrays(grouped[i]) for i in sorted(grouped)]
    except (ValueError, KeyError, TypeError, OSError, EOFError, zipfile.BadZipFile) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{path} is not a file of self-play snapshots ({first})") from None
    for policy in policies:
        vec_env.env_method("add_snapshot", policy.to_arrays())
    return len(policies)


def _env_states(vec_env) -> tuple[list[Any], dict[str, Any]]:
    """Every env's state data, and their arrays merged (the snapshots are the same in every
    env, each added to all of them, so the arrays hold each snapshot once, by serial)."""
    import numpy as np

    arrays: dict[str, np.ndarray] = {}
    envs = []
    for env_state in vec_env.env_method("get_state"):
        envs.append(env_state["data"])
        for key, value in env_state["arrays"].items():
            if key in arrays and not np.array_equal(arrays[key], value):
                raise RuntimeError(f"the envs' opponent pools disagree on {key}")
            arrays[key] = value
    return envs, arrays


def _generator_states(arrays: dict[str, Any]) -> dict[str, Any]:
    """The numpy, Python and torch generators' states: their arrays go into ``arrays``, the
    rest is returned as JSON data."""
    import random

    import numpy as np
    import torch

    kind, keys, pos, has_gauss, cached = np.random.get_state()
    arrays["numpy_keys"] = keys
    arrays["torch"] = torch.get_rng_state().numpy()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []
    for i, cuda_state in enumerate(cuda):
        arrays[f"torch_cuda{i}"] = cuda_state.numpy()
    version, internal, gauss = random.getstate()
    return {
        "numpy": {"kind": kind, "pos": int(pos), "has_gauss": int(has_gauss), "cached": cached},
        "python": [version, list(internal), gauss],
        "torch_cuda": len(cuda),
    }


def _model_counters(model, arrays: dict[str, Any]) -> dict[str, Any]:
    """The model's counters (JSON) and its last observations (into ``arrays``)."""
    import numpy as np

    if model._last_obs is not None:
        arrays["last_obs"] = np.asarray(model._last_obs)
        arrays["last_episode_starts"] = np.asarray(model._last_episode_starts)
    return {
        "num_timesteps": int(model.num_timesteps),
        "n_updates": int(model._n_updates),
        "progress_remaining": float(model._current_progress_remaining),
        "ep_info_buffer": list(model.ep_info_buffer or []),
        "ep_success_buffer": list(model.ep_success_buffer or []),
    }


def save_training_state(checkpoint: Path, vec_env, callbacks: dict[str, Any], model) -> None:
    """Write what a checkpoint's model file lacks for an exact resume (see
    :func:`experiments.train.run.train`), as data: :func:`state_path` (JSON) and
    :func:`state_arrays_path` (npz). Nothing is pickled."""
    import numpy as np

    envs, arrays = _env_states(vec_env)
    generators = _generator_states(arrays)
    state = {
        "format": STATE_FORMAT,
        "model": _model_counters(model, arrays),
        **generators,
        "callbacks": {name: cb.state() for name, cb in callbacks.items()},
        "envs": envs,
    }
    npz, path = state_arrays_path(checkpoint), state_path(checkpoint)
    with open(npz.with_name(npz.name + ".tmp"), "wb") as fh:
        np.savez(fh, **arrays)
    npz.with_name(npz.name + ".tmp").replace(npz)
    path.with_name(path.name + ".tmp").write_text(json.dumps(state, default=_plain))
    path.with_name(path.name + ".tmp").replace(path)  # last: a state is complete once it exists


def _plain(value: Any) -> Any:
    """numpy scalars and arrays (reset options, episode statistics) as JSON values."""
    import numpy as np

    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def load_training_state(checkpoint: Path) -> dict[str, Any]:
    """A checkpoint's training state (JSON, its arrays under ``"arrays"``); ``ValueError``
    naming the file if it is not one. Only data is read: numpy with ``allow_pickle=False``."""
    import zipfile

    import numpy as np

    path, npz = state_path(checkpoint), state_arrays_path(checkpoint)
    try:
        state = json.loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not a training state file (not JSON: {exc})") from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise ValueError(f"{path} is not a training state file of format {STATE_FORMAT}")
    if not npz.is_file():
        raise ValueError(f"{path}: its arrays file {npz.name} is missing")
    try:
        with np.load(npz, allow_pickle=False) as data:
            state["arrays"] = {key: data[key] for key in data.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{npz} is not the arrays file of a training state ({first})") from None
    return state


def restore_training_state(
    state: dict[str, Any], vec_env, callbacks: dict[str, Any], model, where: str = "checkpoint"
) -> None:
    """Put envs, random generators, callback counters and the model's counters (steps,
    updates, last observations) back where the checkpoint left them; ``ValueError`` naming
    ``where`` if the state does not fit this run."""
    envs = state.get("envs")
    parts = getattr(vec_env, "state_parts", vec_env.num_envs)  # the batched collector: one
    if not isinstance(envs, list) or len(envs) != parts:
        ran = len(envs) if isinstance(envs, list) else "?"
        raise ValueError(
            f"the checkpoint saved {ran} env state(s) but this run has {parts} "
            f"(n_envs={vec_env.num_envs}); resume with the checkpoint's n_envs and collector"
        )
    try:
        _restore_envs(state, vec_env, callbacks)
        _restore_generators(state)
        _restore_counters(state, model)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, RuntimeError) as exc:
        raise ValueError(f"{where}: its training state cannot be restored ({exc})") from None


def _restore_envs(state: dict[str, Any], vec_env, callbacks: dict[str, Any]) -> None:
    # the envs' arrays: snapshots by serial, and the batched collector's own (``collector/``)
    prefixes = ("snapshot_", "collector/")
    snapshots = {k: v for k, v in state["arrays"].items() if k.startswith(prefixes)}
    for i, env_data in enumerate(state["envs"]):
        vec_env.env_method("set_state", {"data": env_data, "arrays": snapshots}, indices=[i])
    for name, cb in callbacks.items():
        if name in state["callbacks"]:
            cb.restore(state["callbacks"][name])


def _restore_generators(state: dict[str, Any]) -> None:
    import random

    import numpy as np
    import torch

    arrays, rng = state["arrays"], state["numpy"]
    np.random.set_state(
        (rng["kind"], arrays["numpy_keys"], rng["pos"], rng["has_gauss"], rng["cached"])
    )
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    torch.set_rng_state(torch.from_numpy(arrays["torch"]))
    if state["torch_cuda"] and torch.cuda.is_available():
        cuda = [torch.from_numpy(arrays[f"torch_cuda{i}"]) for i in range(state["torch_cuda"])]
        torch.cuda.set_rng_state_all(cuda)


def _restore_counters(state: dict[str, Any], model) -> None:
    from collections import deque

    counters, arrays = state["model"], state["arrays"]
    if int(counters["num_timesteps"]) != model.num_timesteps:
        raise ValueError(
            f"it was written at step {counters['num_timesteps']}, but the checkpoint's model is "
            f"at step {model.num_timesteps}: the files are of different checkpoints"
        )
    model.num_timesteps = int(counters["num_timesteps"])
    model._n_updates = int(counters["n_updates"])
    model._current_progress_remaining = float(counters["progress_remaining"])
    window = model._stats_window_size
    model.ep_info_buffer = deque(counters["ep_info_buffer"], maxlen=window)
    model.ep_success_buffer = deque(counters["ep_success_buffer"], maxlen=window)
    if "last_obs" in arrays:
        model._last_obs = arrays["last_obs"]
        model._last_episode_starts = arrays["last_episode_starts"]


def load_checkpoint_model(resume: Path, config: TrainConfig, vec_env, tensorboard_log):
    """The model of ``config`` with a checkpoint's weights and optimizer moments.

    The network is built from the config (it must be the one ``kiaule.json`` records) and
    the tensors are read with ``torch.load(weights_only=True)``; the zip's ``data`` entry (SB3's
    pickled settings) is never read, so a model file cannot run code. ``ValueError`` naming the
    file if its tensors do not fit.
    """
    from agents.training.model_io import load_state_entry, read_metadata

    meta = read_metadata(resume)
    wanted = {"net_arch": list(config.policy.net_arch), "activation": config.policy.activation}
    recorded = {key: meta[key] for key in wanted if key in meta}
    wanted = {key: wanted[key] for key in recorded}  # what the file records must match
    if recorded != wanted:
        raise ValueError(
            f"{resume} has the network {recorded} but the config asks for {wanted}; a resumed "
            "run keeps its network (leave policy.* as the checkpoint's config has it)"
        )
    weights = load_state_entry(resume, "policy.pth")
    moments = load_state_entry(resume, "policy.optimizer.pth")
    model = new_model(config, vec_env, tensorboard_log)
    try:
        model.policy.load_state_dict(weights)
        model.policy.optimizer.load_state_dict(moments)
    except (RuntimeError, KeyError, ValueError, TypeError, IndexError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{resume}: its tensors do not fit the model ({first})") from None
    model.num_timesteps = int(meta.get("timesteps", 0))
    return model


def imitates(config: TrainConfig, resume: Path | None) -> bool:
    """Whether the run runs the config's ``warm_start``: a new run does; one started from a
    model file without training state (a zoo model) only with ``warm_start.from_model``; one
    resumed from its own checkpoint never (it has done its warm start)."""
    warm = config.warm_start
    if warm is None:
        return False
    return resume is None or (warm.from_model and not state_path(resume).is_file())


def check_warm_start(config: TrainConfig, resume: Path | None) -> None:
    """Refuse (``ValueError``), before the env and the model are built, a warm start the run
    would make but could not: a ``teacher_where`` without a model file to start from, or with a
    key that is not a field of the game's view (``distill.check_teacher_where``)."""
    if not imitates(config, resume):
        return
    from agents.training.distill import check_teacher_where

    where = config.warm_start.teacher_where
    check_teacher_where(config.game, config.env_kwargs, where, from_model=resume is not None)


def check_resume(config: TrainConfig, resume: Path) -> dict[str, Any]:
    """The checkpoint's metadata, if ``config`` can continue it; ``ValueError`` otherwise.

    On resume ``total_timesteps`` (``--timesteps``) is the total to reach, counting the steps
    already in the checkpoint, so it must be above them. The checkpoint must record the
    observation layout the config's env has today (a network trained on another encoding, or a
    format-1 checkpoint without a layout, cannot be continued).
    """
    from agents.training.model_io import check_layout, read_metadata
    from kiaule_env import get_game

    meta = read_metadata(resume)
    if meta["game"] != config.game:
        raise ValueError(f"{resume} is a {meta['game']} checkpoint, not {config.game}")
    layout = get_game(config.game).observation_layout(**config.env_kwargs)
    check_layout(meta, layout, str(resume))
    legacy = legacy_state_path(resume)
    if legacy.exists() and not state_path(resume).exists():
        raise ValueError(
            f"{legacy} is a training state of an older version, a pickle: it is not loaded, "
            "because unpickling a file can run any code. Resume from a checkpoint this version "
            f"wrote ({state_path(resume).name}), or move {legacy.name} away to continue from the "
            "checkpoint's weights alone (not exactly as the run would have gone on)"
        )
    done = int(meta.get("timesteps", 0))
    total = config.total_timesteps
    # a run that imitates before PPO may add no PPO step: the imitated network is the model
    if total < done or (total == done and not imitates(config, resume)):
        raise ValueError(
            f"{resume} has already trained {done:,} steps and --timesteps (total_timesteps) is "
            f"the total to reach, not the steps to add: --timesteps {total} leaves nothing to "
            f"train; e.g. --timesteps {done + total} trains {total:,} more"
        )
    return meta
