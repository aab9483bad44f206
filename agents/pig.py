"""``pig/heuristic``: a rule-based Pig player.

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

Option ``ties`` (``pig/heuristic:ties=random``): ``"rank"`` (default) settles the last ties of
rules 2 and 3 by rank, as above; ``"random"`` draws among the tied ranks uniformly from the
agent's seeded generator instead. Pig's passing is simultaneous, and a deterministic rule there
is predictable: four rank-tied heuristics often pass the same cards round the table until the P4
``max_passes`` cap (about a quarter of their rounds), and a player who breaks such ties at
random wins more rounds than one who does not (``agents/zoo/README.md`` measures it).
:meth:`PigHeuristic.act_with_policy` gives the exact distribution of the moves under random
ties: the soft targets of an imitation warm start (:mod:`agents.training.distill`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.base import Decision, check_view
from agents.registry import register
from kiaule_env.cards import RANKS
from kiaule_env.pig.rules import RACE, PigView, has_four

TIES = ("rank", "random")


class PigHeuristic:
    """The rule-based Pig agent described in the module docstring: deterministic with
    ``ties="rank"``, seeded random tie-breaks with ``ties="random"``."""

    def __init__(self, seed: int | None = 0, ties: str = "rank"):
        if ties not in TIES:
            raise ValueError(f"pig/heuristic: ties must be one of {', '.join(TIES)}, got {ties!r}")
        self.name = "pig/heuristic"
        self.seed = seed
        self.ties = ties
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        return self.act_with_policy(decision)[0]

    def act_with_policy(self, decision: Decision) -> tuple[int, dict[int, float]]:
        """The move played and the distribution it was drawn from (one-hot unless random
        tie-breaks had a choice)."""
        check_view(decision, PigView, self.name)
        view: PigView = decision.view
        by_text = {text: action for action, text in decision.legal_moves.items()}
        if not by_text:
            raise ValueError(f"{decision.agent} has no legal move to choose from")
        nose = by_text.get(view.nose_word)
        if nose is not None and (view.phase == RACE or has_four(view.hand)):
            return nose, {nose: 1.0}  # rule 1 (never a false touch)
        if "wait" in by_text:
            return by_text["wait"], {by_text["wait"]: 1.0}
        shares = self.pass_distribution(view)
        policy = {by_text[f"pass {RANKS[r]}"]: p for r, p in shares.items()}
        if len(shares) == 1:
            rank = next(iter(shares))
        else:
            ranks = sorted(shares)
            rank = ranks[int(self.rng.choice(len(ranks), p=[shares[r] for r in ranks]))]
        return by_text[f"pass {RANKS[rank]}"], policy

    def pass_distribution(self, view: PigView) -> dict[int, float]:
        """Rules 2 and 3: ``{rank index: probability}`` of the card passed (one rank with
        ``ties="rank"``; with ``ties="random"``, each tied rank to keep is equally likely and so
        is each tied rank to pass given the kept one)."""
        if self.ties == "rank":
            return {self.rank_to_pass(view): 1.0}
        counts, score = _counts_and_scores(view)
        held = [r for r in range(13) if counts[r]]
        shares: dict[int, float] = {}
        keeps = _best(held, lambda r: (counts[r], score[r]), max)
        for keep in keeps:
            others = [r for r in held if r != keep] or [keep]
            passes = _best(others, lambda r: (counts[r], score[r]), min)
            for rank in passes:
                shares[rank] = shares.get(rank, 0.0) + 1.0 / (len(keeps) * len(passes))
        return shares

    @staticmethod
    def rank_to_pass(view: PigView) -> int:
        """Rules 2 and 3 with rank tie-breaks: the rank index of the card to pass."""
        counts, score = _counts_and_scores(view)
        held = [r for r in range(13) if counts[r]]
        keep = max(held, key=lambda r: (counts[r], score[r], r))
        others = [r for r in held if r != keep]
        if not others:  # only with four of a kind and no nose offered: pass one of them
            return keep
        return min(others, key=lambda r: (counts[r], score[r], r))


def _counts_and_scores(view: PigView) -> tuple[tuple[int, ...], list[int]]:
    """Cards held per rank, and each rank's score (received − passed, rule 2)."""
    score = [view.received_counts[r] - view.passed_counts[r] for r in range(13)]
    return view.hand_counts, score


def _best(ranks: list[int], key: Callable[[int], tuple[int, int]], pick: Callable) -> list[int]:
    """The ranks whose ``key`` is the ``pick`` (max or min) of all: the tied best."""
    best = pick(key(r) for r in ranks)
    return [r for r in ranks if key(r) == best]


register(
    "pig/heuristic",
    lambda seed=0, ties="rank": PigHeuristic(seed, ties),
    options={"ties": str},
)
