"""Sample games of a tournament as viewer pages, for the report to link.

:func:`pick_samples` chooses a few telling games from the lines of ``games.jsonl``: the largest
win (the widest spread of rewards), a deal ended by repetition (``result["repetition"]``, when
the game has that rule) and the longest game. :func:`write_samples` writes their pages into
``<out>/samples/`` and returns what it wrote, for ``leaderboard.txt`` to list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.viewer.replay import GAMES_FILE, load_game, read_records
from kiaule_env import ENV_MODULES

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
    try:
        records = read_records(path)
    except ValueError:
        return []
    if any(record.env_id not in ENV_MODULES for record, _ in records):
        return []  # a game outside the suite (a test's toy game): nothing to show
    lines = [line for _, line in records]
    samples = pick_samples(lines, [len(record.moves) for record, _ in records])
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
                loaded = load_game(path, sample.index)
                loaded.source = GAMES_FILE
                write_viewer(loaded, target)
                pages[sample.index] = target
            written.append(Sample(sample.name, sample.label, sample.index, sample.key, path=target))
        except (ValueError, OSError) as exc:
            written.append(
                Sample(sample.name, sample.label, sample.index, sample.key, error=str(exc))
            )
    return written


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
