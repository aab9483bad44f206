"""Multi-agent training with RLlib (new API stack): ``kiaule train <game> --trainer rllib``.

    kiaule train experiments/configs/rllib_kozel.yaml --trainer rllib
    kiaule train experiments/configs/rllib_pig.yaml --trainer rllib --address head:6379

Every seat of the table is an RLlib agent (:class:`KiauleMultiAgentEnv`, turn-based: only the
seat to move gets an observation; Pig's simultaneous reactions give several at once). Seats map to
policies by ``policies`` in the config:

* ``per_team`` (Kozel, K1: seats 0+2 against 1+3): one policy per team, both partners share it,
  the two teams learn against each other;
* ``shared``: one policy for every seat (self-play; Kiauliaganys, Pig, and Kozel's self-play).

Illegal moves are impossible by construction: the policy is RLlib's action-masking module
(``ActionMaskingTorchRLModule``), whose logits of masked actions are ``-inf``; the env adapter
still checks every action against the mask, counts any illegal one (``illegal_moves`` in the
metrics and ``learning_curve.csv``; the smoke test asserts zero) and plays the lowest legal move
instead so a run is never lost to one. Checkpoints (``algo.save``) go to ``<output>/checkpoint``
with ``kiaule_rllib.json`` (game, env keywords, seat → policy); the final one loads as an agent:
``agents.make("kozel/rllib", path="runs/rllib_kozel/checkpoint")``.

The rules engine never imports this module (nor Ray).
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

META_FILE = "kiaule_rllib.json"
POLICY_MODES = ("per_team", "shared")

DEFAULTS: dict[str, Any] = {
    "env_kwargs": {},
    "policies": "shared",
    "seed": 0,
    "total_timesteps": 4000,
    "time_budget_s": None,
    "num_env_runners": 1,
    "train_batch_size": 1000,
    "minibatch_size": 250,
    "num_epochs": 4,
    "lr": 3e-4,
    "gamma": 1.0,
    "entropy_coeff": 0.01,
    "net_arch": [128, 128],
    "checkpoint_every": 10,
    "eval": {"deals": 50, "opponent": "heuristic"},
}


def resolve_rllib_config(source: str | Path | dict[str, Any], overrides: dict[str, Any]) -> dict:
    """The run's settings: :data:`DEFAULTS`, then the file (or a game name), then ``overrides``;
    ``ValueError`` naming the key for an unknown key or a bad value."""
    from kiaule_env import GAMES

    if isinstance(source, dict):
        data = dict(source)
    elif str(source) in GAMES:
        data = {"game": str(source)}
    else:
        import yaml

        path = Path(source)
        if not path.is_file():
            raise ValueError(f"config {source!r} is neither a game ({', '.join(GAMES)}) nor a file")
        data = yaml.safe_load(path.read_text()) or {}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: a config is a mapping of settings")
        data.pop("trainer", None)
    config = {**DEFAULTS, **data, **overrides}
    unknown = sorted(set(config) - set(DEFAULTS) - {"game", "output"})
    if unknown:
        raise ValueError(f"unknown RLlib config key(s) {unknown}; known: {sorted(DEFAULTS)}")
    if config.get("game") not in GAMES:
        raise ValueError(
            f"config 'game' must be one of {', '.join(GAMES)}, got {config.get('game')!r}"
        )
    if config["policies"] not in POLICY_MODES:
        raise ValueError(
            f"config 'policies' must be one of {POLICY_MODES}, got {config['policies']!r}"
        )
    if config["policies"] == "per_team" and GAMES[config["game"]].teams is None:
        raise ValueError(f"policies='per_team' needs a team game; {config['game']} has no teams")
    for key in ("total_timesteps", "train_batch_size", "minibatch_size", "num_epochs"):
        if not isinstance(config[key], int) or isinstance(config[key], bool) or config[key] < 1:
            raise ValueError(f"config {key!r} must be an integer >= 1, got {config[key]!r}")
    if not isinstance(config["num_env_runners"], int) or config["num_env_runners"] < 0:
        raise ValueError(
            f"config 'num_env_runners' must be an integer >= 0, got {config['num_env_runners']!r}"
        )
    config.setdefault("output", f"runs/rllib_{config['game']}")
    return config


# ------------------------------------------------------------------------------ the env


class _MultiAgentGame:
    """A kiaule game as an RLlib ``MultiAgentEnv``: the seats that must act get
    ``{"observations", "action_mask"}`` (RLlib's masking layout, from our
    ``observation``/``action_mask``), everyone's rewards are passed on as they come.

    The body of :func:`_multi_agent_env_class`'s class, which adds RLlib's ``MultiAgentEnv`` as
    the next base (Ray is imported only when RLlib training runs)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        from kiaule_env import GAMES

        config = dict(config or {})
        self.game = GAMES[config["game"]]
        self.env = self.game.native_env(**dict(config.get("env_kwargs", {})))
        self.parallel = self.game.parallel
        self.agents = self.possible_agents = list(self.env.possible_agents)
        from gymnasium import spaces

        first = self.possible_agents[0]
        raw = self.env.observation_space(first)
        n = self.env.action_space(first).n
        space = spaces.Dict(
            {
                "observations": raw["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self.env.action_space(first))
        self.illegal_moves = 0
        self._masks: dict[str, np.ndarray] = {}

    def _obs(self, agent: str, raw: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        self._masks[agent] = raw["action_mask"]
        return {
            "observations": raw["observation"].astype(np.float32, copy=False),
            "action_mask": raw["action_mask"].astype(np.float32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.illegal_moves = 0
        self._masks = {}
        if self.parallel:
            obs, _ = self.env.reset(seed=seed, options=options)
            out = {a: self._obs(a, o) for a, o in obs.items() if o["action_mask"].any()}
            return out, {a: {} for a in out}
        self.env.reset(seed=seed, options=options)
        agent = self.env.agent_selection
        return {agent: self._obs(agent, self.env.observe(agent))}, {agent: {}}

    def _legal(self, agent: str, action: Any) -> int:
        """``action`` if the mask allows it, else count it and take the lowest legal move."""
        mask = self._masks[agent]
        action = int(action)
        if 0 <= action < len(mask) and mask[action]:
            return action
        self.illegal_moves += 1
        return int(np.flatnonzero(mask)[0])

    def step(self, action_dict: dict[str, Any]):
        if self.parallel:
            return self._step_parallel(action_dict)
        agent = self.env.agent_selection
        self.env.step(self._legal(agent, action_dict[agent]))
        # every seat gets its (possibly zero) reward: RLlib wants one for each acting agent
        rewards = {a: float(self.env.rewards.get(a, 0.0)) for a in self.agents}
        done = all(self.env.terminations[a] or self.env.truncations[a] for a in self.agents)
        if done:
            obs = {a: self._obs(a, self.env.observe(a)) for a in self.agents}
            rewards = {a: float(self.env.rewards.get(a, 0.0)) for a in self.agents}
            flags = {**dict.fromkeys(self.agents, True), "__all__": True}
            return obs, rewards, flags, {"__all__": False}, {}
        nxt = self.env.agent_selection
        obs = {nxt: self._obs(nxt, self.env.observe(nxt))}
        return obs, rewards, {"__all__": False}, {"__all__": False}, {}

    def _step_parallel(self, action_dict: dict[str, Any]):
        actions = {a: self._legal(a, act) for a, act in action_dict.items()}
        live = list(self.env.agents)
        for a in live:  # seats with no decision this step pass 0 (their mask is empty)
            actions.setdefault(a, 0)
        obs, rew, term, trunc, _ = self.env.step(actions)
        done = not self.env.agents
        rewards = {a: float(r) for a, r in rew.items()}
        if done:
            out = {a: self._obs(a, o) for a, o in obs.items()}
            flags = {**dict.fromkeys(out, True), "__all__": True}
            return out, rewards, flags, {"__all__": False}, {}
        out = {a: self._obs(a, o) for a, o in obs.items() if o["action_mask"].any()}
        gone = {a: True for a in live if term.get(a) or trunc.get(a)}
        for a in gone:
            out.setdefault(a, self._obs(a, obs[a]) if a in obs else None)
        out = {a: o for a, o in out.items() if o is not None}
        return out, rewards, {**gone, "__all__": False}, {"__all__": False}, {}


def _multi_agent_env_class() -> type:
    """:class:`_MultiAgentGame` as an RLlib ``MultiAgentEnv`` class."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class KiauleMultiAgentEnv(_MultiAgentGame, MultiAgentEnv):
        """A kiaule game as an RLlib ``MultiAgentEnv`` (see :class:`_MultiAgentGame`)."""

    return KiauleMultiAgentEnv


def policy_of_seat(game: str, mode: str) -> Callable[[int], str]:
    """Seat → policy id: the team's (``team_<i>``, K1) or the one shared policy."""
    from kiaule_env import GAMES

    if mode == "per_team":
        teams = GAMES[game].teams

        def team(seat: int) -> str:
            return f"team_{next(i for i, t in enumerate(teams) if seat in t)}"

        return team
    return lambda seat: "shared"


def _seat(agent_id: str) -> int:
    return int(str(agent_id).rsplit("_", 1)[1])


# ------------------------------------------------------------------------ the algorithm


def _callbacks_class() -> type:
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class IllegalMoves(RLlibCallback):
        """Sums the env adapter's illegal-move count into the metrics (must stay 0)."""

        def on_episode_end(
            self, *, episode, env_runner=None, metrics_logger=None, env=None, **kwargs
        ):
            inner = getattr(env, "unwrapped", env)
            count = getattr(inner, "illegal_moves", None)
            if count is None and hasattr(inner, "envs"):
                count = sum(getattr(e.unwrapped, "illegal_moves", 0) for e in inner.envs)
            if metrics_logger is not None:
                metrics_logger.log_value("illegal_moves", int(count or 0), reduce="sum")

    return IllegalMoves


def build_algorithm(config: dict[str, Any]) -> Any:
    """The PPO algorithm of ``config`` (masking RLModule per policy, seat → policy mapping)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    env_class = _multi_agent_env_class()
    register_env("kiaule", lambda cfg: env_class(cfg))
    seat_policy = policy_of_seat(config["game"], config["policies"])
    env_config = {"game": config["game"], "env_kwargs": dict(config["env_kwargs"])}
    probe = env_class(env_config)
    policies = sorted({seat_policy(_seat(a)) for a in probe.possible_agents})
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": list(config["net_arch"]), "vf_share_layers": False},
    )

    def mapping(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
        return seat_policy(_seat(agent_id))

    ppo = (
        PPOConfig()
        .environment("kiaule", env_config=env_config)
        .framework("torch")
        .env_runners(num_env_runners=config["num_env_runners"], num_envs_per_env_runner=1)
        .multi_agent(policies=set(policies), policy_mapping_fn=mapping)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(policies, module))
        )
        .training(
            train_batch_size_per_learner=config["train_batch_size"],
            minibatch_size=config["minibatch_size"],
            num_epochs=config["num_epochs"],
            lr=config["lr"],
            gamma=config["gamma"],
            entropy_coeff=config["entropy_coeff"],
        )
        .callbacks(_callbacks_class())
        .debugging(seed=config["seed"], log_level="ERROR")
    )
    return ppo.build_algo()


@dataclass
class RllibResult:
    """Where the run left its files, and how it went."""

    output: Path
    checkpoint: Path
    timesteps: int
    seconds: float
    illegal_moves: int
    curve: list[dict[str, float]]


def _metric(result: dict[str, Any], *keys: str) -> float:
    node: Any = result
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return float("nan")
        node = node[key]
    return float(node)


def train_rllib(
    config: dict[str, Any],
    address: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> RllibResult:
    """Train until ``total_timesteps`` env steps (or ``time_budget_s``); checkpoint every
    ``checkpoint_every`` iterations and at the end; write ``learning_curve.csv`` and ``.png``.
    ``progress`` gets one line per iteration (the CLI prints it)."""
    from agents.ray_cluster import connect

    connect(address, num_cpus=None)
    output = Path(config["output"])
    output.mkdir(parents=True, exist_ok=True)
    (output / "config.json").write_text(json.dumps(config, indent=1, default=str) + "\n")
    algo = build_algorithm(config)
    curve: list[dict[str, float]] = []
    start = time.perf_counter()
    steps = illegal = 0
    checkpoint = output / "checkpoint"
    try:
        while steps < config["total_timesteps"]:
            result = algo.train()
            sampled = _metric(result, "env_runners", "num_env_steps_sampled_lifetime")
            if not sampled == sampled or int(sampled) <= steps:
                raise RuntimeError(
                    f"RLlib sampled no new env steps in iteration {len(curve) + 1} (an env "
                    "runner failed; see the Ray logs)"
                )
            steps = int(sampled)
            illegal += int(np.nan_to_num(_metric(result, "env_runners", "illegal_moves")))
            row = {
                "iteration": len(curve) + 1,
                "env_steps": steps,
                "seconds": round(time.perf_counter() - start, 2),
                "episode_return_mean": _metric(result, "env_runners", "episode_return_mean"),
                "episode_len_mean": _metric(result, "env_runners", "episode_len_mean"),
                "illegal_moves": illegal,
            }
            for pid, value in _safe_items(
                result.get("env_runners", {}).get("module_episode_returns_mean")
            ):
                row[f"return_{pid}"] = float(value)
            curve.append(row)
            if progress is not None:
                progress(
                    f"iter {row['iteration']}: {steps} steps, return per policy "
                    f"{ {k[7:]: round(v, 3) for k, v in row.items() if k.startswith('return_')} }, "
                    f"illegal moves {illegal}, {row['seconds']:.0f}s"
                )
            if row["iteration"] % config["checkpoint_every"] == 0:
                save_checkpoint(algo, checkpoint, config)
            budget = config.get("time_budget_s")
            if budget and time.perf_counter() - start > budget:
                break
        save_checkpoint(algo, checkpoint, config)
    finally:
        algo.stop()
    _write_curve(output, curve)
    return RllibResult(output, checkpoint, steps, time.perf_counter() - start, illegal, curve)


def _safe_items(value: Any) -> list[tuple[str, Any]]:
    return list(value.items()) if isinstance(value, dict) else []


def save_checkpoint(algo: Any, folder: Path, config: dict[str, Any]) -> Path:
    """``algo.save`` into ``folder`` plus :data:`META_FILE` (what the agent needs to play)."""
    folder = folder.resolve()
    algo.save(str(folder))
    seat_policy = policy_of_seat(config["game"], config["policies"])
    from agents.training.model_io import LAYOUT_KEY, layout_metadata
    from kiaule_env import GAMES, layout_of_env

    env = GAMES[config["game"]].native_env(**dict(config["env_kwargs"]))
    first = env.possible_agents[0]
    meta = {
        "game": config["game"],
        "env_kwargs": config["env_kwargs"],
        "num_players": len(env.possible_agents),
        "obs_size": int(env.observation_space(first)["observation"].shape[0]),
        "num_actions": int(env.action_space(first).n),
        LAYOUT_KEY: layout_metadata(layout_of_env(env)),
        "seat_policy": [seat_policy(s) for s in range(len(env.possible_agents))],
        "policies": config["policies"],
    }
    (folder / META_FILE).write_text(json.dumps(meta, indent=1) + "\n")
    return folder


def _write_curve(output: Path, curve: list[dict[str, float]]) -> None:
    if not curve:
        return
    keys = sorted({k for row in curve for k in row}, key=lambda k: (k not in curve[0], k))
    with (output / "learning_curve.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(curve)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for key in keys:
        if key.startswith("return_"):
            ax.plot([r["env_steps"] for r in curve], [r.get(key) for r in curve], label=key[7:])
    ax.plot(
        [r["env_steps"] for r in curve],
        [r["episode_return_mean"] for r in curve],
        label="episode return (all seats)",
        color="k",
        lw=1,
    )
    ax.set_xlabel("env steps")
    ax.set_ylabel("mean return per episode")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(output / "learning_curve.png", dpi=100)
    plt.close(fig)
