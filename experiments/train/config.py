"""The training config of ``kiaule train``: one pydantic model, its defaults, and how it is read.

:class:`TrainConfig` is the one source of defaults: every key has its type, range and default
here, unknown keys are refused. A config is built from a game name (its file in
``experiments/configs/``, or the game's defaults when it has none), a config file (YAML or
JSON) or a dict, with ``--set`` overrides merged over it; :func:`resolve_config` checks the
whole of it and raises one ``ValueError`` listing every problem, each named by its dotted key
(``ppo.batch_size``), so a bad config fails in one line before the envs or the network exist.
"""

from __future__ import annotations

import contextlib
import copy
import json
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs"

Count = Annotated[int, Field(ge=1)]
NonNegative = Annotated[int, Field(ge=0)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Weights = dict[str, Annotated[float, Field(ge=0.0)]]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OpponentsConfig(_Section):
    """Who the learner plays against: a pool of registry agents and its own snapshots."""

    #: registry kinds or names -> weight; "self" stands for the learner's snapshots
    mix: Weights = Field(default_factory=lambda: {"random": 1.0})
    #: take a snapshot of the learner every this many steps (when "self" plays)
    snapshot_every: NonNegative = 20_000
    max_snapshots: Count = 8
    snapshot_deterministic: bool = False
    #: whole lineups instead of one draw per side: "member member ..." (clockwise from the
    #: learner's left) -> weight; see agents.training.pool
    lineups: Weights | None = None
    #: games without teams: the learner's reward is the mean over its seat and the lineups'
    #: self seats (its copies), as a tournament scores an agent on several seats
    team_with_copies: bool = False
    #: games without teams, an even number of seats: the learner plays every other seat (as a
    #: two-agent tournament seats an agent, A B A B), its reward the mean over them; the seats
    #: between are one opposing side, one member playing them all
    seat_pairs: bool = False

    @field_validator("mix")
    @classmethod
    def _some_weight(cls, mix: dict[str, float]) -> dict[str, float]:
        if not any(w > 0 for w in mix.values()):
            raise ValueError("needs at least one positive weight")
        return mix


class PolicyConfig(_Section):
    """The policy and value network."""

    net_arch: list[Count] = Field(default_factory=lambda: [128, 128])
    activation: Literal["tanh", "relu"] = "tanh"


class PPOConfig(_Section):
    """MaskablePPO's keywords (sb3-contrib), passed to it as they are, except
    ``learning_rate_final``, which makes ``learning_rate`` a schedule."""

    learning_rate: Annotated[float, Field(gt=0.0)] = 3e-4
    #: anneal the learning rate linearly from ``learning_rate`` at step 0 to this at
    #: ``total_timesteps`` (SB3's training progress, so a resumed run follows the same
    #: schedule); None keeps ``learning_rate`` throughout
    learning_rate_final: Annotated[float, Field(ge=0.0)] | None = None
    n_steps: Count = 512
    #: SB3 normalises advantages per minibatch: at least two samples
    batch_size: Annotated[int, Field(ge=2)] = 256
    n_epochs: Count = 4
    gamma: Unit = 1.0
    gae_lambda: Unit = 0.95
    ent_coef: Annotated[float, Field(ge=0.0)] = 0.01
    clip_range: Annotated[float, Field(gt=0.0)] = 0.2
    vf_coef: Annotated[float, Field(ge=0.0)] = 0.5
    max_grad_norm: Annotated[float, Field(gt=0.0)] = 0.5
    target_kl: Annotated[float, Field(gt=0.0)] | None = None
    normalize_advantage: bool = True


class EvalConfig(_Section):
    """The periodic evaluation against a rule-based agent, seats rotated."""

    #: evaluate every this many steps (0: never)
    every: NonNegative = 20_000
    deals: Count = 50
    #: registry kind or name; a game without it is evaluated against "random"
    opponent: str = "heuristic"
    #: env keywords of evaluation games (None: those of training)
    env_kwargs: dict[str, Any] | None = None
    #: further opponents evaluated at each evaluation, registry kind or name -> deals (a
    #: search agent is slow: give it fewer deals); ``best.zip`` follows ``opponent`` alone, and
    #: the learning curves (``curves.png``) plot every opponent
    extra_opponents: dict[str, Count] = Field(default_factory=dict)
    #: how every evaluation seats the learner: ``one`` seat (its team in a game with teams) per
    #: game against the opponent on every other seat, or ``alternate``: every other seat, as
    #: ``kiaule tournament`` seats two agents (an even number of players), so ``best.zip``
    #: follows the two-agent score
    seating: Literal["one", "alternate"] = "one"


class CheckpointConfig(_Section):
    every: Count = 50_000


class WarmStartConfig(_Section):
    """DAgger from a teacher before PPO (:mod:`agents.training.distill`); every key is needed."""

    #: registry kind or name of the agent whose moves are imitated
    teacher: str
    rounds: Count
    games_per_round: Count
    #: who plays the seats while the teacher labels: kinds/names, "teacher", "student"
    behaviour: Weights
    workers: Count
    epochs: Count
    batch_size: Annotated[int, Field(ge=2)]
    learning_rate: Annotated[float, Field(gt=0.0)]
    value_coef: Annotated[float, Field(ge=0.0)]
    #: run the warm start also in a run started from a model file (``--resume`` of a file
    #: without training state, such as a zoo model), imitating from that network, which is
    #: then the first round's student; otherwise a resumed run never imitates
    from_model: bool = False
    #: the teacher labels only the decisions whose view has these values (``{face_down: 0}``:
    #: Kiauliaganys once the face-down cards are gone, G5); every other decision is labelled
    #: with the starting network's own policy, so the imitation changes play only where the
    #: teacher labels. Needs ``from_model`` (None: the teacher labels every decision)
    teacher_where: dict[str, int] | None = None

    @field_validator("behaviour")
    @classmethod
    def _some_player(cls, mix: dict[str, float]) -> dict[str, float]:
        if not any(w > 0 for k, w in mix.items() if k != "student"):
            raise ValueError("needs a positive weight for a member other than 'student'")
        return mix

    @model_validator(mode="after")
    def _where_needs_a_model(self) -> WarmStartConfig:
        if self.teacher_where is not None and not self.from_model:
            raise ValueError(
                "teacher_where labels the other decisions with the starting network's own "
                "policy: it needs from_model: true and a run started from a model file"
            )
        return self


class TrainConfig(_Section):
    """One training run. Only ``game`` has no default."""

    game: str
    #: constructor keywords of the training env (reward mode, player count, options)
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    #: the learner plays every seat of its team (Kozel, K1); ignored for games without teams
    team_play: bool = True
    seed: NonNegative = 0
    #: how the trained model plays (written into its kiaule.json, used by its evaluations):
    #: its most probable legal move (True), or a draw from its policy (False: a mixed strategy,
    #: as Pig's simultaneous passing wants, agents/zoo/README.md)
    deterministic_play: bool = True
    #: 0 only with a warm_start: the imitated network is the model
    total_timesteps: NonNegative = 100_000
    #: stop learning after this many seconds (None: no limit)
    time_budget_s: Annotated[float, Field(gt=0.0)] | None = None
    #: how rollouts are collected: "envs" (one LearnerEnv per env, Python rules engines and
    #: agents, agents.training.wrapper) or "vector" (one compiled batch of n_envs slots,
    #: opponents decided a batch at a time: random, the compiled heuristic, self snapshots;
    #: agents.training.batched). The same semantics; configs say which they use
    collector: Literal["envs", "vector"] = "envs"
    #: envs: the number of LearnerEnvs; vector: the number of batch slots (the rollout is
    #: ppo.n_steps × n_envs learner steps either way)
    n_envs: Count = 4
    #: "dummy" (one process) or "subproc" (one process per env); collector "envs" only
    vec_env: Literal["dummy", "subproc"] = "dummy"
    device: str = "cpu"
    torch_threads: Count = 1
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    #: the run's folder (None: runs/<game>)
    output: str | None = None
    tensorboard: bool = True
    #: imitation before PPO (agents.training.distill): None, or the WarmStartConfig keys
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

    def as_dict(self) -> dict[str, Any]:
        """The whole config as JSON data: what ``config.json``, a model's ``kiaule.json`` and
        the run folder's marker record, and what the ``agents`` layer reads."""
        return self.model_dump(mode="json")


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


# ---------------------------------------------------------------------- keys
def _section_of(annotation: Any) -> type[_Section] | None:
    """The section model of a field's annotation (``X`` or ``X | None``), else None."""
    for kind in (annotation, *typing.get_args(annotation)):
        if isinstance(kind, type) and issubclass(kind, _Section):
            return kind
    return None


def config_keys() -> tuple[list[str], dict[str, list[str]]]:
    """The keys a config has, read from :class:`TrainConfig`: the plain keys, and each
    section's keys by section (what ``--set`` takes, as ``KEY`` or ``SECTION.KEY``)."""
    plain, sections = [], {}
    for name, info in TrainConfig.model_fields.items():
        section = _section_of(info.annotation)
        if section is None:
            plain.append(name)
        else:
            sections[name] = list(section.model_fields)
    return plain, sections


# ---------------------------------------------------------------------- reading
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


def game_defaults(game: str) -> dict[str, Any]:
    """The config of a game without a file in ``experiments/configs/``: the game and, for a
    game of several player counts, its descriptor's default count; everything else is
    :class:`TrainConfig`'s defaults (the learner against ``random`` opponents, evaluated
    against the game's ``heuristic`` if it has one, else ``random``)."""
    from kiaule_env import GAMES

    descriptor = GAMES[game]
    env_kwargs = {}
    if len(descriptor.player_counts) > 1:
        env_kwargs["num_players"] = descriptor.default_players
    return {"game": game, "env_kwargs": env_kwargs}


def _source_data(source: str | dict[str, Any] | None) -> tuple[dict[str, Any], str]:
    """The mapping ``source`` names and how messages call it."""
    from kiaule_env import GAMES

    if source is None:
        return {}, "config"
    if isinstance(source, dict):
        return source, "config"
    if Path(source).is_file():
        return read_config_file(source), str(source)
    if (CONFIG_DIR / f"{source}.yaml").is_file():
        return read_config_file(CONFIG_DIR / f"{source}.yaml"), f"{source} config"
    if source in GAMES:
        return game_defaults(source), f"{source} defaults"
    raise ValueError(
        f"{source!r} is neither a config file nor a game; games: {', '.join(GAMES)} "
        f"(their configs, where they have one, are in {CONFIG_DIR})"
    )


def resolve_config(
    source: str | dict[str, Any] | None, overrides: dict[str, Any] | None = None
) -> TrainConfig:
    """The checked config of a game name, a config file, or a dict, with ``overrides`` (the
    ``--set`` items, nested) merged over it; ``ValueError`` naming every bad key."""
    data, name = _source_data(source)
    if overrides:
        data = deep_merge(data, overrides)
    if not data.get("game"):
        raise ValueError(f"{name}: no game; give a game name, or a config file with 'game:'")
    config = validate_config(data, name)
    if config.output is None:
        config.output = f"runs/{config.game}"
    return config


def _describe(error: dict[str, Any]) -> str:
    where = ".".join(str(p) for p in error["loc"]) or "config"
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown key"
    if error["type"] == "missing":
        return f"{where}: missing"
    return f"{where}: {message} (got {error.get('input')!r})"


def validate_config(data: dict[str, Any], source: str = "config") -> TrainConfig:
    """``data`` checked against :class:`TrainConfig`, values converted; else ``ValueError``.

    The message names ``source`` (the config file) and every bad key with what it allows.
    """
    try:
        config = TrainConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(_describe(e) for e in exc.errors())
        raise ValueError(f"{source}: {problems}") from None
    if config.total_timesteps == 0 and config.warm_start is None:
        raise ValueError(
            f"{source}: total_timesteps: must be at least 1 (0 only with a warm_start, whose "
            "imitated network is then the model)"
        )
    if config.ppo.n_steps * config.n_envs < 2:
        raise ValueError(f"{source}: ppo.n_steps × n_envs must be at least 2")
    _check_team_with_copies(config, source)
    _check_seat_pairs(config, source)
    _check_eval_seating(config, source)
    _check_collector(config, source)
    return config


def _check_collector(config: TrainConfig, source: str) -> None:
    """``collector: vector`` needs a game with a batched env (``kiaule_env.vector``)."""
    if config.collector != "vector":
        return
    from kiaule_env import vector

    if config.game not in vector.games():
        raise ValueError(
            f"{source}: collector: {config.game} has no batched env (games with one: "
            f"{', '.join(vector.games())}); use collector: envs"
        )


def _check_team_with_copies(config: TrainConfig, source: str) -> None:
    """``opponents.team_with_copies`` needs lineups with ``self`` seats, in a game without teams."""
    if not config.opponents.team_with_copies:
        return
    from kiaule_env import get_game

    if get_game(config.game).teams is not None:
        raise ValueError(
            f"{source}: opponents.team_with_copies: only for games without teams "
            f"({config.game} has teams: team_play shares the team's reward)"
        )
    from agents.training.pool import lineups_seat_self

    if not lineups_seat_self(config.opponents.lineups):
        raise ValueError(
            f"{source}: opponents.team_with_copies: needs opponents.lineups with a 'self' member "
            "(the copies whose rewards it shares)"
        )


def _check_seat_pairs(config: TrainConfig, source: str) -> None:
    """``opponents.seat_pairs`` needs a turn-based game without teams and an even number of
    players (``agents.training.pool.check_seat_pairs``)."""
    if not config.opponents.seat_pairs:
        return
    from agents.training.pool import check_seat_pairs

    try:
        check_seat_pairs(config.game, _num_players(config.game, config.env_kwargs))
    except ValueError as exc:
        raise ValueError(f"{source}: opponents.{exc}") from None


def _check_eval_seating(config: TrainConfig, source: str) -> None:
    """``eval.seating: alternate`` needs an even number of players in the evaluation games."""
    if config.eval.seating == "one":
        return
    from agents.training.evaluate import evaluation_sides

    env_kwargs = config.env_kwargs if config.eval.env_kwargs is None else config.eval.env_kwargs
    players = _num_players(config.game, env_kwargs)
    try:
        evaluation_sides(config.game, players, config.team_play, config.eval.seating)
    except ValueError as exc:
        raise ValueError(f"{source}: eval.{exc}") from None


def _num_players(game: str, env_kwargs: dict[str, Any]) -> int:
    """The player count of ``game`` built with ``env_kwargs`` (its default where they name none)."""
    from kiaule_env import get_game

    return int(env_kwargs.get("num_players", get_game(game).default_players))


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
