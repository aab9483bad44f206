"""Sample pages of a tournament report: picked from the games in memory, only the sampled lines
of ``games.jsonl`` parsed, the same pages as from parsing the whole file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from experiments.tournament.runner import line_key
from experiments.viewer import samples as samples_module
from experiments.viewer.samples import write_samples
from tests.viewer.support import lines


def without_records(path: Path) -> list[dict]:
    out = []
    for line in lines(path):
        line.pop("record")
        out.append(line)
    return out


def pages(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "samples").glob("*.html"))}


def picked(found) -> list[tuple]:
    return [(s.name, s.label, s.index, s.key, s.error) for s in found]


@pytest.fixture
def folder(records, tmp_path) -> Path:
    """A copy of the Kiauliaganys tournament folder (its sample pages removed)."""
    out = tmp_path / "t"
    shutil.copytree(records["kiauliaganys"].parent, out)
    shutil.rmtree(out / "samples", ignore_errors=True)
    return out


def test_samples_from_the_games_in_memory_equal_those_of_the_whole_file(folder, monkeypatch):
    games = without_records(folder / "games.jsonl")
    slow = picked(write_samples(folder))
    slow_pages = pages(folder)
    shutil.rmtree(folder / "samples")

    def no_full_parse(path):
        raise AssertionError("the whole file was parsed")

    monkeypatch.setattr(samples_module, "_record_lines", no_full_parse)
    fast = picked(write_samples(folder, games))
    assert fast == slow and all(error is None for *_, error in fast)
    assert pages(folder) == slow_pages and slow_pages


def test_a_line_of_another_game_falls_back_to_parsing_the_file(folder, monkeypatch):
    games = without_records(folder / "games.jsonl")
    expected = picked(write_samples(folder))
    shutil.rmtree(folder / "samples")
    parsed = []
    real = samples_module._record_lines
    monkeypatch.setattr(samples_module, "_record_lines", lambda p: parsed.append(p) or real(p))
    assert picked(write_samples(folder, games[1:])) == expected
    assert parsed == [folder / "games.jsonl"]


def test_line_key_reads_the_head_of_a_stamped_line_and_parses_otherwise():
    line = '{"run":"abc","deal_seed":12,"key":[3,0,1],"seats":["a"],"record":{"k":"key"}}'
    assert line_key(line) == (3, 0, 1)
    assert line_key(json.dumps({"seats": ["x"] * 80, "key": [7, 1, 2]})) == (7, 1, 2)
