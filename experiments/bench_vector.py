"""Batched-env benchmark: agent-steps/s with observations, batched envs beside the others.

``kiaule bench --vector`` measures, for every game with a batched env
(:mod:`kiaule_env.vector`), at batch sizes 1, 64, 1024 and 4096: ``venv.step`` with uniformly
random legal actions drawn with numpy from the masks (:func:`kiaule_env.vector.random_legal`,
counted in the time), in agent-steps/s, every step producing every slot's observation and mask.
In the same run it measures the PettingZoo API path of each game (``kiaule bench``'s loop:
``<game>_v0.env()``, Pig's ``parallel_env()``, observation every step) and, when ``open_spiel``
is installed, OpenSpiel's C++ hearts, euchre and spades driven from Python with an observation
every step (``make_observation(...).set_from`` for the player to act — the observation, or the
information state where a game offers only that (hearts, euchre) —, ``legal_actions``, a random
choice and ``apply_action``; chance nodes sampled and not counted), so the ratios hold on a
shared machine.

Each batched env is warmed up (compiled, or loaded from numba's cache) before its timing; the
compile time is measured apart, in fresh processes: the first use with an empty numba cache
(``NUMBA_CACHE_DIR`` pointed at a new folder) and a start with the cache that run filled. The
state bytes per slot are the game's compiled state (besides the observation buffers).

The machine's speed drifts (a shared host: ±30% between runs of a few seconds), so ``--rounds N``
measures every cell N times, in N interleaved rounds of the whole table (round one measures
every cell once, then round two, ...), and reports each cell's median round: the cells of one
round see the same machine, and the median keeps one slow or fast moment from deciding a row.

    kiaule bench --vector --seconds 2
    kiaule bench --vector --seconds 2 --rounds 5
    kiaule bench --vector kozel --batches 1024 --json vector.json
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from experiments.bench_api import bench, lower_median
from experiments.bench_engine import probe_times
from experiments.outdir import write_atomic
from kiaule_env import GAMES, vector

#: the batch sizes measured by default
BATCHES = (1, 64, 1024, 4096)
#: the batch whose state per slot the facts table reports (the goals are stated at it): a game
#: whose slots share a pool (Kiauliaganys' G10a history) has a larger share per slot in a
#: small batch
REFERENCE_BATCH = 1024
#: OpenSpiel's C++ trick-taking games measured beside the batched envs
OPENSPIEL_GAMES = ("hearts", "euchre", "spades")


@dataclass
class Row:
    """One measured cell: ``path`` is ``"vector"``, ``"pettingzoo"`` or ``"openspiel"``."""

    env: str
    path: str
    batch: int
    steps: int
    seconds: float
    #: compiled state bytes per slot after the run (batched envs only)
    state_bytes: int | None = None
    #: agent-steps/s of every round, in order, when the cell was measured in rounds
    rounds: list[float] | None = None

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds


@dataclass
class GameFacts:
    """Per game: compiled state bytes per slot at :data:`REFERENCE_BATCH` (at the largest
    batch measured when it was not) and compile times (None: not measured)."""

    game: str
    options: dict[str, Any]
    state_bytes: int
    compile_first_s: float | None = None
    compile_cached_s: float | None = None


def vector_games() -> list[str]:
    """The games with a batched env."""
    return vector.games()


def measure_vector(game: str, batch: int, seconds: float, seed: int = 0) -> Row:
    """Random legal play on ``vector.make(game, batch, **bench_options)`` for ``seconds``;
    ``state_bytes`` is read after the play (a game may grow its rows as episodes need)."""
    options = dict(GAMES[game].bench_options)
    venv = vector.make(game, num_envs=batch, seed=seed, **options)
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset()
    for _ in range(3):  # compile, or load numba's cache, outside the timing
        obs, *_ = venv.step(vector.random_legal(obs["action_mask"], rng))
    steps = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(16):
            obs, *_ = venv.step(vector.random_legal(obs["action_mask"], rng))
        steps += 16 * batch
        elapsed = time.perf_counter() - start
    return Row(_label(game), "vector", batch, steps, elapsed, venv.state_bytes())


def measure_pettingzoo(game: str, seconds: float, seed: int = 0) -> Row:
    """``kiaule bench``'s public-API loop (``play_episode(..., api=True)``: ``last`` and the
    observation every step) on the game's env with its bench options."""
    descriptor = GAMES[game]
    module = descriptor.load()
    make = module.parallel_env if descriptor.parallel else module.env
    result = bench(game, lambda: make(**dict(descriptor.bench_options)), seconds, seed)
    api = "parallel_env()" if descriptor.parallel else "env()"
    label = f"{game}_v{descriptor.version}.{api}"
    return Row(label, "pettingzoo", 1, result.steps, result.seconds)


