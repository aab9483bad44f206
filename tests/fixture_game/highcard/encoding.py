"""High card's observation encoder, action codec and global state encoder (H1–H7).

The observation is the seat's :class:`~tests.fixture_game.highcard.rules.View` and nothing else;
card slices have one entry per card of the 12-card deck in its canonical order. Action ``a``
plays the deck's card ``a``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kiaule_env.cards import CARD_TEXTS, parse_card
from kiaule_env.core.layout import ObservationLayout, Slice, action_table
from kiaule_env.core.state import HiddenSlice, StateEncoder, order_slice, order_values
from tests.fixture_game.highcard.rules import DECK, NUM_PLAYERS, Config, State, View

N = DECK.size


def build_layout() -> ObservationLayout:
    """The observation layout (the same for every option)."""
    return ObservationLayout(
        [
            Slice("hand", N, "my cards (1 = in my hand)"),
            Slice("trick", N, "the card the other player led to this trick (H3)"),
            Slice("played", N, "cards of finished tricks (H7: every played card is public)"),
            Slice("other_void", 2, "suits the other player showed he lacks, H S (H7)"),
            Slice("leading", 1, "1 if I lead this trick"),
            Slice("tricks", 2, "tricks taken, me / the other, / hand_size"),
            Slice("hand_size", 1, "cards dealt to each player / 6 (H2)"),
        ]
    )


class Encoder:
    """A :class:`View` → observation vector (:func:`build_layout`)."""

    def __init__(self) -> None:
        self.layout = build_layout()
        self._o = self.layout.offsets

    def encode(self, view: View) -> np.ndarray:
        obs = self.layout.new()
        o = self._o
        for card in view.hand:
            obs[o["hand"].start + int(DECK.position[card])] = 1.0
        for seat, card in view.trick:
            if seat != view.seat:
                obs[o["trick"].start + int(DECK.position[card])] = 1.0
        for card in view.played:
            obs[o["played"].start + int(DECK.position[card])] = 1.0
        for suit in view.voids[1 - view.seat]:
            obs[o["other_void"].start + suit - 2] = 1.0  # suit indices 2 (H), 3 (S)
        obs[o["leading"].start] = float(view.to_act == view.seat and not view.trick)
        obs[o["tricks"].start] = view.tricks[view.seat] / view.hand_size
        obs[o["tricks"].start + 1] = view.tricks[1 - view.seat] / view.hand_size
        obs[o["hand_size"].start] = view.hand_size / 6
        return obs


class Codec:
    """Action ``a`` ↔ ``play <card a of the deck>``; the texts do not depend on the state."""

    num_actions = N
    texts: tuple[str, ...] = tuple(f"play {CARD_TEXTS[c]}" for c in DECK.cards)

    def mask(self, actions: Sequence[int]) -> np.ndarray:
        mask = np.zeros(N, dtype=np.int8)
        mask[list(actions)] = 1
        return mask

    def action(self, card: int) -> int:
        return int(DECK.position[card])

    def card(self, action: int) -> int:
        return DECK.cards[action]

    def parse(self, text: str) -> int:
        """The action of a ``play <card>`` text (any legal or not), ``ValueError`` otherwise."""
        word, _, card = text.strip().partition(" ")
        if word != "play" or parse_card(card.strip()) not in DECK:
            raise ValueError(f"move {text!r} is not 'play <card of the 12-card deck>'")
        return self.action(parse_card(card.strip()))

    def markdown_table(self) -> str:
        rows = [(str(a), f"`{t}`: play that card (H4)") for a, t in enumerate(self.texts)]
        return action_table(rows)


ENCODER = Encoder()
CODEC = Codec()


def _stock_order(state: State) -> np.ndarray:
    """The stock, top first (module level: picklable, unlike a lambda)."""
    return order_values(state.stock, DECK)


def state_encoder(config: Config) -> StateEncoder:
    """Every seat's observation, then the stock's order, which no seat sees (H2, H7)."""
    hidden = HiddenSlice(order_slice("stock_order", DECK, "the undealt stock (H2)"), _stock_order)
    return StateEncoder(NUM_PLAYERS, ENCODER.layout, [hidden])
