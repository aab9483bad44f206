"""The High card AEC environment: thin glue between the engine and PettingZoo."""

from __future__ import annotations

from typing import Any, ClassVar

from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.options import rule_keywords
from tests.fixture_game.highcard.display import render_hand
from tests.fixture_game.highcard.engine import Engine
from tests.fixture_game.highcard.rules import Config


class HighCardEnv(TurnBasedCardEnv):
    """High card (``RULES.md``): see :mod:`tests.fixture_game.highcard_v0`."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "highcard_v0"}

    @rule_keywords(Config)
    def __init__(
        self, *, render_mode: str | None = None, max_cycles: int | None = None, **options: Any
    ):
        super().__init__(Engine(**options), render_mode, max_cycles)

    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: the view from above plus his hand."""
        return render_hand(self.game_state, self.agent_name_mapping[agent])
