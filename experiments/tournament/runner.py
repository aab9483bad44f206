"""Running a tournament: worker processes, results streamed to disk, resumable.

Every game is identified by its :class:`~experiments.tournament.schedule.GameKey` and played
from seeds derived from the tournament seed and that key alone, so the results are the same for
any number of workers. Finished games stream to ``<out>/games.jsonl`` (one JSON line per game,
with its replayable record); a rerun of the same tournament into the same folder skips every
game already there (a torn last line from a crash is dropped), and asking for more games later
only adds deals. When every game is done the file is rewritten in canonical order, so the
folder's content does not depend on the workers either.

The folder is held by one run at a time (:func:`claim_folder`, :mod:`experiments.outdir`) and
records the tournament's fingerprint (settings, lineups, the digest of the code and models that
decide a game, :mod:`.fingerprint`); a resume refuses a folder of another fingerprint, and every
line read back must carry this run's digest and its deal's seed, and its record (if any) the
schedule's deal, so lines copied from another tournament are refused, with records or without.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from experiments.outdir import (
    Claim,
    OutputNotOurs,
    claim_output,
    differences,
    naming_errors,
    write_atomic,
)
from experiments.tournament.config import TournamentConfig
from experiments.tournament.fingerprint import digest as fingerprint_digest
from experiments.tournament.fingerprint import tournament_fingerprint
from experiments.tournament.schedule import (
    GameKey,
    Schedule,
    deal_seed,
    make_schedule,
)
from experiments.tournament.specs import TournamentGame, get_spec
from experiments.tournament.worker import Encoded, chunks, init_worker, play_chunk

GAMES_FILE = "games.jsonl"
CONFIG_FILE = "tournament.json"


class ResumeMismatch(OutputNotOurs):
    """The output folder holds a different tournament."""


#: execution backends: ``local`` (a process pool on this machine), ``ray`` (Ray actors, local
#: or on a cluster given by ``address``; :mod:`experiments.tournament.ray_backend`)
BACKENDS = ("local", "ray")


# ---------------------------------------------------------------------------- main side


@dataclass
class RunOutcome:
    """The finished games (records stripped) in canonical order, and how the run went."""

    config: TournamentConfig
    spec: TournamentGame
    schedule: Schedule
    games: list[dict[str, Any]]
    played: int
    resumed: int
    seconds: float
    workers: int
    complete: bool
    #: the workers asked for (``workers`` is capped at the number of chunks of games)
    workers_asked: int | None = None

    @property
    def games_per_s(self) -> float:
        return self.played / self.seconds if self.seconds > 0 else math.nan


def num_seats(spec: TournamentGame, env_kwargs: dict[str, Any]) -> int:
    return len(spec.build_env(dict(env_kwargs)).possible_agents)


def check_agents(game: str, agents: Sequence[str]) -> None:
    """Every agent must be a registered agent of ``game`` that can be created."""
    from agents.registry import list_agents, make

    known = list_agents(game)
    for name in agents:
        if name.split("/")[0] != game:
            raise ValueError(f"agent {name!r} is not a {game} agent; known: {', '.join(known)}")
        if name.partition(":")[0] not in known:  # options after ':' (agents.registry)
            raise ValueError(f"unknown agent {name!r}; known {game} agents: {', '.join(known)}")
        make(name, seed=0)  # fail here, with the agent's own message, rather than in a worker


def usable_agents(game: str, env_kwargs: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The registered agents of ``game`` that can play these settings, and why others cannot."""
    from agents.registry import list_agents, make

    env = get_spec(game).build_env(dict(env_kwargs))
    ok, skipped = [], {}
    for name in list_agents(game):
        try:
            agent = make(name, seed=0)
            check = getattr(agent, "check_env", None)
            if callable(check):
                check(env)
        except (ValueError, OSError, ImportError) as exc:
            skipped[name] = str(exc).splitlines()[0].replace(f"{Path.cwd()}{os.sep}", "")
            continue
        ok.append(name)
    return ok, skipped


#: the owner named in a tournament folder's marker (:mod:`experiments.outdir`)
OWNER = "kiaule tournament"


@dataclass
class Plan:
    """A checked tournament, ready to play: its game, schedule, fingerprint and workers."""

    config: TournamentConfig
    spec: TournamentGame
    schedule: Schedule
    fingerprint: dict[str, Any]
    #: the digest stamped on every ``games.jsonl`` line
    digest: str
    workers: int
    backend: str = "local"
    address: str | None = None


