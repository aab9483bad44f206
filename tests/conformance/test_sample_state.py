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
