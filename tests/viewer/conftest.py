"""Records of tiny tournaments of every game, each made once per test session on demand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.viewer.support import GAMES, tiny_tournament


class Records(dict):
    """game -> the ``games.jsonl`` of a 4-game tournament of that game, played when first asked
    for (the browser test needs only Kozel and Kiauliaganys)."""

    def __init__(self, base: Path):
        super().__init__()
        self.base = base

    def __missing__(self, game: str) -> Path:
        if game not in GAMES:
            raise KeyError(game)
        path = tiny_tournament(game, self.base / game)
        self[game] = path
        return path


@pytest.fixture(scope="session")
def records(tmp_path_factory: pytest.TempPathFactory) -> Records:
    return Records(tmp_path_factory.mktemp("viewer-records"))
