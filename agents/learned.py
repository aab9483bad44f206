"""Learned agents: MaskablePPO models trained by ``experiments.train``, by name or by path.

    agents.make("kozel/ppo")                              # the pretrained zoo model
    agents.make("kozel/ppo", path="runs/kozel/final.zip") # any model file
    agents.learned.register_model("runs/kozel/final.zip", "kozel/ppo-mine")
    KIAULE_MODELS=kozel/ppo-mine=runs/kozel/final.zip kiaule tournament kozel ...

``KIAULE_MODELS`` (entries separated by the OS path separator, ``:`` on Linux; each ``name=path``
or just ``path``, named ``<game>/ppo-<file stem>``) registers model files for command lines
(``kiaule tournament``, ``kiaule play``) that take agent names only. A bad entry breaks nothing
else: a named one is registered as an agent whose creation raises ``ValueError`` saying what is
wrong with its file (tournaments that do not ask for it leave it out), a bare bad path is left
out with a warning.

A model file carries its game, player count, observation size and observation layout
(:mod:`agents.training.model_io`); loading it for another game or player count, or playing it on
a decision of another shape, raises ``ValueError`` saying what it was trained for. A model whose
recorded layout is not the one the game's encoder builds today (for the model's env keywords), or
that records none (format 1), is refused on loading, naming the slices that changed. The actor
network is evaluated in numpy (:class:`~agents.training.policy.NumpyPolicy`), so playing needs
torch only to read the file.
The agent plays as its file says (``"deterministic"`` in ``kiaule.json``, from the training config's
``deterministic_play``; files without it play deterministically): its most probable legal move,
or a draw from its policy, seeded by the agent's seed (the Pig zoo model: a mixed strategy).
``deterministic=True``/``False`` overrides the file.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

from agents.registry import register
from agents.training.model_io import (
    check_compatible,
    check_layout,
    current_layout,
    load_policy_arrays,
    read_metadata,
)
from agents.training.policy import NumpyPolicy, PolicyAgent
from kiaule_env import GAMES, game_of_env, layout_of_env
from kiaule_env.extras import require

ZOO_DIR = Path(__file__).resolve().parent / "zoo"


def zoo_models(game: str) -> dict[int, str]:
    """The zoo's model files of ``game`` by player count, found by convention under
    ``agents/zoo/``: ``<game>_<n>p.zip``, or ``<game>.zip`` for the game's default count."""
    found: dict[int, str] = {}
    if (ZOO_DIR / f"{game}.zip").is_file():
        found[GAMES[game].default_players] = f"{game}.zip"
    for path in ZOO_DIR.glob(f"{game}_*p.zip"):
        count = path.stem.removeprefix(f"{game}_").removesuffix("p")
        if count.isdigit():
            found[int(count)] = path.name
    return found


class LearnedAgent(PolicyAgent):
    """A :class:`PolicyAgent` loaded from a model file, with the file's metadata."""

    def __init__(
        self,
        policy: NumpyPolicy,
        meta: dict[str, Any],
        name: str,
        path: Path,
        seed: int | None = 0,
        deterministic: bool = True,
    ):
        describe = (
            f"{name} ({path.name}, trained for {meta['game']} with "
            f"num_players={meta['num_players']})"
        )
        super().__init__(
            policy, name=name, seed=seed, deterministic=deterministic, describe=describe
        )
        self.meta = meta
        self.path = path

    @property
    def _names_its_file(self) -> str:
        """The agent's name, with its model file's when the name does not carry it."""
        return self.name if self.path.name in self.name else f"{self.name} ({self.path.name})"

    def check_env(self, env: Any) -> None:
        """Refuse an env (AEC, raw or parallel) of another game, player count or encoding
        (observation size, actions, or the observation layout, slice by slice)."""
        raw = getattr(env, "unwrapped", env)
        played = game_of_env(env)
        game = played.name if played is not None else None
        first = raw.possible_agents[0]
        check_compatible(
            self.meta,
            game=game,
            num_players=len(raw.possible_agents),
            obs_size=int(raw.observation_space(first)["observation"].shape[0]),
            num_actions=int(raw.action_space(first).n),
            where=self._names_its_file,  # the check itself says what it was trained for
            layout=layout_of_env(env),
        )


def zoo_path(game: str, num_players: int | None = None) -> Path:
    """The zoo model file of ``game`` for ``num_players``; ``ValueError`` if there is none."""
    n = GAMES[game].default_players if num_players is None else num_players
    models = zoo_models(game)
    name = models.get(n)
    have = [f"num_players={p}" for p in sorted(models)]
    if name is None:
        raise ValueError(
            f"the zoo has no {game} model for num_players={n}"
            + (f" (it has {', '.join(have)})" if have else "")
            + "; train one with experiments.train and load it with path=..."
        )
    if not (ZOO_DIR / name).is_file():
        raise ValueError(
            f"the zoo model file {ZOO_DIR / name} is missing (see agents/zoo/README.md)"
        )
    return ZOO_DIR / name


