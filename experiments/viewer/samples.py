"""Sample games of a tournament as viewer pages, for the report to link.

:func:`pick_samples` chooses a few telling games from the lines of ``games.jsonl``: the largest
win (the widest spread of rewards), a deal ended by repetition (``result["repetition"]``, when
the game has that rule) and the longest game. :func:`write_samples` writes their pages into
``<out>/samples/`` and returns what it wrote, for ``leaderboard.txt`` to list.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.viewer.replay import GAMES_FILE, LoadedGame, check_env_id
from kiaule_env import ENV_MODULES
from kiaule_env.core.records import GameRecord

#: the folder of the sample pages inside a results folder
SAMPLES_DIR = "samples"


@dataclass(frozen=True)
class Sample:
    """One sample game: why it was chosen, its index in ``games.jsonl`` and its page."""

    name: str
    label: str
    index: int
    key: list[int] | None
    path: Path | None = None
    error: str | None = None


def pick_samples(lines: list[dict[str, Any]], moves: list[int]) -> list[Sample]:
    """Samples from tournament lines (``rewards``, ``result``, ``key``) and their move counts.

    Ties go to the first game in file (canonical) order. A game picked for two reasons is
    listed under both.
    """
    if not lines:
        return []
    out: list[Sample] = []

    def key_of(i: int) -> list[int] | None:
        key = lines[i].get("key")
        return list(key) if isinstance(key, list) else None

    spreads = [
        (max(line["rewards"]) - min(line["rewards"])) if line.get("rewards") else 0.0
        for line in lines
    ]
    win = max(range(len(lines)), key=lambda i: (spreads[i], -i))
    out.append(
        Sample("largest-win", f"largest win (reward spread {spreads[win]:g})", win, key_of(win))
    )
    repeated = [i for i, line in enumerate(lines) if (line.get("result") or {}).get("repetition")]
    if repeated:
        i = repeated[0]
        out.append(Sample("repetition", "a deal ended by repetition", i, key_of(i)))
    longest = max(range(len(lines)), key=lambda i: (moves[i], -i))
    out.append(
        Sample("longest", f"longest game ({moves[longest]} moves)", longest, key_of(longest))
    )
    return out


def write_samples(out: str | Path, games: Sequence[dict[str, Any]] | None = None) -> list[Sample]:
    """Write the sample pages of the tournament in ``out`` into ``out/samples``.

    ``games``: the tournament's lines without their records (what the run holds in memory),
    so that only the sampled lines of ``games.jsonl`` are parsed; without them, or when the
    file holds other games, every line is. Returns the samples with their page paths (or the
    error that kept a page from being written); an empty list when ``games.jsonl`` holds no
    records (``--no-records``).
    """
    out = Path(out)
    path = out / GAMES_FILE
    if not path.is_file():
        return []
    found = _scan(path, games) if games is not None else None
    if found is None:
        found = _parse_all(path)
    if not found.lines:
        return []
    if not found.in_suite():
        return []  # a game outside the suite (a test's toy game): nothing to show
    samples = pick_samples(found.lines, found.moves)
    folder = out / SAMPLES_DIR
    written: list[Sample] = []
    pages: dict[int, Path] = {}
    from experiments.viewer import write_viewer

    for sample in samples:
        target = folder / f"{sample.name}.html"
        try:
            if sample.index in pages:
                target.write_bytes(pages[sample.index].read_bytes())
            else:
                loaded = _loaded(found.full(sample.index), sample.index, len(found.lines), path)
                loaded.source = GAMES_FILE
                write_viewer(loaded, target)
                pages[sample.index] = target
            written.append(Sample(sample.name, sample.label, sample.index, sample.key, path=target))
        except (ValueError, OSError) as exc:
            written.append(
                Sample(sample.name, sample.label, sample.index, sample.key, error=str(exc))
            )
    return written


@dataclass
class _RecordLines:
    """The lines of ``games.jsonl`` that hold a record, in file order (the indices of
    :func:`~experiments.viewer.replay.read_records`): each line (parsed, or the run's line
    without its record), its move count, and its text when it was not parsed."""

    lines: list[dict[str, Any]]
    moves: list[int]
    texts: list[str] | None = None

    def full(self, index: int) -> dict[str, Any]:
        """Line ``index`` with its record (``ValueError`` if it has none after all)."""
        if self.texts is None:
            return self.lines[index]
        data = json.loads(self.texts[index])
        if not isinstance(data, dict) or not isinstance(data.get("record"), dict):
            raise ValueError(f"line {index} of {GAMES_FILE} holds no game record")
        return data

    def in_suite(self) -> bool:
        """Whether the games are of this suite's envs (a tournament's are all of one env)."""
        if self.texts is None:
            return all(line["record"].get("env_id") in ENV_MODULES for line in self.lines)
        try:
            return self.full(0)["record"].get("env_id") in ENV_MODULES
        except ValueError:
            return False


def _scan(path: Path, games: Sequence[dict[str, Any]]) -> _RecordLines | None:
    """The record lines of ``path`` matched to ``games`` by the key at each line's head; only
    texts are kept, parsed when sampled. None when a line holds a game not in ``games``."""
    from experiments.tournament.runner import line_key

    known = {tuple(g["key"]): g for g in games if isinstance(g.get("key"), list)}
    lines: list[dict[str, Any]] = []
    texts: list[str] = []
    with path.open() as f:
        for text in f:
            if '"record":{' not in text:
                continue  # a line without a record (a resumed --no-records run)
            try:
                game = known.get(line_key(text))
            except (ValueError, KeyError, TypeError):
                return None
            if game is None or not isinstance(game.get("steps"), int):
                return None
            lines.append(game)
            texts.append(text)
    return _RecordLines(lines, [g["steps"] for g in lines], texts)


def _parse_all(path: Path) -> _RecordLines:
    lines = _record_lines(path)
    return _RecordLines(lines, [_move_count(line["record"]) for line in lines])


def _record_lines(path: Path) -> list[dict[str, Any]]:
    """The lines of ``path`` that hold a record, in file order, each parsed once.

    Only the sample games' records are checked and replayed (:func:`_loaded`): checking every
    record of a large tournament cost more than playing it. A tournament checks its lines'
    records when it resumes, so its indices are those of :func:`read_records`.
    """
    lines = []
    with path.open() as f:
        for text in f:
            if not text.strip():
                continue
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and isinstance(data.get("record"), dict):
                lines.append(data)
    return lines


def _move_count(record: dict[str, Any]) -> int:
    moves = record.get("moves")
    return len(moves) if isinstance(moves, list) else 0


def _loaded(line: dict[str, Any], index: int, count: int, path: Path) -> LoadedGame:
    """Sample ``index`` of ``count`` as :func:`load_game` would load it, its record checked
    (``ValueError``)."""
    record = GameRecord.from_dict(line["record"], f"{path}: game {index}")
    check_env_id(record.env_id, path)
    key, seats = line.get("key"), line.get("seats")
    return LoadedGame(
        record=record,
        source=str(path),
        index=index,
        count=count,
        seats=list(seats) if isinstance(seats, list) else None,
        key=list(key) if isinstance(key, list) else None,
    )


def samples_text(samples: list[Sample], out: str | Path) -> str:
    """The ``sample games`` section of ``leaderboard.txt`` (paths relative to ``out``)."""
    if not samples:
        return ""
    lines = ["sample games (replay pages; open in a browser, or `kiaule view` any other game)"]
    for s in samples:
        where = str(s.path.relative_to(out)) if s.path is not None else f"not written: {s.error}"
        key = f", key {s.key}" if s.key is not None else ""
        lines.append(f"  {s.label}: game {s.index}{key}: {where}")
    return "\n".join(lines)
