"""Train a MaskablePPO agent on one game of the suite, with self-play and team play.

    kiaule train kozel                                   # experiments/configs/kozel.yaml
    kiaule train experiments/configs/pig.yaml --timesteps 200000 --seed 3
    kiaule train kozel --resume runs/kozel/checkpoints/step_100000.zip --timesteps 200000
    kiaule train kozel --set ppo.learning_rate=1e-4 --set opponents.mix.self=0.7
    kiaule train --evaluate agents/zoo/kozel.zip --deals 500 --opponents random heuristic

A run writes under its ``output`` folder: ``tb/`` (TensorBoard logs: ``tensorboard --logdir
runs``), ``checkpoints/step_N.zip`` (+ ``step_N_pool.npz``, the self-play snapshots, so a resumed
run meets the same opponents), ``best.zip`` (best periodic evaluation), ``final.zip``,
``eval.jsonl`` (periodic evaluations against the rule-based agent, seats rotated) and
``train_stats.json`` (throughput and where the time went). Model files carry their game and player
count; load them with ``agents.make("<game>/ppo", path=...)``.

Config files (YAML or JSON) are merged over :data:`DEFAULTS` and checked against the schema of
:mod:`experiments.train_config`; see ``experiments/configs/``. Checkpoints also hold the run's
state (``step_N_state.json`` + ``step_N_state.npz``), so ``--resume`` continues exactly where the
run stopped; on resume ``--timesteps`` is the total to reach. Ctrl-C stops at the next rollout
boundary with a checkpoint.

Nothing a run loads is unpickled: ``--resume`` builds the model from the config and reads the
checkpoint's tensors with ``torch.load(weights_only=True)`` (SB3's pickled ``data`` entry is never
read), and the training state is JSON and plain arrays.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from experiments.cli_args import (
    Parser,
    describe,
    fail,
    non_negative_int,
    positive_float,
    positive_int,
)
from experiments.outdir import claim_output

CONFIG_DIR = Path(__file__).resolve().parent / "configs"

DEFAULTS: dict[str, Any] = {
    "game": None,
    #: constructor keywords of the training env (reward mode, player count, options)
    "env_kwargs": {},
    #: Kozel: the learner plays both seats of its team (K1); ignored for games without teams
    "team_play": True,
    "seed": 0,
    #: how the trained model plays (written into its kiaule.json, used by its evaluations):
    #: its most probable legal move (True), or a draw from its policy (False: a mixed strategy,
    #: as Pig's simultaneous passing wants, agents/zoo/README.md)
    "deterministic_play": True,
    "total_timesteps": 100_000,
    #: stop learning after this many seconds (None: no limit)
    "time_budget_s": None,
    "n_envs": 4,
    #: "dummy" (one process) or "subproc" (one process per env)
    "vec_env": "dummy",
    "device": "cpu",
    "torch_threads": 1,
    "opponents": {
        #: pool mix: registry kinds ("random", "heuristic", or full names) and "self" (snapshots)
        "mix": {"random": 1.0},
        "snapshot_every": 20_000,
        "max_snapshots": 8,
        "snapshot_deterministic": False,
        #: whole opponent lineups by weight instead of one mix draw per side (None: the mix)
        "lineups": None,
        #: games without teams: the learner's reward is the mean over its seat and the lineup's
        #: self seats (its copies), as a tournament scores an agent on several seats
        "team_with_copies": False,
    },
    "policy": {"net_arch": [128, 128], "activation": "tanh"},
    "ppo": {
        "learning_rate": 3e-4,
        "n_steps": 512,
        "batch_size": 256,
        "n_epochs": 4,
        "gamma": 1.0,
        "gae_lambda": 0.95,
        "ent_coef": 0.01,
        "clip_range": 0.2,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
    },
    "eval": {
        "every": 20_000,
        "deals": 50,
        "opponent": "heuristic",
        #: env keywords of evaluation games (None: those of training)
        "env_kwargs": None,
    },
    "checkpoint": {"every": 50_000},
    "output": None,
    "tensorboard": True,
    #: imitation before PPO (agents.training.distill): None, or the WarmStartConfig keys
    "warm_start": None,
}


# ---------------------------------------------------------------------- configuration
#: config dicts that an override replaces instead of merging into
REPLACED = ("mix", "lineups")


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``override``, recursing into dicts; the weighted sets ``mix`` and
    ``lineups`` are replaced whole (``--set 'opponents.lineups={...}'`` gives exactly those)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key not in REPLACED:
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_config_file(path: str | Path) -> dict[str, Any]:
    """A config file's mapping; ``ValueError`` naming the file if it is not valid YAML/JSON."""
    path = Path(path)
    text = path.read_text()
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            where = getattr(exc, "problem_mark", None)
            line = f" at line {where.line + 1}" if where is not None else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise ValueError(f"{path}: not valid YAML{line}: {problem}") from None
    else:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a config file must hold a mapping")
    return data


