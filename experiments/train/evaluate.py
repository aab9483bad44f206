"""``kiaule train --evaluate``: a model file (or a registered agent, for baselines) against
each opponent, seats rotated, in this process or as Ray tasks; the results merged into JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Evaluated:
    """What is evaluated: its game, player count and team play, its label in the results,
    and how to make it for a seed."""

    game: str
    players: int
    team_play: bool
    label: str
    make_agent: Callable[[int], Any]
    #: the model file, or None for a registered agent
    path: Path | None = None


def _from_file(model: str) -> Evaluated:
    """A model file, as its ``kiaule.json`` describes it."""
    from agents.learned import load_learned
    from agents.training.model_io import read_metadata

    meta = read_metadata(model)
    game = meta["game"]

    def make_agent(seed: int):
        return load_learned(model, game=game, seed=seed)

    label = f"{game}/ppo ({Path(model).name})"
    team_play = meta.get("team_play", True)
    return Evaluated(game, meta["num_players"], team_play, label, make_agent, Path(model))


def _from_registry(name: str, num_players: int | None) -> Evaluated:
    """A registered agent by name (with options); ``ValueError`` if there is none such."""
    from agents import registry

    if name.partition(":")[0] not in registry.list_agents():
        if name.endswith(".zip"):
            raise ValueError(f"--evaluate: no model file at {name}")
        raise ValueError(
            f"--evaluate: {name!r} is neither a model file nor a registered agent name "
            "(kiaule agents lists them)"
        )
    registry.make(name, seed=0)  # a bad option fails here, with the agent's message

    def make_agent(seed: int):
        return registry.make(name, seed=seed)

    return Evaluated(name.split("/")[0], num_players or 4, True, name, make_agent)


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
    model = str(model)
    what = _from_file(model) if Path(model).is_file() else _from_registry(model, num_players)
    from kiaule_env import get_game

    fixed = len(get_game(what.game).player_counts) == 1  # Kozel: always four
    env_kwargs = {} if fixed else {"num_players": what.players}
    if backend == "ray":
        return _evaluate_on_ray(what, model, opponents, deals, env_kwargs, seed, address)
    return _evaluate_here(what, opponents, deals, env_kwargs, seed)


def _evaluate_here(
    what: Evaluated, opponents: list[str], deals: int, env_kwargs: dict, seed: int
) -> list[dict[str, Any]]:
    """Each opponent's evaluation in this process, its summary printed."""
    from agents import registry
    from agents.training.evaluate import evaluate

    results = []
    for opponent in opponents:
        result = evaluate(
            what.game,
            what.make_agent,
            registry.qualified(what.game, opponent),
            deals=deals,
            env_kwargs=env_kwargs,
            seed=seed,
            team_play=what.team_play,
            agent_label=what.label,
        )
        results.append(result.as_dict())
        print(result.summary())
    return results


def _evaluate_on_ray(
    what: Evaluated,
    model: str,
    opponents: list[str],
    deals: int,
    env_kwargs: dict,
    seed: int,
    address: str | None,
) -> list[dict[str, Any]]:
    """Each opponent's evaluation as a Ray task, its summary printed."""
    from agents import registry
    from agents.training.evaluate import EvalResult
    from experiments.tournament.ray_backend import evaluate_on_ray

    jobs = [
        {
            "game": what.game,
            "agent": None if what.path else model,
            "file_name": Path(model).name,
            "opponent": registry.qualified(what.game, opponent),
            "deals": deals,
            "env_kwargs": env_kwargs,
            "seed": seed,
            "team_play": what.team_play,
            "label": what.label,
        }
        for opponent in opponents
    ]
    results = evaluate_on_ray(jobs, what.path, address)
    for result in results:
        print(EvalResult(**result).summary())
    return results


def write_results(path: str | Path, key: str, results: list[dict[str, Any]]) -> None:
    """Merge ``results`` under ``key`` into the JSON object at ``path`` (created if missing)."""
    path = Path(path)
    data = json.loads(path.read_text()) if path.is_file() else {}
    if not isinstance(data, dict):
        data = {}
    data[key] = results
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
