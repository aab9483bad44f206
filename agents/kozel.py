"""``kozel/heuristic``: a rule-based Kozel player.

It reads only the :class:`~agents.base.Decision`'s ``view`` and ``legal_moves`` (whose keys are
the engine's move numbers), never the env state, and needs no observation vector, so it also runs
on the play loop's fast path (:func:`kiaule_env.core.play.play_episode`), which computes only
what a player reads. Rules:

1. **Lead** one low card from the longest non-trump suit (keep trumps; trumps only when nothing
   else is left).
2. **Never beat the partner's winning set**; discard the most points onto it (keeping trumps).
3. Against an opponent's set, **beat only when the trick is worth it, as cheaply as possible**
   (fewest trumps, then the lowest ranks): a plain (non-trump) beat when the trick shows at
   least ``worth_plain`` points (default 3) or when playing last (nobody can overbeat); a beat
   that costs trumps when it shows at least ``worth_trump`` points. The default ``worth_trump=0``
   spends a trump whenever the opponents hold the trick, since the trick also wins the lead and
   the first draw (K9); it did better than higher thresholds (docs/agents.md).
4. Otherwise **discard blanks** onto the opponents' trick: fewest points, no trumps, lowest ranks.
5. **Claim a molodka** when it should win the trick's points: four trumps always; four of another
   suit holding its ace (only an opponent's trumps can beat all four) when the trick is worth it
   (its points plus the molodka's at least ``worth_plain``).

Deterministic: the seed is accepted for the registry's protocol but there is no chance.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.base import Decision, check_view
from agents.registry import register
from kiaule_env.kozel import rules
from kiaule_env.kozel.rules import (
    BEAT,
    CLAIM,
    DECLINE,
    DISCARD,
    LEAD,
    MASK_POSITIONS,
    PHASE_CLAIM,
    PHASE_LEAD,
    POINTS,
    STRENGTH,
    SUIT,
    View,
)

_ACE_STRENGTH = STRENGTH[rules.parse_card("AS")]


class KozelHeuristic:
    """The rule-based Kozel agent described in the module docstring."""

    def __init__(self, seed: int | None = 0, worth_plain: int = 3, worth_trump: int = 0):
        self.name = "kozel/heuristic"
        self.seed = seed
        self.worth_plain = worth_plain
        self.worth_trump = worth_trump

    def reset(self) -> None:
        pass

    def act(self, decision: Decision) -> int:
        check_view(decision, View, self.name)
        return self.choose(decision.view, list(decision.legal_moves))

    # ------------------------------------------------------------------ decisions
    def choose(self, v: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if v.phase == PHASE_CLAIM:
            return CLAIM if self._claim_pays(v) else DECLINE
        if v.phase == PHASE_LEAD:
            return self._lead(v, legal)
        return self._respond(v, legal)

    def _lead(self, v: View, legal: Sequence[int]) -> int:
        """Rule 1: the lowest card of the longest non-trump suit."""
        hand, trump = v.hand, v.trump
        lengths = [0, 0, 0, 0]
        for c in hand:
            lengths[SUIT[c]] += 1
        best_key, best = None, legal[0]
        for i, c in enumerate(hand):
            suit = SUIT[c]
            key = (suit == trump, -lengths[suit], STRENGTH[c], POINTS[c])
            if best_key is None or key < best_key:
                best_key, best = key, rules.move_code(LEAD, 1 << i)
        return best

    def _respond(self, v: View, legal: Sequence[int]) -> int:
        hand, trump = v.hand, v.trump
        beats = [m for m in legal if m // 15 == BEAT]
        discards = [m for m in legal if m // 15 == DISCARD]
        if v.winner == (v.seat + 2) & 3:  # rule 2
            return max(discards, key=lambda m: _discard_gain(hand, m, trump))
        if beats:  # rule 3
            cheapest = min(beats, key=lambda m: _beat_cost(hand, m, trump))
            trumps = sum(SUIT[hand[i]] == trump for i in MASK_POSITIONS[cheapest % 15 + 1])
            stake = 0
            for _, _, cards in v.trick:
                for c in cards:
                    stake += POINTS[c]
            last = len(v.trick) == 3
            if trumps:
                if stake >= self.worth_trump:
                    return cheapest
            elif stake >= self.worth_plain or last:
                return cheapest
        return min(discards, key=lambda m: _discard_loss(hand, m, trump))  # rule 4

    def _claim_pays(self, v: View) -> bool:
        """Rule 5."""
        hand = v.hand
        suit = SUIT[hand[0]]
        if suit == v.trump:
            return True
        if STRENGTH[hand[-1]] != _ACE_STRENGTH:
            return False
        stake = sum(POINTS[c] for _, _, cards in v.trick for c in cards)
        return stake + sum(POINTS[c] for c in hand) >= self.worth_plain


def _beat_cost(hand: Sequence[int], move: int, trump: int) -> tuple[int, int]:
    """Trumps spent, then the ranks spent: the price of a beat (rule 3)."""
    trumps = rank = 0
    for i in MASK_POSITIONS[move % 15 + 1]:
        c = hand[i]
        trumps += SUIT[c] == trump
        rank += STRENGTH[c]
    return trumps, rank


def _discard_gain(hand: Sequence[int], move: int, trump: int) -> tuple[int, int, int]:
    """Points given to the partner's trick, keeping trumps and high ranks (rule 2)."""
    points = trumps = rank = 0
    for i in MASK_POSITIONS[move % 15 + 1]:
        c = hand[i]
        points += POINTS[c]
        trumps += SUIT[c] == trump
        rank += STRENGTH[c]
    return points, -trumps, -rank


def _discard_loss(hand: Sequence[int], move: int, trump: int) -> tuple[int, int, int]:
    """Points given away, then trumps and ranks given up (rule 4)."""
    points = trumps = rank = 0
    for i in MASK_POSITIONS[move % 15 + 1]:
        c = hand[i]
        points += POINTS[c]
        trumps += SUIT[c] == trump
        rank += STRENGTH[c]
    return points, trumps, rank


register(
    "kozel/heuristic",
    lambda seed=0, **kwargs: KozelHeuristic(seed=seed, **kwargs),
    options={"worth_plain": int, "worth_trump": int},
)
