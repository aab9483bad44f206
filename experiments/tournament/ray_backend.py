"""The tournament's Ray backend: the same games as the local pool, on Ray actors.

    kiaule tournament kozel --agents kozel/random kozel/heuristic --backend ray
    kiaule tournament kozel ... --backend ray --address head-node:6379   # an existing cluster

Each Ray actor holds one :class:`~experiments.tournament.worker.Worker` (the env, the agents,
the metrics) and plays chunks of the schedule with the very function the local pool uses
(:func:`~experiments.tournament.worker.play_chunk`), so a game's result depends on its key and
the tournament seed only: ``summary.json`` is the same, bit for bit, as with the local backend.
Chunks stream back as they finish (``ray.wait``), so the runner writes results to the output
folder as games end and a killed driver resumes exactly as with the local pool.

Agents reach the workers by name. Agents of the package (the rule-based ones, the zoo models
that ship inside it) are created by each worker's own registry; an agent that plays from a model
file outside the package (``KIAULE_MODELS``, :func:`agents.learned.register_model`, an RLlib
checkpoint) has its file (or checkpoint folder) put in the Ray object store once and written to
a temporary folder on every worker, where the agent is registered again under the same name;
agents registered by a script or a test (outside the registry's provider modules) are sent by
value (cloudpickle).

Ray is optional (the ``ray`` extra); :class:`~agents.ray_cluster.BackendUnavailable`
says so, or that the cluster cannot be reached, in one line.
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.ray_cluster import cluster_cpus, connect
from experiments.tournament.schedule import GameKey, Schedule
from experiments.tournament.specs import TournamentGame
from experiments.tournament.worker import chunks, init_worker, play_chunk

#: how many chunks each actor has queued (one playing, one waiting: no idle gap between chunks)
IN_FLIGHT_PER_ACTOR = 2
#: the smallest chunk the Ray backend sends (a task costs ~1 ms; see docs/ray.md)
MIN_CHUNK = 16
MAX_CHUNK = 256
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def chunk_size(count: int, workers: int) -> int:
    """Games per Ray task: about eight tasks per actor, within ``[MIN_CHUNK, MAX_CHUNK]``."""
    return max(1, min(count, max(MIN_CHUNK, min(MAX_CHUNK, -(-count // (workers * 8))))))


# ------------------------------------------------------------------------- agents to ship


@dataclass
class ShippedAgent:
    """How a worker gets an agent the driver could make but a worker might not: a model file
    or checkpoint folder as bytes (a ray object ref) with its loader, or the factory itself."""

    name: str
    #: ``loader(path, seed=...) -> Agent`` for a shipped file, else ``None``
    loader: Callable[..., Any] | None = None
    #: the file or folder name the loader expects under the worker's temporary folder
    file_name: str = ""
    is_dir: bool = False
    blob: Any = None
    #: a factory sent by value (agents registered outside the registry's providers)
    factory: Callable[..., Any] | None = None
    #: the options the factory takes (``agents.registry.register``)
    options: dict[str, type] | None = None


def _model_file(name: str, agent: Any) -> tuple[Path, Callable[..., Any]] | None:
    """``(path, loader)`` of an agent that plays from a file outside the package, else None.

    An agent says so with ``shipping() -> (path, loader)`` (the RLlib agent); the learned
    (MaskablePPO) agents are recognised by their class.
    """
    shipping = getattr(agent, "shipping", None)
    if callable(shipping):
        path, loader = shipping()
    else:
        from functools import partial

        from agents.learned import LearnedAgent, load_learned

        if not isinstance(agent, LearnedAgent):
            return None
        path = agent.path
        loader = partial(
            load_learned, game=agent.meta["game"], deterministic=agent.deterministic, name=name
        )
    path = Path(path).resolve()
    if path.is_relative_to(PACKAGE_ROOT / "agents" / "zoo"):
        return None  # zoo models ship with the package
    return path, loader


def _pack(path: Path) -> bytes:
    """A file's bytes, or a folder as an uncompressed tar (checkpoints are already compressed)."""
    if path.is_file():
        return path.read_bytes()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(path, arcname=path.name)
    return buffer.getvalue()


def shipped_agents(ray: Any, names: list[str]) -> list[ShippedAgent]:
    """What the workers need to make ``names`` (one object-store copy per model file)."""
    from agents import registry

    providers = set(registry._providers())
    out = []
    for name in dict.fromkeys(names):
        agent = registry.make(name, seed=0)
        found = _model_file(name, agent)
        if found is not None:
            path, loader = found
            blob = ray.put(_pack(path))
            out.append(ShippedAgent(name, loader, path.name, path.is_dir(), blob))
            continue
        base = name.partition(":")[0]  # options after ':' travel in the name
        factory = registry._FACTORIES.get(base)
        if factory is not None and getattr(factory, "__module__", None) not in providers:
            options = registry.agent_options(base)
            out.append(ShippedAgent(base, factory=factory, options=options))
    return out