def resolve_config(source: str | dict[str, Any] | None, overrides: dict | None = None) -> dict:
    """Full config from a game name, a config file, or a dict, merged over the defaults."""
    name = "config"
    if source is None:
        data: dict[str, Any] = {}
    elif isinstance(source, dict):
        data = source
    elif Path(source).is_file():
        data, name = read_config_file(source), str(source)
    elif (CONFIG_DIR / f"{source}.yaml").is_file():
        data, name = read_config_file(CONFIG_DIR / f"{source}.yaml"), f"{source} config"
    else:
        raise ValueError(
            f"{source!r} is neither a config file nor a game with a config in {CONFIG_DIR}"
        )
    config = deep_merge(DEFAULTS, data)
    if overrides:
        config = deep_merge(config, overrides)
    unknown = set(config) - set(DEFAULTS)
    if unknown:
        raise ValueError(
            f"{name}: unknown config key(s) {sorted(unknown)}; known: {sorted(DEFAULTS)}"
        )
    if not config["game"]:
        raise ValueError(f"{name}: no game; give a game name, or a config file with 'game:'")
    from experiments.train_config import validate_config

    config = validate_config(config, name)
    if config["output"] is None:
        config["output"] = f"runs/{config['game']}"
    return config


def parse_set(items: list[str]) -> dict[str, Any]:
    """``--set a.b=value`` items as a nested dict (values parsed as YAML scalars)."""
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--set needs key=value, got {item!r}")
        key, raw = item.split("=", 1)
        node = out
        parts = key.split(".")
        if not all(parts):
            raise ValueError(f"--set {item!r}: empty key")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"--set {item!r}: {part} is already set to a value")
        if parts[-1] in node:
            raise ValueError(f"--set {item!r}: {key} is given twice; give each key once")
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError:
            raise ValueError(f"--set {item!r}: the value is not valid YAML") from None
        if isinstance(value, str):  # YAML 1.1 reads "1e-4" as a string
            with contextlib.suppress(ValueError):
                value = float(value)
        node[parts[-1]] = value
    return out


# ---------------------------------------------------------------------- building blocks
#: the Monitor's own fields a checkpoint keeps (its episode statistics), all JSON-able
MONITOR_FIELDS = (
    "t_start",
    "rewards",
    "needs_reset",
    "episode_returns",
    "episode_lengths",
    "episode_times",
    "total_steps",
    "current_reset_info",
)


@functools.cache
def _resumable_monitor():
    """SB3's ``Monitor`` with ``get_state``/``set_state`` covering itself and the env inside,
    as data (:meth:`agents.training.wrapper.LearnerEnv.get_state`): nothing is pickled."""
    from stable_baselines3.common.monitor import Monitor

    class ResumableMonitor(Monitor):
        def get_state(self) -> dict[str, Any]:
            inner = self.env.get_state()
            own = {name: copy.deepcopy(getattr(self, name)) for name in MONITOR_FIELDS}
            return {"data": {"monitor": own, "env": inner["data"]}, "arrays": inner["arrays"]}

        def set_state(self, state: dict[str, Any]) -> None:
            data = state["data"]
            self.env.set_state({"data": data["env"], "arrays": state["arrays"]})
            for name in MONITOR_FIELDS:
                setattr(self, name, copy.deepcopy(data["monitor"][name]))

    return ResumableMonitor


def make_learner_env(config: dict[str, Any], index: int = 0):
    """One monitored :class:`LearnerEnv` with its own opponent pool (picklable for subproc)."""
    from agents.training.pool import OpponentPool
    from agents.training.wrapper import LearnerEnv

    opp = config["opponents"]
    pool = OpponentPool(
        config["game"],
        opp["mix"],
        max_snapshots=opp["max_snapshots"],
        snapshot_deterministic=opp["snapshot_deterministic"],
        lineups=opp.get("lineups"),
    )
    env = LearnerEnv(
        config["game"],
        config["env_kwargs"],
        pool=pool,
        team_play=config["team_play"],
        team_with_copies=opp["team_with_copies"],
    )
    return _resumable_monitor()(env)


