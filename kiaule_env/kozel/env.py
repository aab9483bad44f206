"""The Kozel AEC environment: thin glue between the engine (``rules``) and the encoders."""

from __future__ import annotations

from typing import Any, ClassVar

from kiaule_env.core.aec import TurnBasedCardEnv
from kiaule_env.core.options import rule_keywords
from kiaule_env.kozel import rules
from kiaule_env.kozel.display import card_symbols, render_table
from kiaule_env.kozel.engine import Engine
from kiaule_env.kozel.rules import Config


class KozelEnv(TurnBasedCardEnv):
    """Kozel (Goat), RULES §1: see :mod:`kiaule_env.kozel_v0` for the documentation."""

    metadata: ClassVar[dict[str, Any]] = {**TurnBasedCardEnv.metadata, "name": "kozel_v0"}

    @rule_keywords(Config)
    def __init__(
        self, *, render_mode: str | None = None, max_cycles: int | None = None, **options: Any
    ):
        super().__init__(Engine(**options), render_mode, max_cycles)

    # ------------------------------------------------------------------ extras
    def render_view(self, agent: str) -> str:
        """The table as ``agent`` sees it: the view from above plus his hand and memory."""
        seat = self.agent_name_mapping[agent]
        v = rules.view(self.game_state, seat)
        lines = [render_table(self.game_state), f"You are {agent} (team {seat % 2})."]
        lines.append("Your hand: " + (card_symbols(v.hand) or "(empty)"))
        if v.my_discards:
            lines.append("Your face-down discards this game: " + card_symbols(v.my_discards))
        for s in range(4):
            if s != seat and (v.known[s] or v.maybe[s]):
                parts = []
                if v.known[s]:
                    parts.append(f"holds {card_symbols(v.known[s])}")
                if v.maybe[s]:
                    parts.append(f"holds or discarded {card_symbols(v.maybe[s])}")
                lines.append(f"Known: player_{s} " + "; ".join(parts))
        return "\n".join(lines)
