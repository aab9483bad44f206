"""Kiauliaganys' engine under the shared contract (:mod:`kiaule_env.core.engine`), RULES §2.

Thin: the rules live in :mod:`kiaule_env.kiauliaganys.rules`, which speaks in
:class:`~kiaule_env.kiauliaganys.rules.Move` s; this class speaks in the codec's action indices.
Every decision is one step (G7a): a match step (``play``/``search``/``take``) and, after a
match, a drag step. In a match (G11) the next deal replaces the finished one in the same state
object, dealt from the state's stacked decks or shuffled from its generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kiaule_env.core.engine import RulesEngine
from kiaule_env.core.frames import Table
from kiaule_env.core.options import decks_option, stacked_decks
from kiaule_env.kiauliaganys import rules, sampling
from kiaule_env.kiauliaganys.display import frame_table, render_table
from kiaule_env.kiauliaganys.encoding import ActionCodec, ObservationEncoder, state_encoder
from kiaule_env.kiauliaganys.rules import OVER, Config, State

#: stacked decks a tournament deal gives a match (later deals are shuffled from the seed)
MATCH_DECKS = 16


class Engine(RulesEngine):
    """Kiauliaganys for one :class:`~kiaule_env.kiauliaganys.rules.Config`."""

    rules = rules
    simultaneous = False
    option_keys = frozenset({"deck", "decks"})

    def __init__(self, **options: Any):
        config = Config(**options)
        encoders = ObservationEncoder(config), ActionCodec(config), state_encoder(config)
        self._build(config, *encoders, config.the_deck)

    # ------------------------------------------------------------------ episode
    def new_episode(self, rng: np.random.Generator, options: Mapping[str, Any]) -> State:
        multi = self.config.match_years is not None
        decks = stacked_decks(options, self.config.the_deck, multi_deal=multi)
        state = rules.new_deal(self.config, rng, decks[0] if decks else None)
        state.decks = decks
        state.rng = rng
        return state

    def random_deal(self, rng: np.random.Generator) -> dict[str, Any]:
        """G2 deck (position 0 the starting card); G11 one deck per deal of a match."""
        deals = MATCH_DECKS if self.config.match_years is not None else 1
        return decks_option(self.config.the_deck, rng, deals)

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.to_act < 0 else (state.to_act,)

    def card_locations(self, state: State) -> dict[str, tuple[int, ...]]:
        """Each hand (sorted), the open fund and the face-down table in order (G2)."""
        places = {f"hand {s}": tuple(sorted(h)) for s, h in enumerate(state.hands)}
        places["fund"] = tuple(state.fund)
        places["face down"] = tuple(state.face_down)
        return places

    def legal_actions(self, state: State, seat: int) -> Sequence[int]:
        if seat != state.to_act:
            return ()
        return self.codec.legal_indices(rules.legal_options(state))

    def apply(self, state: State, actions: Sequence[int]) -> Sequence[float]:
        seat = state.to_act
        move = self.codec.moves[actions[0]]
        rules.apply(state, move, check=False)
        _note(state, seat, move)
        if state.phase != OVER:
            state.step_info = None
            return self._no_reward
        deltas = rules.deal_rewards(state)
        if self.config.match_years is not None:
            state.step_info = {"deal_result": rules.result(state)}
            if not state.match_over:  # G11: the next deal of the match
                _next_deal(state)
        else:
            state.step_info = None
        return deltas

    def is_over(self, state: State) -> bool:
        return state.phase == OVER

    # ------------------------------------------------------------------ information

    def action_text(self, state: State, seat: int, action: int) -> str:
        return self.codec.texts[action]

    def parse_action(self, state: State, seat: int, text: str) -> int:
        move = rules.parse_move(text)
        if move not in self.codec.index_of:
            raise ValueError(f"{text!r} is not a move of this deck")
        return self.codec.index_of[move]

    def render(self, state: State) -> str:
        return render_table(state, None)

    def table(self, state: State) -> Table:
        """The table as the omniscient onlooker sees it (``render_mode="rgb_array"``)."""
        return frame_table(state)

    def sample_state(self, view: rules.View, rng: np.random.Generator) -> State:
        """A state drawn exactly uniformly from those consistent with ``view`` (the contract's
        determinization; ``sampling.sample_state`` says what is fixed and what is sampled)."""
        state = sampling.sample_state(view, rng)
        state.rng = np.random.default_rng(int(rng.integers(2**63)))
        return state

    def resample_hidden(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """A copy with the cards ``seat`` cannot see (the face-down table, the other hands
        except their face-up cards) permuted among their places."""
        permuted = rules.clone(state)
        places: list[tuple[list[int], int]] = [
            (permuted.face_down, i) for i in range(len(permuted.face_down))
        ]
        for s, held in enumerate(permuted.hands):
            if s != seat:
                places += [(held, i) for i, c in enumerate(held) if c not in permuted.face_up[s]]
        cards = [where[i] for where, i in places]
        for (where, i), card in zip(places, rng.permutation(cards), strict=True):
            where[i] = int(card)
        return permuted


def _note(state: State, seat: int, move: rules.Move) -> None:
    """Remember the move for the rendered table (formatted only when rendered)."""
    top = state.fund[-1] if state.fund else -1
    state.recent.append((seat, move, state.last_picked, top, state.phase))
    if len(state.recent) > 8:
        del state.recent[:4]


def _next_deal(state: State) -> None:
    """Replace the finished deal in ``state`` by the next one of the match (G11), in place."""
    index = state.deals
    deck = state.decks[index] if index < len(state.decks) else None
    new = rules.next_deal(state, state.rng, deck)
    new.decks, new.rng, new.step_info, new.recent = (
        state.decks,
        state.rng,
        state.step_info,
        state.recent,
    )
    for name in State.__slots__:
        setattr(state, name, getattr(new, name))
