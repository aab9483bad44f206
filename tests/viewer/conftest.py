"""Records of tiny tournaments of the four games, made once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.viewer.support import GAMES, tiny_tournament


@pytest.fixture(scope="session")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """game -> the ``games.jsonl`` of a 4-game tournament of that game."""
    base = tmp_path_factory.mktemp("viewer-records")
    return {game: tiny_tournament(game, base / game) for game in GAMES}
