"""Kozel's engine under the shared contract (:mod:`kiaule_env.core.engine`), RULES §1.

Thin: the rules live in :mod:`kiaule_env.kozel.rules`; this class gives them the contract's
names (actions are the codec's ``Discrete(47)`` indices, which are the engine's move codes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kiaule_env.core.engine import HIDDEN_CARD, RulesEngine
from kiaule_env.core.frames import Table
from kiaule_env.core.options import decks_option, stacked_decks
from kiaule_env.kozel import rules, sampling
from kiaule_env.kozel.display import frame_table, render_table
from kiaule_env.kozel.encoding import CODEC, ENCODER, state_encoder
from kiaule_env.kozel.rules import DECK, NUM_PLAYERS, PHASE_OVER, Config, State

#: stacked decks a tournament deal gives a series (later games are shuffled from the seed)
SERIES_DECKS = 16


class Engine(RulesEngine):
    """Kozel for one :class:`~kiaule_env.kozel.rules.Config` (keywords as the env's)."""

    rules = rules
    simultaneous = False
    option_keys = frozenset({"deck", "decks"})

    def __init__(self, **options: Any):
        config = Config(**options)
        self._build(config, ENCODER, CODEC, state_encoder(config), DECK)  # K1: four players

    # ------------------------------------------------------------------ episode
    def new_episode(self, rng: np.random.Generator, options: Mapping[str, Any]) -> State:
        decks = stacked_decks(options, DECK, multi_deal=self.config.series)  # K3, K14
        return rules.new_deal(self.config, rng, decks)

    def random_deal(self, rng: np.random.Generator) -> dict[str, Any]:
        """K3 deck (36 cards, top first); K14 one deck per game of a series."""
        return decks_option(DECK, rng, SERIES_DECKS if self.config.series else 1)

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.to_act < 0 else (state.to_act,)

    def legal_actions(self, state: State, seat: int) -> Sequence[int]:
        return rules.legal_moves(state) if seat == state.to_act else ()

    def apply(self, state: State, actions: Sequence[int]) -> Sequence[float]:
        deltas = rules.apply(state, actions[0])
        if deltas is None:  # K15: rewards come only with the end of a game
            state.step_info = None
            return self._no_reward
        state.step_info = {"game_result": state.finished_games[-1]}
        return deltas

    def is_over(self, state: State) -> bool:
        return state.phase == PHASE_OVER

    def card_locations(self, state: State) -> dict[str, tuple[int, ...]]:
        """Each hand (sorted), the game's stock in dealing order (K3) and each team's taken
        pile in order (K10)."""
        places = {f"hand {s}": tuple(sorted(h)) for s, h in enumerate(state.hands)}
        places["stock"] = tuple(state.stock)
        places.update({f"pile {t}": tuple(p) for t, p in enumerate(state.piles)})
        return places

    # ------------------------------------------------------------------ information

    def observe(self, state: State, seat: int) -> np.ndarray:
        return ENCODER.encode(rules.view(state, seat))

    def action_text(self, state: State, seat: int, action: int) -> str:
        return CODEC.text(state.hands[seat], action)

    @staticmethod
    def masked_text(text: str) -> str | None:
        """A discard is face down (K6): the others see how many cards, not which
        (``discard ▒ ▒``); every other move is public."""
        word, _, cards = text.partition(" ")
        if word != "discard":
            return None
        return " ".join([word, *(HIDDEN_CARD for _ in cards.split())])

    def parse_action(self, state: State, seat: int, text: str) -> int:
        if seat != state.to_act:
            raise ValueError(f"player_{seat} is not to act")
        return rules.parse_move(state, text)

    def render(self, state: State) -> str:
        return render_table(state)

    def table(self, state: State) -> Table:
        """The table as the omniscient onlooker sees it (``render_mode="rgb_array"``)."""
        return frame_table(state)

    def sample_state(self, view: Any, rng: np.random.Generator) -> State:
        """A state drawn exactly uniformly from those consistent with ``view`` (the contract's
        determinization; ``sampling.sample_state`` says what is fixed and what is sampled)."""
        return sampling.sample_state(view, self.config, rng)

    def resample_hidden(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """A copy with the cards ``seat`` cannot locate shuffled among their places.

        Hidden places: other players' hands, the stock, other players' face-down discards
        (current trick and taken piles). Fixed: public knowledge (the indicator while in the
        stock or tied to its drawer, K4; cards returned by a claim, K8), everything face up,
        the observer's own cards and discards.
        """
        public = set(state.seen)
        for s in range(NUM_PLAYERS):
            public |= set(state.known[s]) | set(state.maybe[s])
        public.add(state.indicator)
        hidden = []
        for s in range(NUM_PLAYERS):
            if s != seat:
                hidden += [c for c in state.hands[s] if c not in public]
                hidden += [c for c in state.discards[s] if c not in public]
        hidden += [c for c in state.stock[state.stock_pos :] if c not in public]
        image = dict(zip(hidden, [hidden[i] for i in rng.permutation(len(hidden))], strict=True))

        def sub(cards: Sequence[int]) -> list[int]:
            return [image.get(c, c) for c in cards]

        new = rules.clone(state)
        for s in range(NUM_PLAYERS):
            if s != seat:
                new.hands[s] = rules.sort_hand(sub(new.hands[s]))
                new.discards[s] = sub(new.discards[s])
        new.stock = new.stock[: new.stock_pos] + sub(new.stock[new.stock_pos :])
        new.piles = [sub(p) for p in new.piles]
        new.trick = [
            (s, kind, tuple(sub(cards)) if kind == rules.DISCARD and s != seat else cards)
            for s, kind, cards in new.trick
        ]
        new.points = [sum(rules.POINTS[c] for c in p) for p in new.piles]
        return new
