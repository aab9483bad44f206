"""``Engine.sample_state(view, rng)`` in every game and variant: the sampled state is one the
seat could be in (same view, observation and mask), the engine can play it (invariants, random
play to the end), and it is a fresh episode (no stacked decks, no step info).

Positions come from seeded random play; every seat of a position is sampled. At least
``POSITIONS`` positions per game are checked (spread over its option variants).
"""

from __future__ import annotations

import numpy as np
import pytest

from kiaule_env import GAMES

POSITIONS = 1000  # per game, all variants together
PLAY_ON_STEPS = 150  # a cap for the random play of a sampled state (the games have their own)


def _random_step(engine, state, rng: np.random.Generator) -> None:
    actions = [int(rng.choice(engine.legal_actions(state, s))) for s in engine.to_act(state)]
    engine.apply(state, actions)


def _check(engine, state, seat: int, rng: np.random.Generator, play_on: bool) -> None:
    view = engine.view(state, seat)
    sampled = engine.sample_state(view, rng)
    assert engine.view(sampled, seat) == view, f"seat {seat}: the sampled view differs"
    assert np.array_equal(engine.observe(sampled, seat), engine.observe(state, seat))
    assert tuple(engine.legal_actions(sampled, seat)) == tuple(engine.legal_actions(state, seat))
    assert engine.to_act(sampled) == engine.to_act(state)
    assert engine.step_info(sampled) is None
    assert not getattr(sampled, "decks", None)
    engine.check_invariants(sampled)
    if play_on:
        copy = engine.clone(sampled)
        for _ in range(PLAY_ON_STEPS):
            if engine.is_over(copy):
                break
            _random_step(engine, copy, rng)
            engine.check_invariants(copy)


@pytest.mark.parametrize("name", list(GAMES))
def test_sample_state_is_consistent_and_playable(name):
    game = GAMES[name]
    variants = [dict(v) for v in game.variants]
    per_variant = -(-POSITIONS // len(variants))
    rng = np.random.default_rng(15)
    checked = 0
    for options in variants:
        engine = game.make_engine(**options)
        done = 0
        episode = 0
        while done < per_variant:
            state = engine.new_episode(np.random.default_rng(1000 + episode), {})
            episode += 1
            # positions spread over the whole game: a random stride between checks
            while not engine.is_over(state) and done < per_variant:
                for _ in range(int(rng.integers(1, 12))):
                    if engine.is_over(state):
                        break
                    _random_step(engine, state, rng)
                if engine.is_over(state):
                    break
                for seat in range(engine.num_players):
                    _check(engine, state, seat, rng, play_on=seat == done % engine.num_players)
                done += 1
        checked += done
    assert checked >= POSITIONS


@pytest.mark.parametrize(("molodka", "declines"), [("trumps", 1), ("any", 2)])
def test_kozel_sample_state_at_a_window_asking_every_hidden_seat(molodka, declines):
    """K8: a claim window that asks two (trumps) or three (any) seats is met by about one
    uniform deal in 10**7 or fewer; the sampler must still draw it, for every seat."""
    from kiaule_env.kozel import rules
    from tests.kozel.stacking import new_state, stacked
    from tests.kozel.test_sample_state import TWO_MOLODKAS

    engine = GAMES["kozel"].make_engine(molodka=molodka)
    state = new_state(stacked(TWO_MOLODKAS, indicator="AH"), molodka=molodka)
    engine.apply(state, [engine.legal_actions(state, 0)[0]])  # lead 6C
    for _ in range(declines):
        engine.apply(state, [engine.legal_actions(state, state.to_act)[-1]])  # decline
    assert engine.to_act(state) == (3,) and state.phase == rules.PHASE_CLAIM
    rng = np.random.default_rng(16)
    for seat in range(engine.num_players):
        _check(engine, state, seat, rng, play_on=True)
