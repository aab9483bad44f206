"""The global state (``state()``, ``state_space``) of every game and variant: PettingZoo's
``state_test``, and what the state must hold (who acts, every observation, the hidden order)."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from kiaule_env.cards import get_deck
from kiaule_env.core.options import NotResetError
from kiaule_env.core.state import order_values
from tests.conformance.conftest import variants

#: PettingZoo's state_test module (imported as a module: its test_* functions are not collected)
pz_state = importlib.import_module("pettingzoo.test.state_test")


def quietly(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@variants()
def test_pettingzoo_state_test(game, options):
    """``pettingzoo.test.state_test``; the AEC games have no ``parallel_env``, so they run its
    two AEC parts (``test_state_space``, ``test_state``)."""
    if game.parallel:
        quietly(pz_state.state_test, game.env(**options), game.load().parallel_env(**options), 50)
    else:
        env = game.env(**options)
        quietly(pz_state.test_state_space, env)
        quietly(pz_state.test_state, env, 50)


@variants(default_only=True)
def test_state_before_reset_raises(game, options):
    envs = [game.env(), game.raw_env()]
    if game.parallel:
        envs.append(game.load().parallel_env())
    for env in envs:
        with pytest.raises(NotResetError, match=r"state\(\) called before reset"):
            env.state()


def _masked_steps(env, seed: int, steps: int):
    """Yield after reset and after every step of a masked random AEC episode."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    yield
    for _ in range(steps):
        if not env.agents:
            return
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        yield


@variants()
def test_state_holds_who_acts_and_every_observation(game, options):
    env = game.raw_env(**options)
    raw = env.unwrapped
    encoder = raw.engine.state_encoder
    layout = raw.state_layout
    for _ in _masked_steps(env, 3, 300):
        state = env.state()
        assert state.dtype == np.float32 and state.shape == raw.state_space.shape
        assert raw.state_space.contains(state)
        to_act = layout.part(state, "to_act")
        assert list(np.flatnonzero(to_act)) == list(raw.engine.to_act(raw.game_state))
        for seat, agent in enumerate(raw.possible_agents):
            if agent not in env.agents or (game.parallel and env.terminations[agent]):
                continue  # Pig: a player who left keeps his last observation (D13)
            np.testing.assert_array_equal(
                encoder.observation_of(state, seat), raw.observe(agent)["observation"]
            )


@variants()
def test_state_sees_what_no_seat_sees(game, options):
    """Redealing the cards one seat cannot see changes the state (unless nothing moved): a state
    made of that seat's observation, or of the observations alone without the face-down order,
    fails here for the games with face-down cards."""
    engine = game.make_engine(**options)
    rng = np.random.default_rng(7)
    for seed in range(5):
        state = engine.new_episode(np.random.default_rng(seed), {})
        for seat in range(engine.num_players):
            other = engine.resample_hidden(state, seat, rng)
            same_cards = engine.card_locations(other) == engine.card_locations(state)
            assert same_cards or not np.array_equal(
                engine.encode_state(other), engine.encode_state(state)
            ), f"seed {seed}, seat {seat}: the state misses hidden cards"


@variants(default_only=True)
def test_card_locations_hold_every_card_of_the_deal(game, options):
    """``card_locations`` (the contract) names every card of a fresh deal exactly once, as far
    as the game tells cards apart; a redeal of another seat's hidden cards moves some."""
    engine = game.make_engine(**options)
    state = engine.new_episode(np.random.default_rng(11), {})
    places = engine.card_locations(state)
    assert places and all(isinstance(k, str) for k in places)
    held = sorted(c for cards in places.values() for c in cards)
    assert len(held) == engine.deck.size  # the default options deal the whole deck
    moved = False
    rng = np.random.default_rng(3)
    for _ in range(5):
        other = engine.resample_hidden(state, 0, rng)
        assert sorted(c for cards in engine.card_locations(other).values() for c in cards) == held
        moved |= engine.card_locations(other) != places
    assert moved, f"{game.name}: resampling seat 0's hidden cards never moved a card"


def test_order_values_round_trip_and_errors():
    deck = get_deck("36")
    pile = [deck.cards[5], deck.cards[0], deck.cards[35]]
    values = order_values(pile, deck)
    order = sorted(np.flatnonzero(values), key=lambda i: values[i])
    assert [deck.cards[i] for i in order] == pile
    assert values[5] == pytest.approx(1 / 36) and values[35] == pytest.approx(3 / 36)
    missing = next(c for c in range(54) if c not in deck)
    with pytest.raises(ValueError, match="not in the 36-card deck"):
        order_values([missing], deck)


def test_kozel_state_has_the_stock_order():
    from kiaule_env import GAMES
    from kiaule_env.kozel.rules import DECK

    engine = GAMES["kozel"].make_engine()
    state = engine.new_episode(np.random.default_rng(0), {})
    vector = engine.encode_state(state)
    np.testing.assert_array_equal(
        engine.state_layout.part(vector, "stock_order"),
        order_values(state.stock[state.stock_pos :], DECK),
    )


def test_pig_aec_state_is_the_parallel_state():
    from kiaule_env import pig_v0

    env = pig_v0.raw_env(num_players=4, stock=True)
    env.reset(seed=1)
    np.testing.assert_array_equal(env.state(), env.unwrapped.parallel.state())
    assert env.state_space == env.unwrapped.parallel.state_space
    assert "stock_order" in env.state_layout.offsets


def test_state_observation_of_refuses_bad_input():
    from kiaule_env import GAMES

    encoder = GAMES["pig"].make_engine().state_encoder
    with pytest.raises(ValueError, match="the layout needs"):
        encoder.observation_of(np.zeros(3, np.float32), 0)
    with pytest.raises(ValueError, match="out of range"):
        encoder.observation_of(encoder.layout.new(), 9)
