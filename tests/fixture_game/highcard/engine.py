"""High card's engine under the shared contract (:mod:`kiaule_env.core.engine`), ``RULES.md``.

Thin: the rules live in :mod:`tests.fixture_game.highcard.rules`; this class gives them the
contract's names (actions are the codec's indices, one per card of the deck).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kiaule_env.core.engine import RulesEngine
from kiaule_env.core.frames import Table
from kiaule_env.core.options import decks_option, stacked_decks
from tests.fixture_game.highcard import rules
from tests.fixture_game.highcard.display import frame_table, render_table
from tests.fixture_game.highcard.encoding import CODEC, ENCODER, state_encoder
from tests.fixture_game.highcard.rules import DECK, NOBODY, Config, State


class Engine(RulesEngine):
    """High card for one :class:`~tests.fixture_game.highcard.rules.Config`."""

    rules = rules
    simultaneous = False
    option_keys = frozenset({"deck", "decks"})

    def __init__(self, **options: Any):
        config = Config(**options)
        self._build(config, ENCODER, CODEC, state_encoder(config), DECK)

    # ------------------------------------------------------------------ episode
    def new_episode(self, rng: np.random.Generator, options: Mapping[str, Any]) -> State:
        decks = stacked_decks(options, DECK, multi_deal=False)  # H2
        return rules.new_deal(self.config, decks[0] if decks else DECK.shuffled(rng))

    def random_deal(self, rng: np.random.Generator) -> dict[str, Any]:
        """H2: one deck, top first."""
        return decks_option(DECK, rng, 1)

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.to_act == NOBODY else (state.to_act,)

    def legal_actions(self, state: State, seat: int) -> Sequence[int]:
        if seat != state.to_act:
            return ()
        return sorted(CODEC.action(c) for c in rules.legal_moves(state))

    def apply(self, state: State, actions: Sequence[int]) -> Sequence[float]:
        deltas = rules.apply(state, CODEC.card(actions[0]))
        if deltas is None:  # H6: rewards come only at the end
            return self._no_reward
        state.step_info = {"game_result": rules.result(state)}
        return deltas

    def is_over(self, state: State) -> bool:
        return rules.is_over(state)

    def card_locations(self, state: State) -> dict[str, tuple[int, ...]]:
        return rules.card_locations(state)

    # ------------------------------------------------------------------ information
    def action_text(self, state: State, seat: int, action: int) -> str:
        return CODEC.texts[action]

    def parse_action(self, state: State, seat: int, text: str) -> int:
        if seat != state.to_act:
            raise ValueError(f"player_{seat} is not to act")
        return CODEC.action(rules.parse_move(state, text))

    def render(self, state: State) -> str:
        return render_table(state)

    def table(self, state: State) -> Table:
        return frame_table(state)

    def sample_state(self, view: Any, rng: np.random.Generator) -> State:
        """A state drawn exactly uniformly from those consistent with ``view`` (H7)."""
        return rules.sample_state(view, self.config, rng)

    def resample_hidden(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """The cards ``seat`` cannot locate (the other hand, the stock) redealt (H7)."""
        new = rules.sample_state(rules.view(state, seat), self.config, rng)
        new.step_info = state.step_info
        return new
