"""SuperSuit + sb3-contrib ``MaskablePPO`` on Pig (RULES §3), through the suite's adapter.

``kiaule_env.wrappers.sb3.masked_vec_env`` flattens each agent's observation and mask into one
``Box`` (``FlatMaskParallelWrapper``), lets SuperSuit make one vector sub-env per agent
(``pettingzoo_env_to_vec_env_v1``, all agents share the policy: parameter-shared self-play)
and stack copies (``concat_vec_envs_v1``), then splits the mask off again for ``MaskablePPO``
(``action_masks()``). After training, the policy plays ``player_0`` of fresh rounds against
three uniformly random players on the raw ``parallel_env`` (which raises on any illegal
action); the figure is how often it ends up the pig (a random seat: 1 in 4).

    python -m experiments.examples.supersuit_maskable_ppo_pig --timesteps 50000
    python -m experiments.examples.supersuit_maskable_ppo_pig --smoke

Needs the ``train`` and ``interop`` extras.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from kiaule_env import pig_v0
from kiaule_env.wrappers.sb3 import masked_vec_env


def train(timesteps: int, num_vec_envs: int = 2, seed: int = 0) -> Any:
    """A ``MaskablePPO`` trained for ``timesteps`` on ``num_vec_envs`` stacked 4-player Pig
    rounds (every agent a sub-env)."""
    from sb3_contrib import MaskablePPO

    if isinstance(timesteps, bool) or not isinstance(timesteps, int) or timesteps < 1:
        raise ValueError(f"timesteps must be a positive int, got {timesteps!r}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SuperSuit's and SB3's deprecation chatter
        venv = masked_vec_env(
            pig_v0.parallel_env(num_players=4), num_vec_envs=num_vec_envs, seed=seed
        )
        model = MaskablePPO(
            "MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=2, seed=seed, verbose=0
        )
        model.learn(total_timesteps=timesteps)
    return model


def pig_rate(model: Any, rounds: int, seed: int) -> float:
    """How often the policy at ``player_0`` is the pig among three random players."""
    env = pig_v0.parallel_env(num_players=4)
    rng = np.random.default_rng(seed)
    pigs = 0
    for k in range(rounds):
        obs, _ = env.reset(seed=seed + k)
        total = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = {}
            for agent in env.agents:
                mask = obs[agent]["action_mask"].astype(bool)
                if agent == "player_0":
                    action, _ = model.predict(
                        obs[agent]["observation"], action_masks=mask, deterministic=True
                    )
                    actions[agent] = int(action)
                else:
                    actions[agent] = int(rng.choice(np.flatnonzero(mask)))
            obs, rewards, _, _, _ = env.step(actions)
            for agent, reward in rewards.items():
                total[agent] += reward
        pigs += total["player_0"] < 0
    return pigs / rounds


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=200, help="evaluation rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="256 timesteps, 5 rounds (CI)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.timesteps, args.rounds = 256, 5
    if args.timesteps < 1 or args.rounds < 1:
        parser.error("--timesteps and --rounds must be >= 1")
    start = time.perf_counter()
    model = train(args.timesteps, seed=args.seed)
    seconds = time.perf_counter() - start
    rate = pig_rate(model, args.rounds, args.seed + 1)
    print(
        f"MaskablePPO on Pig: {model.num_timesteps} timesteps in {seconds:.1f} s; "
        f"player_0 the pig in {rate:.1%} of {args.rounds} rounds vs random (random: 25%)"
    )
    return {"timesteps": float(model.num_timesteps), "seconds": seconds, "pig_rate": rate}


if __name__ == "__main__":
    main()
