"""Pig's engine under the shared contract (:mod:`kiaule_env.core.engine`), RULES §3.

Pig is the simultaneous-move game: ``to_act`` is every seat still in, and ``apply`` takes one
action per such seat (one passing step, P2). The rules live in :mod:`kiaule_env.pig.rules`,
which speaks in engine moves (ranks, ``NOSE``, ``WAIT``); this class speaks in the codec's
action indices. Chance (reaction orders, P3; later rounds of a full game, P5) is drawn from the
generator the episode was started with, which the state carries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kiaule_env.core.engine import HIDDEN_CARD, RulesEngine
from kiaule_env.core.frames import Table
from kiaule_env.core.options import shuffled_texts
from kiaule_env.pig import rules, sampling
from kiaule_env.pig.display import frame_table, render_table
from kiaule_env.pig.encoding import ActionCodec, ObservationEncoder, state_encoder
from kiaule_env.pig.rules import OVER, WAIT, Config, State


class Engine(RulesEngine):
    """Pig for one :class:`~kiaule_env.pig.rules.Config` (keywords as the env's)."""

    rules = rules
    simultaneous = True
    option_keys = frozenset({"deck", "decks"})

    def __init__(self, **options: Any):
        config = Config(**options)
        encoders = ObservationEncoder(config), ActionCodec(config), state_encoder(config)
        self._build(config, *encoders, rules.starting_deck(config))
        self._to_action = self.codec.to_action

    # ------------------------------------------------------------------ episode
    def new_episode(self, rng: np.random.Generator, options: Mapping[str, Any]) -> State:
        state = rules.new_game(self.config, rng, rules.parse_decks(self.config, options))
        state.rng = rng
        return state

    def random_deal(self, rng: np.random.Generator) -> dict[str, Any]:
        """P1 deck (the top n ranks, or 52 cards with a stock); P5 one per round of a full game.

        A full game has at most ``(n − 1) × lives`` deciding rounds; capped rounds (P4) add
        more, so the list is twice that. Pig draws reaction orders from the episode's generator
        during play, so rounds beyond the list would not repeat across a deal's games: the list
        must cover them.
        """
        config = self.config
        deck = self.deck
        if not config.full:
            return {"deck": shuffled_texts(deck, rng)}
        lives = 3 if config.letters else 1
        rounds = 2 * (config.num_players - 1) * lives + 4
        return {"decks": [shuffled_texts(deck, rng) for _ in range(rounds)]}

    def card_locations(self, state: State) -> dict[str, tuple[int, ...]]:
        """Each hand as its sorted ranks (suits never matter in Pig, P1), the stock (P6) and
        the discard pile in order."""
        places = {f"hand {s}": tuple(sorted(c % 13 for c in h)) for s, h in enumerate(state.hands)}
        places["stock"] = tuple(state.stock)
        places["discard"] = tuple(state.discard)
        return places

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.phase == OVER else tuple(state.seats_in)

    def legal_actions(self, state: State, seat: int) -> Sequence[int]:
        if state.phase == OVER or seat not in state.seats_in:
            return ()
        to_action = self._to_action
        return tuple(to_action(m) for m in rules.legal_moves(state, seat))

    def apply(self, state: State, actions: Sequence[int]) -> Sequence[float]:
        moves = [WAIT] * self.num_players
        to_move = self.codec.to_move
        for seat, action in zip(state.seats_in, actions, strict=True):
            moves[seat] = to_move(action)
        report = rules.apply(state, moves, state.rng, validate=False)
        state.step_info = (
            None if report.round_result is None else {"round_result": report.round_result}
        )
        return report.rewards

    def is_over(self, state: State) -> bool:
        return state.phase == OVER

    # ------------------------------------------------------------------ information

    def action_text(self, state: State, seat: int, action: int) -> str:
        return self.codec.texts[action]

    @staticmethod
    def masked_text(text: str) -> str | None:
        """The card passed is seen by the passer and the receiver only (P2: the receiver finds
        it in his hand, the view's ``last_received``): the others see ``pass ▒``; ``nose`` and
        ``wait`` are public (P3)."""
        return f"pass {HIDDEN_CARD}" if text.startswith("pass ") else None

    def parse_action(self, state: State, seat: int, text: str) -> int:
        return self.codec.parse(text)

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
        """A copy with the cards ``seat`` cannot see (other hands, the stock, the discard
        pile) permuted among their places."""
        new = rules.clone(state)
        places = [new.hands[s] for s in new.seats_in if s != seat] + [new.stock, new.discard]
        cards = [c for place in places for c in place]
        shuffled = [cards[i] for i in rng.permutation(len(cards))]
        start = 0
        for place in places:
            place[:] = shuffled[start : start + len(place)]
            start += len(place)
        return new
