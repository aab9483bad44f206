"""Public card counting in Kiauliaganys (RULES §2): what any player can work out from his view.

Shared by the rule-based agent (``agents/kiauliaganys.py``) and the observation encoder's
``counting`` slices, so that learned agents see the same derived quantities the heuristic reasons
with, without having to extract them from the raw card slices. Everything here reads a
:class:`~kiaule_env.kiauliaganys.rules.View` only: nothing a player may not know.

- :func:`unseen_counts`: per suit, the cards the viewer has not seen (face-down or hidden in
  other hands);
- :func:`match_chances`: per suit, the probability that a given player holds a card of that suit
  or a joker (a face-up card proves it; ``not_suit`` from failed searches, G4, rules cards out);
- :func:`expected_search`: the expected number of cards a search for a suit picks up (G4).
"""

from __future__ import annotations

from kiaule_env.cards import NUM_SUITED
from kiaule_env.kiauliaganys.rules import View


def unseen_counts(view: View) -> tuple[list[int], int, int]:
    """Per suit, the cards ``view.seat`` has not seen (face-down or in other hands, unseen);
    the number of unseen suited cards and of unseen jokers."""
    seen = set(view.hand) | set(view.fund)
    for cards in view.face_up:
        seen.update(cards)
    per_suit = [0, 0, 0, 0]
    jokers = 0
    for card in view.config.the_deck.cards:
        if card not in seen:
            if card >= NUM_SUITED:
                jokers += 1
            else:
                per_suit[card // 13] += 1
    return per_suit, sum(per_suit), jokers


def match_chances(
    view: View, seat: int, unseen: tuple[list[int], int, int] | None = None
) -> list[float]:
    """Per suit, the probability that ``seat`` holds a card of it or a joker (public counting).

    His hidden cards are taken as a uniform draw from the unseen suited cards, except that the
    ``not_suit`` cards known not to be of a suit (G4) cannot be; a face-up card of the suit or a
    joker makes it certain. ``unseen`` is :func:`unseen_counts` of ``view`` when the caller has it.
    """
    per_suit, total, _ = unseen_counts(view) if unseen is None else unseen
    face_up = view.face_up[seat]
    if any(c >= NUM_SUITED for c in face_up):
        return [1.0] * 4
    hidden = view.hand_sizes[seat] - len(face_up)
    chances = []
    for suit in range(4):
        if any(c < NUM_SUITED and c // 13 == suit for c in face_up):
            chances.append(1.0)
            continue
        free = max(0, hidden - view.not_suit[seat][suit])  # his unseen cards that may be this suit
        others = total - per_suit[suit]
        none = 1.0  # hypergeometric: none of `free` random unseen cards is of this suit
        for i in range(free):
            if others - i <= 0:
                none = 0.0
                break
            none *= (others - i) / (total - i)
        chances.append(1.0 - none)
    return chances


def expected_search(
    view: View, suit: int, unseen: tuple[list[int], int, int] | None = None
) -> float:
    """Expected cards picked up by a search for ``suit`` among the face-down cards."""
    per_suit, total, jokers = unseen_counts(view) if unseen is None else unseen
    pool = total + jokers
    if view.face_down == 0 or pool == 0:
        return 0.0
    matching = view.face_down * (per_suit[suit] + jokers) / pool
    return (view.face_down - matching) / (matching + 1.0)
