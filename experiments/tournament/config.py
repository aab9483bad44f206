"""A tournament's settings: everything that decides its results (the number of workers and the
backend do not). Apart so that the runner and the workers of every backend share it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class TournamentConfig:
    """Everything that decides a tournament's results (the number of workers does not)."""

    game: str
    agents: list[str]
    games: int = 1000
    seed: int = 0
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    mixed_partners: bool = False
    #: the team-play study (team games): the teams, each two of ``agents``, that play each other
    #: (every pair of them, sharing agents or not); results are per team composition
    team_compositions: list[list[str]] | None = None
    #: keep replayable game records in ``games.jsonl`` (only with an output folder)
    records: bool = True

    def identity(self) -> dict[str, Any]:
        """The settings a resumed run must share (``games`` may grow: deals are added)."""
        data = asdict(self)
        data.pop("games")
        data.pop("records")
        if data["team_compositions"] is None:  # the identity of tournaments from before it
            data.pop("team_compositions")
        return json.loads(json.dumps(data))
