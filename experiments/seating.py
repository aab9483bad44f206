"""What a human at the table needs, in the terminal (:mod:`experiments.play`) or the browser
(:mod:`experiments.web_play`): the table as a seat sees it, the agents at the other seats, and
the way out of a game. Apart from both so that neither imports the other's module back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import agents as agent_registry


class QuitGame(Exception):
    """The human ended the game (``quit`` or end of input)."""


def table_renderer(env: Any) -> Callable[[str], str]:
    """``agent -> text``: the table as that seat sees it (the env's ``render_view`` where the
    game has it, else the table from above plus the seat's hand)."""
    raw = env.unwrapped if hasattr(env, "unwrapped") else env
    if hasattr(raw, "render_view"):
        return raw.render_view

    def table(agent: str) -> str:
        text = raw.render()
        hand = getattr(raw.view(agent), "hand", None)
        if hand is not None:
            text += f"\nYour hand: {_hand_text(hand)}"
        return text

    return table


def _hand_text(hand: Any) -> str:
    from kiaule_env.cards import NUM_CARD_IDS, card_symbol

    items = list(hand)
    if all(isinstance(c, int) and 0 <= c < NUM_CARD_IDS for c in items):
        return " ".join(card_symbol(c) for c in items) or "(empty)"
    return str(hand)


def opponent_agents(
    game: str, seat: int, num_players: int, names: Sequence[str], seed: int
) -> dict[int, Any]:
    """{seat: agent} for every seat but the human's: one registry name for all of them, or one
    per other seat in seat order; ``ValueError`` names a wrong count or another game's agent."""
    others = [s for s in range(num_players) if s != seat]
    if len(names) == 1:
        names = list(names) * len(others)
    if len(names) != len(others):
        raise ValueError(f"give one opponent name, or {len(others)} (one per other seat)")
    bad = [n for n in names if not n.startswith(f"{game}/")]
    if bad:
        raise ValueError(
            f"opponents must be {game} agents; got {', '.join(bad)}; "
            f"known: {', '.join(agent_registry.list_agents(game))}"
        )
    return {s: agent_registry.make(n, seed=seed + s) for s, n in zip(others, names, strict=True)}
