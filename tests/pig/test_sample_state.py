"""Pig determinization (``sampling.sample_state``) keeps the passing memory consistent (P2, P6):
what the observer's neighbours recorded of the cards that passed between them and him is his
own record, and every player's memory fits one history that leads to the sampled hands."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import GAMES, pig_v0
from kiaule_env.pig import rules


def _pinned_by_the_observer(sampled: rules.State, view: rules.PigView) -> None:
    """P2: the left neighbour received what the observer passed, the right neighbour passed what
    he received (P6: unless the stock and discard pile stand in between)."""
    seat = view.seat
    left, right = rules.left_of(sampled, seat), rules.right_of(sampled, seat)
    stock = sampled.config.stock
    if not (stock and left == sampled.dealer):
        assert sampled.received_counts[left] == list(view.passed_counts)
        assert sampled.last_received[left] == view.last_passed
    if not (stock and seat == sampled.dealer):
        assert sampled.passed_counts[right] == list(view.received_counts)
        assert sampled.last_passed[right] == view.last_received


def test_P2_report_position_left_neighbour_received_what_the_observer_passed():
    """``pig_v0.parallel_env()`` reset with seed 1300391901, 8 passing steps, observer
    ``player_1``: the sample gave his left neighbour 8 received cards of one rank."""
    rng = np.random.default_rng(0)
    checked = 0
    for policy in range(10):
        env = pig_v0.parallel_env()
        obs, _ = env.reset(seed=1300391901)
        moves = np.random.default_rng(policy)
        for _ in range(8):
            if not env.agents:
                break
            actions = {
                a: int(moves.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents
            }
            obs, *_ = env.step(actions)
        state = env.unwrapped.game_state
        if state.passes != 8:
            continue  # somebody touched his nose before the eighth pass
        engine = env.unwrapped.engine
        view = engine.view(state, 1)
        assert sum(view.passed_counts) == 8
        for _ in range(20):
            sampled = engine.sample_state(view, rng)
            assert engine.view(sampled, 1) == view
            _pinned_by_the_observer(sampled, view)
            engine.check_invariants(sampled)
        checked += 1
    assert checked >= 5


VARIANTS = [
    {"num_players": 4},
    {"num_players": 3},
    {"num_players": 4, "stock": True},
    {"num_players": 3, "stock": True},
    {"num_players": 12, "stock": True},
    {"num_players": 5, "game": "full"},
    {"num_players": 4, "tokens": True},
]


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items())
)
def test_P2_sampled_passing_memories_fit_the_view_and_one_history(options):
    """Many positions, every seat (players who left included): the sample has the observer's
    view, its neighbours' records match his, and ``check_invariants`` accepts every player's
    memory (received = right neighbour's passed, last card received still held, a real dealt
    hand); the true states pass the same checks."""
    engine = GAMES["pig"].make_engine(**options)
    rng = np.random.default_rng(1)
    positions = 0
    for episode in range(4):
        state = engine.new_episode(np.random.default_rng(episode), {})
        for _ in range(30):
            actions = [
                int(rng.choice(engine.legal_actions(state, s))) for s in engine.to_act(state)
            ]
            engine.apply(state, actions)
            if engine.is_over(state):
                break
            engine.check_invariants(state)
            positions += 1
            for seat in range(engine.num_players):
                view = engine.view(state, seat)
                sampled = engine.sample_state(view, rng)
                assert engine.view(sampled, seat) == view
                engine.check_invariants(sampled)
                if seat in state.seats_in and view.passes:
                    _pinned_by_the_observer(sampled, view)
    assert positions >= 20


def _passed_state() -> rules.State:
    engine = GAMES["pig"].make_engine(num_players=4)
    state = engine.new_episode(np.random.default_rng(2), {})
    for _ in range(3):
        engine.apply(state, [engine.legal_actions(state, s)[0] for s in engine.to_act(state)])
    assert state.passes == 3 and state.phase == rules.PASSING
    rules.check_invariants(state)
    return state


def test_P2_invariants_reject_a_memory_no_history_fits():
    state = _passed_state()
    ranks = state.ranks
    got = state.received_counts[1]
    moved = next(r for r in ranks if got[r])
    other = next(r for r in ranks if r != moved)
    got[moved] -= 1
    got[other] += 1  # sums still match passes, but player_0 did not pass that
    with pytest.raises(AssertionError, match="received other cards"):
        rules.check_invariants(state)
    state = _passed_state()  # player_1 says he got a card now with player_3
    state.last_received[1] = state.last_passed[0] = state.hands[3][0]
    with pytest.raises(AssertionError, match="last received card moved"):
        rules.check_invariants(state)
    state = _passed_state()  # received and passed agree, but player_1 got a rank he never had
    dealt = [
        sum(c % 13 == r for c in state.hands[1])
        + state.passed_counts[1][r]
        - state.received_counts[1][r]
        for r in range(13)
    ]
    new = next(r for r in ranks if dealt[r] == 0)
    old = next(r for r in ranks if r != new and state.passed_counts[0][r])
    for counts in (state.passed_counts[0], state.received_counts[1]):
        counts[old] -= 1
        counts[new] += 1
    with pytest.raises(AssertionError, match="fits no dealt hand"):
        rules.check_invariants(state)
