"""Playout-engine benchmark: random playouts per game, compiled twin against the Python engine.

``kiaule bench --engine`` measures, for every game in one run, uniformly random playouts of
whole deals from fresh deals (the deal's creation is outside the timed part) through
:mod:`kiaule_env.core.simulate`: the Python engine (:class:`PythonSimulator`) and the game's
compiled numba twin (:class:`CompiledSimulator`, extra ``search``), in ``apply`` steps per
second on one core, and their ratio. Compile time stays out of the figures: each compiled path
is warmed up first. The first-use compile time (an empty numba cache, in a fresh process) and the
start with a filled cache (a second fresh process) are measured with ``--compile-time``.

    kiaule bench --engine --seconds 3
    kiaule bench --engine --compile-time
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from kiaule_env import GAMES, get_game
from kiaule_env.core.simulate import (
    CompiledSimulator,
    PythonSimulator,
    Simulator,
    compiled_module,
)


@dataclass
class EngineResult:
    game: str
    path: str  # "python" or "compiled"
    steps: int
    deals: int
    seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds


def _deals(game: str, count: int, seed: int) -> list:
    engine = get_game(game).make_engine()
    return [engine.new_episode(np.random.default_rng(seed + i), {}) for i in range(count)]


def measure(sim: Simulator, states: list, seconds: float, seed: int = 0) -> EngineResult:
    """Random playouts of ``states`` (cycled) for about ``seconds``; only the playouts are timed."""
    steps = deals = 0
    elapsed = 0.0
    sim.steps = 0
    while elapsed < seconds:
        h = sim.load(states[deals % len(states)])
        start = time.perf_counter()
        sim.playout(h, seed + deals)
        elapsed += time.perf_counter() - start
        deals += 1
    steps = sim.steps
    path = "compiled" if sim.compiled else "python"
    return EngineResult(type(sim.engine).__module__.split(".")[1], path, steps, deals, elapsed)


def run(games: list[str], seconds: float, seed: int = 0) -> list[EngineResult]:
    results = []
    for game in games:
        engine = get_game(game).make_engine()
        states = _deals(game, 64, seed)
        results.append(measure(PythonSimulator(engine), states, seconds, seed))
        module = compiled_module(engine)
        if module is None:
            continue
        compiled = CompiledSimulator(engine, module)
        measure(compiled, states[:2], 0.01, seed)  # compile (or load the cache) outside the timing
        results.append(measure(compiled, states, seconds, seed))
    return results


def format_table(results: list[EngineResult]) -> str:
    python = {r.game: r.steps_per_s for r in results if r.path == "python"}
    lines = [
        "| game | engine | steps/s | deals/s | × Python |",
        "|---|---|---:|---:|---:|",
    ]
    for r in results:
        ratio = r.steps_per_s / python[r.game] if r.game in python else float("nan")
        lines.append(
            f"| {r.game} | {r.path} | {r.steps_per_s:,.0f} | {r.deals / r.seconds:,.0f} | "
            f"{ratio:.1f} |"
        )
    return "\n".join(lines)


_COMPILE_PROBE = """
import json, sys, time
import numpy as np
t0 = time.perf_counter()
from kiaule_env import get_game
from kiaule_env.core.simulate import simulator
out = {}
for game in sys.argv[1:]:
    engine = get_game(game).make_engine()
    sim = simulator(engine, compiled=True)
    state = engine.new_episode(np.random.default_rng(0), {})
    t = time.perf_counter()
    sim.playout(sim.load(state), 0)
    out[game] = time.perf_counter() - t
print(json.dumps(out))
"""


def compile_times(games: list[str]) -> dict[str, tuple[float, float]]:
    """Per game, seconds to the first playout in a fresh process: with an empty numba cache
    (first use: compilation), then again with the cache that run filled."""
    return probe_times(_COMPILE_PROBE, games)


def probe_times(probe: str, games: list[str]) -> dict[str, tuple[float, float]]:
    """Run the ``probe`` script (``python -c probe *games``, printing a JSON map of seconds per
    game as its last line) twice in fresh processes sharing one new numba cache: the first run
    compiles, the second starts from the cache. Per game: (first, cached)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", probe, *games],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {g: (runs[0][g], runs[1][g]) for g in games}


def compiled_games() -> list[str]:
    """The games with a compiled twin usable here (numba installed, default configuration)."""
    return [g for g in GAMES if compiled_module(get_game(g).make_engine()) is not None]
