"""Kozel cards and move numbers (RULES.md §1, K2, K5, K6, K8): the tables and pure functions
over cards that the rules (:mod:`kiaule_env.kozel.rules`) build on; no game state here.

A move is a small int (0 … :data:`NUM_MOVES` − 1), the same number as the env's action:
``kind * 15 + mask - 1`` for a lead, beat or discard, where bit ``i`` of ``mask`` (1–15) selects
the ``i``-th card of the mover's sorted hand (:func:`sort_hand`), and :data:`CLAIM` /
:data:`DECLINE` for the molodka window (K8).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from kiaule_env.cards import CARD_POINTS, KOZEL_ORDER, get_deck
from kiaule_env.cards import rank_strength_table as _rank_strength_table

DECK = get_deck("36", allowed=("36",))
HAND_SIZE = 4

# ---------------------------------------------------------------------------------------- moves
LEAD, BEAT, DISCARD = 0, 1, 2  # kinds of card moves (K5, K6)
KIND_WORDS = ("lead", "beat", "discard")
CLAIM = 45  # K8
DECLINE = 46
NUM_MOVES = 47

# ---------------------------------------------------------------------------------------- tables
SUIT: list[int] = [c // 13 if c < 52 else -1 for c in range(54)]
STRENGTH: list[int] = _rank_strength_table(KOZEL_ORDER).tolist()  # K2
POINTS: list[int] = CARD_POINTS.tolist()  # K11
SORT_KEY: list[int] = [SUIT[c] * 16 + STRENGTH[c] for c in range(54)]


def _beats(a: int, b: int, trump: int) -> bool:
    """K6: ``a`` beats ``b``: same suit and higher (K2), or a trump against a non-trump."""
    if SUIT[a] == SUIT[b]:
        return STRENGTH[a] > STRENGTH[b]
    return SUIT[a] == trump


#: BEATEN_BY[trump][a]: bitmask over card ids of the cards that ``a`` beats.
BEATEN_BY: list[list[int]] = [
    [sum(1 << b for b in DECK.cards if _beats(a, b, t)) if a in DECK else 0 for a in range(54)]
    for t in range(4)
]

#: MASK_POSITIONS[mask]: the hand positions a subset mask selects, ascending.
MASK_POSITIONS: list[tuple[int, ...]] = [
    tuple(i for i in range(HAND_SIZE) if m >> i & 1) for m in range(1 << HAND_SIZE)
]
#: MASKS[h][n]: the masks of n cards out of a hand of h, ascending.
MASKS: list[list[list[int]]] = [
    [[m for m in range(1, 1 << h) if m.bit_count() == n] for n in range(HAND_SIZE + 1)]
    for h in range(HAND_SIZE + 1)
]
_DISCARDS: list[list[list[int]]] = [
    [[DISCARD * 15 + m - 1 for m in MASKS[h][n]] for n in range(HAND_SIZE + 1)]
    for h in range(HAND_SIZE + 1)
]
_PERMS: list[list[tuple[int, ...]]] = [
    list(itertools.permutations(range(n))) for n in range(HAND_SIZE + 1)
]
_PERFECT: dict[tuple[int, ...], bool] = {}


def _perfect(adjacency: tuple[int, ...]) -> bool:
    """Whether cards with these bitmasks of beatable targets 0..n-1 can pair off (K6)."""
    known = _PERFECT.get(adjacency)
    if known is None:
        known = any(
            all(a >> t & 1 for a, t in zip(adjacency, perm, strict=True))
            for perm in _PERMS[len(adjacency)]
        )
        _PERFECT[adjacency] = known
    return known


def _lead_codes(suits: tuple[int, ...]) -> list[int]:
    """K5: every non-empty same-suit subset of a hand whose cards have these suits."""
    codes = []
    for mask in range(1, 1 << len(suits)):
        if len({suits[i] for i in MASK_POSITIONS[mask]}) == 1:
            codes.append(LEAD * 15 + mask - 1)
    return codes


_LEADS: dict[tuple[int, ...], list[int]] = {}


def kind_of(move: int) -> int:
    """LEAD, BEAT or DISCARD of a card move; CLAIM or DECLINE for those."""
    return move // 15 if move < CLAIM else move


def move_mask(move: int) -> int:
    """The hand-subset mask (1–15) of a card move."""
    return move % 15 + 1


def move_code(kind: int, mask: int) -> int:
    """The move number of a card move ``kind`` with hand-subset ``mask`` (1–15)."""
    return kind * 15 + mask - 1


def move_cards(hand: Sequence[int], move: int) -> tuple[int, ...]:
    """The cards of ``hand`` (sorted) that card move ``move`` plays; ``()`` for claim/decline."""
    if move >= CLAIM:
        return ()
    return tuple(hand[i] for i in MASK_POSITIONS[move % 15 + 1])


def sort_hand(cards: Sequence[int]) -> list[int]:
    """A hand in canonical order: suit C D H S, then rank low to high in the K2 order."""
    return sorted(cards, key=SORT_KEY.__getitem__)


def lead_moves(hand: Sequence[int]) -> list[int]:
    """K5: the leads of a sorted ``hand``: every non-empty same-suit subset, ascending."""
    suits = tuple([SUIT[c] for c in hand])
    codes = _LEADS.get(suits)
    if codes is None:
        codes = _LEADS[suits] = _lead_codes(suits)
    return codes[:]


def respond_moves(
    hand: Sequence[int], n: int, winning: Sequence[int], trump: int, may_beat: bool = True
) -> list[int]:
    """K6: the answers of a sorted ``hand`` to ``winning`` (``n`` cards): the beats that pair
    off against it (none when ``may_beat`` is False), then every discard; ascending."""
    h = len(hand)
    discards = _DISCARDS[h][n]
    if not may_beat:
        return discards[:]
    beaten_by = BEATEN_BY[trump]
    if n == 1:
        target = winning[0]
        beats = [BEAT * 15 + (1 << i) - 1 for i, c in enumerate(hand) if beaten_by[c] >> target & 1]
        return beats + discards
    adjacency = [0] * h
    for i, c in enumerate(hand):
        bits = beaten_by[c]
        a = 0
        for j, w in enumerate(winning):
            if bits >> w & 1:
                a |= 1 << j
        adjacency[i] = a
    beats = []
    for mask in MASKS[h][n]:
        adj = tuple([adjacency[i] for i in MASK_POSITIONS[mask]])
        if all(adj) and _perfect(adj):
            beats.append(BEAT * 15 + mask - 1)
    return beats + discards


def can_beat(cards: Sequence[int], winning: Sequence[int], trump: int) -> bool:
    """K6: whether ``cards`` pair off one-to-one against ``winning``, each beating its partner."""
    if len(cards) != len(winning):
        return False
    beaten_by = BEATEN_BY[trump]
    adj = tuple(sum(1 << j for j, w in enumerate(winning) if beaten_by[c] >> w & 1) for c in cards)
    return all(adj) and _perfect(adj)