def plan(
    config: TournamentConfig,
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
) -> Plan:
    """Check ``config`` and the backend (connecting to Ray) before any file is written."""
    check_backend(backend, address)
    spec = get_spec(config.game)
    check_agents(config.game, config.agents)
    schedule = make_schedule(
        config.agents,
        num_seats(spec, config.env_kwargs),
        config.games,
        teams=spec.teams,
        mixed_partners=config.mixed_partners,
        compositions=config.team_compositions,
    )
    if backend == "ray":
        # connect before any file is written: an unreachable cluster leaves --out untouched
        from experiments.tournament import ray_backend

        ray = ray_backend.connect(address, num_cpus=workers)
        # one actor per CPU at most: an actor that cannot be placed would hold its chunks
        workers = min(workers or math.inf, ray_backend.cluster_cpus(ray))
    workers = max(1, workers or os.cpu_count() or 1)
    fp = tournament_fingerprint(config.identity(), config.game, config.agents, schedule.lineups)
    return Plan(config, spec, schedule, fp, fingerprint_digest(fp), workers, backend, address)


@contextlib.contextmanager
def claim_folder(tournament: Plan, out: str | Path, force: bool = False) -> Iterator[Claim]:
    """Hold ``out`` for this tournament (:func:`experiments.outdir.claim_output`).

    The folder must be empty or hold this tournament (same fingerprint: a resume); another
    run holding it, or another tournament's results, is a ``ValueError`` saying what differs.
    ``force`` takes the folder over and starts afresh: its ``games.jsonl`` is discarded.
    """
    claiming = claim_output(out, OWNER, tournament.fingerprint, force=force)
    try:
        claim = claiming.__enter__()
    except OutputNotOurs as exc:
        if exc.changed is None:
            raise
        raise ResumeMismatch(
            f"{out} holds a different tournament ({exc.changed}); use the same settings to "
            "resume, another --out folder, or --force to start afresh (its games are discarded)",
            exc.changed,
        ) from None
    with contextlib.ExitStack() as stack:
        stack.push(claiming)
        if claim.fresh:
            for name in (GAMES_FILE, CONFIG_FILE):
                (claim.path / name).unlink(missing_ok=True)
        yield claim


def run(
    config: TournamentConfig,
    workers: int | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    max_new_games: int | None = None,
    backend: str = "local",
    address: str | None = None,
    force: bool = False,
) -> RunOutcome:
    """Play (or resume) the tournament; ``max_new_games`` stops early (budgeted runs, tests).

    ``backend`` is one of :data:`BACKENDS`; ``address`` (Ray only) is an existing cluster's
    ``host:port`` (default: a local Ray with ``workers`` CPUs). Both backends play every game
    with the same per-game function, so the results are the same. ``out`` is claimed for the
    run (:func:`claim_folder`; ``force`` overwrites another tournament's folder).
    """
    tournament = plan(config, workers, backend, address)
    if out is None:
        return play(tournament, None, progress, max_new_games)
    with claim_folder(tournament, out, force):
        return play(tournament, Path(out), progress, max_new_games)


def worker_count(workers: int, count: int, backend: str = "local") -> int:
    """The workers worth starting for ``count`` games: at most one per chunk of games (more
    would sit idle; ``--workers 100000 --games 4`` starts four)."""
    if count < 2:
        return 1
    if backend == "ray":
        from experiments.tournament.ray_backend import chunk_size

        return max(1, min(workers, math.ceil(count / chunk_size(count, workers))))
    return max(1, min(workers, math.ceil(count / _chunk_size(count, workers))))


def _chunk_size(count: int, workers: int) -> int:
    """Games per chunk of the local pool (about 8 chunks per worker, at most 256 games)."""
    return max(1, min(256, math.ceil(count / (workers * 8))))


