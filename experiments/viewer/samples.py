"""Sample games of a tournament as viewer pages, for the report to link.

:func:`pick_samples` chooses a few telling games from the lines of ``games.jsonl``: the largest
win (the widest spread of rewards), a deal ended by repetition (``result["repetition"]``, when
the game has that rule) and the longest game. :func:`write_samples` writes their pages into
``<out>/samples/`` and returns what it wrote, for ``leaderboard.txt`` to list.
"""

from __future__ import annotations

import json
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


def write_samples(out: str | Path) -> list[Sample]:
    """Write the sample pages of the tournament in ``out`` into ``out/samples``.

    Returns the samples with their page paths (or the error that kept a page from being
    written); an empty list when ``games.jsonl`` holds no records (``--no-records``).
    """
    out = Path(out)
    path = out / GAMES_FILE
    if not path.is_file():
        return []
    lines = _record_lines(path)
    if not lines:
        return []
    if any(line["record"].get("env_id") not in ENV_MODULES for line in lines):
        return []  # a game outside the suite (a test's toy game): nothing to show
    samples = pick_samples(lines, [_move_count(line["record"]) for line in lines])
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
                loaded = _loaded(lines, sample.index, path)
                loaded.source = GAMES_FILE
                write_viewer(loaded, target)
                pages[sample.index] = target
            written.append(Sample(sample.name, sample.label, sample.index, sample.key, path=target))
        except (ValueError, OSError) as exc:
            written.append(
                Sample(sample.name, sample.label, sample.index, sample.key, error=str(exc))
            )
    return written


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


def _loaded(lines: list[dict[str, Any]], index: int, path: Path) -> LoadedGame:
    """Sample ``index`` as :func:`load_game` would load it, its record checked (``ValueError``)."""
    line = lines[index]
    record = GameRecord.from_dict(line["record"], f"{path}: game {index}")
    check_env_id(record.env_id, path)
    key, seats = line.get("key"), line.get("seats")
    return LoadedGame(
        record=record,
        source=str(path),
        index=index,
        count=len(lines),
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
