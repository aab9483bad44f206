"""RLlib-trained policies as agents: ``agents.make("kozel/rllib", path=CHECKPOINT_FOLDER)``.

A checkpoint written by :mod:`agents.training.rllib_train` holds one RLModule per policy and
``kiaule_rllib.json`` (game, env keywords, observation layout, seat → policy); a checkpoint whose
recorded observation layout is not the game's current one, or that records none, is refused
(:func:`agents.training.model_io.check_layout`). The agent plays the seat's policy: the module's
masked logits (RLlib's action-masking module, illegal actions at ``-inf``), most probable legal
move by default. Importing this module needs neither Ray nor torch; making the agent needs both
(the ``ray`` extra). The tournament's Ray backend ships the checkpoint folder to its workers
(:meth:`RllibAgent.shipping`).
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.registry import register
from agents.training.model_io import check_layout, current_layout
from kiaule_env import GAMES

META_FILE = "kiaule_rllib.json"


class RllibAgent(Agent):
    """Plays a checkpoint's policy for the seat it sits in."""

    def __init__(
        self, path: str | Path, game: str, seed: int | None = 0, deterministic: bool = True
    ):
        path = Path(path).resolve()  # RLlib reads modules by URI: a relative path is refused
        meta_path = path / META_FILE
        if not meta_path.is_file():
            raise ValueError(f"{path} is not an RLlib checkpoint of kiaule (no {META_FILE})")
        self.meta = json.loads(meta_path.read_text())
        if self.meta.get("game") != game:
            raise ValueError(f"{path} was trained for {self.meta.get('game')!r}, not {game!r}")
        check_layout(self.meta, current_layout(self.meta, str(path)), str(path))
        self.path, self.game, self.deterministic = path, game, deterministic
        self.name = f"{game}/rllib"
        self.rng = np.random.default_rng(seed)
        self._modules: dict[str, Any] = {}

    def reset(self) -> None:
        pass

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def _module(self, policy: str) -> Any:
        if policy not in self._modules:
            from ray.rllib.core.rl_module.rl_module import RLModule

            folder = self.path / "learner_group" / "learner" / "rl_module" / policy
            self._modules[policy] = RLModule.from_checkpoint(str(folder))
        return self._modules[policy]

    def act(self, decision: Any) -> int:
        import torch

        seats = self.meta["seat_policy"]
        seat = int(str(decision.agent).rsplit("_", 1)[1])
        module = self._module(seats[seat % len(seats)])
        obs = torch.as_tensor(np.asarray(decision.observation, np.float32))[None]
        mask = torch.as_tensor(np.asarray(decision.action_mask, np.float32))[None]
        with torch.no_grad():
            out = module.forward_inference({"obs": {"observations": obs, "action_mask": mask}})
        logits = out["action_dist_inputs"][0].numpy().astype(np.float64)
        legal = np.flatnonzero(np.asarray(decision.action_mask))
        if self.deterministic:
            return int(legal[np.argmax(logits[legal])])
        p = np.exp(logits[legal] - logits[legal].max())
        return int(self.rng.choice(legal, p=p / p.sum()))

    def shipping(self) -> tuple[Path, Any]:
        """The checkpoint folder and how to load it again elsewhere (the Ray backend)."""
        return self.path, partial(_load, game=self.game, deterministic=self.deterministic)


def _load(path: Path, game: str, seed: int | None = 0, deterministic: bool = True) -> RllibAgent:
    return RllibAgent(path, game, seed=seed, deterministic=deterministic)


def _factory(game: str):
    def make(
        seed: int | None = 0, path: str | Path | None = None, deterministic: bool = True
    ) -> RllibAgent:
        if path is None:
            raise ValueError(
                f"{game}/rllib needs path=<checkpoint folder> (kiaule train --trainer rllib)"
            )
        return RllibAgent(path, game, seed=seed, deterministic=deterministic)

    return make


for _game in GAMES:
    register(f"{_game}/rllib", _factory(_game), options={"path": str, "deterministic": bool})
