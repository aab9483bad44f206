"""The Elgeta AEC env: thin glue between the rules engine and the encoders (docs/ARCHITECTURE.md).

One agent step is one player putting one card on the table (``play``, E3); a trick with n
players still in takes n steps, plus n per tie-break round (E4).
"""

from __future__ import annotations

from typing import Any, ClassVar

from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.options import rule_keywords
from kiaule_env.elgeta.display import render_table
from kiaule_env.elgeta.engine import Engine
from kiaule_env.elgeta.rules import Config


class ElgetaEnv(TurnBasedCardEnv):
    """Elgeta (Beggar), RULES §4. See :mod:`kiaule_env.elgeta_v0` for the documentation."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "elgeta_v0"}

    @rule_keywords(Config)
    def __init__(
        self, *, render_mode: str | None = None, max_cycles: int | None = None, **options: Any
    ):
        engine = Engine(**options)
        self.encoder = engine.encoder
        super().__init__(engine, render_mode, max_cycles)

    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: as from above (all is public), his seat marked."""
        return render_table(self.game_state, mark=self.agent_name_mapping[agent])