def measure_openspiel(name: str, seconds: float, seed: int = 0) -> Row:
    """Random play of OpenSpiel's ``name`` from Python, observing the player to act every step
    through ``make_observation`` (the tensor written in place, in C++)."""
    import pyspiel

    game = pyspiel.load_game(name)
    observer = _observer(game)
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(_chance(state.chance_outcomes(), rng.random()))
                continue
            observer.set_from(state, state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            steps += 1
        elapsed = time.perf_counter() - start
    return Row(f"OpenSpiel {name}", "openspiel", 1, steps, elapsed)


def _observer(game: Any) -> Any:
    """The game's observation, or its information state where it offers only that (hearts,
    euchre: ``make_observation`` with perfect recall)."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    if game.get_type().provides_observation_tensor:
        return make_observation(game)
    return make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))


def _chance(outcomes: list[tuple[int, float]], u: float) -> int:
    """The chance outcome ``u`` (uniform in [0, 1)) falls on."""
    for action, probability in outcomes:
        u -= probability
        if u < 0:
            return action
    return outcomes[-1][0]


def openspiel_available() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


_COMPILE_PROBE = """
import json, sys, time
import numba, numpy as np
from kiaule_env import GAMES, vector
out = {}
for game in sys.argv[1:]:
    t = time.perf_counter()
    venv = vector.make(game, num_envs=8, seed=0, **GAMES[game].bench_options)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(4):
        obs, *_ = venv.step(vector.random_legal(obs["action_mask"], rng))
    out[game] = time.perf_counter() - t
print(json.dumps(out))
"""


def compile_times(games: list[str]) -> dict[str, tuple[float, float]]:
    """Per game, seconds from ``make`` to a few steps in a fresh process: with an empty numba
    cache (first use: compilation), then with the cache that run filled."""
    return probe_times(_COMPILE_PROBE, games)


def run(
    games: list[str],
    seconds: float,
    batches: tuple[int, ...] = BATCHES,
    openspiel: bool = True,
    compile_time: bool = True,
    rounds: int = 1,
) -> tuple[list[Row], list[GameFacts]]:
    """Every measurement of the report, in one process (the compile times in fresh ones):
    ``rounds`` interleaved rounds of every cell, each cell reported by its median round."""
    if rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds}")
    tables = [_measure_round(games, seconds, batches, openspiel) for _ in range(rounds)]
    rows = [_median_round(cells) for cells in zip(*tables, strict=True)]
    facts = []
    for game in games:
        measured = [r for r in rows if r.path == "vector" and r.env == _label(game)]
        size = state_per_slot(measured)
        facts.append(GameFacts(game, dict(GAMES[game].bench_options), size))
    if compile_time and games:
        times = compile_times(games)
        for fact in facts:
            fact.compile_first_s, fact.compile_cached_s = times[fact.game]
    return rows, facts


def _measure_round(
    games: list[str], seconds: float, batches: tuple[int, ...], openspiel: bool
) -> list[Row]:
    """Every cell of the table measured once, in the table's order."""
    rows: list[Row] = []
    if openspiel and openspiel_available():
        rows += [measure_openspiel(name, seconds) for name in OPENSPIEL_GAMES]
    for game in games:
        rows.append(measure_pettingzoo(game, seconds))
        rows += [measure_vector(game, batch, seconds) for batch in batches]
    return rows


def _median_round(cells: tuple[Row, ...]) -> Row:
    """The cell's median round (the lower middle one of an even count), with every round's
    rate; a single round is returned as measured."""
    if len(cells) == 1:
        return cells[0]
    median = lower_median(cells, key=lambda r: r.steps_per_s)
    return replace(median, rounds=[r.steps_per_s for r in cells])


def state_per_slot(measured: list[Row]) -> int:
    """The state bytes per slot of the :data:`REFERENCE_BATCH` row, else of the largest batch."""
    if not measured:
        return 0
    chosen = [r for r in measured if r.batch == REFERENCE_BATCH] or [
        max(measured, key=lambda r: r.batch)
    ]
    return chosen[0].state_bytes or 0


def format_report(rows: list[Row], facts: list[GameFacts]) -> str:
    """The speed table (× the best OpenSpiel game when measured) and the per-game facts."""
    best = max((r.steps_per_s for r in rows if r.path == "openspiel"), default=None)
    head = "| env | batch | agent-steps/s |" + (" × best OpenSpiel |" if best else "")
    lines = [head, "|---|---:|---:|" + ("---:|" if best else "")]
    for r in rows:
        line = f"| {r.env} | {r.batch if r.path == 'vector' else '—'} | {r.steps_per_s:,.0f} |"
        lines.append(line + (f" {r.steps_per_s / best:.2f} |" if best else ""))
    head = f"| game | state bytes / slot (batch {REFERENCE_BATCH}) | compile, empty cache (s) |"
    lines += ["", head + " cached start (s) |"]
    lines.append("|---|---:|---:|---:|")
    for f in facts:
        first = "—" if f.compile_first_s is None else f"{f.compile_first_s:.2f}"
        cached = "—" if f.compile_cached_s is None else f"{f.compile_cached_s:.2f}"
        lines.append(f"| {_label(f.game)} | {f.state_bytes:,} | {first} | {cached} |")
    return "\n".join(lines)


def to_json(rows: list[Row], facts: list[GameFacts]) -> dict[str, Any]:
    return {
        "rows": [{**asdict(r), "steps_per_s": r.steps_per_s} for r in rows],
        "games": [asdict(f) for f in facts],
    }


def main(
    games: list[str],
    seconds: float,
    batches: tuple[int, ...],
    json_path: str | None,
    compile_time: bool = True,
    rounds: int = 1,
) -> int:
    """``kiaule bench --vector``: print the report; ``json_path`` also gets it as JSON."""
    missing = [g for g in games if not GAMES[g].vector]
    if missing:
        raise ValueError(
            f"no batched env for {', '.join(missing)}; games with one: "
            f"{', '.join(vector_games()) or 'none'}"
        )
    if json_path and Path(json_path).exists():
        raise ValueError(f"--json {json_path}: the file exists; name a new file")
    rows, facts = run(games, seconds, batches, compile_time=compile_time, rounds=rounds)
    print(format_report(rows, facts))
    if json_path:
        write_atomic(json_path, json.dumps(to_json(rows, facts), indent=2) + "\n")
    return 0


def _label(game: str) -> str:
    options = dict(GAMES[game].bench_options)
    return f"{game} {options}" if options else game
