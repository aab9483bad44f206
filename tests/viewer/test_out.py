"""``kiaule view --out`` never overwrites the records it reads or a file that is not HTML; an
HTML page it did not write only with ``--force``; its own pages are rewritten."""

from __future__ import annotations

import shutil

import pytest

from experiments.cli import main as cli_main
from experiments.viewer import extract_data, write_viewer


def view(capsys, *argv: str) -> tuple[int, str]:
    code = cli_main(["view", *map(str, argv)])
    return code, capsys.readouterr().err


@pytest.fixture
def folder(records, tmp_path):
    """A copy of a tournament results folder (the test may try to overwrite its files)."""
    base = tmp_path / "base"
    shutil.copytree(records["kozel"].parent, base)
    return base


def test_out_never_replaces_the_records_it_reads(capsys, folder):
    games = folder / "games.jsonl"
    before = games.read_bytes()
    for source in (folder, games):
        code, err = view(capsys, source, "--out", games)
        assert code == 2 and "is the records file it reads" in err
        code, err = view(capsys, source, "--out", games, "--force")
        assert code == 2 and "is the records file it reads" in err
    assert games.read_bytes() == before


def test_out_never_replaces_a_file_that_is_not_html(capsys, folder, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    for extra in ([], ["--force"]):
        code, err = view(capsys, folder, "--out", notes, *extra)
        assert code == 2 and len(err.strip().splitlines()) == 1
        assert "is not an HTML file; it is never overwritten" in err
    assert notes.read_text() == "my notes"
    code, err = view(capsys, folder, "--out", tmp_path)
    assert code == 2 and "is a folder" in err


def test_an_html_page_of_someone_else_needs_force(capsys, folder, tmp_path):
    page = tmp_path / "index.html"
    page.write_text("<!DOCTYPE html>\n<html><body>my page</body></html>\n")
    code, err = view(capsys, folder, "--out", page)
    assert code == 2 and "not written by kiaule view" in err and "--force" in err
    assert "my page" in page.read_text()
    code, _ = view(capsys, folder, "--out", page, "--force")
    assert code == 0 and extract_data(page.read_text())["index"] == 0


def test_its_own_page_is_rewritten_whole(capsys, folder, tmp_path):
    page = tmp_path / "game.html"
    assert view(capsys, folder, "--out", page)[0] == 0
    assert view(capsys, folder, "--game", "2", "--out", page)[0] == 0
    assert extract_data(page.read_text())["index"] == 2
    assert not list(tmp_path.glob("*.tmp"))


def test_the_library_call_refuses_the_same(folder):
    with pytest.raises(ValueError, match="is the records file it reads"):
        write_viewer(folder / "games.jsonl", folder / "games.jsonl")