def plays_self(config: dict[str, Any]) -> bool:
    """Whether the opponents draw the learner's snapshots: ``self`` in the lineups when there
    are lineups (they replace the mix), else in the mix."""
    from agents.training.pool import SELF, lineups_seat_self

    opp = config["opponents"]
    if opp.get("lineups"):
        return lineups_seat_self(opp["lineups"])
    return opp["mix"].get(SELF, 0) > 0


def make_vec_env(config: dict[str, Any]):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns = [partial(make_learner_env, config, i) for i in range(config["n_envs"])]
    if config["vec_env"] == "subproc" and config["n_envs"] > 1:
        return SubprocVecEnv(fns)
    return DummyVecEnv(fns)


def eval_opponent(config: dict[str, Any]) -> str:
    """The evaluation opponent's registry name; ``random`` if the game has no such agent yet."""
    from agents import registry

    name = config["eval"]["opponent"]
    name = registry.qualified(config["game"], name)
    if name not in registry.list_agents(config["game"]):
        fallback = f"{config['game']}/random"
        print(f"train: {name} is not registered; evaluating against {fallback}", file=sys.stderr)
        return fallback
    return name


def model_metadata(
    config: dict[str, Any], vec_env, model, command: str | None = None
) -> dict[str, Any]:
    """The ``kiaule.json`` of a saved model: what it plays (game, player count, env keywords,
    observation size and layout, actions), its network, and how it was trained."""
    from agents.training.model_io import LAYOUT_KEY, layout_metadata

    env0 = vec_env.get_attr("num_players", indices=[0])[0]
    layout = vec_env.get_attr("layout", indices=[0])[0]
    return {
        "game": config["game"],
        "num_players": int(env0),
        "env_kwargs": config["env_kwargs"],
        "team_play": bool(config["team_play"]),
        "obs_size": int(vec_env.observation_space.shape[0]),
        "num_actions": int(vec_env.action_space.n),
        LAYOUT_KEY: layout_metadata(layout),
        "activation": config["policy"]["activation"],
        "net_arch": list(config["policy"]["net_arch"]),
        "deterministic": bool(config["deterministic_play"]),
        "timesteps": int(model.num_timesteps),
        "seed": config["seed"],
        "config": config,
        "command": command or "experiments.train.train(config) (called from Python)",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


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


def _pool_path(checkpoint: Path) -> Path:
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


#: 2: JSON + npz, envs as replayable episodes (1, a pickle, is refused)
STATE_FORMAT = 2


def save_training_state(checkpoint: Path, vec_env, callbacks: dict[str, Any], model) -> None:
    """Write what a checkpoint's model file lacks for an exact resume (see :func:`train`), as
    data: :func:`state_path` (JSON) and :func:`state_arrays_path` (npz). Nothing is pickled.

    The self-play snapshots are the same in every env (each is added to all of them), so the
    arrays hold each snapshot once, by serial.
    """
    import random

    import numpy as np
    import torch

    arrays: dict[str, np.ndarray] = {}
    envs = []
    for env_state in vec_env.env_method("get_state"):
        envs.append(env_state["data"])
        for key, value in env_state["arrays"].items():
            if key in arrays and not np.array_equal(arrays[key], value):
                raise RuntimeError(f"the envs' opponent pools disagree on {key}")
            arrays[key] = value
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    arrays["numpy_keys"] = keys
    arrays["torch"] = torch.get_rng_state().numpy()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []
    for i, cuda_state in enumerate(cuda):
        arrays[f"torch_cuda{i}"] = cuda_state.numpy()
    if model._last_obs is not None:
        arrays["last_obs"] = np.asarray(model._last_obs)
        arrays["last_episode_starts"] = np.asarray(model._last_episode_starts)
    version, internal, gauss = random.getstate()
    state = {
        "format": STATE_FORMAT,
        "model": {
            "num_timesteps": int(model.num_timesteps),
            "n_updates": int(model._n_updates),
            "progress_remaining": float(model._current_progress_remaining),
            "ep_info_buffer": list(model.ep_info_buffer or []),
            "ep_success_buffer": list(model.ep_success_buffer or []),
        },
        "numpy": {"kind": kind, "pos": int(pos), "has_gauss": int(has_gauss), "cached": cached},
        "python": [version, list(internal), gauss],
        "torch_cuda": len(cuda),
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
    if not isinstance(envs, list) or len(envs) != vec_env.num_envs:
        ran = len(envs) if isinstance(envs, list) else "?"
        raise ValueError(
            f"the checkpoint ran {ran} envs but this run has n_envs={vec_env.num_envs}; "
            "resume with the checkpoint's n_envs"
        )
    try:
        _restore_state(state, vec_env, callbacks, model)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, RuntimeError) as exc:
        raise ValueError(f"{where}: its training state cannot be restored ({exc})") from None


def _restore_state(state: dict[str, Any], vec_env, callbacks: dict[str, Any], model) -> None:
    import random
    from collections import deque

    import numpy as np
    import torch

    arrays = state["arrays"]
    snapshots = {k: v for k, v in arrays.items() if k.startswith("snapshot_")}
    for i, env_data in enumerate(state["envs"]):
        vec_env.env_method("set_state", {"data": env_data, "arrays": snapshots}, indices=[i])
    for name, cb in callbacks.items():
        if name in state["callbacks"]:
            cb.restore(state["callbacks"][name])
    rng = state["numpy"]
    np.random.set_state(
        (rng["kind"], arrays["numpy_keys"], rng["pos"], rng["has_gauss"], rng["cached"])
    )
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    torch.set_rng_state(torch.from_numpy(arrays["torch"]))
    if state["torch_cuda"] and torch.cuda.is_available():
        cuda = [torch.from_numpy(arrays[f"torch_cuda{i}"]) for i in range(state["torch_cuda"])]
        torch.cuda.set_rng_state_all(cuda)
    counters = state["model"]
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


def load_checkpoint_model(resume: Path, config: dict[str, Any], vec_env, tensorboard_log):
    """The model of ``config`` with a checkpoint's weights and optimizer moments.

    The network is built from the config (it must be the one ``kiaule.json`` records) and
    the tensors are read with ``torch.load(weights_only=True)``; the zip's ``data`` entry (SB3's
    pickled settings) is never read, so a model file cannot run code. ``ValueError`` naming the
    file if its tensors do not fit.
    """
    from agents.training.model_io import load_state_entry, read_metadata

    meta = read_metadata(resume)
    policy = config["policy"]
    wanted = {"net_arch": list(policy["net_arch"]), "activation": policy["activation"]}
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


def check_resume(config: dict[str, Any], resume: Path) -> dict[str, Any]:
    """The checkpoint's metadata, if ``config`` can continue it; ``ValueError`` otherwise.

    On resume ``total_timesteps`` (``--timesteps``) is the total to reach, counting the steps
    already in the checkpoint, so it must be above them. The checkpoint must record the
    observation layout the config's env has today (a network trained on another encoding, or a
    format-1 checkpoint without a layout, cannot be continued).
    """
    from agents.training.model_io import check_layout, read_metadata
    from kiaule_env import get_game

    meta = read_metadata(resume)
    if meta["game"] != config["game"]:
        raise ValueError(f"{resume} is a {meta['game']} checkpoint, not {config['game']}")
    layout = get_game(config["game"]).observation_layout(**config["env_kwargs"])
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
    total = int(config["total_timesteps"])
    if total <= done:
        raise ValueError(
            f"{resume} has already trained {done:,} steps and --timesteps (total_timesteps) is "
            f"the total to reach, not the steps to add: --timesteps {total} leaves nothing to "
            f"train; e.g. --timesteps {done + total} trains {total:,} more"
        )
    return meta


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


# ---------------------------------------------------------------------- training
def train(
    config: dict[str, Any],
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
    with _stop_on_sigint(stop):
        return _train(config, resume, progress, export, command, stop)


def _train(config, resume, progress, export, command, stop) -> TrainResult:
    import torch
    from stable_baselines3.common.callbacks import CallbackList

    from agents.training import callbacks as cb
    from agents.training.model_io import write_metadata

    resume = Path(resume) if resume is not None else None
    if resume is not None:
        check_resume(config, resume)
    torch.set_num_threads(int(config["torch_threads"]))
    out = Path(config["output"])
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    tb_dir = str(out / "tb") if config["tensorboard"] else None
    vec_env = make_vec_env(config)
    if resume is not None:  # from tensors and the config: nothing in the zip is unpickled
        model = load_checkpoint_model(resume, config, vec_env, tb_dir)
    else:
        model = new_model(config, vec_env, tb_dir)
    (out / "config.json").write_text(json.dumps(config, indent=2, default=str))
    warm_stats = None
    if config.get("warm_start") and resume is None:
        from agents.training.distill import warm_start

        warm_stats = warm_start(
            model, config, out, log=lambda row: print(f"warm start: {row}", file=sys.stderr)
        )

    def save_model(path: Path) -> None:
        model.save(path)
        write_metadata(path, model_metadata(config, vec_env, model, command))

    resumable: dict[str, Any] = {}

    def save_checkpoint(step: int) -> Path:
        path = out / "checkpoints" / f"step_{step}.zip"
        save_model(path)
        save_pool(vec_env, _pool_path(path))
        save_training_state(path, vec_env, resumable, model)
        return path

    eval_kwargs = config["eval"]["env_kwargs"]
    eval_cb = cb.EvalCallback(
        every=config["eval"]["every"],
        game=config["game"],
        opponent=eval_opponent(config),
        deals=config["eval"]["deals"],
        env_kwargs=config["env_kwargs"] if eval_kwargs is None else eval_kwargs,
        team_play=config["team_play"],
        deterministic=config["deterministic_play"],
        save_model=save_model,
        best_path=out / "best.zip",
        log_path=out / "eval.jsonl",
    )
    timing = cb.TimingCallback()
    budget = cb.TimeBudgetCallback(config["time_budget_s"])
    ckpt = cb.CheckpointCallback(config["checkpoint"]["every"], save_checkpoint, stop)
    selfplay_every = config["opponents"]["snapshot_every"] if plays_self(config) else 0
    selfplay = cb.SelfPlayCallback(selfplay_every)
    resumable.update(selfplay=selfplay, checkpoint=ckpt, eval=eval_cb)
    if resume is not None:
        if state_path(resume).is_file():
            state = load_training_state(resume)
            restore_training_state(state, vec_env, resumable, model, str(state_path(resume)))
        else:  # an exported or older model: its envs and generators start afresh
            load_pool(vec_env, _pool_path(resume))
            print(
                f"train: {resume} has no training state ({state_path(resume).name}); the run "
                "continues from its weights, but not exactly as the original run would have",
                file=sys.stderr,
            )
    callbacks = [timing, budget, selfplay, ckpt, eval_cb]
    remaining = int(config["total_timesteps"]) - int(model.num_timesteps)
    start_steps = int(model.num_timesteps)
    start_timing = vec_env.env_method("timing_stats")  # a resumed run's envs carry their totals
    if remaining > 0:  # 0 with a warm start only: the imitated network is the model
        model.learn(
            total_timesteps=remaining,
            callback=CallbackList(callbacks),
            progress_bar=progress,
            reset_num_timesteps=resume is None,
            tb_log_name="run",
        )
    stats = training_stats(model, vec_env, timing, eval_cb, ckpt, start_steps, start_timing)
    if warm_stats is not None:
        stats["warm_start"] = warm_stats
    stats["stopped_by_time_budget"] = budget.stopped_early
    stats["stopped_at"] = ckpt.stopped_at
    (out / "train_stats.json").write_text(json.dumps(stats, indent=2))
    if ckpt.stopped_at is not None:
        vec_env.close()
        path = ckpt.last_path or out
        return TrainResult(
            out, path, ckpt.stopped_at, stats, eval_cb.history, ckpt.stopped_at, ckpt.last_path
        )
    final = out / "final.zip"
    save_model(final)
    save_pool(vec_env, _pool_path(final))
    if not budget.stopped_early:  # ended at a rollout boundary: the final model resumes exactly
        save_training_state(final, vec_env, resumable, model)
    if export is not None:
        from agents.training.model_io import export_for_play

        export_for_play(final, export)
    vec_env.close()
    return TrainResult(out, final, int(model.num_timesteps), stats, eval_cb.history)


def new_model(config: dict[str, Any], vec_env, tensorboard_log: str | None = None):
    """A fresh MaskablePPO model of ``config`` (network, PPO settings, seed, device) on
    ``vec_env``."""
    import torch
    from sb3_contrib import MaskablePPO

    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[config["policy"]["activation"]]
    return MaskablePPO(
        "MlpPolicy",
        vec_env,
        seed=config["seed"],
        device=config["device"],
        tensorboard_log=tensorboard_log,
        verbose=0,
        policy_kwargs={
            "net_arch": list(config["policy"]["net_arch"]),
            "activation_fn": activation,
        },
        **config["ppo"],
    )


def training_stats(
    model, vec_env, timing, eval_cb, ckpt, start_steps: int, start_timing: list | None = None
) -> dict[str, Any]:
    """Throughput of ``learn`` and the share of its time in env + wrapper vs. the network.

    ``env`` is the rules engines' own time (steps, observations), ``opponents`` the pool agents'
    ``act``, ``wrapper`` the rest of the wrapper's reset/step; ``network`` is everything else in
    ``learn`` (policy forward passes during rollouts, the rollout buffer, PPO updates), with the
    periodic evaluation and checkpoint time taken out.
    """
    parts = vec_env.env_method("timing_stats")
    if start_timing is not None:  # this run's share only (a resumed env restores its totals)
        pairs = zip(parts, start_timing, strict=True)
        parts = [{k: p[k] - q.get(k, 0) for k in p} for p, q in pairs]
    env_s = sum(p["env"] for p in parts)
    opp_s = sum(p["opponents"] for p in parts)
    total_wrapper = sum(p["total"] for p in parts)
    episodes = sum(p["episodes"] for p in parts)
    steps = int(model.num_timesteps) - start_steps
    learn = timing.learn - eval_cb.seconds - ckpt.seconds
    network = max(0.0, learn - total_wrapper)
    update = timing.update

    def share(x: float) -> float:
        return round(x / learn, 4) if learn > 0 else 0.0

    return {
        "timesteps": int(model.num_timesteps),
        "steps_this_run": steps,
        "episodes_this_run": episodes,
        "learn_seconds": round(learn, 3),
        "steps_per_second": round(steps / learn, 1) if learn > 0 else 0.0,
        "seconds": {
            "env": round(env_s, 3),
            "opponents": round(opp_s, 3),
            "wrapper_overhead": round(total_wrapper - env_s - opp_s, 3),
            "network_rollout_forward": round(max(0.0, network - update), 3),
            "network_update": round(update, 3),
            "eval_excluded": round(eval_cb.seconds, 3),
            "checkpoint_excluded": round(ckpt.seconds, 3),
        },
        "share": {
            "env_and_wrapper": share(total_wrapper),
            "env": share(env_s),
            "opponents": share(opp_s),
            "wrapper_overhead": share(total_wrapper - env_s - opp_s),
            "network": share(network),
        },
    }


# ---------------------------------------------------------------------- evaluation of a file
def evaluate_model(
    model: str | Path,
    opponents: list[str],
    deals: int,
    seed: int = 20_000,
    num_players: int | None = None,
    backend: str = "local",
    address: str | None = None,
) -> list[dict[str, Any]]:
    """Seat-rotated evaluation of a model file (or a registry name, for baselines) against each
    opponent, in the game's default reward mode (see :mod:`agents.training.evaluate`).

    ``backend="ray"`` plays each opponent's evaluation as its own Ray task (a local Ray or the
    cluster at ``address``; the model file goes through the object store): the same figures.
    """
    from experiments.tournament.runner import check_backend

    check_backend(backend, address)
    from agents import registry
    from agents.learned import load_learned
    from agents.training.evaluate import EvalResult, evaluate
    from agents.training.model_io import read_metadata

    model = str(model)
    if Path(model).is_file():
        meta = read_metadata(model)
        game, players, team_play = meta["game"], meta["num_players"], meta.get("team_play", True)
        label = f"{game}/ppo ({Path(model).name})"

        def make_agent(s: int):
            return load_learned(model, game=game, seed=s)
    else:
        name = model
        if name.partition(":")[0] not in registry.list_agents():
            if name.endswith(".zip"):
                raise ValueError(f"--evaluate: no model file at {name}")
            raise ValueError(
                f"--evaluate: {name!r} is neither a model file nor a registered agent name "
                "(kiaule agents lists them)"
            )
        game, players, team_play, label = name.split("/")[0], num_players or 4, True, name

        registry.make(name, seed=0)  # a bad option fails here, with the agent's message

        def make_agent(s: int):
            return registry.make(name, seed=s)

    from kiaule_env import get_game

    fixed = len(get_game(game).player_counts) == 1  # Kozel: always four
    kwargs = {} if fixed else {"num_players": players}
    if backend == "ray":
        from experiments.tournament.ray_backend import evaluate_on_ray

        is_file = Path(model).is_file()
        jobs = [
            {
                "game": game,
                "agent": None if is_file else model,
                "file_name": Path(model).name,
                "opponent": registry.qualified(game, o),
                "deals": deals,
                "env_kwargs": kwargs,
                "seed": seed,
                "team_play": team_play,
                "label": label,
            }
            for o in opponents
        ]
        results = evaluate_on_ray(jobs, Path(model) if is_file else None, address)
        for result in results:
            print(EvalResult(**result).summary())
        return results
    results = []
    for opponent in opponents:
        opp = registry.qualified(game, opponent)
        result = evaluate(
            game,
            make_agent,
            opp,
            deals=deals,
            env_kwargs=kwargs,
            seed=seed,
            team_play=team_play,
            agent_label=label,
        )
        results.append(result.as_dict())
        print(result.summary())
    return results


def write_results(path: str | Path, key: str, results: list[dict[str, Any]]) -> None:
    """Merge ``results`` under ``key`` into the JSON object at ``path`` (created if missing)."""
    path = Path(path)
    data = json.loads(path.read_text()) if path.is_file() else {}
    if not isinstance(data, dict):
        data = {}
    data[key] = results
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def _set_help() -> str:
    """``--set``'s help: the config keys it takes, read from :data:`DEFAULTS` so that it
    lists exactly the keys a config has."""
    plain = [k for k, v in DEFAULTS.items() if not isinstance(v, dict) and k != "warm_start"]
    sections = [k for k, v in DEFAULTS.items() if isinstance(v, dict) or k == "warm_start"]
    return (
        "override one config key (repeatable; the value is read as YAML): "
        f"{', '.join(plain)}, or a key of a section as SECTION.KEY, sections "
        f"{', '.join(sections)} (e.g. ppo.learning_rate=3e-4)"
    )


def _parser() -> Parser:
    parser = Parser(prog="kiaule train", description=describe(__doc__))
    parser.add_argument("config", nargs="?", help="a game name or a config file (YAML/JSON)")
    parser.add_argument(
        "--timesteps",
        type=positive_int,
        help="total learner steps to reach (overrides config); on --resume it counts the "
        "checkpoint's steps too, so it must be above them",
    )
    parser.add_argument(
        "--time-budget", type=positive_float, help="stop learning after this many seconds"
    )
    parser.add_argument(
        "--seed",
        type=non_negative_int,
        help=f"training seed (overrides config; default {DEFAULTS['seed']})",
    )
    parser.add_argument(
        "--n-envs",
        type=positive_int,
        help=f"parallel training envs (overrides config; default {DEFAULTS['n_envs']})",
    )
    parser.add_argument(
        "--vec-env",
        choices=["dummy", "subproc"],
        help="envs in this process (dummy) or one process each (subproc); overrides config",
    )
    parser.add_argument("--output", help="output folder (default runs/<game>)")
    parser.add_argument("--resume", help="a checkpoint zip to continue from")
    parser.add_argument(
        "--force",
        action="store_true",
        help="train into --output even if it holds other files or a run with other settings "
        "(their files are overwritten)",
    )
    parser.add_argument(
        "--export", help="also write the final model, without optimizer moments, to this path"
    )
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help=_set_help())
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--evaluate", metavar="MODEL", help="only evaluate a model file (or an agent name)"
    )
    parser.add_argument("--num-players", type=positive_int, help="player count for --evaluate NAME")
    parser.add_argument(
        "--deals", type=positive_int, default=250, help="deals per opponent (--evaluate)"
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["random", "heuristic"],
        help="agents the model is evaluated against (--evaluate; default random heuristic)",
    )
    parser.add_argument(
        "--eval-seed",
        type=non_negative_int,
        default=20_000,
        help="seed of the first evaluation deal (--evaluate; default 20000)",
    )
    parser.add_argument(
        "--trainer",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: MaskablePPO (default); rllib: multi-agent PPO on Ray "
        "(experiments/configs/rllib_*.yaml; agents.training.rllib_train)",
    )
    from experiments.tournament import add_backend_arguments

    add_backend_arguments(parser)  # --backend/--address: where --evaluate plays
    parser.add_argument(
        "--json", help="merge the evaluation results into this JSON file, keyed by the model"
    )
    return parser


