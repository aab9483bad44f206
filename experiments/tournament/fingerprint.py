"""What decides a tournament's results, as data: the fingerprint a resumed run must match.

A tournament's games are a function of its settings (game, env options, agents with their
options, seed, lineups) and of the code and models that play them. :func:`tournament_fingerprint`
gathers all of it; the tournament records it in its folder and refuses to resume a folder whose
fingerprint differs, and every line of ``games.jsonl`` carries its digest (:func:`digest`), so a
line copied from another tournament is refused too. The benchmark names its cache folders by
the same code digest (:func:`code_fingerprint`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kiaule_env import GAMES

ROOT = Path(__file__).resolve().parent.parent.parent


def code_files(game: str) -> list[Path]:
    """The files that decide a game's results, sorted: its package, the shared core (the play
    loop, the simulators), its public module, the agent modules (its rule-based agent's too,
    where its descriptor names one outside ``agents``) and its zoo models. A game of
    :data:`kiaule_env.GAMES` is found where its descriptor's modules are, so a game kept outside
    the package (the test suite's fixture) is covered too."""
    package, own = ROOT / "kiaule_env" / game, [ROOT / "kiaule_env" / f"{game}_v0.py"]
    descriptor = GAMES.get(game)
    if descriptor is not None:
        engine = _module_file(descriptor.engine.partition(":")[0])
        package = engine.parent if engine is not None else package
        own = [_module_file(descriptor.module), _module_file(descriptor.agents_provider)]
    files = {
        *package.glob("*.py"),
        *(ROOT / "kiaule_env" / "core").glob("*.py"),
        *(path for path in own if path is not None),
        *(ROOT / "agents").glob("*.py"),
        *(ROOT / "agents" / "zoo").glob(f"{game}*.zip"),
    }
    return sorted(files)


def _module_file(module: str) -> Path | None:
    """The source file of ``module`` (without importing it), or None where there is none."""
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        return None
    return None if spec is None or spec.origin is None else Path(spec.origin).resolve()


def code_fingerprint(game: str) -> str:
    """A digest of :func:`code_files`."""
    files = code_files(game)
    digest = hashlib.sha1()
    for path in files:
        if path.is_file():
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=64)
def _file_digest(path: Path, size: int, mtime_ns: int) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()


def model_digests(agents: Sequence[str]) -> dict[str, str]:
    """``{value: digest}`` of every agent option that names a file (``kozel/ppo:path=m.zip``):
    a model outside the zoo decides the games as much as the code does."""
    out: dict[str, str] = {}
    for name in agents:
        _, _, options = name.partition(":")
        for item in options.split(",") if options else []:
            value = item.partition("=")[2].strip()
            path = Path(value)
            if value and path.is_file():
                stat = path.stat()
                out[value] = _file_digest(path.resolve(), stat.st_size, stat.st_mtime_ns)
    return out


def tournament_fingerprint(
    identity: dict[str, Any], game: str, agents: Sequence[str], lineups: Sequence[Sequence[str]]
) -> dict[str, Any]:
    """The tournament's settings (``identity``: game, agents, seed, env options, teams), its
    lineups, the code digest of ``game`` and the digests of model files named by ``agents``."""
    return {
        **identity,
        "lineups": [list(lineup) for lineup in lineups],
        "code": code_fingerprint(game),
        "models": model_digests(agents),
    }


def digest(fingerprint: dict[str, Any]) -> str:
    """A short digest of a fingerprint (stamped on every ``games.jsonl`` line)."""
    text = json.dumps(fingerprint, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]
