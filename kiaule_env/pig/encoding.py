"""Observation encoder and action codec of Pig (RULES §3).

The observation encodes a :class:`~kiaule_env.pig.rules.PigView` (never the state) as a flat
``float32`` vector built from named slices (:class:`~kiaule_env.core.layout.ObservationLayout`).
Its size is fixed per player count and variant: rank slices cover the ranks of the starting deck
(P1; all 13 with ``stock``, P6), seat slices cover every seat of the starting table *relative to
the observer* (index 0 = me, 1 = my left, …, n−1 = my right), and the variant slices (letters,
stock, tokens) exist only when the variant is on.

The action space is the same for every agent (P4): ``Discrete(R + 2)`` with ``pass R`` for each
rank of the starting deck (low to high), then ``nose`` (``token`` with P8), then ``wait``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

import numpy as np

from kiaule_env.cards import RANKS, Deck
from kiaule_env.core.layout import ObservationLayout, Slice
from kiaule_env.core.layout import action_table as _action_table
from kiaule_env.core.state import HiddenSlice, StateEncoder, order_slice, order_values
from kiaule_env.pig.rules import NOSE, RACE, WAIT, Config, PigView, parse_move, starting_deck


def build_layout(config: Config) -> ObservationLayout:
    """The observation layout of ``config`` (documented in ``pig_v0``'s docstring)."""
    r = len(config.start_ranks)
    n = config.num_players
    ranks = f"{RANKS[config.start_ranks[0]]}..{RANKS[config.start_ranks[-1]]}"
    word = config.nose_word
    touched = "taken a token" if config.tokens else "touched his nose"
    slices = [
        Slice("hand", r, f"my cards per rank ({ranks}, low to high), count / 4"),
        Slice("ranks_in_play", r, "1 for each rank in this round's deck (P5 rank removal)"),
        Slice("last_passed", r, "one-hot rank of the card I passed in the latest passing step"),
        Slice("last_received", r, "one-hot rank of the card I received in the latest passing step"),
        Slice("passed", r, "share of this round's passes in which I passed each rank"),
        Slice("received", r, "share of this round's passes in which I received each rank"),
        Slice(
            "players_in", n, "1 if the player is still in; seats relative to me (0 = me, 1 = left)"
        ),
        Slice("dealer", n, "one-hot dealer of this round, relative seats"),
        Slice("touched", n, f"1 if the player has {touched} this round, relative seats"),
        Slice("race", 1, f"1 once passing has stopped (someone played `{word}`, P3/P8)"),
        Slice("passes", 1, "passing steps this round / max_passes (P4)"),
        Slice("race_steps", 1, "race steps after the first touch / max_race_steps (P3)"),
    ]
    if config.letters:
        slices.append(Slice("letters", n, "letters of P-I-G turned over / 3 (P7), relative seats"))
    if config.stock:
        slices.append(Slice("stock_size", 1, "cards in the stock / 52 (P6)"))
        slices.append(Slice("discard_size", 1, "cards in the discard pile / 52 (P6)"))
    if config.tokens:
        slices.append(Slice("tokens_left", 1, "tokens still in the middle / (n − 1) (P8)"))
    return ObservationLayout(slices)


class ObservationEncoder:
    """Encodes views of one configuration into observation vectors."""

    def __init__(self, config: Config):
        self.config = config
        self.layout = build_layout(config)
        self.size = self.layout.size
        self.num_players = config.num_players
        #: position of each rank index 0..12 in the starting deck's rank list (-1: absent)
        self.rank_pos = [-1] * 13
        for i, rank in enumerate(config.start_ranks):
            self.rank_pos[rank] = i
        self._o = {name: sl.start for name, sl in self.layout.offsets.items()}
        self.letters, self.stock, self.tokens = config.letters, config.stock, config.tokens

    def encode(self, view: PigView) -> np.ndarray:
        """The observation vector of ``view`` (see the layout table).

        Filled as a Python list and converted once: far cheaper than item-wise numpy writes.
        """
        o = self._o
        obs = [0.0] * self.size
        pos = self.rank_pos
        n = self.num_players
        me = view.seat
        hand = o["hand"]
        for card in view.hand:
            obs[hand + pos[card % 13]] += 0.25
        ranks = o["ranks_in_play"]
        for rank in view.ranks:
            obs[ranks + pos[rank]] = 1.0
        if view.passes:
            if view.last_passed >= 0:
                obs[o["last_passed"] + pos[view.last_passed % 13]] = 1.0
            if view.last_received >= 0:
                obs[o["last_received"] + pos[view.last_received % 13]] = 1.0
            share = 1.0 / view.passes
            base_p, base_r = o["passed"], o["received"]
            received = view.received_counts
            for rank, p in enumerate(view.passed_counts):
                if p:
                    obs[base_p + pos[rank]] = p * share
                q = received[rank]
                if q:
                    obs[base_r + pos[rank]] = q * share
        players_in = o["players_in"]
        for seat in view.seats_in:
            obs[players_in + (seat - me) % n] = 1.0
        obs[o["dealer"] + (view.dealer - me) % n] = 1.0
        if view.touched:
            touched = o["touched"]
            for seat in view.touched:
                obs[touched + (seat - me) % n] = 1.0
            if view.phase == RACE:
                obs[o["race"]] = 1.0
        obs[o["passes"]] = view.passes / view.max_passes
        obs[o["race_steps"]] = view.race_steps / view.max_race_steps
        if self.letters:
            letters = o["letters"]
            for seat, k in enumerate(view.letters):
                if k:
                    obs[letters + (seat - me) % n] = k / 3.0
        if self.stock:
            obs[o["stock_size"]] = view.stock_size / 52.0
            obs[o["discard_size"]] = view.discard_size / 52.0
        if self.tokens:
            obs[o["tokens_left"]] = view.tokens_left / (n - 1)
        return np.array(obs, dtype=np.float32)


class ActionCodec:
    """The action codec: ``Discrete(R + 2)`` index ↔ engine move ↔ move text (P4)."""

    def __init__(self, config: Config):
        self.config = config
        self.ranks = config.start_ranks
        self.num_ranks = len(self.ranks)
        self.nose = self.num_ranks
        self.wait = self.num_ranks + 1
        self.num_actions = self.num_ranks + 2
        self._rank_action = [-1] * 13
        for i, rank in enumerate(self.ranks):
            self._rank_action[rank] = i
        self.texts: tuple[str, ...] = (
            *(f"pass {RANKS[r]}" for r in self.ranks),
            config.nose_word,
            "wait",
        )
        self._moves: tuple[int, ...] = (*self.ranks, NOSE, WAIT)

    def to_move(self, action: int) -> int:
        """Engine move of an action index."""
        return self._moves[action]

    def to_action(self, move: int) -> int:
        """Action index of an engine move."""
        if move == NOSE:
            return self.nose
        if move == WAIT:
            return self.wait
        action = self._rank_action[move]
        if action < 0:
            raise ValueError(f"rank {RANKS[move]} is not in this game's deck")
        return action

    def text(self, action: int) -> str:
        return self.texts[action]

    def parse(self, text: str) -> int:
        """Action index of a move text (case-insensitive), ``ValueError`` if malformed."""
        return self.to_action(parse_move(self.config, text))

    def mask(self, actions: Iterable[int]) -> np.ndarray:
        """``int8`` mask of the action indices ``actions``."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[list(actions)] = 1
        return mask

    def markdown_table(self) -> str:
        """Markdown table of the action indices (docs are generated from this)."""
        r = self.num_ranks
        word = self.config.nose_word
        what = "take a token (P8)" if self.config.tokens else "touch the nose (P3)"
        ranks = " ".join(RANKS[x] for x in self.ranks)
        return _action_table(
            [
                (f"0–{r - 1}", f"`pass R`, R = {ranks}: pass that rank, lowest suit first (P2)"),
                (
                    str(r),
                    f"`{word}`: {what}, with four of a kind (any: `false_nose`) or in the race",
                ),
                (str(r + 1), f"`wait`: only in the race (P3); the only move after `{word}`"),
            ]
        )


def state_encoder(config: Config) -> StateEncoder:
    """The global state encoder (:mod:`kiaule_env.core.state`): every seat's observation (every
    hand), then with a stock (P6) the stock's order, top first, and the discard pile's, first
    discarded first (it turns over unshuffled)."""
    hidden = []
    if config.stock:
        deck = starting_deck(config)
        hidden = [
            HiddenSlice(
                order_slice("stock_order", deck, "the stock, top first (P6)"),
                partial(_pile_order, name="stock", deck=deck),
            ),
            HiddenSlice(
                order_slice("discard_order", deck, "the discard pile, first discarded first (P6)"),
                partial(_pile_order, name="discard", deck=deck),
            ),
        ]
    return StateEncoder(config.num_players, build_layout(config), hidden)


def _pile_order(state: Any, name: str, deck: Deck) -> np.ndarray:
    """The stock or the discard pile in order (picklable, unlike a lambda)."""
    return order_values(getattr(state, name), deck)