def _config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    overrides = parse_set(args.set)
    for key, value in (
        ("total_timesteps", args.timesteps),
        ("time_budget_s", args.time_budget),
        ("seed", args.seed),
        ("n_envs", args.n_envs),
        ("vec_env", args.vec_env),
        ("output", args.output),
    ):
        if value is not None:
            overrides[key] = value
    source: Any = args.config
    if source is None:  # resume with the checkpoint's own config
        from agents.training.model_io import read_metadata

        source = read_metadata(args.resume)["config"]
    return resolve_config(source, overrides)


def _resume_hint(args: argparse.Namespace, checkpoint: Path | None, total: int) -> str:
    parts = ["kiaule", "train"]
    if args.config:
        parts.append(args.config)
    parts += ["--resume", str(checkpoint), "--timesteps", str(total)]
    for item in args.set:
        parts += ["--set", item]
    # the settings the run folder records (run_settings): a resume that dropped them would be
    # another run
    for flag, value in (
        ("--seed", args.seed),
        ("--n-envs", args.n_envs),
        ("--vec-env", args.vec_env),
        ("--output", args.output),
    ):
        if value is not None:
            parts += [flag, str(value)]
    return shlex.join(parts)


#: the owner named in a run folder's marker (:mod:`experiments.outdir`)
OWNER = "kiaule train"
#: config keys a run folder's runs may differ in: the length to reach and how it is executed
RUN_FOLDER_FREE = ("total_timesteps", "time_budget_s", "output", "vec_env", "torch_threads")


