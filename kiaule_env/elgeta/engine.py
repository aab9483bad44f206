"""Elgeta's engine under the shared contract (:mod:`kiaule_env.core.engine`), RULES §4.

Elgeta has no decisions after the deal: the only action is ``play`` (0). One step is one player
putting one card on the table (E3). The rules live in :mod:`kiaule_env.elgeta.rules`, which also
has the whole-game fast path :func:`~kiaule_env.elgeta.rules.simulate` for studies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kiaule_env.cards import CARD_TEXTS
from kiaule_env.core.engine import RulesEngine
from kiaule_env.core.frames import Table
from kiaule_env.elgeta import rules, sampling
from kiaule_env.elgeta.display import frame_table, render_table
from kiaule_env.elgeta.encoding import (
    PLAY_ACTION,
    ActionCodec,
    ObservationEncoder,
    state_encoder,
)
from kiaule_env.elgeta.rules import NOBODY, Config, State

#: the legal actions whenever someone is to act: only ``play`` (E3)
_LEGAL: tuple[int, ...] = (PLAY_ACTION,)


class Engine(RulesEngine):
    """Elgeta for one :class:`~kiaule_env.elgeta.rules.Config` (keywords as the env's)."""

    rules = rules
    simultaneous = False
    #: ``piles``: a stacked deal (RULES §0, E2)
    option_keys = frozenset({"piles"})

    def __init__(self, **options: Any):
        config = Config(**options)
        encoders = ObservationEncoder(config), ActionCodec(config), state_encoder(config)
        self._build(config, *encoders, config.deck_cards)

    # ------------------------------------------------------------------ episode
    def new_episode(self, rng: np.random.Generator, options: Mapping[str, Any]) -> State:
        return rules.new_deal(self.config, rng, options.get("piles"))

    def random_deal(self, rng: np.random.Generator) -> dict[str, Any]:
        """E2 piles: one suit (or colour) per seat, each shuffled; three players leave out a
        suit."""
        piles = rules.deal_piles(self.config, rng)
        return {"piles": [[CARD_TEXTS[c] for c in pile] for pile in piles]}

    def card_locations(self, state: State) -> dict[str, tuple[int, ...]]:
        """Each seat's pile, top first (E2), and the cards on the table in play order (E3)."""
        places = {f"pile {s}": tuple(p) for s, p in enumerate(state.piles)}
        places["table"] = tuple(state.trick_cards)
        return places

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.over else (state.queue[state.queue_pos],)

    def legal_actions(self, state: State, seat: int) -> Sequence[int]:
        if state.over or seat != state.queue[state.queue_pos]:
            return ()
        return _LEGAL

    def apply(self, state: State, actions: Sequence[int]) -> Sequence[float]:
        rules.apply(state)
        return rules.rewards(state) if state.over else self._no_reward

    def is_over(self, state: State) -> bool:
        return state.over

    def result(self, state: State) -> dict[str, Any]:
        """E9 outcome with agent names."""
        outcome = rules.result(state)
        return {
            "winner": f"player_{outcome.winner}" if outcome.winner != NOBODY else None,
            "tricks": outcome.tricks,
            "cycle": outcome.cycle,
            "capped": outcome.capped,
            "beggars": [f"player_{s}" for s in outcome.beggars],
            "all_aces": outcome.all_aces,
            "cards": list(outcome.cards),
        }

    def step_info(self, state: State) -> dict[str, Any] | None:
        return None

    # ------------------------------------------------------------------ information

    def action_text(self, state: State, seat: int, action: int) -> str:
        return self.codec.text(action)

    def parse_action(self, state: State, seat: int, text: str) -> int:
        return self.codec.parse(text)

    def render(self, state: State) -> str:
        return render_table(state)

    def table(self, state: State) -> Table:
        """The table as the omniscient onlooker sees it (``render_mode="rgb_array"``)."""
        return frame_table(state, self.result(state) if state.over else None)

    def sample_state(self, view: Any, rng: np.random.Generator) -> State:
        """A state drawn exactly uniformly from those consistent with ``view`` (the contract's
        determinization; ``sampling.sample_state`` says what is fixed and what is sampled)."""
        return sampling.sample_state(view, self.config, rng)

    def resample_hidden(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """A copy with the unseen top part of every pile in another order (what nobody
        knows)."""
        other = rules.clone(state)
        for s, count in enumerate(other.unseen):
            pile = list(other.piles[s])
            top = pile[:count]
            for _ in range(10):
                order = [top[i] for i in rng.permutation(count)]
                if order != top or count < 2:
                    break
            other.piles[s] = type(other.piles[s])(order + pile[count:])
        return other
