"""Observation layouts built from named slices (in the spirit of OpenSpiel's observers).

An encoder declares its observation as an ordered list of :class:`Slice` s. The layout owns the
offsets, can decode a flat vector back into named parts, and renders the Markdown table that the
env docstrings and the docs pages show, so documentation is generated from the code that encodes.

A layout also has a :meth:`~ObservationLayout.fingerprint`, a short hash of what a network trained
on it depends on (the slices' names, sizes, order and value bounds, not their descriptions), and
a compact :meth:`~ObservationLayout.describe` list; model files record both so that a model
trained for an older encoding is refused instead of misreading observations
(:func:`layout_differences` says which slices changed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Slice:
    """One named part of an observation vector."""

    name: str
    size: int
    description: str
    low: float = 0.0
    high: float = 1.0


class ObservationLayout:
    """An ordered set of named slices forming a flat ``float32`` observation vector."""

    def __init__(self, slices: Iterable[Slice]):
        self.slices: tuple[Slice, ...] = tuple(slices)
        self.offsets: dict[str, slice] = {}
        start = 0
        for part in self.slices:
            if part.name in self.offsets:
                raise ValueError(f"duplicate observation slice name {part.name!r}")
            if part.size <= 0:
                raise ValueError(f"observation slice {part.name!r} must have a positive size")
            self.offsets[part.name] = slice(start, start + part.size)
            start += part.size
        self.size: int = start
        self.low = np.concatenate([np.full(p.size, p.low, np.float32) for p in self.slices])
        self.high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.slices])

    def new(self) -> np.ndarray:
        """A zero observation vector of the layout's size."""
        return np.zeros(self.size, dtype=np.float32)

    def part(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The named slice of ``obs`` (a view: writing to it writes to ``obs``)."""
        return obs[self.offsets[name]]

    def decode(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation into its named parts (copies)."""
        if obs.shape != (self.size,):
            raise ValueError(f"observation has shape {obs.shape}, the layout needs ({self.size},)")
        return {name: obs[sl].copy() for name, sl in self.offsets.items()}

    def rows(self) -> list[tuple[str, int, int, str]]:
        """``(name, start, size, description)`` per slice, in order."""
        return [(p.name, self.offsets[p.name].start, p.size, p.description) for p in self.slices]

    def describe(self) -> list[list[str | int]]:
        """``[[name, size], ...]`` in order: the compact form model metadata records."""
        return [[p.name, p.size] for p in self.slices]

    def fingerprint(self) -> str:
        """A stable 16-hex-digit hash of the ordered slices' names, sizes and bounds.

        Descriptions are left out on purpose: rewording the docs does not change what a network
        sees, while renaming, resizing, reordering or rescaling a slice does.
        """
        parts = [[p.name, p.size, float(p.low), float(p.high)] for p in self.slices]
        text = json.dumps(parts, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def markdown_table(self) -> str:
        """The layout as a Markdown table (docs are generated from this)."""
        lines = ["| slice | index | size | content |", "|---|---|---|---|"]
        for name, start, size, desc in self.rows():
            index = str(start) if size == 1 else f"{start}–{start + size - 1}"
            lines.append(f"| `{name}` | {index} | {size} | {desc} |")
        lines.append(f"| **total** | | **{self.size}** | |")
        return "\n".join(lines)


def layout_differences(
    recorded: Sequence[Sequence[str | int]], current: Sequence[Sequence[str | int]]
) -> list[str]:
    """How ``current`` differs from ``recorded`` (both :meth:`ObservationLayout.describe` lists).

    One phrase per slice, by name: ``added 'x' (size 3)``, ``removed 'y' (size 2)``,
    ``resized 'z' 4 → 5``; ``slices reordered`` when the slices both have are in another order.
    An empty list when both lists agree (the layouts may still differ in value bounds).
    """
    old = {str(name): int(size) for name, size in recorded}
    new = {str(name): int(size) for name, size in current}
    changes = [f"removed {n!r} (size {old[n]})" for n in old if n not in new]
    changes += [f"added {n!r} (size {new[n]})" for n in new if n not in old]
    changes += [f"resized {n!r} {old[n]} → {new[n]}" for n in old if n in new and old[n] != new[n]]
    if [n for n in old if n in new] != [n for n in new if n in old]:
        changes.append("slices reordered")
    return changes


def action_table(texts: Iterable[tuple[str, str]]) -> str:
    """A Markdown table of action index ranges and what they mean: ``(indices, meaning)`` rows."""
    lines = ["| action | meaning |", "|---|---|"]
    lines += [f"| {indices} | {meaning} |" for indices, meaning in texts]
    return "\n".join(lines)