def run_settings(config: dict[str, Any]) -> dict[str, Any]:
    """What a run folder's runs must share (its marker's settings): the config but for the
    steps to reach and how it is executed, so a resume into its own folder (``--timesteps``
    larger) is accepted and a run of another seed or game is refused."""
    return {k: v for k, v in config.items() if k not in RUN_FOLDER_FREE}


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    from experiments.tournament import BackendUnavailable, check_backend_arguments

    check_backend_arguments(parser, args)
    try:
        if args.evaluate:
            results = evaluate_model(
                args.evaluate,
                args.opponents,
                args.deals,
                args.eval_seed,
                args.num_players,
                backend=args.backend,
                address=args.address,
            )
            if args.json:
                key = Path(args.evaluate).name if Path(args.evaluate).is_file() else args.evaluate
                write_results(args.json, key, results)
            return 0
        if args.config is None and not args.resume:
            parser.error("give a game name or a config file (or --resume CHECKPOINT)")
        if args.trainer == "rllib":
            return _train_rllib(args)
        config = _config_from_args(args)
        if args.resume:
            check_resume(config, Path(args.resume))
        command = shlex.join(
            ["python", "-m", "experiments.train", *(sys.argv[1:] if argv is None else argv)]
        )
        settings = run_settings(config)
        with claim_output(config["output"], OWNER, settings, args.force, "--output"):
            result = train(
                config,
                resume=args.resume,
                progress=not args.no_progress,
                export=args.export,
                command=command,
            )
    except (ValueError, TypeError, OSError, BackendUnavailable) as exc:
        fail("kiaule train", str(exc))
    if result.stopped_at is not None:
        print(
            f"interrupted: stopped at step {result.stopped_at:,} with checkpoint "
            f"{result.checkpoint}; resume with: "
            f"{_resume_hint(args, result.checkpoint, int(config['total_timesteps']))}",
            file=sys.stderr,
        )
        return 130
    _report(config, result)
    return 0


