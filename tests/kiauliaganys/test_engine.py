"""The Kiauliaganys engine API: cloning, checked moves, determinization."""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import kiauliaganys_v0
from kiaule_env.cards import parse_card
from kiaule_env.kiauliaganys import rules, sampling
from tests.kiauliaganys.helpers import stacked


def test_clone_is_independent_and_complete():
    config = rules.Config(num_players=3)
    deck = [parse_card(t) for t in stacked("7H 2C 9H 5S")]
    state = rules.new_deal(config, np.random.default_rng(0), deck)
    rules.apply(state, rules.parse_move("search"))
    copy = rules.clone(state)
    assert copy == state and copy.hands is not state.hands
    rules.apply(copy, rules.parse_move("drag 2C"))
    assert state.phase == rules.DRAG and state.hands[0] == [parse_card("2C")]
    assert copy.to_act == 1 and state.to_act == 0
    assert rules.view(copy, 0) != rules.view(state, 0)


def test_apply_checks_legality_by_default():
    config = rules.Config()
    state = rules.new_deal(config, np.random.default_rng(0))
    with pytest.raises(ValueError, match="illegal move 'take'; legal moves: search"):
        rules.apply(state, rules.parse_move("take"))
    rules.apply(state, rules.parse_move("search"))
    assert state.phase == rules.DRAG


@pytest.mark.parametrize(("num_players", "deck"), [(2, "36"), (4, "52"), (6, "54")])
def test_sample_state_is_consistent_with_the_view(num_players, deck):
    """Determinization: a sampled state gives the observer the same view, keeps every invariant,
    respects what is public about the other hands, and varies with the generator."""
    env = kiauliaganys_v0.raw_env(num_players=num_players, deck=deck)
    rng = np.random.default_rng(5)
    differ = 0
    for seed in range(6):
        env.reset(seed=seed)
        while not all(env.terminations.values()):
            seat = int(rng.integers(num_players))
            view = env.view(f"player_{seat}")
            sampled = sampling.sample_state(view, rng)
            rules.check_invariants(sampled)
            assert rules.view(sampled, seat) == view
            for other in range(num_players):
                unseen = [c for c in sampled.hands[other] if c not in sampled.face_up[other]]
                assert all(c < 52 for c in unseen) or other == seat
                for suit in range(4):
                    off_suit = sum(1 for c in unseen if c // 13 != suit)
                    assert other == seat or off_suit >= view.not_suit[other][suit]
            differ += sampled.face_down != env.game_state.face_down
            legal = list(env.legal_moves(env.agent_selection))
            env.step(legal[rng.integers(len(legal))])
    assert differ > 0


def test_sample_state_keeps_the_repetition_count_of_the_current_position():
    """G10a in a determinized state: the observer's view (count included) is unchanged, and a
    simulation that comes round to the current position again ends the deal when the env does."""
    from tests.kiauliaganys.helpers import do
    from tests.kiauliaganys.test_rules import CYCLE, _cycle_env

    env = _cycle_env(mover=0, other_extra="7C 7D")
    do(env, *CYCLE)
    view = env.view("player_0")
    assert view.repetitions == 2
    sampled = sampling.sample_state(view, np.random.default_rng(0))
    assert rules.view(sampled, 0) == view
    for text in CYCLE:
        for state in (env.game_state, sampled):
            rules.apply(state, rules.parse_move(text))
    assert (
        sampled.repeated and env.game_state.repeated and sampled.turns == env.game_state.turns == 13
    )
