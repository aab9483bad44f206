"""Elgeta observation encoder and action codec.

The observation encodes a :class:`~kiaule_env.elgeta.rules.View` (never the state), with every
per-player part in relative seat order: the observer first, then the players after him
clockwise. Cards are indexed by their compact position in the configured deck
(``Deck.position``), so a 32-card game has 32 columns per card part.

Everything in Elgeta is public except the order of the cards dealt (E2), so all observers see
the same information; only the seat rotation differs. The action space is ``Discrete(1)``:
action 0 is ``play`` (E3), the only move.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from kiaule_env.cards import Deck
from kiaule_env.core.layout import ObservationLayout, Slice, action_table
from kiaule_env.core.state import HiddenSlice, StateEncoder, order_slice, order_values
from kiaule_env.elgeta.rules import PLAY, Config, View

NUM_ACTIONS = 1
PLAY_ACTION = 0


def build_layout(config: Config) -> ObservationLayout:
    """The observation's named slices for ``config`` (documentation is generated from this)."""
    n = config.num_players
    size = config.deck_cards.size
    rel = "relative seats: me, then clockwise"
    return ObservationLayout(
        [
            Slice("pile_sizes", n, f"cards in each player's pile / {size} ({rel})"),
            Slice("still_in", n, f"1 if the player is not a beggar (E5, E7) ({rel})"),
            Slice("to_act", n, f"one-hot: who plays the next card; all 0 when over ({rel})"),
            Slice("leader", n, f"one-hot: who played first in this trick (E3) ({rel})"),
            Slice(
                "unseen",
                n * size,
                f"player-major {n}×{size}: 1 if the card is in the player's unseen top part of "
                "the pile (the dealt cards not yet played: set public by E2, order unknown)",
            ),
            Slice(
                "known_depth",
                n * size,
                f"player-major {n}×{size}: (depth + 1) / {size} for a card known to lie in the "
                "player's pile, depth 0 = top (cards seen going under a pile, E6); 0 otherwise",
            ),
            Slice(
                "trick",
                n * size,
                f"player-major {n}×{size}: 1 if the player put the card into the current trick",
            ),
            Slice("newest_round", size, "1 for the cards of the trick's newest round (E4)"),
            Slice("tie_rounds", 1, f"tie-break rounds so far in this trick / {size} (E4)"),
            Slice("tricks", 1, f"tricks played / max_tricks ({config.max_tricks}, E8)"),
        ]
    )


class ObservationEncoder:
    """Encodes views as flat ``float32`` vectors of :func:`build_layout`'s layout.

    The hot path is table lookups: for every relative seat and card id the flat index of its
    cell in each per-player part is precomputed, so encoding a view costs a few C-level ``map``
    calls and two numpy scatters.
    """

    def __init__(self, config: Config):
        self.config = config
        self.layout = build_layout(config)
        n = self.num_players = config.num_players
        size = self.deck_size = config.deck_cards.size
        position = [int(p) for p in config.deck_cards.position]
        off = self.layout.offsets

        def cells(part: str) -> list[list[int]]:
            start = off[part].start
            return [[start + rel * size + p for p in position] for rel in range(n)]

        self._unseen = cells("unseen")
        self._known = cells("known_depth")
        self._trick = cells("trick")
        self._newest = [off["newest_round"].start + p for p in position]
        #: (depth + 1) / size for depth 0..size
        self._depth = [d / size for d in range(size + 2)]
        self._pile_sizes = off["pile_sizes"].start
        self._still_in = off["still_in"].start
        self._to_act = off["to_act"].start
        self._leader = off["leader"].start
        self._tie_rounds = off["tie_rounds"].start
        self._tricks = off["tricks"].start
        #: seats in relative order for each observer: me, then clockwise
        self._order = [[(me + k) % n for k in range(n)] for me in range(n)]

    def encode(self, view: View) -> np.ndarray:
        """The observation vector of ``view`` (its ``seat`` is the observer)."""
        n, size = self.num_players, self.deck_size
        obs = self.layout.new()
        me = view.seat
        ones: list[int] = []  # indices set to 1.0
        depth_index: list[int] = []
        depth_value: list[float] = []
        order = self._order[me]
        start = self._pile_sizes
        obs[start : start + n] = [view.pile_sizes[seat] for seat in order]
        for rel, seat in enumerate(order):
            if view.still_in[seat]:
                ones.append(self._still_in + rel)
            unseen = view.unseen[seat]
            ones.extend(map(self._unseen[rel].__getitem__, unseen))
            known = view.known[seat]
            if known:
                depth_index.extend(map(self._known[rel].__getitem__, known))
                first = len(unseen) + 1
                depth_value.extend(self._depth[first : first + len(known)])
        if view.to_act >= 0:
            ones.append(self._to_act + (view.to_act - me) % n)
        ones.append(self._leader + (view.leader - me) % n)
        for i, (seat, card) in enumerate(view.trick):
            ones.append(self._trick[(seat - me) % n][card])
            if i >= view.round_start:
                ones.append(self._newest[card])
        obs[ones] = 1.0
        if depth_index:
            obs[depth_index] = depth_value
        obs[start : start + n] /= size
        obs[self._tie_rounds] = (view.rounds - 1) / size
        obs[self._tricks] = view.tricks / self.config.max_tricks
        return obs


def move_text(action: int) -> str:
    """Text of an action index (only ``0`` = ``play``)."""
    if action != PLAY_ACTION:
        raise ValueError(f"action {action!r} is outside Discrete({NUM_ACTIONS}); 0 is 'play'")
    return PLAY


def actions_markdown() -> str:
    """The action table (Markdown)."""
    return action_table([("0", "`play`: put the top card of your pile face up on the table (E3)")])


class ActionCodec:
    """``Discrete(1)``: action 0 is ``play`` (E3), the only move there is."""

    num_actions = NUM_ACTIONS
    texts: tuple[str, ...] = (PLAY,)

    def __init__(self, config: Config | None = None):
        self.config = config

    def text(self, action: int) -> str:
        return move_text(action)

    def parse(self, text: str) -> int:
        """Action index of a move text (case-insensitive); ``ValueError`` for anything else."""
        if text.strip().lower() != PLAY:
            raise ValueError(f"unknown move {text!r}; the only move in Elgeta is 'play' (E3)")
        return PLAY_ACTION

    def mask(self, actions: list[int]) -> np.ndarray:
        """``int8`` mask of the action indices ``actions``."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[list(actions)] = 1
        return mask

    def markdown_table(self) -> str:
        return actions_markdown()


def state_encoder(config: Config) -> StateEncoder:
    """The global state encoder (:mod:`kiaule_env.core.state`): every seat's observation, then
    each seat's pile in its face-down order (E2, E3), top first."""
    deck = config.deck_cards

    def pile(seat: int) -> HiddenSlice:
        return HiddenSlice(
            order_slice(f"pile_{seat}", deck, f"the pile of `player_{seat}`, top first (E3)"),
            partial(_pile_order, seat=seat, deck=deck),
        )

    return StateEncoder(
        config.num_players, build_layout(config), [pile(s) for s in range(config.num_players)]
    )


def _pile_order(state: Any, seat: int, deck: Deck) -> np.ndarray:
    """The pile of ``seat``, top first (picklable, unlike a lambda)."""
    return order_values(state.piles[seat], deck)
