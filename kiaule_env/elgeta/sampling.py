"""Elgeta determinization (RULES.md "Determinization"): :func:`sample_state` deals the unseen
parts of each pile of one player's :class:`~kiaule_env.elgeta.rules.View` at random.

Search agents reach it through ``Engine.sample_state``; it lives next to the other games'
samplers, apart from the rules.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from kiaule_env.elgeta.rules import Config, State, View, order_from, position_key


def sample_state(state_view: View, config: Config, rng: np.random.Generator) -> State:
    """A full state consistent with ``state_view``: each unseen part shuffled (determinization).

    The position history (E8) of the real game is not part of a view, so the sample's history
    starts at its current trick (recorded only if no card of the trick is on the table yet).
    """
    piles = []
    for unseen, known in zip(state_view.unseen, state_view.known, strict=True):
        top = [unseen[i] for i in rng.permutation(len(unseen))]
        piles.append(deque(top + list(known)))
    on_table = [c for _, c in state_view.trick]
    cards = tuple(sorted([c for p in piles for c in p] + on_table))
    state = State(
        config=config,
        piles=piles,
        unseen=[len(u) for u in state_view.unseen],
        cards_in_play=cards,
        aces=tuple(c for c in cards if c % 13 == 12),
        still_in=list(state_view.still_in),
        leader=state_view.leader,
        trick_cards=on_table,
        trick_seats=[s for s, _ in state_view.trick],
        round_start=state_view.round_start,
        rounds=state_view.rounds,
        tricks=state_view.tricks,
        beggars=list(state_view.beggars),
        last_trick_cards=[c for _, c in state_view.last_trick],
        last_trick_seats=[s for s, _ in state_view.last_trick],
        last_taker=state_view.last_taker,
        over=state_view.over,
    )
    if not state.over:
        if not on_table:
            state.positions.add(position_key(state.leader, state.piles))
        state.queue = order_from(state, state.leader)
        state.queue_pos = len(state.trick_cards) - state.round_start
    return state
