"""The Kiauliaganys PettingZoo AEC env: thin glue between the engine and the encoders.

See :mod:`kiaule_env.kiauliaganys_v0` for the documentation page.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.options import rule_keywords
from kiaule_env.kiauliaganys import rules
from kiaule_env.kiauliaganys.display import render_table
from kiaule_env.kiauliaganys.engine import Engine


class KiauliaganysEnv(TurnBasedCardEnv):
    """Kiauliaganys (Swineherd) for 2–6 players, RULES §2. Every decision is one agent step
    (G7a): a turn is a match step (``play``/``search``/``take``) and, after a match, a drag step.
    Players who are out stay in ``agents`` until the episode ends."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "kiauliaganys_v0"}

    @rule_keywords(rules.Config)
    def __init__(
        self, *, render_mode: str | None = None, max_cycles: int | None = None, **options: Any
    ):
        engine = Engine(**options)
        self.encoder = engine.encoder
        self.codec = engine.codec
        super().__init__(engine, render_mode=render_mode, max_cycles=max_cycles)

    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: the table from above plus his own hand."""
        return render_table(self.game_state, self.agent_name_mapping[agent])
