"""Helpers for Kozel scenario tests: stacked decks (K3) and hand-built end positions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kiaule_env.cards import CARD_TEXTS, parse_card
from kiaule_env.kozel import rules
from kiaule_env.kozel.rules import DECK, Config, State


def stacked(
    hands: Sequence[Sequence[str]],
    stock: Sequence[str] = (),
    indicator: str | None = None,
    dealer: int = 3,
) -> list[str]:
    """A 36-card deck (texts, top first) dealing ``hands[seat]`` per K3.

    Positions 0–15 go one at a time clockwise from the dealer's left, so ``hands[seat][r]`` is
    position ``4 r + (seat - dealer - 1) % 4``. The stock (positions 16–35) starts with ``stock``,
    has ``indicator`` at stock index 10 (deck position 26, K4) and is filled up with the unused
    cards in canonical order.
    """
    deck: list[int | None] = [None] * DECK.size
    for seat, cards in enumerate(hands):
        assert len(cards) == 4, f"seat {seat} needs 4 cards"
        for r, text in enumerate(cards):
            deck[4 * r + (seat - dealer - 1) % 4] = parse_card(text)
    for i, text in enumerate(stock):
        deck[16 + i] = parse_card(text)
    if indicator is not None:
        assert deck[26] is None or deck[26] == parse_card(indicator)
        deck[26] = parse_card(indicator)
    used = {c for c in deck if c is not None}
    assert len(used) == sum(c is not None for c in deck), "a card is stacked twice"
    rest = iter(c for c in DECK.cards if c not in used)
    return [CARD_TEXTS[c if c is not None else next(rest)] for c in deck]


def new_state(deck: Sequence[str], **options) -> State:
    """Game 0 of an episode on a stacked deck (a seeded generator for later deals)."""
    config = Config(**options)
    return rules.new_deal(config, np.random.default_rng(0), [DECK.parse_permutation(deck)])


def set_endgame(
    state: State,
    hands: Sequence[Sequence[str]],
    piles: Sequence[Sequence[str]],
    tricks: Sequence[int],
    leader: int,
) -> State:
    """Rearrange the current game of ``state`` into a position near its end (K10).

    The stock is empty; ``hands[seat]`` are the cards left (equal counts), ``piles[team]`` every
    other card, all face up, in ``tricks[team]`` tricks; ``leader`` is to lead. The trump stays.
    Series fields (loss points, eggs streak, game index) are kept.
    """
    hand_cards = [rules.sort_hand([parse_card(t) for t in h]) for h in hands]
    pile_cards = [[parse_card(t) for t in p] for p in piles]
    everything = sorted([c for h in hand_cards for c in h] + [c for p in pile_cards for c in p])
    assert everything == sorted(DECK.cards), "hands and piles must hold all 36 cards once"
    state.hands = hand_cards
    state.stock_pos = len(state.stock)
    state.piles = pile_cards
    state.points = [sum(rules.POINTS[c] for c in p) for p in pile_cards]
    state.points_seen = state.points[:]
    state.seen = [c for p in pile_cards for c in p]
    if state.indicator not in state.seen:  # the indicator was drawn and is still held
        holder = next(s for s, h in enumerate(hand_cards) if state.indicator in h)
        state.known = [[state.indicator] if s == holder else [] for s in range(4)]
    else:
        state.known = [[], [], [], []]
    state.maybe = [[], [], [], []]
    state.discards = [[], [], [], []]
    state.discard_points = [[0, 0], [0, 0], [0, 0], [0, 0]]
    state.tricks = list(tricks)
    state.trick = []
    state.n_cards = 0
    state.winner = -1
    state.winning = ()
    state.claimed = False
    state.claim_queue = []
    state.declined = []
    state.phase = rules.PHASE_LEAD
    state.to_act = state.leader = state.first_leader = leader
    rules.check_invariants(state)
    return state


def texts(cards: Sequence[int]) -> list[str]:
    return [CARD_TEXTS[c] for c in cards]


def legal_texts(state: State) -> set[str]:
    return {rules.move_text(state, m) for m in rules.legal_moves(state)}