def play(
    tournament: Plan,
    out_dir: Path | None,
    progress: bool = True,
    max_new_games: int | None = None,
) -> RunOutcome:
    """Play the tournament's games not yet in ``out_dir`` (claimed by the caller)."""
    config, spec, schedule = tournament.config, tournament.spec, tournament.schedule
    done: dict[tuple[int, ...], dict[str, Any]] = {}
    if out_dir is not None:
        _check_or_write_config(out_dir, config, tournament.fingerprint)
        check = LineCheck(spec, schedule, config, tournament.digest)
        done = _load_done(out_dir / GAMES_FILE, check)
    resumed = sum(1 for key in done if schedule.contains(GameKey(*key)))
    left = schedule.total_games - resumed
    count = left if max_new_games is None else min(left, max(0, max_new_games))
    todo = itertools.islice(
        (k for k in schedule.iter_keys() if tuple(k.as_list()) not in done), count
    )
    workers = worker_count(tournament.workers, count, tournament.backend)
    start = time.perf_counter()
    path = out_dir / GAMES_FILE if out_dir is not None else None
    with contextlib.ExitStack() as stack:
        sink = None
        if path is not None:
            sink = stack.enter_context(_Appender(path))
        for item in _play_all(
            config,
            spec,
            schedule,
            out_dir is not None,
            todo,
            count,
            workers,
            progress,
            tournament.backend,
            tournament.address,
        ):
            if isinstance(item, tuple):
                text, data = item
                if sink is not None:
                    seed = deal_seed(config.seed, data["key"][0])
                    sink.write(_stamp(text, tournament.digest, seed))
            else:
                data = item
            done[tuple(data["key"])] = data
    seconds = time.perf_counter() - start
    games = [done[k] for k in sorted(done) if schedule.contains(GameKey(*k))]
    complete = len(games) == schedule.total_games
    if out_dir is not None and complete:
        _rewrite_sorted(out_dir / GAMES_FILE)
    outcome = RunOutcome(config, spec, schedule, games, count, resumed, seconds, workers, complete)
    outcome.workers_asked = tournament.workers
    return outcome


class _Appender:
    """``games.jsonl`` opened for appending; a failed write or close (a full disk) names it,
    while errors of the games themselves pass unchanged."""

    def __init__(self, path: Path):
        self.path = path
        with naming_errors(path):
            self._file = path.open("a")

    def __enter__(self) -> _Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        with naming_errors(self.path):
            self._file.close()

    def write(self, text: str) -> None:
        with naming_errors(self.path):
            self._file.write(text)


def _stamp(line: str, run_digest: str, seed: int) -> str:
    """``line`` (a JSON object) with the run's digest and its deal's seed first, and a newline:
    what a resume checks a line against (:class:`LineCheck`)."""
    return f'{{"run":"{run_digest}","deal_seed":{seed},{line[1:]}\n'


def _play_all(
    config: TournamentConfig,
    spec: TournamentGame,
    schedule: Schedule,
    to_disk: bool,
    todo: Iterator[GameKey],
    count: int,
    workers: int,
    progress: bool,
    backend: str = "local",
    address: str | None = None,
) -> Iterator[Encoded | dict[str, Any]]:
    """Play the ``count`` games of ``todo`` (an iterator: the schedule is never a list)."""
    from tqdm import tqdm

    bar = tqdm(
        total=count,
        unit="game",
        desc=f"{config.game} tournament",
        disable=not progress or not count,
        mininterval=0.5,
        file=sys.stderr,
    )
    try:
        if backend == "ray" and count:
            from experiments.tournament import ray_backend

            for lines in ray_backend.play_chunks(
                config, spec, schedule, to_disk, todo, count, workers, address
            ):
                bar.update(len(lines))
                yield from lines
            return
        if workers == 1 or count < 2:
            init_worker(config, spec, schedule, to_disk)
            for chunk in chunks(todo, 64):
                lines = play_chunk(chunk)
                bar.update(len(lines))
                yield from lines
            return
        import multiprocessing as mp

        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(method)
        size = _chunk_size(count, workers)
        with ctx.Pool(
            workers, initializer=init_worker, initargs=(config, spec, schedule, to_disk)
        ) as pool:
            for lines in pool.imap_unordered(play_chunk, chunks(todo, size)):
                bar.update(len(lines))
                yield from lines
    finally:
        bar.close()


