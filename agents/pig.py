"""``pig/heuristic``: a rule-based Pig player (issue 6).

It reads only the :class:`~agents.base.Decision` (the player's view and legal moves). Its rules:

1. **Nose at once** when allowed: with four of a kind in hand, or during the race until it has
   touched (P3; ``token`` likewise, P8). It never makes a false touch, even where
   ``false_nose="pig"`` would let it. Once touched it waits.
2. Otherwise **keep the rank held most** and pass a card of another rank (P2). Ties for the rank
   to keep go to the rank others are least likely to be collecting, judged from this round's
   passing memory: cards of a rank received from the right were not wanted there, cards of a
   rank passed to the left did not come back (score = received − passed, higher is better to
   keep); then to the higher rank.
3. The card passed is of the rank held least among the others (single cards first); ties go to
   the lowest score (the rank others seem to be collecting: the least promising to keep), then
   to the lower rank.
"""

from __future__ import annotations

from agents.base import Decision, check_view
from agents.registry import register
from kiaule_env.cards import RANKS
from kiaule_env.pig.rules import RACE, PigView, has_four


class PigHeuristic:
    """The rule-based Pig agent described in the module docstring; deterministic."""

    def __init__(self, seed: int | None = 0):
        self.name = "pig/heuristic"
        self.seed = seed  # the rules need no chance: the same decision gives the same action

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        check_view(decision, PigView, self.name)
        view: PigView = decision.view
        by_text = {text: action for action, text in decision.legal_moves.items()}
        if not by_text:
            raise ValueError(f"{decision.agent} has no legal move to choose from")
        nose = by_text.get(view.nose_word)
        if nose is not None and (view.phase == RACE or has_four(view.hand)):
            return nose  # rule 1 (never a false touch)
        if "wait" in by_text:
            return by_text["wait"]
        rank = self.rank_to_pass(view)
        return by_text[f"pass {RANKS[rank]}"]

    @staticmethod
    def rank_to_pass(view: PigView) -> int:
        """Rules 2 and 3: the rank index of the card to pass."""
        counts = view.hand_counts
        held = [r for r in range(13) if counts[r]]
        score = [view.received_counts[r] - view.passed_counts[r] for r in range(13)]
        keep = max(held, key=lambda r: (counts[r], score[r], r))
        others = [r for r in held if r != keep]
        if not others:  # only with four of a kind and no nose offered: pass one of them
            return keep
        return min(others, key=lambda r: (counts[r], score[r], r))


register("pig/heuristic", lambda seed=0: PigHeuristic(seed))