def _train_rllib(args: argparse.Namespace) -> int:
    """``--trainer rllib``: multi-agent PPO on a local Ray or the cluster at ``--address``."""
    from agents.training.rllib_train import resolve_rllib_config, train_rllib

    overrides = parse_set(args.set)
    for key, value in (
        ("total_timesteps", args.timesteps),
        ("time_budget_s", args.time_budget),
        ("seed", args.seed),
        ("output", args.output),
    ):
        if value is not None:
            overrides[key] = value
    config = resolve_rllib_config(args.config, overrides)
    # an RLlib run does not resume: a rerun for the same settings rewrites its own folder
    settings = {"trainer": "rllib"} | run_settings(config)
    with claim_output(config["output"], OWNER, settings, args.force, "--output"):
        progress = None if args.no_progress else print
        result = train_rllib(config, address=args.address, progress=progress)
    print(
        f"trained {config['game']} with RLlib to {result.timesteps} env steps in "
        f"{result.seconds:.0f}s, {result.illegal_moves} illegal moves; checkpoint "
        f"{result.checkpoint} (agents.make('{config['game']}/rllib', path=...)), curve "
        f"{result.output / 'learning_curve.png'}"
    )
    return 0


def _report(config: dict[str, Any], result: TrainResult) -> None:
    stats = result.stats
    print(
        f"trained {config['game']} to {result.timesteps} steps: {stats['steps_per_second']} "
        f"steps/s, env+wrapper {stats['share']['env_and_wrapper']:.0%} of learn time, "
        f"network {stats['share']['network']:.0%}; final model {result.final_model}"
    )
    if result.evals:
        print(
            "last evaluation: "
            + json.dumps(
                {
                    k: result.evals[-1][k]
                    for k in ("opponent", "mean_reward", "reward_ci95", "win_rate")
                }
            )
        )


if __name__ == "__main__":
    sys.exit(main())
