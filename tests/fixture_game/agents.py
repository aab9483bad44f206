"""``highcard/heuristic``: the fixture game's rule-based agent, named by its descriptor
(``agents_module``) because the game lives outside the ``agents`` package.

It reads only the :class:`~agents.base.Decision`'s view. Leading, it plays its highest card;
following, it takes the trick with the lowest card that beats the lead (H5), else throws its
lowest card. It beats a random player clearly (``tests/fixture_game/test_agents.py``).
"""

from __future__ import annotations

from agents.base import Decision, check_view
from agents.registry import register
from kiaule_env.cards import suit_index
from tests.fixture_game.highcard.encoding import CODEC
from tests.fixture_game.highcard.rules import View


class HighCardHeuristic:
    """Lead high; follow with the cheapest winner, else the lowest card."""

    def __init__(self, seed: int | None = 0):
        self.name = "highcard/heuristic"
        self.seed = seed  # unused: the agent is deterministic

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        check_view(decision, View, self.name)
        legal = [CODEC.card(int(a)) for a in decision.legal_moves]
        if not legal:
            raise ValueError(f"{decision.agent} is asked to act but has no legal move")
        return CODEC.action(self.choose(decision.view, legal))

    @staticmethod
    def choose(view: View, legal: list[int]) -> int:
        """The card to play (card ids compare by rank within a suit)."""
        if not view.trick:
            return max(legal, key=lambda c: (c % 13, c))
        lead = view.trick[0][1]
        winners = [c for c in legal if suit_index(c) == suit_index(lead) and c > lead]
        if winners:
            return min(winners)
        return min(legal, key=lambda c: (c % 13, c))


register("highcard/heuristic", lambda seed=0: HighCardHeuristic(seed))
