"""Training a MaskablePPO agent on one game of the suite (``kiaule train``).

The package's modules, each a step of a run:

- :mod:`~experiments.train.config`: the config (:class:`TrainConfig`, the one source of
  defaults), read from a game name, a file or a dict, with ``--set`` overrides;
- :mod:`~experiments.train.build`: the learner envs, the model and a saved model's metadata;
- :mod:`~experiments.train.checkpoint`: checkpoints as data and exact resume;
- :mod:`~experiments.train.run`: one training run (:func:`train`);
- :mod:`~experiments.train.evaluate`: ``--evaluate`` of a model file or an agent;
- :mod:`~experiments.train.cli`: the command line (``kiaule train``, ``python -m
  experiments.train``).
"""

from __future__ import annotations

from experiments.train.build import make_learner_env, make_vec_env, new_model, plays_self
from experiments.train.checkpoint import (
    check_resume,
    legacy_state_path,
    state_arrays_path,
    state_path,
)
from experiments.train.cli import RUN_FOLDER_FREE, main, run_settings
from experiments.train.config import (
    TrainConfig,
    deep_merge,
    parse_set,
    resolve_config,
    validate_config,
)
from experiments.train.evaluate import evaluate_model, write_results
from experiments.train.run import TrainResult, train, training_stats

__all__ = [
    "RUN_FOLDER_FREE",
    "TrainConfig",
    "TrainResult",
    "check_resume",
    "deep_merge",
    "evaluate_model",
    "legacy_state_path",
    "main",
    "make_learner_env",
    "make_vec_env",
    "new_model",
    "parse_set",
    "plays_self",
    "resolve_config",
    "run_settings",
    "state_arrays_path",
    "state_path",
    "train",
    "training_stats",
    "validate_config",
    "write_results",
]
