"""The pieces of a training run built from its config: the monitored learner envs, the
MaskablePPO model, the evaluation opponent and the metadata a saved model carries."""

from __future__ import annotations

import copy
import functools
import sys
import time
from functools import partial
from typing import Any

from experiments.train.config import TrainConfig

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


def make_learner_env(config: TrainConfig, index: int = 0):
    """One monitored :class:`LearnerEnv` with its own opponent pool (picklable for subproc)."""
    from agents.training.pool import OpponentPool
    from agents.training.wrapper import LearnerEnv

    opp = config.opponents
    pool = OpponentPool(
        config.game,
        opp.mix,
        max_snapshots=opp.max_snapshots,
        snapshot_deterministic=opp.snapshot_deterministic,
        lineups=opp.lineups,
    )
    env = LearnerEnv(
        config.game,
        config.env_kwargs,
        pool=pool,
        team_play=config.team_play,
        team_with_copies=opp.team_with_copies,
        seat_pairs=opp.seat_pairs,
    )
    return _resumable_monitor()(env)


def make_pool(config: TrainConfig):
    """The opponent pool of ``config``'s ``opponents`` section."""
    from agents.training.pool import OpponentPool

    opp = config.opponents
    return OpponentPool(
        config.game,
        opp.mix,
        max_snapshots=opp.max_snapshots,
        snapshot_deterministic=opp.snapshot_deterministic,
        lineups=opp.lineups,
    )


def make_batched_env(config: TrainConfig):
    """The ``vector`` collector: ``config.n_envs`` slots of one batched env, seeded by the
    config's seed (:class:`agents.training.batched.BatchedCollector`)."""
    from agents.training.batched import BatchedCollector

    return BatchedCollector(
        config.game,
        config.env_kwargs,
        make_pool(config),
        config.n_envs,
        seed=config.seed,
        team_play=config.team_play,
        team_with_copies=config.opponents.team_with_copies,
        seat_pairs=config.opponents.seat_pairs,
    )


def make_vec_env(config: TrainConfig):
    """The rollout collector of ``config.collector``: ``config.n_envs`` learner envs, in this
    process or one process each (``vec_env``), or one batched env of ``n_envs`` slots."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if config.collector == "vector":
        return make_batched_env(config)
    fns = [partial(make_learner_env, config, i) for i in range(config.n_envs)]
    if config.vec_env == "subproc" and config.n_envs > 1:
        return SubprocVecEnv(fns)
    return DummyVecEnv(fns)


def plays_self(config: TrainConfig) -> bool:
    """Whether the opponents draw the learner's snapshots: ``self`` in the lineups when there
    are lineups (they replace the mix), else in the mix."""
    from agents.training.pool import SELF, lineups_seat_self

    opp = config.opponents
    if opp.lineups:
        return lineups_seat_self(opp.lineups)
    return opp.mix.get(SELF, 0) > 0


def new_model(config: TrainConfig, vec_env, tensorboard_log: str | None = None):
    """A fresh MaskablePPO model of ``config`` (network, PPO settings, seed, device) on
    ``vec_env``: :class:`~agents.training.fast_ppo.FastMaskablePPO`, the same floats as
    sb3-contrib's ``MaskablePPO`` with less overhead per network call."""
    import torch

    from agents.training.fast_ppo import FastMaskablePPO

    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[config.policy.activation]
    return FastMaskablePPO(
        "MlpPolicy",
        vec_env,
        seed=config.seed,
        device=config.device,
        tensorboard_log=tensorboard_log,
        verbose=0,
        policy_kwargs={"net_arch": list(config.policy.net_arch), "activation_fn": activation},
        **ppo_keywords(config),
    )


def ppo_keywords(config: TrainConfig) -> dict[str, Any]:
    """``config.ppo`` as MaskablePPO's keywords: with ``learning_rate_final`` the learning rate
    is SB3's linear schedule from ``learning_rate`` (progress 0) to it (``total_timesteps``)."""
    from stable_baselines3.common.utils import LinearSchedule

    keywords = config.ppo.model_dump()
    final = keywords.pop("learning_rate_final")
    if final is not None:
        keywords["learning_rate"] = LinearSchedule(keywords["learning_rate"], final, 1.0)
    return keywords


def eval_opponent(config: TrainConfig) -> str:
    """The evaluation opponent's registry name; ``random`` if the game has no such agent."""
    from agents import registry

    name = registry.qualified(config.game, config.eval.opponent)
    if name not in registry.list_agents(config.game):
        fallback = f"{config.game}/random"
        print(f"train: {name} is not registered; evaluating against {fallback}", file=sys.stderr)
        return fallback
    return name


def extra_opponents(config: TrainConfig) -> dict[str, int]:
    """``eval.extra_opponents`` as qualified registry names -> deals; ``ValueError`` naming an
    agent the game does not have (before any training)."""
    from agents import registry

    known = registry.list_agents(config.game)
    extra = {}
    for name, deals in config.eval.extra_opponents.items():
        qualified = registry.qualified(config.game, name)
        if qualified.partition(":")[0] not in known:
            raise ValueError(
                f"eval.extra_opponents: {name!r} is not a {config.game} agent; "
                f"known: {', '.join(known)}"
            )
        registry.make(qualified, seed=0)  # a bad option fails here, with the agent's message
        extra[qualified] = deals
    return extra


def model_metadata(
    config: TrainConfig, vec_env, model, command: str | None = None
) -> dict[str, Any]:
    """The ``kiaule.json`` of a saved model: what it plays (game, player count, env keywords,
    observation size and layout, actions), its network, and how it was trained."""
    from agents.training.model_io import LAYOUT_KEY, layout_metadata

    players = vec_env.get_attr("num_players", indices=[0])[0]
    layout = vec_env.get_attr("layout", indices=[0])[0]
    return {
        "game": config.game,
        "num_players": int(players),
        "env_kwargs": config.env_kwargs,
        "team_play": config.team_play,
        "obs_size": int(vec_env.observation_space.shape[0]),
        "num_actions": int(vec_env.action_space.n),
        LAYOUT_KEY: layout_metadata(layout),
        "activation": config.policy.activation,
        "net_arch": list(config.policy.net_arch),
        "deterministic": config.deterministic_play,
        "timesteps": int(model.num_timesteps),
        "seed": config.seed,
        "config": config.as_dict(),
        "command": command or "experiments.train.train(config) (called from Python)",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