def install_agents(ray: Any, shipped: list[ShippedAgent], folder: Path) -> None:
    """Worker side: unpack shipped model files into ``folder`` and register every agent."""
    from agents import registry

    registry.list_agents()  # the providers first, so what is shipped here is what stays
    for item in shipped:
        if item.factory is not None:
            registry.register(item.name, item.factory, item.options)
            continue
        data = ray.get(item.blob)
        target = folder / item.name.replace("/", "__").replace(":", "_").replace("=", "_")
        target.mkdir(parents=True, exist_ok=True)
        if item.is_dir:
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                tar.extractall(target, filter="data")
        else:
            (target / item.file_name).write_bytes(data)
        registry.register_exact(item.name, _bound_loader(item.loader, target / item.file_name))


def _bound_loader(loader: Callable[..., Any], path: Path) -> Callable[..., Any]:
    def make(seed: int | None = 0, **kwargs: Any) -> Any:
        return loader(path, seed=seed)

    return make


# ------------------------------------------------------------------------------ the actors


class _TournamentActor:
    """One tournament worker process (a Ray actor): a :class:`Worker` plus shipped agents."""

    def __init__(self, config, spec, schedule, to_disk, shipped):
        import ray

        self._folder = Path(tempfile.mkdtemp(prefix="kiaule-agents-"))
        install_agents(ray, shipped, self._folder)
        init_worker(config, spec, schedule, to_disk)

    def play(self, keys: list[GameKey]) -> list[tuple[str, dict[str, Any]]] | list[dict[str, Any]]:
        return play_chunk(keys)

    def close(self) -> None:
        shutil.rmtree(self._folder, ignore_errors=True)


def play_chunks(
    config: Any,
    spec: TournamentGame,
    schedule: Schedule,
    to_disk: bool,
    todo: Iterator[GameKey],
    count: int,
    workers: int | None,
    address: str | None,
    chunk: int | None = None,
) -> Iterator[list[tuple[str, dict[str, Any]]] | list[dict[str, Any]]]:
    """Play ``todo`` on Ray actors; yield each chunk's lines as soon as it is finished.

    ``workers`` actors (default: the cluster's CPUs), one CPU each; every actor keeps
    :data:`IN_FLIGHT_PER_ACTOR` chunks queued so it never waits for the driver.
    """
    ray = connect(address, num_cpus=workers)
    n = workers or cluster_cpus(ray)
    size = chunk or chunk_size(count, n)
    remote = ray.remote(num_cpus=1)(_TournamentActor)
    shipped = shipped_agents(ray, list(config.agents))
    refs = [ray.put(x) for x in (config, spec, schedule)]
    actors = [remote.remote(*refs, to_disk, shipped) for _ in range(min(n, -(-count // size)))]
    queued = chunks(todo, size)
    pending: dict[Any, Any] = {}

    def submit(actor: Any) -> None:
        keys = next(queued, None)
        if keys is not None:
            pending[actor.play.remote(keys)] = actor

    try:
        for actor in actors:
            for _ in range(IN_FLIGHT_PER_ACTOR):
                submit(actor)
        while pending:
            [ready], _ = ray.wait(list(pending), num_returns=1)
            actor = pending.pop(ready)
            lines = ray.get(ready)  # an agent's error is raised here as its own type
            submit(actor)
            yield lines
        ray.get([actor.close.remote() for actor in actors])
    finally:
        for actor in actors:
            ray.kill(actor)  # also ends the chunks still queued (interrupted or failed run)


# ------------------------------------------------------------------ evaluation (kiaule train)


def _evaluate_job(job: dict[str, Any], model: bytes | None) -> dict[str, Any]:
    """One opponent's seat-rotated evaluation (:func:`agents.training.evaluate.evaluate`), on a
    Ray worker; a model file comes as bytes and is written to a temporary file first."""
    from agents import registry
    from agents.learned import load_learned
    from agents.training.evaluate import evaluate

    with tempfile.TemporaryDirectory(prefix="kiaule-eval-") as folder:
        if model is not None:
            path = Path(folder) / job["file_name"]
            path.write_bytes(model)

            def make_agent(s: int) -> Any:
                return load_learned(path, game=job["game"], seed=s)
        else:

            def make_agent(s: int) -> Any:
                return registry.make(job["agent"], seed=s)

        result = evaluate(
            job["game"],
            make_agent,
            job["opponent"],
            deals=job["deals"],
            env_kwargs=job["env_kwargs"],
            seed=job["seed"],
            team_play=job["team_play"],
            agent_label=job["label"],
        )
    return result.as_dict()


def evaluate_on_ray(
    jobs: list[dict[str, Any]], model_file: Path | None, address: str | None = None
) -> list[dict[str, Any]]:
    """Run every opponent's evaluation as its own Ray task (the same function and seeds as
    ``kiaule train --evaluate`` on this machine, so the same figures); results in job order."""
    ray = connect(address)
    blob = ray.put(model_file.read_bytes()) if model_file is not None else None
    task = ray.remote(num_cpus=1)(_evaluate_job)
    return ray.get([task.remote(job, blob) for job in jobs])
