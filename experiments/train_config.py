"""The schema of a training config (``kiaule train``), checked as a whole before any work.

Every key of :data:`experiments.train.DEFAULTS` has a type and a range here; unknown keys are
refused. :func:`validate_config` returns the config with its values converted (``"1e-4"`` to a
float) or raises ``ValueError`` listing every problem, each named by its dotted key
(``ppo.batch_size``), so a bad config fails in one line before the envs or the network exist.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

Count = Annotated[int, Field(ge=1)]
NonNegative = Annotated[int, Field(ge=0)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OpponentsConfig(_Section):
    #: registry kinds or names -> weight; "self" stands for the learner's snapshots
    mix: dict[str, Annotated[float, Field(ge=0.0)]]
    snapshot_every: NonNegative
    max_snapshots: Count
    snapshot_deterministic: bool
    #: whole lineups instead of one draw per side: "member member ..." (clockwise from the
    #: learner's left) -> weight; see agents.training.pool
    lineups: dict[str, Annotated[float, Field(ge=0.0)]] | None = None
    #: the learner's reward is the mean over its seat and the lineups' self seats (its copies)
    team_with_copies: bool = False

    @field_validator("mix")
    @classmethod
    def _some_weight(cls, mix: dict[str, float]) -> dict[str, float]:
        if not any(w > 0 for w in mix.values()):
            raise ValueError("needs at least one positive weight")
        return mix


class PolicyConfig(_Section):
    net_arch: list[Count]
    activation: Literal["tanh", "relu"]


class PPOConfig(_Section):
    learning_rate: Annotated[float, Field(gt=0.0)]
    n_steps: Count
    #: SB3 normalises advantages per minibatch: at least two samples
    batch_size: Annotated[int, Field(ge=2)]
    n_epochs: Count
    gamma: Unit
    gae_lambda: Unit
    ent_coef: Annotated[float, Field(ge=0.0)]
    clip_range: Annotated[float, Field(gt=0.0)]
    vf_coef: Annotated[float, Field(ge=0.0)]
    max_grad_norm: Annotated[float, Field(gt=0.0)]
    target_kl: Annotated[float, Field(gt=0.0)] | None = None
    normalize_advantage: bool = True


class EvalConfig(_Section):
    #: evaluate every this many steps (0: never)
    every: NonNegative
    deals: Count
    opponent: str
    env_kwargs: dict[str, Any] | None


class CheckpointConfig(_Section):
    every: Count


class WarmStartConfig(_Section):
    """DAgger from a teacher before PPO (:mod:`agents.training.distill`)."""

    #: registry kind or name of the agent whose moves are imitated
    teacher: str
    rounds: Count
    games_per_round: Count
    #: who plays the seats while the teacher labels: kinds/names, "teacher", "student"
    behaviour: dict[str, Annotated[float, Field(ge=0.0)]]
    workers: Count
    epochs: Count
    batch_size: Annotated[int, Field(ge=2)]
    learning_rate: Annotated[float, Field(gt=0.0)]
    value_coef: Annotated[float, Field(ge=0.0)]

    @field_validator("behaviour")
    @classmethod
    def _some_player(cls, mix: dict[str, float]) -> dict[str, float]:
        if not any(w > 0 for k, w in mix.items() if k != "student"):
            raise ValueError("needs a positive weight for a member other than 'student'")
        return mix


class TrainConfig(_Section):
    game: str
    env_kwargs: dict[str, Any]
    team_play: bool
    seed: NonNegative
    deterministic_play: bool
    #: 0 only with a warm_start: the imitated network is the model
    total_timesteps: NonNegative
    time_budget_s: Annotated[float, Field(gt=0.0)] | None
    n_envs: Count
    vec_env: Literal["dummy", "subproc"]
    device: str
    torch_threads: Count
    opponents: OpponentsConfig
    policy: PolicyConfig
    ppo: PPOConfig
    eval: EvalConfig
    checkpoint: CheckpointConfig
    output: str | None
    tensorboard: bool
    warm_start: WarmStartConfig | None = None

    @field_validator("game")
    @classmethod
    def _known_game(cls, game: str) -> str:
        from kiaule_env import get_game

        get_game(game)  # ValueError naming the known games
        return game

    @field_validator("device")
    @classmethod
    def _usable_device(cls, device: str) -> str:
        check_device(device)
        return device


def check_device(device: str) -> None:
    """Refuse a torch device this machine's torch cannot use (``cuda`` on a CPU-only build)."""
    if device in ("cpu", "auto"):
        return
    import torch

    kind = device.split(":")[0]
    available = {
        "cuda": torch.cuda.is_available(),
        "mps": getattr(torch.backends, "mps", None) is not None
        and torch.backends.mps.is_available(),
    }
    if kind not in available:
        raise ValueError(f"unknown device {device!r}; use cpu, auto, cuda[:N] or mps")
    if not available[kind]:
        raise ValueError(f"device {device!r} is not available to this torch build; use cpu")


def _describe(error: dict[str, Any]) -> str:
    where = ".".join(str(p) for p in error["loc"]) or "config"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    if error["type"] == "missing":
        return f"{where}: missing"
    return f"{where}: {message} (got {error.get('input')!r})"


def validate_config(config: dict[str, Any], source: str = "config") -> dict[str, Any]:
    """``config`` checked against :class:`TrainConfig`, values converted; else ``ValueError``.

    The message names ``source`` (the config file) and every bad key with what it allows.
    """
    try:
        model = TrainConfig.model_validate(config)
    except ValidationError as exc:
        problems = "; ".join(_describe(e) for e in exc.errors())
        raise ValueError(f"{source}: {problems}") from None
    checked = model.model_dump(exclude_unset=True)
    if checked["total_timesteps"] == 0 and not checked.get("warm_start"):
        raise ValueError(
            f"{source}: total_timesteps: must be at least 1 (0 only with a warm_start, whose "
            "imitated network is then the model)"
        )
    if checked["ppo"]["n_steps"] * checked["n_envs"] < 2:
        raise ValueError(f"{source}: ppo.n_steps × n_envs must be at least 2")
    _check_team_with_copies(checked, source)
    return checked


def _check_team_with_copies(config: dict[str, Any], source: str) -> None:
    """``opponents.team_with_copies`` needs lineups with ``self`` seats, in a game without teams."""
    opp = config["opponents"]
    if not opp.get("team_with_copies"):
        return
    from kiaule_env import get_game

    if get_game(config["game"]).teams is not None:
        raise ValueError(
            f"{source}: opponents.team_with_copies: only for games without teams "
            f"({config['game']} has teams: team_play shares the team's reward)"
        )
    from agents.training.pool import lineups_seat_self

    if not lineups_seat_self(opp.get("lineups")):
        raise ValueError(
            f"{source}: opponents.team_with_copies: needs opponents.lineups with a 'self' member "
            "(the copies whose rewards it shares)"
        )