def load_learned(
    path: str | Path,
    game: str | None = None,
    num_players: int | None = None,
    seed: int | None = 0,
    deterministic: bool | None = None,
    name: str | None = None,
) -> LearnedAgent:
    """Load a model file as an agent; refuse (``ValueError``) one trained for another game or
    player count, or for an observation layout other than the game's current one (with the
    model's env keywords), or that records no layout (format 1). ``deterministic=None`` plays
    as the file says (module docstring). Without torch (a bare install) it raises
    :class:`~kiaule_env.extras.MissingExtra`, naming the ``train`` extra."""
    path = Path(path)
    meta = read_metadata(path)
    check_compatible(meta, game=game, num_players=num_players, where=str(path))
    check_layout(meta, current_layout(meta, str(path)), str(path))
    # the weights are torch tensors (the policy then plays in numpy): MissingExtra naming the
    # 'train' extra on a bare install, not torch's own ModuleNotFoundError
    require("torch", name or f"{meta['game']}/ppo")
    state = load_policy_arrays(path)
    try:
        policy = NumpyPolicy.from_state_dict(state, meta.get("activation", "tanh"))
        shape = (policy.obs_size, policy.num_actions)
    except KeyError as exc:
        raise ValueError(f"{path}: its policy.pth lacks the actor's {exc} entry") from None
    except (ValueError, TypeError, IndexError) as exc:  # a damaged file that still unpacks
        raise ValueError(
            f"{path}: its policy.pth does not hold the actor of a MaskablePPO policy ({exc})"
        ) from None
    if shape != (meta.get("obs_size"), meta.get("num_actions")):
        raise ValueError(f"{path}: the network's shape does not match its kiaule.json")
    return LearnedAgent(
        policy,
        meta,
        name=name or f"{meta['game']}/ppo",
        path=path,
        seed=seed,
        deterministic=meta.get("deterministic", True) if deterministic is None else deterministic,
    )


def _factory(game: str):
    def make(
        seed: int | None = 0,
        path: str | Path | None = None,
        num_players: int | None = None,
        deterministic: bool | None = None,
    ) -> LearnedAgent:
        if path is None:
            path = zoo_path(game, num_players)
        return load_learned(
            path, game=game, num_players=num_players, seed=seed, deterministic=deterministic
        )

    return make


def register_model(
    path: str | Path, name: str | None = None, deterministic: bool | None = None
) -> str:
    """Register a model file under ``name`` (default ``<game>/ppo-<file stem>``); return the name.

    After this, tournaments and ``kiaule play`` can use the model like any other agent.
    """
    path = Path(path)
    meta = read_metadata(path)
    name = name or f"{meta['game']}/ppo-{path.stem}"
    if name.split("/")[0] != meta["game"]:
        raise ValueError(
            f"{path} is a {meta['game']} model; its name must start with {meta['game']}/"
        )

    def make(seed: int | None = 0, **kwargs: Any) -> LearnedAgent:
        return load_learned(
            path,
            game=meta["game"],
            seed=seed,
            deterministic=kwargs.get("deterministic", deterministic),
            name=name,
        )

    register(name, make)
    return name


def _unavailable(name: str, why: str):
    """A factory for a ``KIAULE_MODELS`` entry that cannot be loaded: it raises ``why``."""

    def make(seed: int | None = 0, **kwargs: Any) -> LearnedAgent:
        raise ValueError(why)

    register(name, make)
    return name


def register_from_environment(value: str | None = None) -> list[str]:
    """Register the model files listed in ``KIAULE_MODELS`` (see the module docstring).

    A bad entry never breaks the registry (nor tournaments that do not use it): a named entry
    (``name=path``) is registered as an agent whose creation raises ``ValueError`` saying what
    is wrong with the file; a bare path whose game cannot be read is left out with a warning.
    """
    value = os.environ.get("KIAULE_MODELS", "") if value is None else value
    names = []
    for entry in filter(None, (e.strip() for e in value.split(os.pathsep))):
        name, sep, path = entry.partition("=")
        try:
            names.append(register_model(path, name) if sep else register_model(entry))
        except (ValueError, OSError) as exc:
            why = f"KIAULE_MODELS entry {entry!r}: {exc}"
            if sep and name.count("/") == 1:
                names.append(_unavailable(name, why))
            else:
                warnings.warn(f"{why}; the entry is not registered", stacklevel=2)
    return names


for _game in GAMES:
    register(
        f"{_game}/ppo",
        _factory(_game),
        options={"path": str, "num_players": int, "deterministic": bool},
    )
register_from_environment()
