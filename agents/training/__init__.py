"""Training machinery for learned agents (sb3-contrib ``MaskablePPO``).

- :mod:`agents.training.wrapper` — :class:`LearnerEnv`, the single-agent Gymnasium view of any
  env of the suite (one seat or one Kozel team learns; the other seats are played inside);
- :mod:`agents.training.pool` — the opponent pool (baseline agents + frozen self-play snapshots);
- :mod:`agents.training.policy` — a trained actor as a numpy function, and the agent playing it;
- :mod:`agents.training.callbacks` — self-play snapshots, evaluation, checkpoints, time budget;
- :mod:`agents.training.evaluate` — seat-rotated evaluation with 95% confidence intervals;
- :mod:`agents.training.model_io` — model files with their game / player-count metadata;
- :mod:`agents.training.fast_ppo` — the MaskablePPO ``kiaule train`` builds: the same floats,
  less overhead per network call.

Everything except ``callbacks`` and ``fast_ppo`` works without torch and SB3 installed.
"""