def check_backend(backend: Any, address: Any = None) -> None:
    """``ValueError``/``TypeError`` for an unknown backend or an address without Ray."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and not isinstance(address, str):
        raise TypeError(f"address must be a string 'host:port' or None, got {address!r}")
    if address and backend != "ray":
        raise ValueError(f"address {address!r} is for the ray backend, not {backend!r}")


def _check_or_write_config(
    out_dir: Path, config: TournamentConfig, fingerprint: dict[str, Any]
) -> None:
    """Refuse a ``tournament.json`` of another tournament; write this one's (with its
    fingerprint: settings, lineups, code and model digests)."""
    path = out_dir / CONFIG_FILE
    identity = config.identity()
    if path.exists():
        stored = _read_config(path)
        if stored.get("identity") != identity or stored.get("fingerprint") != fingerprint:
            raise ResumeMismatch(
                f"{out_dir} holds a different tournament "
                f"({differences(stored.get('fingerprint', stored['identity']), fingerprint)}); "
                "use the same settings to resume, another --out folder, or --force to start "
                "afresh (its games are discarded)"
            )
    body = {
        "identity": identity,
        "games": config.games,
        "records": config.records,
        "fingerprint": fingerprint,
    }
    write_atomic(path, json.dumps(body, indent=1) + "\n")


def _read_config(path: Path) -> dict[str, Any]:
    """The stored ``tournament.json``; ``ValueError`` naming the file if it is not one.

    The message does not suggest deleting the file: the folder's games could then no longer be
    told apart from another tournament's; ``--force`` discards them with it.
    """
    try:
        stored = json.loads(path.read_text())
        ok = isinstance(stored, dict) and isinstance(stored.get("identity"), dict)
        why = "" if ok else "no 'identity' object"
    except (ValueError, UnicodeDecodeError) as exc:
        why = str(exc)
    if why:
        raise ValueError(
            f"{path} is not a tournament file ({why}), so the games in its folder cannot be "
            "checked; use another --out folder, or --force to start afresh (its games are "
            "discarded)"
        )
    return stored


class LineCheck:
    """Checks that a ``games.jsonl`` line is a game of this tournament, as it was played.

    The run digest (the line was played by a tournament with this fingerprint: settings, code,
    models), the deal's seed (the schedule's for its deal index), the shape of every field, the
    key (a game of the schedule) and its seating; where the line holds a record, the record's
    deal (seed, env options, dealing options) must be the schedule's, and the record is
    replayed (:func:`kiaule_env.core.records.replay`): the line's rewards, result and decisions
    must be the replay's.
    """

    def __init__(
        self, spec: TournamentGame, schedule: Schedule, config: TournamentConfig, run_digest: str
    ):
        self.spec = spec
        self.schedule = schedule
        self.config = config
        self.run_digest = run_digest
        self.seats = len(schedule.lineups[0])
        self._env: Any = None
        self._options: tuple[int, Any] | None = None

    def __call__(self, data: Any) -> str | None:
        """Why ``data`` is not a valid line, or ``None`` if it is."""
        if not isinstance(data, dict):
            return f"a JSON object is expected, got {type(data).__name__}"
        key = data.get("key")
        if not (isinstance(key, list) and len(key) == 3 and all(_is_int(k, 0) for k in key)):
            return f"'key' must be three integers >= 0, got {key!r}"
        game = GameKey(*key)
        if data.get("run") != self.run_digest:
            if "run" not in data:
                return "it has no 'run' digest (it was written before runs were fingerprinted)"
            return (
                f"it was played by another tournament (run {data['run']!r}, this one "
                f"{self.run_digest!r}: other settings, code or models)"
            )
        seated = game.lineup < len(self.schedule.lineups) and (
            game.rotation in self.schedule.rotations[game.lineup]
        )
        if not seated and game.deal < self.schedule.deals:
            return f"'key' {key} is not a game of this tournament"
        seed = deal_seed(self.config.seed, game.deal)
        if data.get("deal_seed") != seed:
            return f"'deal_seed' {data.get('deal_seed')!r} is not deal {game.deal}'s seed {seed}"
        seats = data.get("seats")
        if not (isinstance(seats, list) and all(isinstance(a, str) for a in seats)):
            return f"'seats' must be a list of agent names, got {seats!r}"
        if seated and tuple(seats) != self.schedule.seating(game):
            return f"'seats' {seats} is not the seating of game {key}"
        rewards = data.get("rewards")
        if not (
            isinstance(rewards, list)
            and len(rewards) == self.seats
            and all(_is_number(r) for r in rewards)
        ):
            return f"'rewards' must be {self.seats} numbers, got {rewards!r}"
        if not _is_int(data.get("steps"), 0):
            return f"'steps' must be an integer >= 0, got {data.get('steps')!r}"
        if data.get("result") is not None and not isinstance(data["result"], dict):
            return f"'result' must be an object or null, got {data['result']!r}"
        if "record" in data:
            return self._check_record(data)
        return None

    def _check_record(self, data: dict[str, Any]) -> str | None:
        from kiaule_env.core.records import GameRecord, replay_episode

        raw = data["record"]
        try:
            record = GameRecord.from_dict(raw, "its record")
            if record.env_id != self.spec.env_id:
                return f"its record is of {record.env_id!r}, not {self.spec.env_id!r}"
            why = self._check_deal(data["key"][0], record)
            if why is not None:
                return why
            episode = replay_episode(lambda **kw: self.spec.build_env(kw), record)
        except (TypeError, ValueError, KeyError) as exc:
            return f"its record does not replay: {exc}"
        totals = episode.rewards
        pairs = zip(data["rewards"], totals, strict=False)
        if len(totals) != len(data["rewards"]) or not all(
            math.isclose(a, b, abs_tol=1e-9) for a, b in pairs
        ):
            return f"'rewards' {data['rewards']} differ from its record's {totals}"
        if data.get("result") != episode.result:
            return f"'result' differs from its record's ({episode.result})"
        if data["steps"] != len(record.moves):
            return f"'steps' {data['steps']} differ from its record's {len(record.moves)} moves"
        return None

    def _check_deal(self, deal: int, record: Any) -> str | None:
        """Why ``record`` is not a game of deal ``deal`` of this tournament, or ``None``."""
        expected = self.config.env_kwargs
        if json.loads(json.dumps(record.env_kwargs)) != json.loads(json.dumps(expected)):
            return f"its record's env options {record.env_kwargs} are not {expected}"
        seed = deal_seed(self.config.seed, deal)
        if record.seed != seed:
            return f"its record's seed {record.seed} is not deal {deal}'s seed {seed}"
        if self._options is None or self._options[0] != deal:
            if self._env is None:
                self._env = self.spec.build_env(dict(expected))
            options = self.spec.deal_options(self._env, np.random.default_rng(seed))
            self._options = (deal, json.loads(json.dumps(options or {})))
        if json.loads(json.dumps(record.options or {})) != self._options[1]:
            return f"its record's deal (reset options) is not deal {deal}'s"
        return None


def _is_int(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _load_done(path: Path, check: LineCheck | None = None) -> dict[tuple[int, ...], dict[str, Any]]:
    """Finished games already in ``path``; drops a torn last line left by a crash.

    Lines are written whole with their newline, so only the last segment (no newline after it)
    can be torn; anything else unreadable, or failing ``check``, is a ``ValueError`` naming the
    file and the line rather than silently used.
    """
    done: dict[tuple[int, ...], dict[str, Any]] = {}
    if not path.exists():
        return done
    raw = path.read_bytes()
    segments = raw.split(b"\n")
    offset = 0
    for i, chunk in enumerate(segments):
        last = i == len(segments) - 1
        if chunk.strip():
            try:
                data = json.loads(chunk)
            except ValueError as exc:
                if last:
                    with path.open("r+b") as f:
                        f.truncate(offset)  # the torn game is played again
                    break
                raise ValueError(f"{path}: line {i + 1} is not JSON: {exc}") from exc
            why = check(data) if check is not None else None
            if why is not None:
                raise ValueError(
                    f"{path}: line {i + 1} is not a game result of this tournament: {why}; "
                    "delete the line (its game is played again) or use another --out folder"
                )
            data.pop("record", None)
            done[tuple(data["key"])] = data
            if last:  # complete but its newline was never written
                with path.open("ab") as f:
                    f.write(b"\n")
        offset += len(chunk) + 1
    return done


def _rewrite_sorted(path: Path) -> None:
    """Rewrite ``games.jsonl`` in canonical key order (atomic replace), one line per game."""
    by_key: dict[tuple[int, ...], str] = {}
    with path.open() as f:
        for line in f:
            if line.strip():
                by_key[line_key(line)] = line.rstrip("\n")
    write_atomic(path, (by_key[key] + "\n" for key in sorted(by_key)))


#: the key of a games.jsonl line as the runner writes it: before the record, near the start
_KEY = re.compile(r'"key":\[(\d+),(\d+),(\d+)\]')


def line_key(line: str) -> tuple[int, ...]:
    """The ``key`` of a ``games.jsonl`` line, read from its head (a line is mostly its record;
    parsing it whole to sort the file cost as much as writing it); parsed in full otherwise."""
    found = _KEY.search(line, 0, 200)
    if found is not None:
        return tuple(int(x) for x in found.groups())
    return tuple(json.loads(line)["key"])
